/**
 * The Overview, Verify and Settings views end to end: a fresh ledger's welcome, verifying a
 * tampered and a valid document, saving one to the ledger, the overview's counts and links, and
 * the theme persisting. Also takes the user guide's screenshots of these views.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createPortableProvider } from '../src-shared/crypto/portable-provider';
import { signClassical } from '../src-shared/formats/classical';
import { callApi, REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const VIEWPORT = { width: 1280, height: 800 };
/** A public, fixed test seed: the documents are the same on every run. */
const SEED = new Uint8Array(32).fill(0x2a);

const crypto = createPortableProvider();
const PAYLOAD = {
  receipt_id: 'r-e2e-0001',
  sequence: 7,
  issued_at: '2026-06-01T12:00:00Z',
  amount_cents: 1250,
  currency: 'EUR',
  memo: 'Coffee beans, 1 kg',
};
const VALID = signClassical(PAYLOAD, SEED, crypto);
/** The same receipt with one signed value changed after signing. */
const TAMPERED = (() => {
  const document = JSON.parse(VALID) as { signed_payload: Record<string, unknown> };
  document.signed_payload.amount_cents = 9950;
  return JSON.stringify(document, null, 2);
})();

function screenshot(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return join(SCREENSHOTS, name);
}

/** Calls the app API from the test process, as the renderer does in web mode. */

/** Opens a page on the app, collecting script errors (failed API calls the test expects are not). */
async function openApp(browser: Browser, app: RunningApp, failures: string[]): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  page.on('pageerror', (error) => failures.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      failures.push(message.text());
  });
  await page.goto(app.url);
  return page;
}

async function pasteAndVerify(page: Page, text: string, how: 'button' | 'shortcut'): Promise<void> {
  const box = page.getByLabel('Or paste a document');
  await box.fill(text);
  if (how === 'button') await page.getByRole('button', { name: 'Verify', exact: true }).click();
  else await box.press('Control+Enter');
}

