/**
 * Audit reports end to end: the Reports view makes a report, previews its HTML page in a
 * sandboxed iframe (styled under the app's strict policy), compares two reports; the report's
 * HTML opened on its own in Chromium makes no request at all. Also takes the pictures of
 * docs/user-guide.md (the view) and docs/reports.md (the HTML page and the PDF's first page).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { b64uDecode } from '../src-shared/crypto';
import { callApi, REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const REPORT_PICTURES = join(REPO_ROOT, 'docs', 'reports');
const VIEWPORT = { width: 1280, height: 800 };

describe('audit reports in the app and in Chromium', () => {
  let app: RunningApp;
  let browser: Browser;
  let scratch: string;

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchBrowser();
    scratch = mkdtempSync(join(tmpdir(), 'evroom-e2e-report-'));
    await callApi(app, 'samples.load');
    mkdirSync(SCREENSHOTS, { recursive: true });
    mkdirSync(REPORT_PICTURES, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('makes a report in the Reports view, previews it styled and sandboxed, and compares two', async () => {
    const page = await browser.newPage({ viewport: VIEWPORT });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    await page.goto(app.url);
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Make report' }).click();
    const frame = page.frameLocator('iframe[title="Report preview"]');
    await frame.getByRole('heading', { name: 'Audit report' }).waitFor();
    expect(await page.locator('iframe[title="Report preview"]').getAttribute('sandbox')).toBe('');
    // The page's stylesheet applies (allowed by its hash), so the preview looks like the file.
    // The e2e project has no DOM types: reach getComputedStyle through globalThis.
    type Styles = { getComputedStyle(element: unknown): { borderBottomStyle: string } };
    const border = await frame
      .locator('h2')
      .first()
      .evaluate((element) => (globalThis as unknown as Styles).getComputedStyle(element).borderBottomStyle);
    expect(border).toBe('solid');
    await page.getByRole('table', { name: 'Reports made' }).locator('tbody tr').first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'reports.png'), fullPage: false });

    // A second report, with the trust as of an instant before the samples were loaded.
    await page.getByLabel('Status').selectOption('PASS');
    await page.getByRole('button', { name: 'Make report' }).click();
    await expect
      .poll(async () => page.getByRole('table', { name: 'Reports made' }).locator('tbody tr').count())
      .toBe(2);
    const rows = page.getByRole('table', { name: 'Reports made' }).locator('tbody tr');
    await rows.nth(1).getByRole('radio').first().check();
    await rows.nth(0).getByRole('radio').nth(1).check();
    await page.getByRole('button', { name: 'Compare old → new' }).click();
    await page.getByTestId('report-diff').waitFor();
    expect(await page.getByTestId('report-diff').textContent()).toMatch(/0 added · \d+ removed · 0 changed/);
    await page.getByTestId('report-diff').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'reports-diff.png') });
    // Saving a form is a download in web mode.
    const [saved] = await Promise.all([
      page.waitForEvent('download'),
      rows.nth(0).getByRole('button', { name: 'PDF' }).click(),
    ]);
    expect(saved.suggestedFilename()).toMatch(/^rpt_[0-9A-Z]{26}\.pdf$/);
    expect(
      readFileSync(await saved.path())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
    expect(failures).toEqual([]);
    await page.close();
  }, 120_000);

  it('opens the report HTML on its own with no request leaving it, and renders the PDF', async () => {
    const listed = await callApi<{ report_id: string }[]>(app, 'reports.list');
    const id = listed[listed.length - 1]?.report_id ?? '';
    const html = await callApi<{ data: string }>(app, 'reports.get', { report_id: id, form: 'html' });
    const pdf = await callApi<{ data: string }>(app, 'reports.get', { report_id: id, form: 'pdf' });
    const htmlFile = join(scratch, 'report.html');
    const pdfFile = join(scratch, 'report.pdf');
    writeFileSync(htmlFile, b64uDecode(html.data));
    writeFileSync(pdfFile, b64uDecode(pdf.data));
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(htmlFile).href);
    await page.getByRole('heading', { name: 'Counts' }).waitFor();
    await page.waitForTimeout(300);
    // Only the file itself was loaded: no style, font, image or script request, local or remote.
    expect(requests).toEqual([pathToFileURL(htmlFile).href]);
    expect(await page.locator('svg[role="img"]').count()).toBe(4);
    await page.screenshot({ path: join(REPORT_PICTURES, 'report-html.png') });
    await context.close();
    // The PDF's first two pages as pictures (poppler's pdftoppm), for docs/reports.md.
    execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '2', pdfFile, join(REPORT_PICTURES, 'report-pdf')]);
  }, 120_000);
});
