/**
 * The verdict at a glance, for bundles (issue 25): a bundle's page opens with a verdict banner
 * (colour, icon and words) before anything else, says "intact" only when no file differs from
 * the signed manifest, links to its findings, and each finding links to its evidence (the
 * receipt stored from the file); the list badges each bundle's verdict and findings.
 *
 * Two real signed bundles built with the project's exporter are imported through the UI: one
 * clean, one changed after signing (one receipt altered, one removed, one added, besides a
 * receipt already broken when it was signed in).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { axeAcrossWidths, axeViolations, describeFindings } from './a11y';
import { callApi, REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';
import { buildSignedBundle } from './fixtures';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const TAMPERED_NAME = 'acme-evidence-2026-11-tampered.zip';
const CLEAN_NAME = 'acme-evidence-2026-11.zip';
const ALTERED_HEADLINE = 'Altered after signing: 1 changed, 1 missing, 1 extra, 2 receipts not PASS';
const INTACT_HEADLINE = 'Intact: every file matches the signed manifest, and every receipt verified PASS';

/** The few DOM names the page functions use (this file is compiled for Node, without the DOM's types). */
interface PageGlobals {
  document: { activeElement: { id: string } | null };
  location: { hash: string };
}

interface Tampering {
  file: string;
  altered: string;
  removed: string;
  added: string;
  /** The receipt signed into the bundle already broken (listed with its own hash). */
  brokenAtSigning: string;
}

/**
 * The clean bundle's receipts plus one: changed after export, the zip no longer matches its
 * signed manifest in three ways (one receipt altered, one removed, one added from elsewhere).
 */
async function tamper(base: string, donor: string, out: string): Promise<Tampering> {
  const zip = await JSZip.loadAsync(readFileSync(base));
  const donorZip = await JSZip.loadAsync(readFileSync(donor));
  const receiptNames = (archive: JSZip): string[] =>
    Object.keys(archive.files)
      .filter((name) => name.startsWith('receipts/') && name.endsWith('.json'))
      .sort();
  // buildSignedBundle's tampered receipt (index 6) carries the digest of "altered 6".
  const brokenDigest = createHash('sha256').update('altered 6').digest('hex');
  let brokenAtSigning = '';
  const intact: string[] = [];
  for (const name of receiptNames(zip)) {
    if ((await zip.file(name)!.async('string')).includes(brokenDigest)) brokenAtSigning = name;
    else intact.push(name);
  }
  expect(brokenAtSigning).not.toBe('');
  const [altered, removed] = intact;
  const text = await zip.file(altered!)!.async('string');
  const changed = text.replace(/"agent_did":"([^"]*)"/, '"agent_did":"$1x"');
  expect(changed).not.toBe(text);
  zip.file(altered!, changed);
  zip.remove(removed!);
  const present = new Set(receiptNames(zip));
  const added = receiptNames(donorZip).find((name) => !present.has(name))!;
  zip.file(added, await donorZip.file(added)!.async('uint8array'));
  writeFileSync(out, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return { file: out, altered: altered!, removed: removed!, added, brokenAtSigning };
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
  await page.screenshot({ path: join(SCREENSHOTS, name) });
}

