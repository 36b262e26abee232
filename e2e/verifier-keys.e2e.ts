/**
 * The browser reference verifier's key and trust files: one key id names one key. A key file
 * that gives a key_id of the loaded trust file another key is not used (and the other way round),
 * with the message `evroom verify` gives for such files; the same key in both is fine.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode } from '../src-shared/crypto';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { standardReceiptFile } from '../src-main/operations/import-test-support';
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
  it('takes key ids of any DID method or opaque ids and the typed signer /pubkey answer, and says why a bad one is not used', async () => {
    const page = await openPage();
    const json = (name: string, value: unknown) => ({
      name,
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(value)),
    });
    const answer = readFileSync(join(REPO_ROOT, 'test-vectors', 'key-files', 'typed-signer-pubkey.json'));
    await page.getByTestId('keys').setInputFiles({ name: 'pubkey.json', mimeType: 'application/json', buffer: answer });
    await expect.poll(() => page.getByTestId('keys-status').textContent()).toBe('pubkey.json: 1 loaded');
    await page
      .getByTestId('keys')
      .setInputFiles(
        json('spaced.json', { keys: [{ key_id: 'test key-001', algorithm: 'Ed25519', public_key: KEY_1 }] }),
      );
    await expect
      .poll(() => page.getByTestId('keys-status').textContent())
      .toContain(
        'spaced.json: not used: "key_id" is not a key id: A key id must not contain spaces (character 5 is a space).',
      );
    await page.getByTestId('keys').setInputFiles(json('pair.json', { privKeyB64u: KEY_2, pubKeyB64u: KEY_1 }));
    await expect
      .poll(() => page.getByTestId('keys-status').textContent())
      .toContain('pair.json: not used: This file holds a private key (member "privKeyB64u")');

    // A receipt signed under test-key-001, with that key pinned by the trust file: PASS, trusted.
    const crypto = createNodeCryptoProvider();
    const seed = new Uint8Array(32).fill(0x41);
    const receipt = standardReceiptFile(1, seed, 'test-key-001', crypto);
    await page.getByTestId('trust').setInputFiles(
      json('trust.json', {
        keys: [{ key_id: 'test-key-001', algorithm: 'Ed25519', public_key: b64uEncode(crypto.ed25519PublicKey(seed)) }],
      }),
    );
    await expect.poll(() => page.getByTestId('trust-status').textContent()).toBe('trust.json: 1 loaded');
    await page
      .getByTestId('documents')
      .setInputFiles({ name: 'opaque.json', mimeType: 'application/json', buffer: Buffer.from(receipt.bytes) });
    const result = page.getByTestId('result');
    await expect.poll(() => result.getAttribute('data-status')).toBe('PASS');
    expect(await result.getAttribute('data-trust')).toBe('trusted');
    expect(failures).toEqual([]);
    await page.close();
  });
});
