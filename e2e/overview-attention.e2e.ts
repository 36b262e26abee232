/**
 * The Overview tells the truth about the whole ledger (issue 25): a pass rate that is never
 * rounded onto 100 %, with the exact counts; signing keys that are not pinned listed under Needs
 * attention (never "Nothing needs attention" while any is); "Pin this key…" from a receipt reaching
 * the Trust store's pin form filled in, and pinning it taking the key off the list; an
 * unattributed receipt offering no pin. Takes the user guide's receipt-pin-this-key.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { b64uEncode } from '../src-shared/crypto';
import { ed25519FromDidKey } from '../src-shared/crypto/did-key';
import { createPortableProvider } from '../src-shared/crypto/portable-provider';
import { signClassical } from '../src-shared/formats/classical';
import { axeAcrossWidths } from './a11y';
import { buildSignedBundle, type SignedBundle } from './fixtures';
import { callApi, launchBrowser, REPO_ROOT, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const VIEWPORT = { width: 1280, height: 800 };
/** 20,041 receipts in all, of which 28 fail: the figure of the issue. */
const BUNDLE_PASS = 20_012;
const BUNDLE_TAMPERED = 28;
/** A public, fixed test seed. */
const SEED = new Uint8Array(32).fill(0x3c);
const VALID = signClassical(
  { receipt_id: 'r-attention-0001', sequence: 1, issued_at: '2026-06-01T12:00:00Z', amount_cents: 900 },
  SEED,
  createPortableProvider(),
);

interface Row {
  id: number;
  issuer_key_id: string | null;
  trust: string;
  status: string;
}

async function rows(app: RunningApp, filters: Record<string, string>): Promise<Row[]> {
  return (await callApi<{ rows: Row[] }>(app, 'receipts.list', { filters, limit: 5 })).rows;
}

async function count(app: RunningApp, filters: Record<string, string> = {}): Promise<number> {
  return (await callApi<{ count: number }>(app, 'receipts.count', { filters })).count;
}

