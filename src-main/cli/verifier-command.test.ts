import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// `evroom verifier` as a user runs it; the page itself is exercised in Chromium by
// e2e/verifier.e2e.ts.
const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'evroom-verifier-cli-'));

function evroom(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('evroom verifier', () => {
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('writes one self-contained page that loads nothing and forbids the network', () => {
    const out = join(folder, 'verifier.html');
    const result = evroom(['verifier', '--out', out]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Wrote the reference verifier to .*verifier\.html \(\d+ KiB\); open it in a browser\.\n$/,
    );
    const html = readFileSync(out, 'utf8');
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(policy).toMatch(
      /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-[A-Za-z0-9+/=]+'; worker-src blob:;/,
    );
    expect(policy).toContain("connect-src 'none'");
    expect(policy).not.toContain('unsafe');
    // Nothing outside the file: no script or stylesheet by URL.
    const markup = html.replace(/(<(script|style)\b[^>]*>)[\s\S]*?<\/\2>/g, '$1</$2>');
    expect(markup).not.toMatch(/<script\b[^>]*\bsrc=|<link\b[^>]*\bhref=/);
    // Built for production even from this test runner (NODE_ENV=test), when it was built here:
    // React's development JSX runtime is not in the page, and code calling it would not render.
    expect(html).not.toContain('jsxDEV');
  }, 120_000);

  it('refuses to replace a file without --force, and replaces it with --force', () => {
    const out = join(folder, 'existing.html');
    writeFileSync(out, 'mine');
    const refused = evroom(['verifier', '--out', out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('already exists; pass --force to replace it');
    expect(readFileSync(out, 'utf8')).toBe('mine');
    expect(evroom(['verifier', '--out', out, '--force']).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('<title>Evidence Room reference verifier</title>');
  }, 120_000);

  it('refuses a missing --out, a missing folder and a folder as the file', () => {
    expect(evroom(['verifier']).stderr).toContain('--out FILE is required');
    expect(evroom(['verifier', '--out', join(folder, 'nope', 'v.html')]).stderr).toContain('no such folder');
    expect(evroom(['verifier', '--out', folder]).stderr).toContain('is a folder');
  });
});