async function waitForImport(app: RunningApp, jobId: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const progress = (await callApi(app, 'imports.progress', { jobId })) as { state: string };
    if (progress.state !== 'running') return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('overview, verify and settings', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchBrowser();
    page = await openApp(browser, app, failures);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('shows a fresh ledger the welcome and the next steps', async () => {
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByText('Welcome to Evidence Room').waitFor();
    await expect(page.getByText(/verifies signed receipts and evidence bundles offline/).count()).resolves.toBe(1);
    expect(await page.getByRole('link', { name: 'Import an evidence bundle' }).getAttribute('href')).toBe('#/bundles');
    expect(await page.getByRole('link', { name: 'Verify a document' }).getAttribute('href')).toBe('#/verify');
    await expect(page.getByRole('button', { name: 'Load sample data' }).isEnabled()).resolves.toBe(true);
    await page.screenshot({ path: screenshot('overview-empty.png') });
    expect(failures).toEqual([]);
  });

  it('verifies pasted documents: a tampered one is MISMATCH, a valid one PASS from an unknown issuer', async () => {
    await page.getByRole('link', { name: 'Verify', exact: true }).click();
    await page.getByRole('heading', { name: 'Verify', level: 1 }).waitFor();

    // An empty paste says what to do rather than calling the API.
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.getByText('Nothing to verify').waitFor();

    await pasteAndVerify(page, TAMPERED, 'button');
    const report = page.locator('.report');
    await report.locator('[data-status="MISMATCH"]').waitFor();
    expect(await report.getAttribute('data-report-status')).toBe('MISMATCH');
    expect(await page.getByTestId('report-reading').textContent()).toBe(
      'Not valid: the document disagrees with itself, not signed by the key it names',
    );
    // PROTOCOL 1: the key it names did not sign what is here: unattributed, never green.
    expect(await report.getAttribute('data-report-trust')).toBe('unattributed');
    const badge = report.locator('[data-trust="unattributed"]');
    expect(await badge.count()).toBe(1);
    expect(await badge.textContent()).toContain('unattributed');
    expect(await badge.getAttribute('class')).toContain('badge-bad');
    expect(await report.locator('[data-trust="trusted"]').count()).toBe(0);
    expect(
      await report.locator('[data-check="raw_payload"] [data-check-status]').getAttribute('data-check-status'),
    ).toBe('fail');
    await page.getByText('/raw_payload', { exact: true }).waitFor();
    // The trust card names the claimed did:key: its lines wrap inside the card.
    expect(
      await page.evaluate(
        `Array.from(document.querySelectorAll('.report-verdict')).every((card) => {
          const box = card.getBoundingClientRect();
          return Array.from(card.querySelectorAll('*')).every((child) => child.getBoundingClientRect().right <= box.right + 0.5);
        })`,
      ),
    ).toBe(true);
    await page.screenshot({ path: screenshot('verify.png') });

    await pasteAndVerify(page, VALID, 'shortcut');
    await report.locator('[data-status="PASS"]').waitFor();
    expect(await report.getAttribute('data-report-trust')).toBe('unpinned');
    expect(await report.locator('[data-trust="unpinned"]').count()).toBe(1);
    expect(await page.getByTestId('report-reading').textContent()).toBe('Cryptographically valid, issuer unknown');
    // Every check of a PASS passed; nothing unchecked is shown as a pass.
    const checkStatuses = await Promise.all(
      (await report.locator('[data-check-status]').all()).map((badge) => badge.getAttribute('data-check-status')),
    );
    expect(checkStatuses.length).toBeGreaterThan(0);
    expect(new Set(checkStatuses)).toEqual(new Set(['pass']));
    expect(failures).toEqual([]);
  });

  it('saves a verified document to the ledger and links to it', async () => {
    await page.getByRole('button', { name: 'Save to ledger' }).click();
    const notice = page.getByTestId('saved-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('Saved to the ledger as receipt #1');
    await notice.getByRole('link', { name: 'receipt #1' }).click();
    await page.waitForURL((url) => url.hash === '#/receipts/1');

    // The same document chosen as a file is verified at once and is already stored.
    await page.goBack();
    await page.getByRole('heading', { name: 'Verify', level: 1 }).waitFor();
    await page
      .getByLabel('Choose a file…')
      .setInputFiles({ name: 'coffee-receipt.json', mimeType: 'application/json', buffer: Buffer.from(VALID) });
    await page.locator('.report [data-status="PASS"]').waitFor();
    await page.getByText('for “coffee-receipt.json”').waitFor();
    await page.getByRole('button', { name: 'Save to ledger' }).click();
    await page.getByTestId('saved-notice').waitFor();
    expect(await page.getByTestId('saved-notice').textContent()).toContain('Already in the ledger as receipt #1');
    expect(failures).toEqual([]);
  });

  it('refuses files it cannot verify as they are, with the reason', async () => {
    await page.getByLabel('Choose a file…').setInputFiles({
      name: 'bundle.zip',
      mimeType: 'application/zip',
      buffer: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0xfe, 0x00]),
    });
    await page.getByText('“bundle.zip” is not a text file').waitFor();
    await page.getByText('This looks like an evidence bundle: import it on the Bundles page.').waitFor();
    await page.getByLabel('Choose a file…').setInputFiles({
      name: 'huge.json',
      mimeType: 'application/json',
      buffer: Buffer.alloc(16 * 1024 * 1024 + 1, 0x20),
    });
    await page.getByText('“huge.json” is too large').waitFor();
    await page
      .getByText('It is 16.0 MiB (16,777,217 bytes); Verify takes documents up to 16 MiB (16,777,216 bytes).')
      .waitFor();
    expect(await page.locator('.report').count()).toBe(0);
  });

  it('counts the saved receipt on the overview and links the PASS count to the filtered receipts', async () => {
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    await page.getByRole('heading', { name: 'By status' }).waitFor();
    const receiptsStat = page.locator('.overview-stat').first();
    expect(await receiptsStat.locator('.stat').textContent()).toBe('1');
    expect(await receiptsStat.locator('.stat-label').textContent()).toBe('receipt');
    // The receipt passed, but its signing key is not pinned: that needs attention (saying "Nothing
    // needs attention" here was the defect of issue 25).
    await page.getByTestId('unpinned-issuers').waitFor();
    expect(await page.getByText('Nothing needs attention').count()).toBe(0);
    expect(
      await page
        .getByTestId('unpinned-issuers')
        .getByRole('link', { name: /^Pin this key… did:key:/ })
        .count(),
    ).toBe(1);
    expect(await page.getByTestId('pass-rate').locator('.overview-stat-detail').textContent()).toBe(
      '100 % · 1 of 1 passed',
    );
    const passLink = page.getByRole('link', { name: 'PASS: 1 receipt. Show them.' });
    expect(await passLink.locator('.overview-breakdown-count').textContent()).toBe('1');
    expect(await page.getByRole('link', { name: 'trust unpinned: 1 receipt. Show them.' }).getAttribute('href')).toBe(
      '#/receipts?trust=unpinned',
    );
    expect(await page.getByRole('link', { name: 'format classical: 1 receipt. Show them.' }).getAttribute('href')).toBe(
      '#/receipts?format=classical',
    );
    await passLink.click();
    await page.waitForURL((url) => url.hash === '#/receipts?status=PASS');
    expect(failures).toEqual([]);
  });

  it('applies and keeps the theme, and checks and saves the import limits', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(await page.getByLabel('Data folder').inputValue()).toBe(app.home);
    await page.getByText('= 2,048 MB (2 GB)').waitFor();
    await page.screenshot({ path: screenshot('settings.png') });

    // Bounds mirror the contract's, and nothing is sent while a field is wrong.
    const entries = page.getByLabel('Maximum entries');
    await entries.fill('0');
    await page.getByText('Maximum entries must be from 1 to 10,000,000.').waitFor();
    expect(await entries.getAttribute('aria-invalid')).toBe('true');
    await entries.fill('5000');
    await page.getByLabel('Maximum total size').fill('1048576');
    await page.getByText('= 1 MB', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByText(/^Saved at /).waitFor();

    await page.getByLabel(/^Dark/).check();
    await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
    await page.getByText('Theme saved.').waitFor();

    await page.reload();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
    expect(await page.getByLabel(/^Dark/).isChecked()).toBe(true);
    expect(await page.getByLabel('Maximum entries').inputValue()).toBe('5,000');
    expect(await page.getByLabel('Maximum total size').inputValue()).toBe('1,048,576');
    expect(failures).toEqual([]);
  });
});

