/**
 * Any window, and paper (issue 25): every view works at 1280, 1024 and 800 px with no
 * page-level horizontal overflow (built-in samples loaded and a signed bundle imported); the
 * Trust store's Revoke and Unpin stay in view at 1024 px; below 960 px the sidebar collapses to
 * its icons, its toggle opens and closes it and the choice is remembered; bundle detail reads in
 * lines, not a letter per line, at 800 px. On paper: no sidebar and no buttons, and a receipt's
 * and a bundle's "Print record" fits on exactly one A4 and one Letter page (counted by poppler's
 * pdfinfo). axe stays clean on the collapsed sidebar and on the printed records.
 *
 * Writes the user guide's pictures docs/screenshots/narrow-800.png and
 * docs/screenshots/print-receipt-record.png (the printed record rendered by pdftoppm).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { axeAcrossWidths, axeViolations, describeFindings } from './a11y';
import { callApi, launchBrowser, REPO_ROOT, startWebApp, type RunningApp } from './harness';
import { buildSignedBundle, type SignedBundle } from './fixtures';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');

interface ReceiptRowLite {
  id: number;
  receipt_id: string | null;
  receipt_sha256: string;
  status: string;
}

/** Opens a view by its hash and waits until it has rendered. */
async function go(page: Page, hash: string, ready: (page: Page) => Promise<void>): Promise<void> {
  await page.evaluate((target) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = `#/${target}`;
  }, hash);
  await ready(page);
}

function heading(name: string): (page: Page) => Promise<void> {
  return async (page) => page.getByRole('heading', { name, level: 1, exact: true }).first().waitFor();
}

/** How far the page is wider than the window (0 when it is not). */
async function pageOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const { document, innerWidth } = globalThis as unknown as {
      document: { documentElement: { scrollWidth: number } };
      innerWidth: number;
    };
    return Math.max(0, document.documentElement.scrollWidth - innerWidth);
  });
}

/** Pages of a PDF, as poppler's pdfinfo counts them. */
function pdfPages(file: string): number {
  const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
  const pages = /^Pages:\s+(\d+)$/m.exec(info)?.[1];
  if (!pages) throw new Error(`pdfinfo gave no page count:\n${info}`);
  return Number(pages);
}

function pdfText(file: string): string {
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
}

/** axe on the printed record itself: print emulated, the record in the page, then axe. */
async function axeOnRecord(page: Page, testId: string): Promise<string[]> {
  await page.emulateMedia({ media: 'print' });
  await page.getByTestId(testId).waitFor();
  const findings = await axeViolations(page);
  await page.emulateMedia({ media: 'screen' });
  return findings.length === 0 ? [] : [describeFindings(`${testId} @print`, findings)];
}

