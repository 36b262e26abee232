/**
 * Documents the real producers made, in the app as an auditor uses it: a typed post-quantum
 * attestation (`afir.attestation`, SHA-384, merkle, two fragments not attested) and a
 * countersigner inclusion answer, pasted into the Verify view, saved to the ledger and opened in
 * the receipt detail; one tampered document of each; the typed-PQ signer's ML-DSA-65 key pinned
 * by its bytes in the Trust store view.
 *
 * The documents come from test-vectors/ (made by the producers' own code, see each folder's
 * README). Also writes the user guide's pictures: docs/screenshots/verify-typed-pq.png,
 * receipt-typed-pq.png, verify-countersigner.png, receipt-countersigner.png (1280x800).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ReceiptDetail } from '../src-shared/api/contract';
import type { Report } from '../src-shared/verify/report';
import { callApi, REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const VIEWPORT = { width: 1280, height: 800 };
const VECTORS = join(REPO_ROOT, 'test-vectors');

/** One document of the corpus, as its producer wrote it. */
function vector(folder: string, file: string): string {
  return readFileSync(join(VECTORS, folder, file), 'utf8');
}

/** sha384-merkle-valid: six fragments, four attested (f2 retrieval and f5 system are not). */
const TYPED_PQ = vector('typed-pq', 'sha384-merkle-valid.json');
/** linear-valid with the attested fragment f1's text_hash replaced. */
const TYPED_PQ_TAMPERED = vector('typed-pq', 'linear-attested-content-changed.json');
/** The log-inclusion answer for entry 4 of a log of 7. */
const COUNTERSIGNER = vector('countersigner', 'inclusion-4-of-7.json');
/** The same answer with one audit_path sibling changed. */
const COUNTERSIGNER_TAMPERED = vector('countersigner', 'inclusion-path-wrong.json');
/** The typed signer's key, in our key-file shape (key id did:hive:typed-demo). */
const TYPED_KEY = (
  JSON.parse(vector('typed-pq', 'keys.json')) as { keys: { key_id: string; algorithm: string; public_key: string }[] }
).keys[0] as { key_id: string; algorithm: string; public_key: string };

/**
 * The id the key is pinned under. A typed-PQ envelope names no key id: its inline key is matched
 * to a pinned key by its bytes, so the id given when pinning is the one the report then shows.
 */
const PIN_ID = 'did:hive:typed-demo';

/** The little of the DOM these tests read (the e2e project compiles without the DOM library). */
interface DomElement {
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  textContent: string | null;
}

async function pasteAndVerify(page: Page, text: string): Promise<void> {
  await page.getByLabel('Or paste a document').fill(text);
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
}

/** Every check the report on the page shows (the first report only), as id → status. */
async function shownChecks(page: Page): Promise<Record<string, string>> {
  const rows = await page
    .locator('.report')
    .first()
    .locator(':scope > .report-section [data-check]')
    .evaluateAll((elements) =>
      (elements as unknown as DomElement[]).map((row) => [
        row.getAttribute('data-check') ?? '',
        row.querySelector('[data-check-status]')?.getAttribute('data-check-status') ?? '',
      ]),
    );
  return Object.fromEntries(rows);
}

/** The check statuses a report gives, as id → status, to compare with the page. */
function reportChecks(report: Report): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

/** Scrolls the page so the element matching `selector` is at the top of the view. */
async function scrollToTop(page: Page, selector: string): Promise<void> {
  await page.evaluate(`document.querySelector(${JSON.stringify(selector)}).scrollIntoView({ block: 'start' })`);
}

/** Scrolls the page so the panel titled `title` is at the top of the view. */
async function scrollToPanel(page: Page, title: string): Promise<void> {
  await page
    .locator('section.panel', { has: page.getByRole('heading', { name: title, exact: true }) })
    .evaluate((panel) =>
      (panel as unknown as { scrollIntoView(options: object): void }).scrollIntoView({ block: 'start' }),
    );
}

/** True when no element of the page is wider than the viewport (nothing overflows sideways). */
async function fitsWidth(page: Page): Promise<boolean> {
  return (await page.evaluate(
    'document.documentElement.scrollWidth <= document.documentElement.clientWidth',
  )) as boolean;
}