describe('user guide screenshots with sample data', () => {
  let app: RunningApp;
  let browser: Browser;
  let samples: string;

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchBrowser();
    samples = mkdtempSync(join(tmpdir(), 'evroom-samples-'));
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (samples) rmSync(samples, { recursive: true, force: true });
  });

  it('shows a ledger of many formats and statuses, light and dark', async () => {
    const failures: string[] = [];
    const page = await openApp(browser, app, failures);
    await page.getByText('Welcome to Evidence Room').waitFor();
    // Until the app ships sample data, the button explains where to get some instead.
    await page.getByRole('button', { name: 'Load sample data' }).click();
    await page.locator('.overview-samples-notice, .overview-stat').first().waitFor();

    let documents: { name: string; text: string }[];
    let keys: { key_id: string; algorithm: string; public_key: string; label?: string }[] = [];
    try {
      execFileSync(process.execPath, [join(REPO_ROOT, 'bin', 'evroom.mjs'), 'samples', '--out', samples], {
        stdio: 'pipe',
      });
      const index = JSON.parse(readFileSync(join(samples, 'index.json'), 'utf8')) as { file: string }[];
      documents = index.map((entry) => ({ name: entry.file, text: readFileSync(join(samples, entry.file), 'utf8') }));
      keys = (JSON.parse(readFileSync(join(samples, 'keys.json'), 'utf8')) as { keys: typeof keys }).keys;
    } catch {
      // Without the samples command, classical receipts of several statuses do.
      documents = [
        VALID,
        TAMPERED,
        signClassical({ ...PAYLOAD, sequence: 8 }, SEED, crypto),
        '{"signed_payload": {}}',
      ].map((text, index) => ({ name: `receipt-${index}.json`, text }));
    }
    for (const key of keys.slice(0, 6)) await callApi(app, 'trust.pin', key);
    for (const document of documents)
      await callApi(app, 'verify', { text: document.text, save: true, name: document.name });
    if (keys[1])
      await callApi(app, 'trust.revoke', {
        key_id: keys[1].key_id,
        reason: 'sample: key retired after a suspected leak',
      });
    try {
      const exported = (await callApi(app, 'exports.create', {
        filters: { status: 'PASS' },
        name: 'passed-receipts',
      })) as { path: string };
      const job = (await callApi(app, 'imports.start', { path: exported.path, name: 'passed-receipts.zip' })) as {
        jobId: string;
      };
      await waitForImport(app, job.jobId);
    } catch {
      // A bundle only adds the recent imports table to the picture.
    }

    await page.reload();
    await page.getByRole('heading', { name: 'By status' }).waitFor();
    const statuses = await page.locator('.overview-breakdown [data-status]').count();
    expect(statuses).toBeGreaterThan(1);
    await page.screenshot({ path: screenshot('overview.png') });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByLabel(/^Dark/).check();
    await page.getByText('Theme saved.').waitFor();
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    await page.getByRole('heading', { name: 'By status' }).waitFor();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    await page.screenshot({ path: screenshot('overview-dark.png') });
    expect(failures).toEqual([]);
  });
});
