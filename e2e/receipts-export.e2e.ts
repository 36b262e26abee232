/**
 * From finding to evidence, end to end in Chromium against the real app in local web mode:
 * copy buttons hand over whole ids and hashes, the filtered receipts list exports as CSV and
 * JSON (the whole filtered set, past the first ledger page), and "Report from these filters"
 * makes a report of exactly those receipts.
 *
 * Writes docs/screenshots/receipts-export.png (1280x800).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ReceiptDetail, ReceiptFilters, ReceiptPage, ReportSummary } from '../src-shared/api/contract';
import { RECEIPT_EXPORT_COLUMNS } from '../src-shared/api/receipts-export';
import { b64uDecode, utf8Decode } from '../src-shared/crypto';
import { issueProfileReceipt } from '../src-shared/formats/profile';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { axeAcrossWidths } from './a11y';
import { buildSignedBundle, FIXTURE_ISSUER_KEY_ID, type SignedBundle } from './fixtures';
import { callApi, REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const VIEWPORT = { width: 1280, height: 800 };
/** More than one ledger page (1,000 rows), so the export must follow the cursor. */
const BUNDLE_RECEIPTS = 1_050;
const BUNDLE_TAMPERED = 12;
/** A forged document's id: a spreadsheet would run it as a formula. */
const FORMULA_ID = '=HYPERLINK("http://evil.example/","open")';

/** Goes to a route inside the running app, as a link would (the session token stays). */
async function go(page: Page, hash: string): Promise<void> {
  await page.evaluate((target) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = target;
  }, hash);
}

async function waitForTotal(page: Page, count: number): Promise<void> {
  const text = `${count.toLocaleString('en-US')} ${count === 1 ? 'receipt' : 'receipts'}`;
  await page
    .getByTestId('receipts-total')
    .filter({ hasText: new RegExp(`^${text}$`) })
    .waitFor({ timeout: 30_000 });
}

/** The little of the browser's clipboard these tests use (the e2e project has no DOM library). */
interface BrowserClipboard {
  navigator: { clipboard: { readText(): Promise<string>; writeText(text: string): Promise<void> } };
}

async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as BrowserClipboard).navigator.clipboard.readText());
}

/** Puts a marker on the clipboard, so a copy that did nothing shows. */
async function clearClipboard(page: Page): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as BrowserClipboard).navigator.clipboard.writeText('before'));
}

/** Every row the filters select, read through receipts.list (not the export), as ledger ids. */
async function listedIds(app: RunningApp, filters: ReceiptFilters): Promise<number[]> {
  const ids: number[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await callApi<ReceiptPage>(app, 'receipts.list', {
      filters,
      limit: 500,
      ...(after ? { after } : {}),
    });
    ids.push(...page.rows.map((row) => row.id));
    if (!page.nextCursor) return ids.sort((a, b) => a - b);
    after = page.nextCursor;
  }
}

/** Reads CSV (RFC 4180) back into records. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '"') {
      const close = (): number => {
        let at = index + 1;
        for (;;) {
          const quote = text.indexOf('"', at);
          if (quote < 0) throw new Error('unterminated quote');
          if (text[quote + 1] === '"') at = quote + 2;
          else return quote;
        }
      };
      const end = close();
      field += text.slice(index + 1, end).replace(/""/g, '"');
      index = end + 1;
    } else if (char === ',') {
      fields.push(field);
      field = '';
      index++;
    } else if (char === '\r' && text[index + 1] === '\n') {
      fields.push(field);
      records.push(fields);
      fields = [];
      field = '';
      index += 2;
    } else {
      field += char;
      index++;
    }
  }
  return records;
}

/** Clicks an export button and reads the file the browser downloads. */
async function exportFile(page: Page, testId: 'export-csv' | 'export-json'): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 60_000 }),
    page.getByTestId(testId).click(),
  ]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: readFileSync(path, 'utf8') };
}

