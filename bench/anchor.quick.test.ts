import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// CI runs the anchor bench in its quick mode: it must run, and every proof must fold to the root
// with the same root and paths as the reference builder. Speed is not asserted here (bench/README.md).
const SCRIPT = fileURLToPath(new URL('./anchor.ts', import.meta.url));

describe('bench/anchor.ts --quick', () => {
  it('builds, proves and verifies a batch, agreeing with anchorTree', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, '--quick', '--json', '--count', '3001'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      count: number;
      depth: number;
      mismatches: number;
      reference_agrees: boolean;
      correct: boolean;
      seconds: Record<string, number | null>;
    };
    expect(result).toMatchObject({ count: 3001, depth: 12, mismatches: 0, reference_agrees: true, correct: true });
    for (const value of Object.values(result.seconds)) expect(value).toBeGreaterThan(0);
  });
});
