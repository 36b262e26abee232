/**
 * The browser reference verifier, as a tenant uses it: `evroom verifier --out` writes the page,
 * Chromium opens it from file://, and every sample, a real exported bundle and a tampered copy
 * are verified in it, with no network request at all.
 *
 * Also takes the user guide's pictures docs/screenshots/verifier-samples.png,
 * verifier-bundle.png and verifier-tampered.png.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import JSZip from 'jszip';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSignedBundle, buildStoredZip, buildTraversalZip, type SignedBundle } from './fixtures';
import { launchBrowser, REPO_ROOT } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');

interface SampleIndexEntry {
  file: string;
  expected_status: string;
  expected_trust: string;
}

/** The few DOM names the page functions use (this file is compiled for Node, without the DOM's types). */
interface PageGlobals {
  document: { querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }> };
}

function evroom(args: string[]): string {
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'evroom.mjs'), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (run.status !== 0) throw new Error(`evroom ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return run.stdout;
}

describe('the browser reference verifier from file://', () => {
  let folder: string;
  let pageUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  let bundle: SignedBundle;
  let tamperedFile: string;
  /** Every request any page or worker of the context made, besides the page file itself. */
  const requests: string[] = [];
  const failures: string[] = [];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'evroom-verifier-e2e-'));
    const page = join(folder, 'verifier.html');
    expect(evroom(['verifier', '--out', page])).toContain('Wrote the reference verifier');
    pageUrl = pathToFileURL(page).toString();
    evroom(['samples', '--out', join(folder, 'samples')]);
    bundle = await buildSignedBundle({ out: join(folder, 'evidence.zip'), receipts: 12 });
    // The same bundle with one receipt changed after export: its bytes no longer match the
    // signed manifest and its signature no longer verifies.
    const zip = await JSZip.loadAsync(readFileSync(bundle.file));
    const victim = Object.keys(zip.files)
      .filter((name) => name.startsWith('receipts/') && name.endsWith('.json'))
      .sort()[0]!;
    const text = await zip.file(victim)!.async('string');
    const changed = text.replace(/"agent_did":"([^"]*)"/, '"agent_did":"$1x"');
    expect(changed).not.toBe(text);
    zip.file(victim, changed);
    tamperedFile = join(folder, 'evidence-tampered.zip');
    writeFileSync(tamperedFile, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));

    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    context.on('request', (request) => {
      if (request.url() !== pageUrl) requests.push(request.url());
    });
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  async function openPage(): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') failures.push(message.text());
    });
    await page.goto(pageUrl);
    await page.getByRole('heading', { name: 'Evidence Room reference verifier' }).waitFor();
    return page;
  }

  async function settled(page: Page, count: number): Promise<void> {
    // A function, not a string: the page's policy forbids eval, which string predicates need.
    await page.waitForFunction(
      (expected) => {
        const results = Array.from(
          (globalThis as unknown as PageGlobals).document.querySelectorAll('[data-testid="result"]'),
        );
        return results.length === expected && results.every((result) => result.getAttribute('data-kind') !== 'pending');
      },
      count,
      { timeout: 90_000 },
    );
  }

  async function attributes(page: Page, selector: string, names: string[]): Promise<(string | null)[][]> {
    return (await page.evaluate(
      `[...document.querySelectorAll(${JSON.stringify(selector)})].map((element) => ${JSON.stringify(names)}.map((name) => element.getAttribute(name)))`,
    )) as (string | null)[][];
  }

  it('verifies every sample with the statuses and trusts the CLI gives, trust pinned from a file for this page only', async () => {
    const samples = join(folder, 'samples');
    const index = JSON.parse(readFileSync(join(samples, 'index.json'), 'utf8')) as SampleIndexEntry[];
    expect(index.length).toBeGreaterThan(30);
    const page = await openPage();
    await page.getByTestId('trust').setInputFiles(join(samples, 'keys.json'));
    await page.getByTestId('secrets').setInputFiles(join(samples, 'secrets.json'));
    await expect.poll(() => page.getByTestId('trust-status').textContent()).toMatch(/keys\.json: \d+ loaded/);
    await expect.poll(() => page.getByTestId('secrets-status').textContent()).toMatch(/secrets\.json: 1 loaded/);
    await page.getByTestId('documents').setInputFiles(index.map((entry) => join(samples, entry.file)));
    await settled(page, index.length);
    const shown = await attributes(page, '[data-testid="result"]', ['data-file', 'data-status', 'data-trust']);
    expect(shown).toEqual(
      index.map((entry) => [entry.file.split('/').pop(), entry.expected_status, entry.expected_trust]),
    );
    // The same report as the app: checks, then errors.
    const tampered = page
      .getByTestId('result')
      .filter({ has: page.locator('[data-report-status="MISMATCH"]') })
      .first();
    await expect.poll(() => tampered.locator('[data-check]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'verifier-samples.png') });
    await page.close();
  });

  it('without a trust file, a valid sample reads "valid, issuer unknown", never trusted', async () => {
    const page = await openPage();
    await page.getByTestId('documents').setInputFiles(join(folder, 'samples', 'classical', 'valid.json'));
    await settled(page, 1);
    const result = page.getByTestId('result');
    expect(await result.getAttribute('data-status')).toBe('PASS');
    expect(await result.getAttribute('data-trust')).toBe('unpinned');
    expect(await page.getByTestId('report-reading').textContent()).toBe('Cryptographically valid, issuer unknown');
    await page.close();
  });

  it('verifies a document dropped on the page, and says why a bad trust file is not used', async () => {
    const page = await openPage();
    await page.getByTestId('trust').setInputFiles({
      name: 'trust.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{"keys": [{"key_id": 1}]}'),
    });
    await expect
      .poll(() => page.getByTestId('trust-status').textContent())
      .toBe('trust.json: not used: Required member "algorithm" is missing. (at /keys/0/algorithm)');
    const text = readFileSync(join(folder, 'samples', 'classical', 'tampered.json'), 'utf8');
    // A drop as the browser delivers it: a DataTransfer holding a File, on the drop zone.
    await page.evaluate(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([${JSON.stringify(text)}], 'dropped.json', { type: 'application/json' }));
      const zone = document.querySelector('[data-testid="drop-zone"]');
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    })()`);
    await settled(page, 1);
    expect(await attributes(page, '[data-testid="result"]', ['data-file', 'data-status', 'data-trust'])).toEqual([
      // Unattributed (PROTOCOL 1): the key the document names did not sign what is there.
      ['dropped.json', 'MISMATCH', 'unattributed'],
    ]);
    await page.close();
  });

  it('verifies a whole exported bundle: manifest signature, every file, every receipt', async () => {
    const page = await openPage();
    await page.getByTestId('documents').setInputFiles(bundle.file);
    await settled(page, 1);
    const result = page.getByTestId('result');
    expect(await result.getAttribute('data-file')).toBe('evidence.zip');
    expect(await result.getAttribute('data-kind')).toBe('bundle');
    expect(await result.getAttribute('data-status')).toBe('clean');
    // Signed by the exporting machine's did:key: valid, issuer unknown.
    expect(await result.getAttribute('data-trust')).toBe('unpinned');
    expect(await page.getByTestId('bundle-signature').getAttribute('data-signature')).toBe('valid');
    expect(await page.getByTestId('bundle-receipts').textContent()).toBe(String(bundle.receipts));
    expect(await result.locator('[data-finding]').count()).toBe(0);
    // The verdict first, in colour with an icon and words, and counted honestly above.
    expect(await result.getByTestId('verdict').getAttribute('data-verdict')).toBe('verified_unknown_issuer');
    expect(await page.getByTestId('summary').getAttribute('data-summary')).toBe('1 file: 1 verified (issuer unknown)');
    await page.screenshot({ path: join(SCREENSHOTS, 'verifier-bundle.png'), fullPage: false });
    await page.close();
  });

  it('shows the findings of a tampered bundle', async () => {
    const page = await openPage();
    await page.getByTestId('documents').setInputFiles(tamperedFile);
    await settled(page, 1);
    const result = page.getByTestId('result');
    expect(await result.getAttribute('data-status')).toBe('findings');
    const findings = (await attributes(page, '[data-testid="result"] [data-finding]', ['data-finding'])).flat();
    expect(findings.sort()).toEqual(['file_mismatch', 'receipt_not_pass']);
    // The manifest itself is intact and still verifies.
    expect(await page.getByTestId('bundle-signature').getAttribute('data-signature')).toBe('valid');
    // The receipt that did not pass is listed first; its report opens with its checks and errors.
    await result.locator('details[data-receipt] summary').first().click();
    const report = result.locator('details[data-receipt] .report').first();
    await report.waitFor();
    expect(await report.getAttribute('data-report-status')).not.toBe('PASS');
    expect(await report.locator('[data-check]').count()).toBeGreaterThan(0);
    // The verdict opens the result, before the findings: never "verified" for a changed bundle.
    const verdict = result.getByTestId('verdict');
    expect(await verdict.getAttribute('data-verdict')).toBe('altered');
    expect(await verdict.textContent()).toContain('Altered after signing: 1 file changed, 1 receipt not PASS');
    expect(await page.getByTestId('summary').getAttribute('data-summary')).toBe('1 file: 1 altered after signing');
    // The picture shows the verdict at the top of the result, the findings below it.
    await result.scrollIntoViewIfNeeded();
    await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 330));
    await page.screenshot({ path: join(SCREENSHOTS, 'verifier-tampered.png') });
    await page.close();
  });

  it('refuses hostile zips as the import does: a traversal name, a symbolic link', async () => {
    const traversal = join(folder, 'traversal.zip');
    writeFileSync(traversal, buildTraversalZip());
    const symlink = join(folder, 'symlink.zip');
    writeFileSync(
      symlink,
      buildStoredZip([
        { name: 'manifest.json', data: '{}' },
        { name: 'receipts/link.json', data: '/etc/passwd', mode: 0o120777 },
      ]),
    );
    const page = await openPage();
    await page.getByTestId('documents').setInputFiles([traversal, symlink]);
    await settled(page, 2);
    expect(await attributes(page, '[data-testid="result"]', ['data-file', 'data-status'])).toEqual([
      ['traversal.zip', 'refused'],
      ['symlink.zip', 'refused'],
    ]);
    expect((await attributes(page, '[data-refusal]', ['data-refusal'])).flat()).toEqual([
      'zip_path_traversal',
      'zip_symlink',
    ]);
    await page.close();
  });

  it('made no network request and logged no error or policy violation', () => {
    // Blob URLs are the inlined worker, held in memory: not the network.
    expect(requests.filter((url) => !url.startsWith('blob:'))).toEqual([]);
    expect(failures).toEqual([]);
  });
});
