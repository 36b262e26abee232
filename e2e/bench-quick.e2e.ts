import { describe, expect, it } from 'vitest';
import { listBenches, runQuick } from '../bench/quick';

// The quick modes of the benches that drive the built app in Chromium (bench/quick.ts): run
// here, after `npm run build`, so that a bench that no longer runs fails CI. Speed is not
// asserted: only that it runs to the end and prints its targets.
const benches = listBenches().filter((bench) => bench.needsBuild);

describe('the browser benches in quick mode', () => {
  it('finds them', () => {
    expect(benches.map((bench) => bench.name)).toEqual(expect.arrayContaining(['ui.ts', 'verifier.ts']));
  });

  for (const bench of benches) {
    it(`${bench.name} --quick runs and prints its targets`, { timeout: 240_000 }, async () => {
      const run = await runQuick(bench, 230_000);
      expect(run.code, run.output).toBe(0);
      expect(run.output).toMatch(/target/i);
    });
  }
});
