import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The service soak's quick mode in every CI run (bench/soak.ts --quick: a few seconds of the
// mixed load over every route, tenant isolation under it, key guessing against the rate
// limit). The 60 s soak is run by hand; its figures are in docs/security.md.

const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('bench/soak.ts --quick', () => {
  it('answers every route without a 5xx, keeps tenants apart under load, and rate-limits key guessing', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'bench/soak.ts', '--quick'], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.on('error', reject);
        child.on('close', (exit) => resolve({ code: exit, stdout: out, stderr: err }));
      },
    );
    const line = stdout.split('\n').find((candidate) => candidate.startsWith('soak result: '));
    expect(line, `${stdout}\n${stderr}`).toBeDefined();
    const result = JSON.parse(line!.slice('soak result: '.length)) as {
      failures: string[];
      '5xx': number;
      requests: number;
      isolationRounds: number;
      rateLimitedAtGuess: number;
      firstAnswers: Record<string, number>;
    };
    expect(result.failures).toEqual([]);
    // The RSS growth and its target are printed (bench/quick.test.ts asks every bench for its targets).
    expect(stdout).toMatch(/growth -?[\d.]+% \(target: under 10%/);
    expect(code).toBe(0);
    expect(result['5xx']).toBe(0);
    expect(result.requests).toBeGreaterThan(50);
    expect(result.isolationRounds).toBeGreaterThan(0);
    expect(result.rateLimitedAtGuess).toBeGreaterThan(0);
    expect(Object.values(result.firstAnswers).every((status) => status < 500)).toBe(true);
  }, 120_000);
});
