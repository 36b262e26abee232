/**
 * The receipts list and the receipt detail, end to end: a real ledger filled through the app
 * API, the real app in local web mode, Debian's Chromium.
 *
 * Also writes the user guide's pictures: docs/screenshots/receipts.png, receipt-detail.png and
 * receipt-detail-dark.png (1280x800).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ReceiptDetail, ReceiptPage } from '../src-shared/api/contract';
import { createPortableProvider } from '../src-shared/crypto/portable-provider';
import { signClassical } from '../src-shared/formats/classical';
import type { Report } from '../src-shared/verify/report';
import { callApi, REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const VIEWPORT = { width: 1280, height: 800 };

/** One document put into the ledger, with what verifying it gave. */
interface Seeded {
  name: string;
  id: number;
  report: Report;
}

/** Calls the app API the way the renderer does: POST /api/<method> with the session token. */

/**
 * The documents to seed: `evroom samples` (every format, valid and broken) with its keys, or,
 * where that command is not available, a few classical receipts signed here, one tampered.
 */
function seedDocuments(directory: string): {
  documents: { name: string; text: string }[];
  keys: { key_id: string; algorithm: string; public_key: string; label?: string }[];
} {
  const samples = join(directory, 'samples');
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'evroom.mjs'), 'samples', '--out', samples], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  if (run.status === 0 && existsSync(join(samples, 'index.json'))) {
    const index = JSON.parse(readFileSync(join(samples, 'index.json'), 'utf8')) as { file: string }[];
    const keys = (
      JSON.parse(readFileSync(join(samples, 'keys.json'), 'utf8')) as {
        keys: { key_id: string; algorithm: string; public_key: string; label?: string }[];
      }
    ).keys;
    return {
      documents: index.map((entry) => ({ name: entry.file, text: readFileSync(join(samples, entry.file), 'utf8') })),
      keys,
    };
  }
  const crypto = createPortableProvider();
  const seed = new Uint8Array(32).fill(7);
  const documents = Array.from({ length: 6 }, (_, index) => ({
    name: `classical/valid-${index + 1}.json`,
    text: signClassical(
      `{"amount":${index + 1}.50,"currency":"EUR","receipt_id":"r-e2e-${index + 1}","sequence":${index + 1}}`,
      seed,
      crypto,
    ),
  }));
  const tampered = (documents[0] as { text: string }).text.replace(
    '"amount":1.50,"currency":"EUR","receipt_id"',
    '"amount":9.50,"currency":"EUR","receipt_id"',
  );
  documents.push({ name: 'classical/tampered.json', text: tampered });
  return { documents, keys: [] };
}

/** The little of the DOM these tests read (the e2e project compiles without the DOM library). */
interface DomElement {
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
}

/** Goes to a route inside the running app, as a link would (the session token stays). */
async function go(page: Page, hash: string): Promise<void> {
  await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
}

/** Waits until the list's total reads exactly `text`, e.g. "3 receipts". */
async function waitForTotal(page: Page, text: string): Promise<void> {
  await page
    .getByTestId('receipts-total')
    .filter({ hasText: new RegExp(`^${text}$`) })
    .waitFor();
}

/** The ids of the rows the grid shows, in order. */
async function rowIds(page: Page): Promise<number[]> {
  return page.locator('.receipts-row').evaluateAll((rows) =>
    (rows as unknown as DomElement[])
      .map((row) => ({
        id: Number(row.getAttribute('data-receipt-id')),
        index: Number(row.getAttribute('aria-rowindex')),
      }))
      .sort((a, b) => a.index - b.index)
      .map((row) => row.id),
  );
}