async function overview(page: Page): Promise<void> {
  await page.getByRole('link', { name: 'Overview', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
}

describe('overview: the pass rate and what needs attention', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  let work: string;
  let bundle: SignedBundle;
  let signer: string;
  const failures: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    work = mkdtempSync(join(tmpdir(), 'evroom-attention-e2e-'));
    [app, browser, bundle] = await Promise.all([
      startWebApp(),
      launchBrowser(),
      buildSignedBundle({
        out: join(work, 'acme-evidence-2026.zip'),
        receipts: BUNDLE_PASS,
        tampered: BUNDLE_TAMPERED,
      }),
    ]);
    page = await browser.newPage({ viewport: VIEWPORT });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        failures.push(message.text());
    });
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('lists an unpinned issuer under Needs attention when every receipt passed', async () => {
    const saved = await callApi<{ saved: { id: number } }>(app, 'verify', { text: VALID, save: true, name: 'a.json' });
    expect(saved.saved.id).toBe(1);
    const [row] = await rows(app, {});
    expect(row).toMatchObject({ trust: 'unpinned', status: 'PASS' });
    signer = row!.issuer_key_id!;
    expect(signer).toMatch(/^did:key:z6Mk/);

    await page.reload();
    await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
    expect(await page.getByTestId('pass-rate').locator('.overview-stat-detail').textContent()).toBe(
      '100 % · 1 of 1 passed',
    );
    // The defect: every receipt passed, but its issuer is not pinned, so something does need attention.
    expect(await page.getByText('Nothing needs attention').count()).toBe(0);
    const issuers = page.getByTestId('unpinned-issuers');
    expect(await issuers.getByRole('heading').textContent()).toBe('Signing keys you have not pinned (1)');
    const issuerRow = issuers.locator(`tr[data-issuer="${signer}"]`);
    expect(await issuerRow.locator('code').textContent()).toBe(signer);
    const receiptsLink = issuerRow.getByRole('link', { name: `1 receipt signed by ${signer}. Show them.` });
    expect(await receiptsLink.getAttribute('href')).toBe(
      `#/receipts?issuer=${encodeURIComponent(signer)}&trust=unpinned`,
    );
    expect(await issuerRow.getByRole('link', { name: `Pin this key… ${signer}` }).getAttribute('href')).toBe(
      `#/trust?pin=${encodeURIComponent(signer)}`,
    );
    expect(failures).toEqual([]);
  });

  it('offers "Pin this key…" on the receipt; the pin form comes filled in; pinning takes the key off the list', async () => {
    await page.goto(`${app.url.split('#')[0]}#/receipts/1`);
    await page.getByRole('heading', { name: 'Receipt 1', level: 1 }).waitFor();
    const offer = page.getByTestId('pin-this-key');
    expect(await offer.textContent()).toContain(`its key ${signer} is not in your trust store`);
    await offer.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'receipt-pin-this-key.png') });
    await offer.getByRole('link', { name: 'Pin this key…' }).click();
    await page.waitForURL((url) => url.hash === `#/trust?pin=${encodeURIComponent(signer)}&receipt=1`);

    // Filled in, not pinned: the key id, and the bytes its did:key names.
    const note = page.getByTestId('pin-request');
    await note.waitFor();
    expect(await note.textContent()).toContain('a did:key names its own public key');
    expect(await note.getByRole('link', { name: 'receipt 1' }).getAttribute('href')).toBe('#/receipts/1');
    await expect(page.getByLabel('Key id').inputValue()).resolves.toBe(signer);
    const publicKey = page.getByLabel('Public key (base64url)');
    await expect.poll(() => publicKey.inputValue()).not.toBe('');
    expect(await publicKey.inputValue()).toBe(b64uEncode(ed25519FromDidKey(signer)));
    expect(await page.getByLabel('Algorithm').inputValue()).toBe('Ed25519');
    expect((await callApi<{ pinned: unknown[] }>(app, 'trust.list')).pinned).toEqual([]);
    expect((await axeAcrossWidths(page, 'trust pin form, filled in from a receipt')).join('\n')).toBe('');

    await page.getByLabel('Label (optional)').fill('Coffee shop till');
    await page.getByRole('button', { name: 'Pin key…' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain(`Receipts signed by ${signer} will show trust ‘trusted’`);
    await dialog.getByRole('button', { name: 'Pin key' }).click();
    const done = page.getByTestId('trust-done');
    await done.waitFor();
    expect(await done.textContent()).toContain('Receipts it signed now show trust ‘trusted’');
    expect(await done.getByRole('link', { name: 'Back to receipt 1' }).getAttribute('href')).toBe('#/receipts/1');
    await page.waitForURL((url) => url.hash === '#/trust');
    expect(await count(app, { trust: 'trusted' })).toBe(1);

    await overview(page);
    await page.getByText('Nothing needs attention').waitFor();
    expect(await page.getByTestId('unpinned-issuers').count()).toBe(0);
    expect(failures).toEqual([]);
  });

  it('shows the exact pass rate of a large ledger with a few failures, never 100 %', async () => {
    await page.getByRole('link', { name: 'Bundles', exact: true }).click();
    await page.getByLabel('Evidence bundle (.zip) to import').setInputFiles(bundle.file);
    const total = 1 + BUNDLE_PASS + BUNDLE_TAMPERED;
    for (let attempt = 0; attempt < 900 && (await count(app)) < total; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await count(app)).toBe(20_041);
    expect(await count(app, { status: 'PASS' })).toBe(20_013);

    await overview(page);
    const rate = page.getByTestId('pass-rate');
    expect(await rate.locator('.stat').textContent()).toBe('20,013');
    // 20,013 / 20,041 = 99.860 %: rounding to a whole number would say 100 %.
    expect(await rate.locator('.overview-stat-detail').textContent()).toBe(
      '99.86 % · 20,013 of 20,041 passed; 28 did not pass',
    );
    expect(await rate.textContent()).not.toContain('100 %');
    expect(failures).toEqual([]);
  });

  it('lists the bundle issuer and the unattributed documents under Needs attention', async () => {
    const issuer = bundle.issuer.key_id;
    const issuers = page.getByTestId('unpinned-issuers');
    const issuerRow = issuers.locator(`tr[data-issuer="${issuer}"]`);
    expect(await issuerRow.getByRole('link', { name: `20,012 receipts signed by ${issuer}. Show them.` }).count()).toBe(
      1,
    );
    // The pinned did:key is not listed any more; the 28 altered receipts count for no issuer.
    expect(await issuers.locator('tbody tr').count()).toBe(1);
    const unattributed = page.getByTestId('unattributed');
    expect(await unattributed.getByRole('heading').textContent()).toBe(
      'Documents not signed by the key they name (28)',
    );
    expect(await unattributed.getByRole('link', { name: '28 documents are ‘unattributed’' }).getAttribute('href')).toBe(
      '#/receipts?trust=unattributed',
    );
    expect(await unattributed.textContent()).toContain('there is no key to pin for them');
    expect(await page.locator('.overview-attention tbody tr').count()).toBeGreaterThan(0);
    expect((await axeAcrossWidths(page, 'overview with attention items')).join('\n')).toBe('');

    // From the Overview, the bundle's issuer is filled in with the key the bundle advertised (said so).
    await issuerRow.getByRole('link', { name: `Pin this key… ${issuer}` }).click();
    const note = page.getByTestId('pin-request');
    await note.waitFor();
    expect(await note.textContent()).toContain('advertised for it');
    await expect(page.getByLabel('Key id').inputValue()).resolves.toBe(issuer);
    await expect(page.getByLabel('Public key (base64url)').inputValue()).resolves.toBe(bundle.issuer.public_key);

    // A key the ledger holds no bytes for: only its id is filled in, and the note says what to supply.
    await page.evaluate(() => {
      (globalThis as unknown as { location: { hash: string } }).location.hash =
        '#/trust?pin=did%3Aweb%3Aunknown.example';
    });
    await page.getByTestId('pin-request').getByText('The ledger does not hold this key’s public key').waitFor();
    await expect(page.getByLabel('Key id').inputValue()).resolves.toBe('did:web:unknown.example');
    await expect(page.getByLabel('Public key (base64url)').inputValue()).resolves.toBe('');
    expect((await callApi<{ pinned: unknown[] }>(app, 'trust.list')).pinned).toHaveLength(1);
    expect(failures).toEqual([]);
  });

  it('offers no pin on an unattributed receipt, and says why', async () => {
    const [altered] = await rows(app, { trust: 'unattributed' });
    expect(altered).toBeDefined();
    await page.goto(`${app.url.split('#')[0]}#/receipts/${altered!.id}`);
    const refusal = page.getByTestId('no-pin-unattributed');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(
      `No key to pin: this document names ${bundle.issuer.key_id}, but that key did not sign what is here`,
    );
    expect(await page.getByRole('link', { name: 'Pin this key…' }).count()).toBe(0);
    expect(await page.getByTestId('pin-this-key').count()).toBe(0);
    expect(failures).toEqual([]);
  });
});
