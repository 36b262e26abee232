/**
 * The browser reference verifier and a bundle's log evidence (issue 28; docs/logs.md, "What the
 * import checks"): a bundle of a tenant's period with its signed checkpoint and proofs shows
 * `complete for … at size N`; the same period's bundle with one receipt taken out names the
 * missing leaf. The page runs the import's checker (src-shared/evidence/log-evidence.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../src-shared/crypto';
import { logKeyEntry, makeLogEvidence, withKeyEntries } from '../src-shared/evidence/log-test-support';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { bundleParts, keyEntryFor, zipBundle } from '../src-main/evidence/test-support';
import { standardReceiptFile } from '../src-main/operations/import-test-support';
import { launchBrowser, REPO_ROOT } from './harness';

/** The few DOM names the page functions use (this file is compiled for Node, without the DOM's types). */
interface PageGlobals {
  document: { querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }> };
}

const crypto = createNodeCryptoProvider();
const issuerSeed = new Uint8Array(32).fill(71);
const ISSUER = 'did:svc:acme:k1';
const signerSeed = new Uint8Array(32).fill(72);
const SIGNER = 'did:svc:acme:bundles';
const logKey = { seed: new Uint8Array(32).fill(73), name: 'logs.example.com/evroom' };

/** The period 12:00:02 to 12:00:06 (leaves 2 to 5) of a log of eight receipts, holding `held`. */
function logBundle(held: number[]): Buffer {
  const logged = Array.from({ length: 8 }, (_, index) => standardReceiptFile(index, issuerSeed, ISSUER, crypto));
  const fixture = makeLogEvidence({
    crypto,
    key: logKey,
    tenant: 'acme',
    log: logged.map((receipt) => receipt.bytes),
    period: { since: '2026-11-01T12:00:02Z', until: '2026-11-01T12:00:06Z' },
    first: 2,
    last: 5,
    before: 1,
    after: 6,
  });
  const parts = bundleParts(
    held.map((index) => logged[index] as { stem: string; bytes: Uint8Array }),
    { keyId: SIGNER, keys: [keyEntryFor(ISSUER, issuerSeed, crypto), keyEntryFor(SIGNER, signerSeed, crypto)] },
  );
  const keysText = new TextDecoder().decode(parts.files.get('keys/service-keys.json'));
  parts.files.set(
    'keys/service-keys.json',
    utf8Encode(withKeyEntries(keysText, [logKeyEntry(crypto, logKey, 'did:svc:acme:log')])),
  );
  parts.files.set('log/checkpoint.txt', utf8Encode(fixture.checkpoint));
  parts.files.set('log/proofs.json', utf8Encode(JSON.stringify(fixture.proofs)));
  return zipBundle(parts, { seed: signerSeed, keyId: SIGNER }, crypto);
}

describe('the browser reference verifier shows a bundle’s log completeness', () => {
  let folder: string;
  let pageUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'evroom-verifier-log-e2e-'));
    const page = join(folder, 'verifier.html');
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'evroom.mjs'), 'verifier', '--out', page], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(run.status, run.stderr).toBe(0);
    pageUrl = pathToFileURL(page).toString();
    writeFileSync(join(folder, 'complete.zip'), logBundle([2, 3, 4, 5]));
    writeFileSync(join(folder, 'incomplete.zip'), logBundle([2, 3, 5]));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  async function verified(file: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(pageUrl);
    await page.getByRole('heading', { name: 'Evidence Room reference verifier' }).waitFor();
    await page.getByTestId('documents').setInputFiles(join(folder, file));
    await page.waitForFunction(
      () => {
        const results = Array.from(
          (globalThis as unknown as PageGlobals).document.querySelectorAll('[data-testid="result"]'),
        );
        return results.length === 1 && results.every((result) => result.getAttribute('data-kind') !== 'pending');
      },
      undefined,
      { timeout: 90_000 },
    );
    return page;
  }

  it('a complete bundle: complete for its period at size N', async () => {
    const page = await verified('complete.zip');
    const line = page.getByTestId('bundle-log');
    expect(await line.getAttribute('data-log')).toBe('complete');
    expect(await line.textContent()).toBe(
      'complete for 2026-11-01T12:00:02Z to 2026-11-01T12:00:06Z at size 8 (log logs.example.com/evroom/tenants/acme, key advertised)',
    );
    expect(await page.getByTestId('result').getAttribute('data-status')).toBe('clean');
    await page.close();
  });

  it('a bundle with a receipt taken out names the missing leaf', async () => {
    const page = await verified('incomplete.zip');
    const line = page.getByTestId('bundle-log');
    expect(await line.getAttribute('data-log')).toBe('incomplete');
    expect(await line.textContent()).toContain('incomplete: 1 leaf missing (index 4)');
    expect(await page.locator('[data-finding="log_leaf_missing"]').count()).toBe(1);
    await page.close();
  });
});
