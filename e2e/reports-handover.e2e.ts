/**
 * Reports that hand over (issue 25), in Chromium against the app in local web mode: the verdict
 * summary is the first thing the report's HTML page shows; a disabled Compare says why, as text
 * beside it and as its accessible description; a diff of two reports of different scopes warns
 * first; a scope with no receipts is refused unless an empty report is asked for. The Reports
 * view and the report page are axe-clean at every width and in print. Takes the pictures of
 * docs/reports.md for the verdict and the scope warning.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { b64uDecode, b64uEncode } from '../src-shared/crypto';
import { axeAcrossWidths } from './a11y';
import { buildSignedBundle } from './fixtures';
import { callApi, REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

async function importBundle(app: RunningApp, bytes: Uint8Array, name: string): Promise<void> {
  // Web mode takes the zip's bytes (base64url), as the browser uploads them.
  const job = await callApi<{ jobId: string }>(app, 'imports.start', { name, data: b64uEncode(bytes) });
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const progress = await callApi<{ state: string }>(app, 'imports.progress', { jobId: job.jobId });
    if (progress.state !== 'running') return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const REPORT_PICTURES = join(REPO_ROOT, 'docs', 'reports');
const VIEWPORT = { width: 1280, height: 800 };

describe('reports that hand over', () => {
  let app: RunningApp;
  let browser: Browser;
  let scratch: string;

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchBrowser();
    scratch = mkdtempSync(join(tmpdir(), 'evroom-e2e-handover-'));
    await callApi(app, 'samples.load');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('explains a disabled Compare, warns on a diff of different scopes, and refuses an empty scope', async () => {
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(app.url);
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports', exact: true }).waitFor();

    // An empty scope is refused with the reason, and nothing is listed.
    await page.getByLabel('Format').fill('no-such-format');
    await page.getByRole('button', { name: 'Make report' }).click();
    const refusal = page.getByText(/No receipt is in the report's scope \(format no-such-format\): no report was made/);
    await refusal.waitFor();
    await expect.poll(async () => page.getByRole('table', { name: 'Reports made' }).count()).toBe(0);
    await page.getByLabel('Format').fill('');

    // One report: Compare is disabled and says why, as visible text and as its description.
    await page.getByRole('button', { name: 'Make report' }).click();
    await page.frameLocator('iframe[title="Report preview"]').getByRole('heading', { name: 'Audit report' }).waitFor();
    const compare = page.getByRole('button', { name: 'Compare old → new' });
    await expect.poll(async () => compare.isDisabled()).toBe(true);
    const why = async (): Promise<string | null> => {
      const id = await compare.getAttribute('aria-describedby');
      return id === null ? null : page.locator(`#${id}`).textContent();
    };
    expect(await why()).toBe('Make a second report to compare two.');
    expect(await page.getByText('Make a second report to compare two.').isVisible()).toBe(true);

    // Two reports of different scopes: select them one by one; the reason follows the choice.
    await page.getByLabel('Status').selectOption('PASS');
    await page.getByRole('button', { name: 'Make report' }).click();
    const rows = page.getByRole('table', { name: 'Reports made' }).locator('tbody tr');
    await expect.poll(async () => rows.count()).toBe(2);
    expect(await why()).toBe('Select two reports to compare: an old one and a new one in the columns old and new.');
    expect(await page.getByText('Select two reports to compare').isVisible()).toBe(true);
    await rows.nth(1).getByRole('radio').first().check();
    expect(await why()).toBe('Select the new report in the column new.');
    await rows.nth(1).getByRole('radio').nth(1).check();
    expect(await why()).toBe('Select two different reports: old and new are the same.');
    expect(await compare.isDisabled()).toBe(true);
    await rows.nth(0).getByRole('radio').nth(1).check();
    expect(await compare.isDisabled()).toBe(false);
    expect(await compare.getAttribute('aria-describedby')).toBeNull();
    expect(await axeAcrossWidths(page, 'Reports, two reports selected')).toEqual([]);

    await compare.click();
    const diff = page.getByTestId('report-diff');
    await diff.waitFor();
    // The warning is the diff's first line, with an icon and words, announced as an alert.
    const warning = diff.getByRole('alert');
    expect(await warning.textContent()).toBe(
      '⚠ Warning: the two reports cover different scopes (old: no filters; new: status PASS): receipts added or removed may come from the different filters, not from changes in the ledger.',
    );
    expect(await diff.locator('p').first().getAttribute('data-testid')).toBe('report-diff-warning');
    await diff.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(REPORT_PICTURES, 'report-diff-warning.png') });
    expect(await axeAcrossWidths(page, 'Reports, diff with a scope warning')).toEqual([]);

    // An empty report when asked for: listed, and its preview says EMPTY first.
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Format').fill('no-such-format');
    await page.getByLabel('Allow an empty report (marked EMPTY)').check();
    await page.getByRole('button', { name: 'Make report' }).click();
    await expect.poll(async () => rows.count()).toBe(3);
    await page
      .frameLocator('iframe[title="Report preview"]')
      .getByText(/EMPTY: no receipts in scope\./)
      .waitFor();
    await page.close();
  }, 180_000);

  it('shows the verdict summary at the top of the report page in Chromium, axe-clean', async () => {
    // A bundle altered after signing, imported under its file name.
    const bundle = await buildSignedBundle({ out: join(scratch, 'tampered-evidence.zip'), receipts: 6, tampered: 2 });
    await importBundle(app, bundle.bytes, 'tampered-evidence.zip');
    const made = await callApi<{ report_id: string }>(app, 'reports.create', {});
    const html = await callApi<{ data: string }>(app, 'reports.get', { report_id: made.report_id, form: 'html' });
    const file = join(scratch, 'report.html');
    writeFileSync(file, b64uDecode(html.data));
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(pathToFileURL(file).href);
    const verdict = page.locator('section#verdict');
    await verdict.waitFor();
    // The first section, in view without scrolling, words first with an icon beside them.
    expect(await page.locator('section').first().getAttribute('id')).toBe('verdict');
    const box = await verdict.boundingBox();
    expect(box).not.toBeNull();
    expect((box?.y ?? 1000) + (box?.height ?? 1000)).toBeLessThan(VIEWPORT.height);
    expect(await verdict.getByRole('heading', { name: 'Verdict' }).isVisible()).toBe(true);
    const headline = (await verdict.locator('.headline').textContent()) ?? '';
    // The samples hold altered receipts and a tampered bundle: the verdict says so, not "intact".
    expect(headline).toMatch(/^✗Not all evidence holds: \d+ of \d+ receipts not PASS/);
    expect(await verdict.locator('[data-verdict="fail"] .icon').getAttribute('aria-hidden')).toBe('true');
    const lines = (await verdict.locator('dl').textContent()) ?? '';
    expect(lines).toMatch(/by status.*PASS/);
    expect(lines).toMatch(/by trust.*\d+ unattributed/);
    expect(lines).toMatch(/anchoring \(as recorded\)/);
    // Bundles are named by their file, never by a bare hash prefix.
    expect(await verdict.locator('dd').nth(3).textContent()).toBe(
      '1 altered · 0 unverified · 0 intact: tampered-evidence.zip altered (2 findings)',
    );
    expect(await page.locator('#findings tbody td').first().textContent()).toBe('tampered-evidence.zip');
    expect(await page.locator('#inputs tbody td').nth(1).textContent()).toBe('altered');
    await page.screenshot({ path: join(REPORT_PICTURES, 'report-verdict.png') });
    expect(await axeAcrossWidths(page, 'report page')).toEqual([]);
    await page.close();
  }, 120_000);
});