describe('any window, and paper', () => {
  let app: RunningApp;
  let browser: Browser;
  let work: string;
  let bundle: SignedBundle;
  let bundleId: number;
  let receipt: ReceiptRowLite;
  let tampered: ReceiptRowLite;
  let longest: ReceiptRowLite;
  let version: string;
  const views: { hash: string; ready: (page: Page) => Promise<void> }[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    work = mkdtempSync(join(tmpdir(), 'evroom-responsive-'));
    [app, browser, bundle] = await Promise.all([
      startWebApp(),
      launchBrowser(),
      buildSignedBundle({ out: join(work, 'acme-evidence-2026-10.zip'), receipts: 30, tampered: 2 }),
    ]);
    await callApi(app, 'samples.load');
    let progress = await callApi<{ jobId: string; state: string; bundleId?: number }>(app, 'imports.start', {
      name: 'acme-evidence-2026-10.zip',
      data: readFileSync(bundle.file).toString('base64url'),
    });
    for (let attempt = 0; progress.state === 'running' && attempt < 400; attempt++) {
      await new Promise((resolveWait) => setTimeout(resolveWait, 150));
      progress = await callApi(app, 'imports.progress', { jobId: progress.jobId });
    }
    expect(progress.state).toBe('done');
    bundleId = progress.bundleId as number;
    await callApi(app, 'trust.pin', { ...bundle.issuer, label: 'Acme receipts service, 2026 key' });
    const list = async (status: string): Promise<ReceiptRowLite> =>
      (
        await callApi<{ rows: ReceiptRowLite[] }>(app, 'receipts.list', {
          filters: { bundle: bundleId, status },
          limit: 1,
        })
      ).rows[0] as ReceiptRowLite;
    receipt = await list('PASS');
    tampered = await list('INVALID').catch(async () => list('MISMATCH'));
    // The sample receipt with the most checks: the longest record a normal receipt makes.
    let most = { id: 0, checks: -1 };
    const samples = await callApi<{ rows: ReceiptRowLite[] }>(app, 'receipts.list', { limit: 500 });
    for (const row of samples.rows) {
      const detail = await callApi<{ report: { checks: unknown[] } }>(app, 'receipts.get', { id: row.id });
      if (detail.report.checks.length > most.checks) most = { id: row.id, checks: detail.report.checks.length };
    }
    longest = samples.rows.find((row) => row.id === most.id) as ReceiptRowLite;
    version = (await callApi<{ version: string }>(app, 'info')).version;
    views.push(
      { hash: 'overview', ready: heading('Overview') },
      { hash: 'receipts', ready: async (page) => page.getByRole('row').nth(1).waitFor() },
      { hash: 'receipts/1', ready: async (page) => page.getByRole('heading', { name: 'Verification' }).waitFor() },
      {
        hash: `receipts/${receipt.id}`,
        ready: async (page) => page.getByRole('heading', { name: 'Verification' }).waitFor(),
      },
      { hash: 'verify', ready: heading('Verify') },
      {
        hash: 'bundles',
        ready: async (page) => page.getByRole('link', { name: 'acme-evidence-2026-10.zip' }).waitFor(),
      },
      { hash: `bundles/${bundleId}`, ready: heading('acme-evidence-2026-10.zip') },
      { hash: 'anchors', ready: heading('Anchors') },
      { hash: 'logs', ready: heading('Logs') },
      { hash: 'trust', ready: async (page) => page.getByTestId('pinned-table').waitFor() },
      { hash: 'reports', ready: heading('Reports') },
      { hash: 'service', ready: heading('Service') },
      { hash: 'settings', ready: heading('Settings') },
    );
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('has no page-level horizontal overflow in any view at 1280, 1024 and 800 px', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.url);
    await heading('Overview')(page);
    const overflowing: string[] = [];
    for (const width of [1280, 1024, 800]) {
      await page.setViewportSize({ width, height: 800 });
      for (const view of views) {
        await go(page, view.hash, view.ready);
        // Let late panels (anchors, counts) arrive before measuring.
        await page.waitForLoadState('networkidle').catch(() => undefined);
        const overflow = await pageOverflow(page);
        if (overflow > 0) overflowing.push(`${view.hash} @${width}px: ${overflow}px wider than the window`);
      }
    }
    expect(overflowing.join('\n')).toBe('');
    await page.close();
  }, 240_000);

  it('collapses the sidebar at 800 px; the toggle opens and closes it, by mouse and keyboard, and is remembered', async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 800 } });
    await page.goto(app.url);
    await heading('Overview')(page);
    const toggle = page.getByTestId('sidebar-toggle');
    const sidebarWidth = async (): Promise<number> => (await page.locator('.sidebar').boundingBox())?.width ?? 0;
    const controlled = await toggle.getAttribute('aria-controls');
    expect(controlled).toBeTruthy();
    expect(await page.locator(`#${controlled}`).count()).toBe(1);

    // Collapsed by itself: icons only, each link still named for assistive technologies.
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await sidebarWidth()).toBeLessThan(80);
    await expect(page.getByRole('link', { name: 'Trust store' }).isVisible()).resolves.toBe(true);
    expect(
      await page
        .locator('.nav-label')
        .first()
        .boundingBox()
        .then((box) => box?.width ?? 0),
    ).toBeLessThan(2);

    // Bundle detail reads in lines: no value squeezed to a letter per line.
    await go(page, `bundles/${bundleId}`, heading('acme-evidence-2026-10.zip'));
    const narrowest = await page
      .locator('main .field-row dd')
      .evaluateAll((cells) =>
        Math.min(
          ...cells.map(
            (cell) => (cell as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width,
          ),
        ),
      );
    expect(narrowest).toBeGreaterThan(150);
    const widestParagraph = await page
      .locator('main p')
      .evaluateAll((paragraphs) =>
        Math.max(
          ...paragraphs.map(
            (paragraph) =>
              (paragraph as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width,
          ),
        ),
      );
    expect(widestParagraph).toBeGreaterThan(300);
    expect(await pageOverflow(page)).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'narrow-800.png') });

    // The toggle opens it (labels back) and closes it again.
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await sidebarWidth()).toBeGreaterThan(180);
    expect(await pageOverflow(page)).toBe(0);
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await sidebarWidth()).toBeLessThan(80);

    // From the keyboard, after a reload (the choice, collapsed, is remembered): Tab reaches the
    // skip link, then the toggle; Enter opens it.
    const focusToggle = async (): Promise<void> => {
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      const focused = await toggle.evaluate(
        (element) =>
          element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
      );
      expect(focused, 'the toggle is the second stop of the Tab order').toBe(true);
    };
    await page.reload();
    await heading('acme-evidence-2026-10.zip')(page);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await focusToggle();
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');

    // Remembered open too: reloaded at 800 px it stays open as the user left it; Space closes it.
    await page.reload();
    await heading('acme-evidence-2026-10.zip')(page);
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await sidebarWidth()).toBeGreaterThan(180);
    await focusToggle();
    await page.keyboard.press('Space');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    // And a collapsed choice holds in a wide window too.
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await sidebarWidth()).toBeLessThan(80);
    await page.close();
  });

  it('is axe-clean with the sidebar collapsed and expanded, at every width and in print', async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 800 } });
    await page.goto(app.url);
    await heading('Overview')(page);
    const toggle = page.getByTestId('sidebar-toggle');
    await toggle.click(); // expanded, chosen
    const messages = await axeAcrossWidths(page, 'overview, sidebar expanded');
    await toggle.click(); // collapsed, chosen: collapsed at every width
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    messages.push(...(await axeAcrossWidths(page, 'overview, sidebar collapsed')));
    await go(page, 'trust', async (current) => current.getByTestId('pinned-table').waitFor());
    messages.push(...(await axeAcrossWidths(page, 'trust, sidebar collapsed')));
    expect(messages.join('\n')).toBe('');
    await page.close();
  }, 180_000);

  it('prints without the sidebar, toolbars or buttons, black on white, in either theme', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    await page.goto(app.url);
    await heading('Overview')(page);
    await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
    for (const view of views) {
      await page.emulateMedia({ media: 'screen' });
      await go(page, view.hash, view.ready);
      expect(await page.locator('.sidebar').isVisible()).toBe(true);
      await page.emulateMedia({ media: 'print' });
      expect(await page.locator('.sidebar').isVisible(), `${view.hash}: sidebar printed`).toBe(false);
      // A column header's sort button prints as the header's words, not as a button.
      const headers = await page.locator('[role="columnheader"] button:visible, th button:visible').count();
      const buttons = (await page.locator('button:visible, .button:visible, .toolbar:visible').count()) - headers;
      expect(buttons, `${view.hash}: ${buttons} buttons or toolbars printed`).toBe(0);
      const colours = await page
        .locator('main h1:visible')
        .first()
        .evaluate((element) => {
          const style = (
            globalThis as unknown as { getComputedStyle(node: unknown): { color: string } }
          ).getComputedStyle(element);
          const body = (
            globalThis as unknown as { getComputedStyle(node: unknown): { backgroundColor: string } }
          ).getComputedStyle((globalThis as unknown as { document: { body: unknown } }).document.body);
          return { text: style.color, background: body.backgroundColor };
        });
      expect(colours, view.hash).toEqual({ text: 'rgb(0, 0, 0)', background: 'rgb(255, 255, 255)' });
    }
    await page.emulateMedia({ media: 'screen' });
    await page.close();
  }, 180_000);

  it('prints a receipt record on exactly one A4 or Letter page, with what an auditor files', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.url);
    await heading('Overview')(page);
    for (const [row, label] of [
      [receipt, 'pass'],
      [tampered, 'tampered'],
      [longest, 'most-checks'],
    ] as const) {
      await go(page, `receipts/${row.id}`, async (current) =>
        current.getByRole('heading', { name: 'Verification' }).waitFor(),
      );
      expect(await page.getByTestId('receipt-record').count()).toBe(0);
      // The button prints (window.print is replaced here so the test can count the call).
      await page.evaluate(() => {
        const scope = globalThis as unknown as { print: () => void; printed?: number };
        scope.printed = 0;
        scope.print = () => {
          scope.printed = (scope.printed ?? 0) + 1;
        };
      });
      await page.getByRole('button', { name: 'Print record' }).click();
      expect(await page.evaluate(() => (globalThis as unknown as { printed?: number }).printed)).toBe(1);

      await page.emulateMedia({ media: 'print' });
      // Print media takes effect at the page's next frame: wait for the record it brings.
      await page.getByTestId('receipt-record').waitFor();
      await expect(page.getByRole('heading', { name: 'Decoded fields' }).isVisible()).resolves.toBe(false);
      await page.emulateMedia({ media: 'screen' });
      // On screen the record is not in the page at all (nothing of it to be found twice).
      await expect.poll(async () => page.getByTestId('receipt-record').count()).toBe(0);
      // page.pdf prints with the media in force: print, as a browser prints.
      await page.emulateMedia({ media: 'print' });

      for (const format of ['A4', 'Letter'] as const) {
        const file = join(work, `receipt-${label}-${format}.pdf`);
        await page.pdf({ path: file, format });
        expect(pdfPages(file), `${label} receipt on ${format}`).toBe(1);
        const text = pdfText(file).replace(/\s+/g, ' ');
        expect(text).toContain(row.status);
        expect(text).toContain(row.receipt_sha256.slice(0, 24));
        if (row.receipt_id) expect(text).toContain(row.receipt_id.slice(0, 20));
        expect(text).toMatch(/Checks: \d+ checks?:/);
        expect(text).toContain(`Evidence Room v${version}`);
        expect(text).toMatch(/Printed \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
        expect(text).not.toContain('Signed bytes');
        if (label === 'pass' && format === 'A4') {
          expect(text).toContain(bundle.issuer.key_id);
          expect(text).toContain('trusted');
          execFileSync('pdftoppm', ['-png', '-r', '60', '-singlefile', file, join(work, 'receipt-record')]);
          copyFileSync(join(work, 'receipt-record.png'), join(SCREENSHOTS, 'print-receipt-record.png'));
        }
        if (label === 'tampered') expect(text).toContain('unattributed');
        // Checks alike share a row (e.g. a chain's steps left unchecked): "… and N more – unchecked ×M".
        if (label === 'most-checks') {
          expect(text).toMatch(/×\d+/);
          expect(text).toMatch(/and \d+ more/);
        }
      }
      await page.emulateMedia({ media: 'screen' });
    }
    await page.close();
  }, 120_000);

  it('prints a bundle record on exactly one A4 or Letter page, findings summed up', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.url);
    await heading('Overview')(page);
    await go(page, `bundles/${bundleId}`, heading('acme-evidence-2026-10.zip'));
    await page.getByRole('button', { name: 'Print record' }).waitFor();
    expect(await page.getByTestId('bundle-record').count()).toBe(0);
    // page.pdf as it is, print not emulated first: the browser's beforeprint brings the record.
    const direct = join(work, 'bundle-direct.pdf');
    await page.pdf({ path: direct, format: 'A4' });
    expect(pdfPages(direct)).toBe(1);
    expect(pdfText(direct)).toContain('BUNDLE RECORD');
    await page.emulateMedia({ media: 'print' });
    await page.getByTestId('bundle-record').waitFor();
    for (const format of ['A4', 'Letter'] as const) {
      const file = join(work, `bundle-${format}.pdf`);
      await page.pdf({ path: file, format });
      expect(pdfPages(file), `bundle on ${format}`).toBe(1);
      const text = pdfText(file).replace(/\s+/g, ' ');
      expect(text).toContain(bundle.sha256);
      expect(text).toContain('acme-evidence-2026-10.zip');
      expect(text).toContain(bundle.signerKeyId.slice(0, 30));
      expect(text).toMatch(/\d+ findings? \(/);
      expect(text).toContain('Receipts not PASS: 2');
      expect(text).toContain(`Evidence Room v${version}`);
    }
    await page.close();
  }, 120_000);

  it('is axe-clean on the printed records (and their views) at every width and in print', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.url);
    await heading('Overview')(page);
    await go(page, `receipts/${receipt.id}`, async (current) =>
      current.getByRole('heading', { name: 'Verification' }).waitFor(),
    );
    const messages = await axeAcrossWidths(page, 'receipt view');
    messages.push(...(await axeOnRecord(page, 'receipt-record')));
    await go(page, `bundles/${bundleId}`, heading('acme-evidence-2026-10.zip'));
    messages.push(...(await axeAcrossWidths(page, 'bundle view')));
    messages.push(...(await axeOnRecord(page, 'bundle-record')));
    expect(messages.join('\n')).toBe('');
    await page.close();
  }, 180_000);

  it('keeps Revoke and Unpin of a pinned key in view and working at 1024 px', async () => {
    const page = await browser.newPage({ viewport: { width: 1024, height: 800 } });
    await page.goto(app.url);
    await heading('Overview')(page);
    await go(page, 'trust', async (current) => current.getByTestId('pinned-table').waitFor());
    // The sidebar is open at 1024 px (the harder case: less room for the table).
    expect(await page.getByTestId('sidebar-toggle').getAttribute('aria-expanded')).toBe('true');
    const row = page.getByTestId('pinned-table').locator(`[data-key-id="${bundle.issuer.key_id}"]`);
    for (const name of ['Revoke…', 'Unpin…']) {
      const inView = await row.getByRole('button', { name }).evaluate((button) => {
        const { innerWidth } = globalThis as unknown as { innerWidth: number };
        type Box = { left: number; right: number };
        const element = button as unknown as {
          getBoundingClientRect(): Box;
          closest(selector: string): { getBoundingClientRect(): Box } | null;
        };
        const box = element.getBoundingClientRect();
        const card = element.closest('.panel')?.getBoundingClientRect();
        const scroller = element.closest('.table-scroll')?.getBoundingClientRect();
        return (
          box.left >= 0 &&
          box.right <= innerWidth &&
          card !== undefined &&
          box.right <= card.right &&
          (scroller === undefined || box.right <= scroller.right + 0.5)
        );
      });
      expect(inView, `${name} is inside its card and the window without scrolling`).toBe(true);
    }
    const scrolls = await page.getByTestId('pinned-table').evaluate((table) => {
      const box = (table as unknown as { parentElement: { scrollWidth: number; clientWidth: number } }).parentElement;
      return box.scrollWidth - box.clientWidth;
    });
    expect(scrolls).toBeLessThanOrEqual(0);

    await row.getByRole('button', { name: 'Revoke…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await row.locator('[data-trust="revoked"]').first().waitFor();
    await row.getByRole('button', { name: 'Unpin…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unpin key' }).click();
    await page.getByText('No pinned keys yet').waitFor();
    await page.close();
  });
});