describe('the real producers’ documents in the app', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];
  let typedReceipt = 0;
  let counterReceipt = 0;

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchBrowser();
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = await browser.newPage({ viewport: VIEWPORT, colorScheme: 'light' });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('verifies a real typed-PQ attestation: PASS, issuer unknown, unattested fragments unchecked', async () => {
    await page.getByRole('link', { name: 'Verify', exact: true }).click();
    await page.getByRole('heading', { name: 'Verify', level: 1 }).waitFor();
    await pasteAndVerify(page, TYPED_PQ);
    const report = page.locator('.report').first();
    await report.locator('[data-status="PASS"]').waitFor();
    expect(await report.getAttribute('data-report-trust')).toBe('unpinned');
    expect(await page.getByTestId('report-reading').textContent()).toBe('Cryptographically valid, issuer unknown');
    expect(await report.locator('.report-format').textContent()).toBe('typed-pq');
    expect(await report.locator('.report-format-label').textContent()).toBe(
      ' — Typed post-quantum attestation (afir.attestation)',
    );
    // Unchecked checks are counted as what they are, not lumped in with failures.
    expect(await page.getByTestId('report-check-summary').textContent()).toBe(' · 19 checks: 15 pass, 4 unchecked');

    const expected = (await callApi<{ report: Report }>(app, 'verify', { text: TYPED_PQ })).report;
    const checks = await shownChecks(page);
    expect(checks).toEqual(reportChecks(expected));
    // The two fragments the signature does not cover are unchecked, never a pass.
    expect(checks['fragment.1']).toBe('unchecked');
    expect(checks['fragment.4']).toBe('unchecked');
    expect(checks['fragment.0']).toBe('pass');
    expect(checks.signature).toBe('pass');
    expect(checks.hash_suite).toBe('pass');
    expect(checks.unsigned).toBe('unchecked');
    expect(checks.policy).toBe('unchecked');
    expect(await report.locator('[data-check="fragment.1"]').textContent()).toContain(
      'not attested: its input matches canon_digest, but the signature does not cover it',
    );
    expect(await report.locator('[data-check="hash_suite"]').textContent()).toContain('sha-384');
    expect(await report.locator('[data-check="agg_mode"]').textContent()).toContain('merkle');
    // What the signature does not cover is said in the notes too.
    expect(await report.getByRole('region', { name: 'Notes' }).textContent()).toContain('issued_at is not signed');
    expect(await fitsWidth(page)).toBe(true);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(SCREENSHOTS, 'verify-typed-pq.png') });
    expect(failures).toEqual([]);
  });

  it('saves the attestation and shows it in the receipt detail with its signed content', async () => {
    await page.getByRole('button', { name: 'Save to ledger' }).click();
    const notice = page.getByTestId('saved-notice');
    await notice.waitFor();
    const link = notice.getByRole('link', { name: /receipt #\d+/ });
    typedReceipt = Number(/#(\d+)/.exec((await link.textContent()) ?? '')?.[1]);
    expect(typedReceipt).toBeGreaterThan(0);
    await link.click();
    await page.waitForURL((url) => url.hash === `#/receipts/${typedReceipt}`);
    await page.getByRole('heading', { name: 'Verification' }).waitFor();
    const report = page.locator('.report').first();
    await report.locator('[data-status="PASS"]').waitFor();
    expect(await report.getAttribute('data-report-trust')).toBe('unpinned');
    const detail = await callApi<ReceiptDetail>(app, 'receipts.get', { id: typedReceipt });
    expect(detail.format).toBe('typed-pq');
    // issued_at is shown as the document states it, and said not to be signed.
    expect(detail.issued_at).not.toBeNull();
    expect(await page.getByTestId('issued-at-unsigned').textContent()).toContain('not signed');
    expect(await page.locator('.page-subtitle').textContent()).toContain('Typed post-quantum attestation');
    expect(await shownChecks(page)).toEqual(reportChecks(detail.report));
    // The signed content: what the ML-DSA-65 signature covers, with its hash to recompute.
    expect(detail.signed.length).toBeGreaterThan(0);
    const signed = page.getByTestId('signed-content');
    expect(await signed.count()).toBe(detail.signed.length);
    for (const content of detail.signed) {
      await page.getByText(content.sha256).first().waitFor();
      await signed.getByRole('heading', { name: content.label, exact: true }).waitFor();
    }
    expect(await fitsWidth(page)).toBe(true);
    // The guide's pictures: the fragments the signature leaves out, the notes and the unsigned
    // issue time; then the signed bytes.
    await scrollToTop(page, '[data-check="fragment.0"]');
    await page.screenshot({ path: join(SCREENSHOTS, 'receipt-typed-pq.png') });
    await scrollToPanel(page, 'Signed bytes');
    await page.screenshot({ path: join(SCREENSHOTS, 'receipt-typed-pq-signed.png') });
    expect(failures).toEqual([]);
  });

  it('shows where a tampered attestation breaks: MISMATCH at the changed fragment', async () => {
    await page.evaluate("window.location.hash = '#/verify'");
    await page.getByRole('heading', { name: 'Verify', level: 1 }).waitFor();
    await pasteAndVerify(page, TYPED_PQ_TAMPERED);
    const report = page.locator('.report').first();
    await report.locator('[data-status="MISMATCH"]').waitFor();
    expect(await page.getByTestId('report-reading').textContent()).toMatch(/^Not valid: the document disagrees/);
    const checks = await shownChecks(page);
    expect(checks['fragment.0']).toBe('fail');
    expect(checks['fragment.1']).toBe('unchecked');
    await report.locator('.report-error-code', { hasText: 'fragment_digest_mismatch' }).waitFor();
    await report.locator('.report-error-path', { hasText: '/fragments/0' }).waitFor();
    expect(failures).toEqual([]);
  });

  it('verifies a real countersigner inclusion answer: PASS, freshness and consistency unchecked', async () => {
    await pasteAndVerify(page, COUNTERSIGNER);
    const report = page.locator('.report').first();
    await report.locator('[data-status="PASS"]').waitFor();
    expect(await report.getAttribute('data-report-trust')).toBe('unpinned');
    expect(await report.locator('.report-format').textContent()).toBe('countersigner');
    expect(await report.locator('.report-format-label').textContent()).toBe(' — Countersigner record');
    expect(await page.getByTestId('report-check-summary').textContent()).toBe(
      ' · 10 checks: 6 pass, 2 unavailable, 2 unchecked',
    );
    const expected = (await callApi<{ report: Report }>(app, 'verify', { text: COUNTERSIGNER })).report;
    const checks = await shownChecks(page);
    expect(checks).toEqual(reportChecks(expected));
    expect(checks.countersignature).toBe('pass');
    expect(checks.inclusion).toBe('pass');
    expect(checks.leaf).toBe('pass');
    expect(checks.checkpoint_freshness).toBe('unchecked');
    expect(checks.log_consistency).toBe('unchecked');
    expect(checks.prev_leaf).toBe('unavailable');
    expect(checks.record_digest).toBe('unavailable');
    expect(await report.getByRole('region', { name: 'Notes' }).textContent()).toContain(
      'The countersigner is operated by the service, not independent',
    );
    expect(await report.locator('.report-key code:not([data-testid="key-fingerprint"])').textContent()).toMatch(
      /^did:key:z6Mk/,
    );
    expect(await fitsWidth(page)).toBe(true);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(SCREENSHOTS, 'verify-countersigner.png') });

    await page.getByRole('button', { name: 'Save to ledger' }).click();
    const link = page.getByTestId('saved-notice').getByRole('link', { name: /receipt #\d+/ });
    await link.waitFor();
    counterReceipt = Number(/#(\d+)/.exec((await link.textContent()) ?? '')?.[1]);
    expect(counterReceipt).not.toBe(typedReceipt);
    await link.click();
    await page.waitForURL((url) => url.hash === `#/receipts/${counterReceipt}`);
    await page.getByRole('heading', { name: 'Verification' }).waitFor();
    await page.locator('.report').first().locator('[data-status="PASS"]').waitFor();
    const detail = await callApi<ReceiptDetail>(app, 'receipts.get', { id: counterReceipt });
    expect(detail.format).toBe('countersigner');
    // The countersigner's time is inside signed_over: no "not signed" caveat.
    expect(await page.getByTestId('issued-at-unsigned').count()).toBe(0);
    expect(await shownChecks(page)).toEqual(reportChecks(detail.report));
    expect(detail.signed.length).toBeGreaterThan(0);
    const signed = page.getByTestId('signed-content');
    expect(await signed.count()).toBe(detail.signed.length);
    for (const content of detail.signed) {
      await page.getByText(content.sha256).first().waitFor();
      await signed.getByRole('heading', { name: content.label, exact: true }).waitFor();
    }
    expect(await fitsWidth(page)).toBe(true);
    await scrollToTop(page, 'section[aria-label="Checks"]');
    await page.screenshot({ path: join(SCREENSHOTS, 'receipt-countersigner.png') });
    await scrollToPanel(page, 'Signed bytes');
    await page.screenshot({ path: join(SCREENSHOTS, 'receipt-countersigner-signed.png') });
    expect(failures).toEqual([]);
  });

  it('shows where a tampered inclusion answer breaks: MISMATCH at the root', async () => {
    await page.evaluate("window.location.hash = '#/verify'");
    await page.getByRole('heading', { name: 'Verify', level: 1 }).waitFor();
    await pasteAndVerify(page, COUNTERSIGNER_TAMPERED);
    const report = page.locator('.report').first();
    await report.locator('[data-status="MISMATCH"]').waitFor();
    const checks = await shownChecks(page);
    expect(checks.inclusion).toBe('fail');
    expect(checks.countersignature).toBe('pass');
    await report.locator('.report-error-code', { hasText: 'merkle_root_mismatch' }).waitFor();
    await report.locator('.report-error-path', { hasText: '/root' }).waitFor();
    expect(failures).toEqual([]);
  });

  it('lists both in the receipts list, each format named and the unsigned issue time marked', async () => {
    await page.evaluate("window.location.hash = '#/receipts'");
    await page
      .getByTestId('receipts-total')
      .filter({ hasText: /^2 receipts$/ })
      .waitFor();
    const typedRow = page.locator(`.receipts-row[data-receipt-id="${typedReceipt}"]`);
    const counterRow = page.locator(`.receipts-row[data-receipt-id="${counterReceipt}"]`);
    expect(await typedRow.locator('.receipts-format').textContent()).toBe('typed-pq');
    expect(await typedRow.locator('.receipts-format').getAttribute('title')).toBe(
      'typed-pq: Typed post-quantum attestation (afir.attestation)',
    );
    expect(await typedRow.getByTestId('issued-unsigned').count()).toBe(1);
    // The time and its mark fit the column: nothing clipped.
    expect(
      await typedRow.locator('.col-issued').evaluate((cell) => {
        const box = cell as unknown as { scrollWidth: number; clientWidth: number };
        return box.scrollWidth <= box.clientWidth;
      }),
    ).toBe(true);
    expect(await typedRow.locator('.col-issued').getAttribute('title')).toContain('does not sign its issue time');
    expect(await counterRow.locator('.receipts-format').getAttribute('title')).toBe(
      'countersigner: Countersigner record',
    );
    expect(await counterRow.getByTestId('issued-unsigned').count()).toBe(0);
    expect(await fitsWidth(page)).toBe(true);
    expect(failures).toEqual([]);
  });

  it('pinning the typed signer’s ML-DSA-65 key by its bytes makes the attestation trusted', async () => {
    await page.evaluate("window.location.hash = '#/trust'");
    await page.getByRole('heading', { name: 'Trust store', level: 1 }).waitFor();
    await page.locator('#pin-key_id').fill(PIN_ID);
    await page.locator('#pin-algorithm').selectOption('ML-DSA-65');
    // Pasted as the typed signer publishes it (standard base64, as in the envelope): the form
    // takes it as the same bytes.
    const published = Buffer.from(TYPED_KEY.public_key, 'base64url').toString('base64');
    expect(published).toContain('/');
    await page.locator('#pin-public_key').fill(published);
    await page.locator('#pin-label').fill('Typed signer, demo key');
    await page.getByRole('button', { name: 'Pin key…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Pin key' }).click();
    await page.locator(`[data-testid="pinned-table"] tr[data-key-id="${PIN_ID}"]`).waitFor();

    // The confirmation showed the whole 1952-byte key and its buttons stayed reachable.
    await dialog.waitFor({ state: 'detached' });

    // Verified again, the same attestation is now signed by a key you pinned.
    await page.evaluate("window.location.hash = '#/verify'");
    await page.getByRole('heading', { name: 'Verify', level: 1 }).waitFor();
    await pasteAndVerify(page, TYPED_PQ);
    const report = page.locator('.report').first();
    await report.locator('[data-status="PASS"]').waitFor();
    expect(await report.getAttribute('data-report-trust')).toBe('trusted');
    expect(await page.getByTestId('report-reading').textContent()).toBe(
      'Cryptographically valid, signed by a key you pinned',
    );
    expect(await report.locator('.report-key code:not([data-testid="key-fingerprint"])').textContent()).toBe(PIN_ID);
    expect(await report.locator('.report-key-label').textContent()).toContain('Typed signer, demo key');
    // Unattested fragments stay unchecked: pinning the key changes trust, not what is signed.
    const checks = await shownChecks(page);
    expect(checks['fragment.1']).toBe('unchecked');
    expect(checks['fragment.4']).toBe('unchecked');
    // The countersigner's record is untouched: its key is another.
    const counter = await callApi<ReceiptDetail>(app, 'receipts.get', { id: counterReceipt });
    expect(counter.report.trust.status).toBe('unpinned');
    expect(failures).toEqual([]);
  });

  // The ledger finds stored attestations by the pinned key's bytes (they name no key id).
  it('re-judges the stored attestation when its key is pinned', async () => {
    await page.evaluate(`window.location.hash = '#/receipts/${typedReceipt}'`);
    await page.reload();
    const report = page.locator('.report').first();
    await report.locator('[data-status="PASS"]').waitFor();
    expect(await report.getAttribute('data-report-trust')).toBe('trusted');
  });
});
