import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// `npm run dist` where Electron's binaries cannot be had: one clear line, exit 1, at once.
const script = fileURLToPath(new URL('./dist.mjs', import.meta.url));
const emptyCache = mkdtempSync(join(tmpdir(), 'evroom-dist-cache-'));

function dist(env: Record<string, string>): { status: number | null; lines: string[]; seconds: number } {
  const started = Date.now();
  // A closed port on this machine: the download host refuses at once, as an unreachable one does.
  const run = spawnSync(process.execPath, [script], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ELECTRON_MIRROR: 'http://127.0.0.1:9/', ELECTRON_CACHE: emptyCache, ...env },
  });
  return { status: run.status, lines: run.stderr.trim().split('\n'), seconds: (Date.now() - started) / 1000 };
}

describe('scripts/dist.mjs', () => {
  afterAll(() => rmSync(emptyCache, { recursive: true, force: true }));

  it('says in one line that the Electron binaries cannot be downloaded, and exits 1 without building', () => {
    const result = dist({});
    expect(result.status).toBe(1);
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]).toMatch(
      /^evroom dist: cannot package: Electron \d+\.\d+\.\d+'s binaries \(electron-v[\d.]+-\w+-\w+\.zip\) are not in .* and 127\.0\.0\.1:9 cannot be reached/,
    );
    expect(result.seconds).toBeLessThan(20);
  });

  it('refuses a time limit that is not a whole number of seconds', () => {
    const result = dist({ EVROOM_DIST_TIMEOUT_SECONDS: 'soon' });
    expect(result.status).toBe(1);
    expect(result.lines).toEqual([
      'evroom dist: EVROOM_DIST_TIMEOUT_SECONDS must be a positive whole number of seconds, not "soon"',
    ]);
  });
});
