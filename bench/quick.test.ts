import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listBenches, runQuick } from './quick';

// Each bench's --quick mode, so that a bench that no longer runs fails CI (bench/quick.ts says
// which run here and which in the browser suite). Speed is not asserted: only that it runs to
// the end and prints its targets.
const benches = listBenches();

describe('the benches in quick mode', () => {
  it('finds the benches by the naming rule', () => {
    const names = benches.map((bench) => bench.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'cli.ts',
        'import.ts',
        'ledger.ts',
        'report.ts',
        'service.ts',
        'ui.ts',
        'verifier.ts',
        'verify.ts',
      ]),
    );
    expect(names).not.toContain('harness.ts');
    expect(benches.filter((bench) => bench.needsBuild).map((bench) => bench.name)).toEqual(
      expect.arrayContaining(['ui.ts', 'verifier.ts']),
    );
  });

  // A bench with a quick test of its own (bench/NAME.quick.test.ts) runs there, with its own
  // checks, and not a second time here.
  const ownTest = (bench: { path: string }): boolean => existsSync(bench.path.replace(/\.ts$/, '.quick.test.ts'));
  for (const bench of benches.filter((candidate) => !candidate.needsBuild && !ownTest(candidate))) {
    it(`${bench.name} --quick runs and prints its targets`, { timeout: 180_000 }, async () => {
      const run = await runQuick(bench, 170_000);
      expect(run.code, run.output).toBe(0);
      expect(run.output).toMatch(/target/i);
    });
  }
});
