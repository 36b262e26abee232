import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// CI runs the anchor bench in its quick mode: it must run, every proof must fold to the root
// with the same root and paths as the reference builder, every log proof must equal tlog.ts's,
// and the compact store's appends must agree with TlogMemory. Speed is not asserted here
// (bench/README.md).
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
      log_mismatches: number;
      log_proofs_checked: number;
      append_mismatches: number;
      append: { appends: number; max_hashes_per_append: number };
      reference_agrees: boolean;
      correct: boolean;
      seconds: Record<string, number | null>;
    };
    expect(result).toMatchObject({
      count: 3001,
      depth: 12,
      mismatches: 0,
      log_mismatches: 0,
      log_proofs_checked: 3001,
      append_mismatches: 0,
      reference_agrees: true,
      correct: true,
    });
    // 20,000 appends past 10,000,000 (0x989680): the deepest, leaf 0x98bfff, completes 14 nodes.
    expect(result.append).toMatchObject({ appends: 20_000, max_hashes_per_append: 15 });
    for (const value of Object.values(result.seconds)) expect(value).toBeGreaterThan(0);
  });
});