describe('receipts list and detail', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  let scratch: string;
  const failures: string[] = [];
  const seeded: Seeded[] = [];

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchBrowser();
    scratch = mkdtempSync(join(tmpdir(), 'evroom-receipts-e2e-'));
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = await browser.newPage({
      viewport: VIEWPORT,
      colorScheme: 'light',
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('says what to do when the ledger is empty', async () => {
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await go(page, '#/receipts');
    await page.getByText('Import a bundle or verify a document to fill the ledger').waitFor();
    expect(await page.locator('.empty-state a[href="#/bundles"]').count()).toBe(1);
    expect(await page.locator('.empty-state a[href="#/verify"]').count()).toBe(1);
    await waitForTotal(page, '0 receipts');
  });

  it('lists every receipt put into the ledger, with its count', async () => {
    const { documents, keys } = seedDocuments(scratch);
    // Pin every sample key but one issuer's, so the list shows trusted and unpinned receipts.
    for (const key of keys.filter((entry) => !entry.key_id.startsWith('did:key:'))) {
      await callApi(app, 'trust.pin', {
        key_id: key.key_id,
        algorithm: key.algorithm,
        public_key: key.public_key,
        label: key.label,
      });
    }
    for (const document of documents) {
      const result = await callApi<{ report: Report; saved?: { id: number; created: boolean } }>(app, 'verify', {
        text: document.text,
        save: true,
        name: document.name,
      });
      expect(result.saved).toBeDefined();
      if (result.saved?.created) seeded.push({ name: document.name, id: result.saved.id, report: result.report });
    }
    expect(seeded.length).toBeGreaterThan(5);
    expect(seeded.some((entry) => entry.report.status === 'MISMATCH')).toBe(true);

    await go(page, '#/receipts');
    await page.reload();
    await waitForTotal(page, `${seeded.length} receipts`);
    const grid = page.getByRole('grid', { name: 'Receipts' });
    await grid.waitFor();
    expect(await grid.getAttribute('aria-rowcount')).toBe(String(seeded.length + 1));
    // Virtualized: no more rows exist than fit in the view plus the overscan.
    const rendered = await page.locator('.receipts-row').count();
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThanOrEqual(Math.min(seeded.length, 40));
    await page.screenshot({ path: join(SCREENSHOTS, 'receipts.png') });
  });

  it('filters by status through the control, in the URL, in the rows and in the count', async () => {
    const mismatches = seeded.filter((entry) => entry.report.status === 'MISMATCH');
    await page.getByTestId('filter-status').selectOption('MISMATCH');
    await page.waitForURL(/[?&]status=MISMATCH/);
    await waitForTotal(page, `${mismatches.length} ${mismatches.length === 1 ? 'receipt' : 'receipts'}`);
    await expect.poll(() => page.locator('.receipts-row').count()).toBe(mismatches.length);
    const statuses = await page
      .locator('.receipts-row [data-status]')
      .evaluateAll((badges) => (badges as unknown as DomElement[]).map((badge) => badge.getAttribute('data-status')));
    expect(new Set(statuses)).toEqual(new Set(['MISMATCH']));
    expect((await rowIds(page)).sort((a, b) => a - b)).toEqual(
      mismatches.map((entry) => entry.id).sort((a, b) => a - b),
    );
    // The filter survives a reload: it lives in the URL.
    await page.reload();
    await waitForTotal(page, `${mismatches.length} ${mismatches.length === 1 ? 'receipt' : 'receipts'}`);
    expect(await page.getByTestId('filter-status').inputValue()).toBe('MISMATCH');
  });

  it('filters by words typed into the search box', async () => {
    const target = seeded.find((entry) => entry.name.includes('wearable/valid')) ?? (seeded[0] as Seeded);
    const detail = await callApi<ReceiptDetail>(app, 'receipts.get', { id: target.id });
    await page.getByTestId('clear-filters').click();
    await waitForTotal(page, `${seeded.length} receipts`);
    await page.getByTestId('filter-text').fill(detail.receipt_sha256);
    await page.waitForURL(new RegExp(`text=${detail.receipt_sha256}`));
    await waitForTotal(page, '1 receipt');
    await expect.poll(() => rowIds(page)).toEqual([target.id]);
    await page.getByTestId('clear-filters').click();
    await waitForTotal(page, `${seeded.length} receipts`);
    expect(await page.getByTestId('filter-text').inputValue()).toBe('');
  });

  it('sorts by a column, with aria-sort and the order in the URL', async () => {
    const header = page.getByRole('columnheader', { name: /Format/ });
    expect(await header.getAttribute('aria-sort')).toBe('none');
    await header.getByRole('button').click();
    await page.waitForURL(/sort=format&dir=asc/);
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('ascending');
    expect(await page.getByRole('columnheader', { name: /Issued at/ }).getAttribute('aria-sort')).toBe('none');
    const page1 = await callApi<ReceiptPage>(app, 'receipts.list', {
      filters: {},
      sort: 'format',
      direction: 'asc',
      limit: 500,
    });
    const expected = page1.rows.slice(0, 10).map((row) => row.id);
    await expect.poll(async () => (await rowIds(page)).slice(0, 10)).toEqual(expected);
    const formats = page1.rows.map((row) => row.format);
    expect(formats).toEqual([...formats].sort());

    await header.getByRole('button').click();
    await page.waitForURL(/sort=format&dir=desc/);
    await expect.poll(() => header.getAttribute('aria-sort')).toBe('descending');
    const descending = await callApi<ReceiptPage>(app, 'receipts.list', {
      filters: {},
      sort: 'format',
      direction: 'desc',
      limit: 10,
    });
    await expect.poll(async () => (await rowIds(page)).slice(0, 10)).toEqual(descending.rows.map((row) => row.id));
  });

  it('moves with the keyboard and opens the selected receipt with Enter', async () => {
    await go(page, '#/receipts');
    await waitForTotal(page, `${seeded.length} receipts`);
    await expect.poll(async () => (await rowIds(page)).length).toBeGreaterThan(3);
    const ids = await rowIds(page);
    const grid = page.getByRole('grid', { name: 'Receipts' });
    await grid.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await grid.getAttribute('aria-activedescendant')).toBe(`receipt-row-${ids[2]}`);
    expect(await page.locator(`#receipt-row-${ids[2]}`).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/receipts/${ids[2]}$`));
    await page.getByRole('heading', { name: 'Verification' }).waitFor();

    // Back to the list; Home and End move to the ends, ArrowUp stops at the top.
    await page.getByTestId('back-to-list').first().click();
    await page.waitForURL(/#\/receipts$/);
    await grid.waitFor();
    await grid.focus();
    const all = await callApi<ReceiptPage>(app, 'receipts.list', { filters: {}, limit: 500 });
    await page.keyboard.press('End');
    const lastId = all.rows[all.rows.length - 1]?.id;
    await expect.poll(() => grid.getAttribute('aria-activedescendant')).toBe(`receipt-row-${lastId}`);
    // The selection is scrolled into view, inside the grid's visible box.
    await expect
      .poll(async () => {
        const box = await grid.boundingBox();
        const row = await page.locator(`#receipt-row-${lastId}`).boundingBox();
        return box !== null && row !== null && row.y >= box.y && row.y + row.height <= box.y + box.height + 1;
      })
      .toBe(true);
    // Each row is also a link, for middle-click and "open in new tab".
    expect(await page.locator(`#receipt-row-${lastId} a`).getAttribute('href')).toBe(`#/receipts/${lastId}`);
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => grid.getAttribute('aria-activedescendant')).toBe(`receipt-row-${ids[0]}`);
  });

  it('keeps the filters when going back from a receipt to the list', async () => {
    await page.getByTestId('filter-status').selectOption('PASS');
    await page.waitForURL(/status=PASS/);
    await expect.poll(async () => (await rowIds(page)).length).toBeGreaterThan(0);
    const [first] = await rowIds(page);
    await page.locator(`#receipt-row-${first}`).dblclick();
    await page.waitForURL(new RegExp(`#/receipts/${first}$`));
    await page.getByTestId('back-to-list').first().click();
    await page.waitForURL(/#\/receipts\?.*status=PASS/);
    expect(await page.getByTestId('filter-status').inputValue()).toBe('PASS');
    await page.getByTestId('clear-filters').click();
    await page.waitForURL(/#\/receipts$/);
  });

  it('lists the receipts of one bundle and links each to the bundle it came from', async () => {
    // Export some of the ledger as a signed bundle and import it back: the receipts are the same
    // (nothing new is stored) and each gains the bundle as a source.
    const exported = await callApi<{ path: string; receipts: number }>(app, 'exports.create', {
      filters: { format: 'classical' },
    });
    expect(exported.receipts).toBeGreaterThan(0);
    // The app imports uploads, never a path it is told: send the exported zip's bytes.
    const data = readFileSync(exported.path).toString('base64url');
    let progress = await callApi<{ jobId: string; state: string; bundleId?: number }>(app, 'imports.start', {
      name: 'export.zip',
      data,
    });
    for (let attempt = 0; progress.state === 'running' && attempt < 200; attempt++) {
      await new Promise((resolveWait) => setTimeout(resolveWait, 150));
      progress = await callApi(app, 'imports.progress', { jobId: progress.jobId });
    }
    expect(progress.state).toBe('done');
    const bundleId = progress.bundleId as number;
    await go(page, `#/receipts?bundle=${bundleId}`);
    await waitForTotal(page, `${exported.receipts} ${exported.receipts === 1 ? 'receipt' : 'receipts'}`);
    expect(await page.locator('.receipts-bundle-filter a').getAttribute('href')).toBe(`#/bundles/${bundleId}`);
    await expect.poll(async () => (await rowIds(page)).length).toBe(exported.receipts);
    const [first] = await rowIds(page);
    await page.locator(`#receipt-row-${first}`).dblclick();
    await page.waitForURL(new RegExp(`#/receipts/${first}$`));
    await page.getByTestId('source-bundle-link').waitFor();
    expect(await page.getByTestId('source-bundle-link').getAttribute('href')).toBe(`#/bundles/${bundleId}`);
    await go(page, '#/receipts');
  });

  it('shows every check of a receipt with its status', async () => {
    for (const entry of seeded.slice(0, 12)) {
      await go(page, `#/receipts/${entry.id}`);
      await page.getByRole('heading', { name: 'Verification' }).waitFor();
      const top = entry.report.checks.map((check) => ({ id: check.id, status: check.status }));
      // The heading can be drawn before the receipt's report arrives: wait for its checks.
      // The inner report of a sealed document lists its own checks after the outer ones.
      await expect
        .poll(
          async () => {
            const shown = await page.locator('[data-check]').evaluateAll((rows) =>
              (rows as unknown as DomElement[]).map((row) => ({
                id: row.getAttribute('data-check'),
                status: row.querySelector('[data-check-status]')?.getAttribute('data-check-status'),
              })),
            );
            return shown.slice(0, top.length);
          },
          { timeout: 10_000 },
        )
        .toEqual(top);
      expect(await page.locator('.report-verdicts').first().locator('[data-status]').getAttribute('data-status')).toBe(
        entry.report.status,
      );
      expect(await page.locator('.report-verdicts').first().locator('[data-trust]').getAttribute('data-trust')).toBe(
        entry.report.trust.status,
      );
      await page.getByText('No anchor record for this receipt').waitFor();
    }
  });

  it('shows a tampered receipt as MISMATCH, with its failing check and error path', async () => {
    const tampered =
      seeded.find((entry) => entry.name === 'classical/tampered.json') ??
      (seeded.find((entry) => entry.report.status === 'MISMATCH') as Seeded);
    await go(page, `#/receipts/${tampered.id}`);
    await page.getByRole('heading', { name: 'Verification' }).waitFor();
    expect(await page.locator('.report-verdicts [data-status]').first().textContent()).toContain('MISMATCH');
    expect(await page.getByTestId('report-reading').first().textContent()).toMatch(/disagrees with itself/);
    expect(await page.locator('[data-check-status="fail"]').count()).toBeGreaterThan(0);
    const firstError = tampered.report.errors[0];
    if (firstError)
      await page
        .locator('.report-error-path', { hasText: firstError.path === '' ? '(whole document)' : firstError.path })
        .first()
        .waitFor();
    // The signed bytes and their hash are shown for the auditor to recompute.
    const detail = await callApi<ReceiptDetail>(app, 'receipts.get', { id: tampered.id });
    const signed = detail.signed[0];
    if (signed) {
      await page.getByText(signed.sha256).first().waitFor();
      // Copy puts the hash on the clipboard and says so.
      await page
        .getByRole('button', { name: `Copy hash the SHA-256 of ${signed.label}` })
        .first()
        .click();
      await page.locator('.copy-status', { hasText: 'Copied' }).first().waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(signed.sha256);
    }
    // The exact raw text is one click away and is the document byte for byte.
    await page.getByTestId('raw-toggle').click();
    expect(await page.getByTestId('document-raw').textContent()).toBe(detail.raw);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(SCREENSHOTS, 'receipt-detail.png') });
  });

  it('reads a PASS from an unpinned key as "cryptographically valid, issuer unknown"', async () => {
    const unpinned = seeded.find((entry) => entry.report.status === 'PASS' && entry.report.trust.status === 'unpinned');
    if (!unpinned) return;
    await go(page, `#/receipts/${unpinned.id}`);
    await page.getByRole('heading', { name: 'Verification' }).waitFor();
    expect(await page.getByTestId('report-reading').first().textContent()).toMatch(
      /^Cryptographically valid, issuer unknown/,
    );
    expect(await page.locator('.report-verdicts [data-status]').first().getAttribute('data-status')).toBe('PASS');
    expect(await page.locator('.report-verdicts [data-trust]').first().getAttribute('data-trust')).toBe('unpinned');
  });

  it('says plainly when a receipt does not exist', async () => {
    await go(page, '#/receipts/987654');
    await page.getByText('This receipt does not exist').waitFor();
    expect(await page.locator('.notice-error a').getAttribute('href')).toMatch(/^#\/receipts/);
    // The API's 404 for the missing receipt is expected; the browser logs it as a failed load.
    const expected = failures.filter((message) => /status of 404/.test(message));
    expect(expected.length).toBeLessThanOrEqual(1);
    failures.splice(0, failures.length, ...failures.filter((message) => !/status of 404/.test(message)));
  });

  it('renders the detail in the dark theme', async () => {
    await callApi(app, 'settings.set', { theme: 'dark' });
    const showcase = seeded.find((entry) => entry.name === 'wearable/valid.json') ?? (seeded[0] as Seeded);
    await go(page, `#/receipts/${showcase.id}`);
    await page.reload();
    await page.getByRole('heading', { name: 'Verification' }).waitFor();
    await expect.poll(() => page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    if (showcase.name.startsWith('wearable/')) expect(await page.locator('[data-relation]').count()).toBe(8);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(SCREENSHOTS, 'receipt-detail-dark.png') });
    await callApi(app, 'settings.set', { theme: 'system' });
    expect(failures).toEqual([]);
  });
});