describe('receipts: copy, export, report from these filters', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  let scratch: string;
  let bundle: SignedBundle;
  let forgedId: number;
  /** The verdict of the bundle's altered receipts, as the CSV gave it. */
  let tamperedStatus = '';
  const failures: string[] = [];

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchBrowser();
    scratch = mkdtempSync(join(tmpdir(), 'evroom-export-e2e-'));
    mkdirSync(SCREENSHOTS, { recursive: true });
    page = await browser.newPage({
      viewport: VIEWPORT,
      colorScheme: 'light',
      acceptDownloads: true,
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });

    // A bundle of one issuer's receipts, some altered after signing.
    bundle = await buildSignedBundle({
      out: join(scratch, 'bundle.zip'),
      receipts: BUNDLE_RECEIPTS,
      tampered: BUNDLE_TAMPERED,
    });
    let progress = await callApi<{ jobId: string; state: string }>(app, 'imports.start', {
      name: 'bundle.zip',
      data: bundle.bytes.toString('base64url'),
    });
    for (let attempt = 0; progress.state === 'running' && attempt < 600; attempt++) {
      await new Promise((resolveWait) => setTimeout(resolveWait, 200));
      progress = await callApi(app, 'imports.progress', { jobId: progress.jobId });
    }
    expect(progress.state).toBe('done');

    // A forged document naming the same issuer, whose id is a spreadsheet formula.
    const crypto = createNodeCryptoProvider();
    const forged = issueProfileReceipt(
      'standard',
      {
        agent_did: 'did:web:agent.example.com',
        content: { sha256: 'a'.repeat(64), type: 'text/plain' },
        smsh: { sealed: false, declaration: 'none' },
        hktn_context: { reputation_tier: 'silver' },
      },
      new Uint8Array(32).fill(0x33),
      FIXTURE_ISSUER_KEY_ID,
      crypto,
      { now: new Date('2026-10-20T10:00:00Z') },
    );
    const text = JSON.stringify(forged).replace(/"id":"[^"]+"/, `"id":${JSON.stringify(FORMULA_ID)}`);
    const saved = await callApi<{ saved?: { id: number } }>(app, 'verify', { text, save: true, name: 'forged.json' });
    forgedId = saved.saved?.id as number;
    expect(forgedId).toBeGreaterThan(0);
    const detail = await callApi<ReceiptDetail>(app, 'receipts.get', { id: forgedId });
    expect(detail.receipt_id).toBe(FORMULA_ID);
    expect(detail.issuer_key_id).toBe(FIXTURE_ISSUER_KEY_ID);

    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('exports the whole filtered set as CSV, neutralising a formula-looking id', async () => {
    const filters: ReceiptFilters = { issuer: FIXTURE_ISSUER_KEY_ID };
    const expected = await listedIds(app, filters);
    expect(expected.length).toBe(BUNDLE_RECEIPTS + BUNDLE_TAMPERED + 1);
    await go(page, `#/receipts?issuer=${encodeURIComponent(FIXTURE_ISSUER_KEY_ID)}`);
    await waitForTotal(page, expected.length);
    // Fewer rows are loaded than the export must write.
    expect(await page.locator('.receipts-row').count()).toBeLessThan(100);

    const csv = await exportFile(page, 'export-csv');
    expect(csv.name).toMatch(/^receipts-\d{8}T\d{6}Z\.csv$/);
    const records = parseCsv(csv.text);
    expect(records[0]).toEqual([...RECEIPT_EXPORT_COLUMNS]);
    const body = records.slice(1);
    // Columns by name: the export's order is RECEIPT_EXPORT_COLUMNS.
    const at = (name: (typeof RECEIPT_EXPORT_COLUMNS)[number]): number => RECEIPT_EXPORT_COLUMNS.indexOf(name);
    expect(body).toHaveLength(expected.length);
    expect(body.map((record) => Number(record[at('ledger_id')])).sort((a, b) => a - b)).toEqual(expected);
    expect(new Set(body.map((record) => record[at('issuer_key_id')]))).toEqual(new Set([FIXTURE_ISSUER_KEY_ID]));
    const forged = body.find((record) => Number(record[at('ledger_id')]) === forgedId);
    expect(forged?.[at('receipt_id')]).toBe(`'${FORMULA_ID}`);
    // In the file itself: quoted per RFC 4180, the apostrophe first.
    expect(csv.text).toContain(`"'=HYPERLINK(""http://evil.example/"",""open"")"`);
    // The altered receipts keep their verdict in the file.
    const statuses = new Map<string, number>();
    for (const record of body)
      statuses.set(record[at('status')] as string, (statuses.get(record[at('status')] as string) ?? 0) + 1);
    expect(statuses.get('PASS')).toBe(BUNDLE_RECEIPTS);
    tamperedStatus =
      [...statuses.keys()].find((status) => status !== 'PASS' && (statuses.get(status) ?? 0) >= BUNDLE_TAMPERED) ?? '';
    expect(tamperedStatus).not.toBe('');
    await page
      .getByTestId('export-status')
      .filter({ hasText: `Exported ${expected.length.toLocaleString('en-US')} receipts` })
      .waitFor();
  });

  it('exports the same filtered set as a JSON array of the same fields, values unchanged', async () => {
    await go(page, `#/receipts?issuer=${encodeURIComponent(FIXTURE_ISSUER_KEY_ID)}&status=${tamperedStatus}`);
    const expected = await listedIds(app, {
      issuer: FIXTURE_ISSUER_KEY_ID,
      status: tamperedStatus as ReceiptFilters['status'],
    });
    expect(expected.length).toBeGreaterThanOrEqual(BUNDLE_TAMPERED);
    await waitForTotal(page, expected.length);
    const json = await exportFile(page, 'export-json');
    expect(json.name).toMatch(/\.json$/);
    const records = JSON.parse(json.text) as Record<string, unknown>[];
    expect(records.map((record) => record.ledger_id as number).sort((a, b) => a - b)).toEqual(expected);
    expect(Object.keys(records[0] ?? {})).toEqual([...RECEIPT_EXPORT_COLUMNS]);
    expect(new Set(records.map((record) => record.status))).toEqual(new Set([tamperedStatus]));

    // The whole issuer: the forged id stays exactly as the document wrote it.
    await go(page, `#/receipts?issuer=${encodeURIComponent(FIXTURE_ISSUER_KEY_ID)}`);
    await waitForTotal(page, BUNDLE_RECEIPTS + BUNDLE_TAMPERED + 1);
    const all = JSON.parse((await exportFile(page, 'export-json')).text) as Record<string, unknown>[];
    expect(all).toHaveLength(BUNDLE_RECEIPTS + BUNDLE_TAMPERED + 1);
    expect(all.find((record) => record.ledger_id === forgedId)?.receipt_id).toBe(FORMULA_ID);
    await page.screenshot({ path: join(SCREENSHOTS, 'receipts-export.png') });
  });

  it('is clean for axe with the toolbar and its status', async () => {
    expect(await axeAcrossWidths(page, 'receipts with the export toolbar')).toEqual([]);
  });

  it('copies the whole id of the selected row from the grid with the C key', async () => {
    const forged = await callApi<ReceiptDetail>(app, 'receipts.get', { id: forgedId });
    const filters: ReceiptFilters = { issuer: FIXTURE_ISSUER_KEY_ID, status: forged.status };
    const { count } = await callApi<{ count: number }>(app, 'receipts.count', { filters });
    await go(page, `#/receipts?${new URLSearchParams(filters as Record<string, string>).toString()}`);
    await waitForTotal(page, count);
    const row = page.locator(`#receipt-row-${forgedId}`);
    // The full id is the row link's name and the cell's title, however narrow the column.
    expect(await row.locator('.col-id .middle-truncated').getAttribute('title')).toBe(FORMULA_ID);
    expect(await row.getByRole('link').textContent()).toBe(FORMULA_ID);
    await row.locator('.col-status').click();
    await expect.poll(() => row.getAttribute('aria-selected')).toBe('true');
    await clearClipboard(page);
    await page.keyboard.press('c');
    await page.getByTestId('receipts-copy-status').filter({ hasText: 'Copied the receipt id' }).waitFor();
    expect(await clipboard(page)).toBe(FORMULA_ID);
    // Ctrl+C with nothing selected on the page does the same for the next row.
    await page.keyboard.press('Home');
    const first = page.locator('.receipts-row[aria-selected="true"]');
    const firstId = await callApi<ReceiptDetail>(app, 'receipts.get', {
      id: Number(await first.getAttribute('data-receipt-id')),
    });
    await clearClipboard(page);
    await page.keyboard.press('Control+c');
    await expect.poll(() => clipboard(page)).toBe(firstId.receipt_id ?? firstId.receipt_sha256);
    // Still one tab stop: the cells hold no button of their own.
    expect(await page.locator('.receipts-body button').count()).toBe(0);
  });

  it('copies the whole receipt id, document hash and issuer key id from the receipt detail', async () => {
    const detail = await callApi<ReceiptDetail>(app, 'receipts.get', { id: forgedId });
    await go(page, `#/receipts/${forgedId}`);
    await page.getByRole('heading', { name: 'Identity' }).waitFor();
    for (const [name, value] of [
      ['Copy the receipt id', FORMULA_ID],
      ['Copy the document SHA-256', detail.receipt_sha256],
      ["Copy the id of the issuer's key", FIXTURE_ISSUER_KEY_ID],
    ] as const) {
      await clearClipboard(page);
      await page.getByRole('button', { name, exact: true }).click();
      await expect.poll(() => clipboard(page)).toBe(value);
    }
    expect(await axeAcrossWidths(page, 'receipt detail with copy buttons')).toEqual([]);
  });

  it('copies a pinned key id and the whole public key from Trust', async () => {
    await callApi(app, 'trust.pin', { ...bundle.issuer, label: 'Acme receipts' });
    await go(page, '#/trust');
    const row = page.locator(`[data-testid="pinned-table"] tr[data-key-id="${FIXTURE_ISSUER_KEY_ID}"]`);
    await row.waitFor();
    await row.getByRole('button', { name: 'Copy the public key of Acme receipts' }).click();
    await expect.poll(() => clipboard(page)).toBe(bundle.issuer.public_key);
    await row.getByRole('button', { name: 'Copy the id of key Acme receipts' }).click();
    await expect.poll(() => clipboard(page)).toBe(FIXTURE_ISSUER_KEY_ID);
    // The shortened public key keeps its whole value for screen readers and on hover.
    expect(await row.locator('.key-bytes [title]').getAttribute('title')).toBe(bundle.issuer.public_key);
  });

  it('opens Reports with the scope prefilled and makes a report of exactly those receipts', async () => {
    const filters: ReceiptFilters = { issuer: FIXTURE_ISSUER_KEY_ID, status: 'PASS', from: '2026-10-01T09:00:00Z' };
    const query = new URLSearchParams(filters as Record<string, string>);
    await go(page, `#/receipts?${query.toString()}`);
    const expected = await callApi<{ count: number }>(app, 'receipts.count', { filters });
    expect(expected.count).toBeGreaterThan(900);
    expect(expected.count).toBeLessThan(BUNDLE_RECEIPTS);
    await waitForTotal(page, expected.count);
    await page.getByTestId('report-from-filters').click();
    await page.waitForURL(/#\/reports\?/);
    await page.getByTestId('report-scope-from-list').waitFor();
    const form = page.getByRole('form', { name: 'Report scope' });
    expect(await form.getByLabel('Status').inputValue()).toBe('PASS');
    expect(await form.getByLabel('Issuer key id').inputValue()).toBe(FIXTURE_ISSUER_KEY_ID);
    // Chromium drops zero seconds from the field's value; the instant is the same.
    expect(await form.getByLabel('Issued from (UTC)').inputValue()).toMatch(/^2026-10-01T09:00(:00(\.000)?)?$/);
    expect(await page.getByTestId('report-scope-not-carried').count()).toBe(0);
    expect(await axeAcrossWidths(page, 'reports with a scope from the receipts list')).toEqual([]);

    const before = await callApi<ReportSummary[]>(app, 'reports.list');
    await form.getByRole('button', { name: 'Make report' }).click();
    await expect.poll(async () => (await callApi<ReportSummary[]>(app, 'reports.list')).length).toBe(before.length + 1);
    const [made] = await callApi<ReportSummary[]>(app, 'reports.list');
    expect(made?.receipts).toBe(expected.count);
    expect(made?.scope.filters).toEqual({
      issuer: FIXTURE_ISSUER_KEY_ID,
      status: 'PASS',
      from: '2026-10-01T09:00:00.000Z',
    });
    // Exactly those receipts: the report's rows are the list's, hash for hash.
    const file = await callApi<{ data: string }>(app, 'reports.get', { report_id: made?.report_id, form: 'json' });
    const report = JSON.parse(utf8Decode(b64uDecode(file.data))) as { receipts: { receipt_sha256: string }[] };
    const listed = new Set<string>();
    let after: string | undefined;
    for (;;) {
      const listPage = await callApi<ReceiptPage>(app, 'receipts.list', {
        filters,
        limit: 500,
        ...(after ? { after } : {}),
      });
      for (const row of listPage.rows) listed.add(row.receipt_sha256);
      if (!listPage.nextCursor) break;
      after = listPage.nextCursor;
    }
    expect(new Set(report.receipts.map((row) => row.receipt_sha256))).toEqual(listed);
  });

  it('says which filters a report cannot carry (the bundle)', async () => {
    const bundles = await callApi<{ id: number }[]>(app, 'bundles.list');
    const bundleId = bundles[0]?.id as number;
    const { count } = await callApi<{ count: number }>(app, 'receipts.count', {
      filters: { bundle: bundleId, status: tamperedStatus },
    });
    expect(count).toBe(BUNDLE_TAMPERED);
    await go(page, `#/receipts?bundle=${bundleId}&status=${tamperedStatus}`);
    await waitForTotal(page, count);
    expect(await page.getByTestId('report-from-filters').getAttribute('title')).toContain('not carried: bundle');
    await page.getByTestId('report-from-filters').click();
    await page.waitForURL(/#\/reports\?/);
    const notCarried = page.getByTestId('report-scope-not-carried');
    await notCarried.waitFor();
    expect(await notCarried.textContent()).toContain(`Not carried: bundle ${bundleId}`);
    expect(await page.getByRole('form', { name: 'Report scope' }).getByLabel('Status').inputValue()).toBe(
      tamperedStatus,
    );
  });

  it('raised no script errors', () => {
    expect(failures).toEqual([]);
  });
});