describe('bundle verdict at a glance', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  let work: string;
  let clean: string;
  let tampering: Tampering;
  let tamperedId = 0;
  let cleanId = 0;
  const failures: string[] = [];

  async function importThroughUi(file: string, name: string): Promise<number> {
    await page.goto(`${new URL(app.url).origin}/#/bundles`);
    await page.getByRole('heading', { name: 'Bundles', exact: true }).waitFor();
    await page.getByLabel('Evidence bundle (.zip) to import').setInputFiles(file);
    await page.getByRole('heading', { name, exact: true }).waitFor({ timeout: 60_000 });
    const id = Number(/^#\/bundles\/(\d+)/.exec(new URL(page.url()).hash)?.[1]);
    expect(id).toBeGreaterThan(0);
    return id;
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    work = mkdtempSync(join(tmpdir(), 'evroom-bundles-verdict-e2e-'));
    let tamperedBase: string;
    [app, browser, clean, tamperedBase] = await Promise.all([
      startWebApp(),
      launchBrowser(),
      buildSignedBundle({ out: join(work, CLEAN_NAME), receipts: 8, tenantId: 'acme-corp' }).then(
        (built) => built.file,
      ),
      buildSignedBundle({
        out: join(work, 'base.zip'),
        receipts: 6,
        tampered: 1,
        tenantId: 'acme-corp',
      }).then((built) => built.file),
    ]);
    tampering = await tamper(tamperedBase, clean, join(work, TAMPERED_NAME));
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('a clean bundle opens with "Intact", green, before anything else', async () => {
    cleanId = await importThroughUi(clean, CLEAN_NAME);
    const banner = page.getByTestId('bundle-verdict');
    expect(await banner.getAttribute('data-verdict')).toBe('intact');
    expect(await banner.getAttribute('data-tone')).toBe('good');
    expect(await banner.getByRole('heading', { level: 2 }).textContent()).toBe(INTACT_HEADLINE);
    expect(await banner.locator('.verdict-icon').textContent()).toBe('✓');
    expect(await banner.textContent()).toContain('Verdict: Intact');
    // First in the page's content: right after its title, before "Import finished".
    expect(await page.locator('section.page > :nth-child(2)').getAttribute('data-testid')).toBe('bundle-verdict');
    expect(await page.locator('section.page > :nth-child(3)').getAttribute('data-testid')).toBe('just-imported');
    expect(await page.getByTestId('no-findings').isVisible()).toBe(true);
    expect(await axeAcrossWidths(page, 'bundle detail (intact)')).toEqual([]);
    await screenshot(page, 'bundle-detail-intact.png');
    expect(failures).toEqual([]);
  });

  it('a bundle changed after signing opens with "Altered after signing" and its counts, and never says intact', async () => {
    tamperedId = await importThroughUi(tampering.file, TAMPERED_NAME);
    const banner = page.getByTestId('bundle-verdict');
    expect(await banner.getAttribute('data-verdict')).toBe('altered');
    expect(await banner.getAttribute('data-tone')).toBe('bad');
    expect(await banner.getByRole('heading', { level: 2 }).textContent()).toBe(ALTERED_HEADLINE);
    expect(await banner.locator('.verdict-icon').textContent()).toBe('✗');
    expect(await banner.textContent()).toContain('Verdict: Altered');
    expect(
      await page
        .locator('section.page > :nth-child(1)')
        .evaluate((node) => (node as unknown as { tagName: string }).tagName),
    ).toBe('HEADER');
    expect(await page.locator('section.page > :nth-child(2)').getAttribute('data-testid')).toBe('bundle-verdict');
    // Above "Import finished" and the signature paragraph on the screen too.
    const top = async (selector: string): Promise<number> => (await page.locator(selector).boundingBox())!.y;
    expect(await top('[data-testid="bundle-verdict"]')).toBeLessThan(await top('[data-testid="just-imported"]'));
    expect(await top('[data-testid="bundle-verdict"]')).toBeLessThan(await top('[data-testid="signer-unpinned"]'));
    // The signature paragraph says what the signature covers, not that the bundle is intact.
    expect(await page.getByTestId('signer-unpinned').textContent()).toContain(
      'the signature covers the manifest, and the files are compared with it below',
    );
    // Nowhere on the page, in any words.
    expect(await page.locator('body').innerText()).not.toMatch(/intact/i);
    const detail = await callApi<{ verdict: Record<string, unknown>; counts: { findingsTotal: number } }>(
      app,
      'bundles.get',
      { id: tamperedId },
    );
    expect(detail.verdict).toMatchObject({ changed: 1, missing: 1, extra: 1, receiptsNotPass: 2, other: 0 });
    expect(detail.counts.findingsTotal).toBe(5);
    expect(await axeAcrossWidths(page, 'bundle detail (altered)')).toEqual([]);
    await screenshot(page, 'bundle-detail.png');
    expect(failures).toEqual([]);
  });

  it('the banner links to the findings, by keyboard, and its address opens the page there', async () => {
    const link = page.getByTestId('bundle-verdict').getByRole('link', { name: 'See the 5 findings' });
    expect(await link.getAttribute('href')).toBe(`#/bundles/${tamperedId}?at=findings`);
    await link.focus();
    await page.keyboard.press('Enter');
    const focusedId = (): Promise<string | undefined> =>
      page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id);
    expect(await focusedId()).toBe('bundle-findings');
    // The findings are in view, and the address did not change (still this bundle).
    expect(await page.getByRole('heading', { name: 'Findings (5)' }).isVisible()).toBe(true);
    const findingsBox = (await page.locator('#bundle-findings').boundingBox())!;
    expect(findingsBox.y).toBeGreaterThanOrEqual(-1);
    expect(findingsBox.y).toBeLessThan(800);
    expect(new URL(page.url()).hash).toBe(`#/bundles/${tamperedId}`);
    // The link's own address (a new tab, a bookmark) opens the bundle at its findings.
    await page.evaluate(() => {
      (globalThis as unknown as PageGlobals).location.hash = '#/bundles';
    });
    await page.getByRole('heading', { name: 'Bundles', exact: true }).waitFor();
    await page.evaluate((id) => {
      (globalThis as unknown as PageGlobals).location.hash = `#/bundles/${id}?at=findings`;
    }, tamperedId);
    await page.getByTestId('bundle-verdict').waitFor();
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.activeElement?.id === 'bundle-findings',
    );
    expect(failures).toEqual([]);
  });

  it('each finding links to its evidence: the receipt stored from the file, or says the file is not there', async () => {
    const row = (path: string) => page.locator('.finding-table tbody tr', { hasText: path });
    // The missing file: named, nothing to open.
    expect(await row(tampering.removed).locator('td').last().textContent()).toBe('not in the zip');
    // The altered, added and broken receipts: each links to the receipt stored from its file.
    for (const path of [tampering.altered, tampering.added, tampering.brokenAtSigning]) {
      expect(
        await row(path)
          .first()
          .getByRole('link', { name: /^Open receipt \d+$/ })
          .count(),
      ).toBeGreaterThan(0);
    }
    const notPass = page.locator('[data-finding-group="not-pass"] tbody tr', { hasText: tampering.brokenAtSigning });
    const link = notPass.getByRole('link', { name: /^Open receipt \d+$/ });
    const href = (await link.getAttribute('href'))!;
    expect(href).toMatch(/^#\/receipts\/\d+$/);
    const receiptId = Number(href.slice('#/receipts/'.length));
    const stored = await callApi<{ receipt_id: string; status: string }>(app, 'receipts.get', { id: receiptId });
    // The very receipt of that file: its document id names the file, and it is not PASS.
    expect(`receipts/${stored.receipt_id}.json`).toBe(tampering.brokenAtSigning);
    expect(stored.status).not.toBe('PASS');
    await link.click();
    await page.waitForURL((url) => url.hash === href);
    await page.getByText(stored.receipt_id).first().waitFor();
    expect(failures).toEqual([]);
  });

  it('the list badges each bundle: its verdict, and its findings by what they count', async () => {
    await page.goto(`${new URL(app.url).origin}/#/bundles`);
    const rows = page.locator('[data-testid="bundle-table"] tbody tr');
    await rows.nth(1).waitFor();
    const tamperedRow = page.locator(`[data-testid="bundle-table"] tbody tr[data-bundle-id="${tamperedId}"]`);
    const cleanRow = page.locator(`[data-testid="bundle-table"] tbody tr[data-bundle-id="${cleanId}"]`);
    const tamperedVerdict = tamperedRow.locator('[data-verdict]');
    expect(await tamperedVerdict.getAttribute('data-verdict')).toBe('altered');
    expect(await tamperedVerdict.textContent()).toBe('✗Altered');
    expect(await tamperedVerdict.getAttribute('class')).toContain('badge-bad');
    expect(await tamperedVerdict.getAttribute('title')).toBe(ALTERED_HEADLINE);
    const tamperedFindings = tamperedRow.locator('[data-findings-count]');
    expect(await tamperedFindings.textContent()).toBe('⚑5 findings');
    expect(await tamperedRow.locator('.findings-kinds').textContent()).toBe(
      '1 changed · 1 missing · 1 extra · 2 receipts not PASS',
    );
    expect(await cleanRow.locator('[data-verdict]').textContent()).toBe('✓Intact');
    expect(await cleanRow.locator('[data-verdict]').getAttribute('class')).toContain('badge-good');
    expect(await cleanRow.locator('[data-findings-count]').textContent()).toBe('✓no findings');
    // The signature is still said apart from the verdict: it verifies for both.
    expect(await tamperedRow.locator('[data-signature="valid"]').isVisible()).toBe(true);
    expect(await axeAcrossWidths(page, 'bundles list')).toEqual([]);
    await screenshot(page, 'bundles.png');
    expect(failures).toEqual([]);
  });

  it('unsigned and signature-invalid bundles get their own verdict, never "intact"', async () => {
    // The clean bundle without manifest.sig, and with a manifest changed after signing.
    const unsignedZip = await JSZip.loadAsync(readFileSync(clean));
    unsignedZip.remove('manifest.sig');
    const unsignedFile = join(work, 'acme-evidence-unsigned.zip');
    writeFileSync(unsignedFile, await unsignedZip.generateAsync({ type: 'nodebuffer' }));
    const forgedZip = await JSZip.loadAsync(readFileSync(clean));
    const manifest = await forgedZip.file('manifest.json')!.async('string');
    const forged = manifest.replace('"acme-corp"', '"acme-corp-forged"');
    expect(forged).not.toBe(manifest);
    forgedZip.file('manifest.json', forged);
    const forgedFile = join(work, 'acme-evidence-forged-manifest.zip');
    writeFileSync(forgedFile, await forgedZip.generateAsync({ type: 'nodebuffer' }));

    const cases = [
      {
        file: unsignedFile,
        kind: 'unsigned',
        tone: 'warn',
        headline: 'Unsigned: the bundle has no manifest.sig; the files match the manifest',
        label: '–Unsigned',
      },
      {
        file: forgedFile,
        kind: 'signature_invalid',
        tone: 'bad',
        headline: 'Not verified: manifest.sig names another manifest; the files match the manifest',
        label: '✗Signature invalid',
      },
    ];
    for (const expected of cases) {
      const id = await importThroughUi(expected.file, expected.file.slice(work.length + 1));
      const banner = page.getByTestId('bundle-verdict');
      expect(await page.locator('section.page > :nth-child(2)').getAttribute('data-testid')).toBe('bundle-verdict');
      expect(await banner.getAttribute('data-verdict')).toBe(expected.kind);
      expect(await banner.getAttribute('data-tone')).toBe(expected.tone);
      expect(await banner.getByRole('heading', { level: 2 }).textContent()).toBe(expected.headline);
      expect(await page.locator('body').innerText()).not.toMatch(/intact/i);
      expect(await axeAcrossWidths(page, `bundle detail (${expected.kind})`)).toEqual([]);
      await page.getByRole('link', { name: 'All bundles' }).click();
      const badge = page.locator(`[data-testid="bundle-table"] tr[data-bundle-id="${id}"] [data-verdict]`);
      expect(await badge.textContent()).toBe(expected.label);
    }
    expect(failures).toEqual([]);
  });

  it('the banner and badges are axe-clean in the dark theme too', async () => {
    const dark = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    try {
      await dark.goto(app.url);
      await dark.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
      const messages: string[] = [];
      for (const [hash, ready] of [
        [`#/bundles/${tamperedId}`, '[data-testid="bundle-verdict"][data-verdict="altered"]'],
        [`#/bundles/${cleanId}`, '[data-testid="bundle-verdict"][data-verdict="intact"]'],
        ['#/bundles', '[data-testid="bundle-table"] [data-verdict="altered"]'],
      ] as const) {
        await dark.evaluate((target) => {
          (globalThis as unknown as PageGlobals).location.hash = target;
        }, hash);
        await dark.locator(ready).waitFor();
        const findings = await axeViolations(dark);
        if (findings.length > 0) messages.push(describeFindings(`${hash} (dark)`, findings));
      }
      expect(messages).toEqual([]);
    } finally {
      await dark.close();
    }
  });
});
