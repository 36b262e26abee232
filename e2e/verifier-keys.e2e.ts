/**
 * The browser reference verifier's key and trust files: one key id names one key. A key file
 * that gives a key_id of the loaded trust file another key is not used (and the other way round),
 * with the message `evroom verify` gives for such files; the same key in both is fine.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, REPO_ROOT } from './harness';

// RFC 8032 section 7.1, tests 1 and 2: two real Ed25519 public keys.
const KEY_1 = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
const KEY_2 = 'PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw';
const KEY_ID = 'did:svc:acme:k1';

function keyFile(publicKey: string): { name: string; mimeType: string; buffer: Buffer } {
  return {
    name: 'unused.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ keys: [{ key_id: KEY_ID, algorithm: 'Ed25519', public_key: publicKey }] })),
  };
}

describe('the reference verifier: one key id, one key across its key and trust files', () => {
  let folder: string;
  let pageUrl: string;
  let browser: Browser;
  const failures: string[] = [];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'evroom-verifier-keys-e2e-'));
    const file = join(folder, 'verifier.html');
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'evroom.mjs'), 'verifier', '--out', file], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(run.status, run.stderr).toBe(0);
    pageUrl = pathToFileURL(file).toString();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  async function openPage(): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(pageUrl);
    await page.getByRole('heading', { name: 'Evidence Room reference verifier' }).waitFor();
    return page;
  }

  it('does not use a key file that gives a trusted key_id another key, nor a trust file that does so to the key file', async () => {
    const page = await openPage();
    await page.getByTestId('trust').setInputFiles({ ...keyFile(KEY_1), name: 'trust.json' });
    await expect.poll(() => page.getByTestId('trust-status').textContent()).toBe('trust.json: 1 loaded');
    await page.getByTestId('keys').setInputFiles({ ...keyFile(KEY_2), name: 'keys.json' });
    await expect
      .poll(() => page.getByTestId('keys-status').textContent())
      .toBe(
        `keys.json: not used: Key id "${KEY_ID}" names different keys in the trust file trust.json and in the key file keys.json; one key id must name one key. (at /keys/0/public_key)`,
      );
    // The same key in both is no conflict.
    await page.getByTestId('keys').setInputFiles({ ...keyFile(KEY_1), name: 'same.json' });
    await expect.poll(() => page.getByTestId('keys-status').textContent()).toBe('same.json: 1 loaded');
    // And the other way round: a trust file chosen after a key file.
    await page.getByTestId('trust').setInputFiles({ ...keyFile(KEY_2), name: 'other-trust.json' });
    await expect
      .poll(() => page.getByTestId('trust-status').textContent())
      .toContain('other-trust.json: not used: Key id');
    expect(failures).toEqual([]);
    await page.close();
  });
});
