import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The mutation fuzzer's quick mode in every CI run: 10,000 mutations of valid samples of every
// format, a fixed seed (so a failure replays), zero false PASS, zero internal errors, identical
// reports from both crypto providers and one status whichever way the keys came.

const SCRIPT = fileURLToPath(new URL('./fuzz.ts', import.meta.url));
const SEED = 20261123;

describe('bench/fuzz.ts --quick', () => {
  it('finds nothing in 10,000 seeded mutations', () => {
    const result = spawnSync('npx', ['tsx', SCRIPT, '--quick', '--seed', String(SEED)], {
      encoding: 'utf8',
      timeout: 900_000,
    });
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.stdout, output).toContain(`fuzz: seed ${SEED}`);
    expect(result.stdout, output).toMatch(/fuzz: 10000 mutations in /);
    // Every format of the registry is fuzzed but the signed report, which the program alone makes
    // (it has no samples): a format whose valid samples go missing shows here.
    expect(result.stdout, output).toContain('formats without a valid sample, not fuzzed: report\n');
    expect(result.stdout, output).toContain(
      'findings: 0 (false PASS 0, internal 0, differential 0, resolution 0, roles 0',
    );
    expect(result.status, output).toBe(0);
  }, 900_000);

  it('replays one mutation from its seed and index, and refuses an unknown option', () => {
    const replay = spawnSync('npx', ['tsx', SCRIPT, '--seed', String(SEED), '--only', '7'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(replay.stdout).toContain('mutation 7: ');
    expect(replay.status, replay.stderr).toBe(0);
    const again = spawnSync('npx', ['tsx', SCRIPT, '--seed', String(SEED), '--only', '7'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(again.stdout).toBe(replay.stdout);
    const wrong = spawnSync('npx', ['tsx', SCRIPT, '--fast'], { encoding: 'utf8', timeout: 120_000 });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('unknown option --fast');
  }, 300_000);
});
