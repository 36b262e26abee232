/**
 * The one-file verifier's verdicts, as an auditor reads them (issue 25): an honest count of each
 * verdict kind, verdicts in colour with an icon and words, a Clear that empties the results, the
 * captions above receipt rows that say what is below them, key fingerprints equal to the CLI's,
 * and a tampered document naming a pinned key shown `unattributed` with its claimed key id, never
 * trusted. Axe finds nothing on the page with mixed results, light and dark.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import JSZip from 'jszip';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode } from '../src-shared/crypto';
import { axeAcrossWidths } from './a11y';
import { buildSignedBundle, type SignedBundle } from './fixtures';
import { callApi, launchBrowser, REPO_ROOT, startWebApp } from './harness';

/** The few DOM names the page functions use (this file is compiled for Node, without the DOM's types). */
interface Attributed {
  getAttribute(name: string): string | null;
}

/** The value of one attribute on every element a locator finds, in order. */
async function attributeOfAll(locator: Locator, name: string): Promise<(string | null)[]> {
  return locator.evaluateAll(
    (elements, attribute) => elements.map((element) => (element as unknown as Attributed).getAttribute(attribute)),
    name,
  );
}

interface PageGlobals {
  document: {
    querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }>;
    documentElement: { dataset: Record<string, string | undefined> };
  };
}

function evroom(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'evroom.mjs'), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
}

/** The fingerprint as docs/protocol.md defines it, computed here with node:crypto. */
function fingerprintOf(publicKey: Uint8Array): string {
  const hex = createHash('sha256').update(publicKey).digest('hex').slice(0, 32).toUpperCase();
  return hex.match(/.{4}/g)!.join('-');
}

describe('the one-file verifier: verdicts at a glance', () => {
  let folder: string;
  let pageUrl: string;
  let browser: Browser;
  let bundle: SignedBundle;
  let tamperedFile: string;
  const failures: string[] = [];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'evroom-verifier-verdicts-e2e-'));
    const file = join(folder, 'verifier.html');
    expect(evroom(['verifier', '--out', file]).status).toBe(0);
    pageUrl = pathToFileURL(file).toString();
    expect(evroom(['samples', '--out', join(folder, 'samples')]).status).toBe(0);
    bundle = await buildSignedBundle({ out: join(folder, 'evidence.zip'), receipts: 6 });
    // The same bundle with one receipt changed after export.
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
  });

  afterAll(async () => {
    await browser?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  async function openPage(colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    await page.goto(pageUrl);
    await page.getByRole('heading', { name: 'Evidence Room reference verifier' }).waitFor();
    return page;
  }

  async function settled(page: Page, count: number): Promise<void> {
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

  async function openBundles(page: Page): Promise<void> {
    await page.getByTestId('documents').setInputFiles([bundle.file, tamperedFile]);
    await settled(page, 2);
  }

  it('counts one clean and one tampered bundle honestly, each verdict in colour, with an icon and words', async () => {
    const page = await openPage();
    await openBundles(page);
    const summary = page.getByTestId('summary');
    expect(await summary.getAttribute('data-summary')).toBe(
      '2 files: 1 verified (issuer unknown), 1 altered after signing',
    );
    expect(await summary.textContent()).not.toContain('2 of 2');
    const chips = summary.locator('[data-verdict-count]');
    expect(await attributeOfAll(chips, 'data-verdict-count')).toEqual(['verified_unknown_issuer', 'altered']);
    expect(await summary.locator('[data-verdict-count="altered"]').getAttribute('class')).toContain('verdict-bad');
    expect(await summary.locator('[data-verdict-count="verified_unknown_issuer"]').getAttribute('class')).toContain(
      'verdict-good',
    );

    const clean = page.locator('[data-testid="result"][data-file="evidence.zip"]');
    const tampered = page.locator('[data-testid="result"][data-file="evidence-tampered.zip"]');
    const cleanVerdict = clean.getByTestId('verdict');
    const tamperedVerdict = tampered.getByTestId('verdict');
    expect(await cleanVerdict.getAttribute('data-verdict')).toBe('verified_unknown_issuer');
    expect(await cleanVerdict.getAttribute('class')).toContain('verdict-good');
    expect(await cleanVerdict.locator('.verdict-icon').textContent()).toBe('✓');
    expect(await cleanVerdict.textContent()).toContain(
      'Verified (issuer unknown): every file matches the signed manifest',
    );
    expect(await tamperedVerdict.getAttribute('data-verdict')).toBe('altered');
    expect(await tamperedVerdict.getAttribute('class')).toContain('verdict-bad');
    expect(await tamperedVerdict.locator('.verdict-icon').textContent()).toBe('≠');
    expect(await tamperedVerdict.textContent()).toContain('Altered after signing: 1 file changed, 1 receipt not PASS');
    // Colour differs between the two verdicts (computed, not just a class name).
    const colour = (locator: Locator) =>
      locator.evaluate(
        (element) =>
          (
            globalThis as unknown as { getComputedStyle(element: unknown): { backgroundColor: string } }
          ).getComputedStyle(element).backgroundColor,
      );
    expect(await colour(cleanVerdict)).not.toBe(await colour(tamperedVerdict));
    // The verdict comes first in each result, before the evidence.
    expect(await tampered.locator(':scope > *').nth(1).getAttribute('data-testid')).toBe('verdict');
    // The manifest signature is a badge too.
    expect(await clean.locator('[data-signature-badge="valid"]').getAttribute('class')).toContain('badge-good');
    expect(failures).toEqual([]);
    await page.close();
  });

  it('captions each group of receipt rows with what is in it', async () => {
    const page = await openPage();
    await openBundles(page);
    const clean = page.locator('[data-testid="result"][data-file="evidence.zip"]');
    const tampered = page.locator('[data-testid="result"][data-file="evidence-tampered.zip"]');
    // A clean bundle: no "did not pass" caption at all above its PASS rows.
    expect(await clean.getByTestId('receipts-failed').count()).toBe(0);
    expect(await clean.getByTestId('receipts-passed-caption').textContent()).toBe(
      `Every receipt that passed: ${bundle.receipts} receipts. Open one for its report.`,
    );
    const rowStatuses = (group: Locator) =>
      attributeOfAll(group.locator('details[data-receipt] summary [data-status]'), 'data-status');
    expect(await rowStatuses(clean.getByTestId('receipts-passed'))).toEqual(Array(bundle.receipts).fill('PASS'));
    // The tampered bundle: the failing row under "did not pass", the others under "passed".
    expect(await tampered.getByTestId('receipts-failed-caption').textContent()).toBe(
      'Every receipt that did not pass: 1 receipt. Open one for its report.',
    );
    const failedRows = await rowStatuses(tampered.getByTestId('receipts-failed'));
    expect(failedRows).toHaveLength(1);
    expect(failedRows).not.toContain('PASS');
    expect(await rowStatuses(tampered.getByTestId('receipts-passed'))).toEqual(Array(bundle.receipts - 1).fill('PASS'));
    await page.close();
  });

  it('clears the results from the keyboard, keeping the key files until asked to forget them', async () => {
    const page = await openPage();
    await page.getByTestId('trust').setInputFiles(join(folder, 'samples', 'keys.json'));
    await expect.poll(() => page.getByTestId('trust-status').textContent()).toMatch(/keys\.json: \d+ loaded/);
    await openBundles(page);
    const clear = page.getByRole('button', { name: 'Clear results' });
    await clear.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('result').count()).toBe(0);
    expect(await page.getByTestId('summary').count()).toBe(0);
    // Focus goes back to where files are opened, not lost on the page.
    expect(
      await page.evaluate(() =>
        (
          globalThis as never as { document: { activeElement: { getAttribute(name: string): string | null } } }
        ).document.activeElement.getAttribute('data-testid'),
      ),
    ).toBe('documents');
    // The trust file stays for the next files...
    expect(await page.getByTestId('trust-status').textContent()).toMatch(/keys\.json: \d+ loaded/);
    // ...until the user forgets it.
    await page.getByRole('button', { name: 'Forget key, trust and secrets files' }).click();
    await expect.poll(() => page.getByTestId('trust-status').count()).toBe(0);
    await page.getByTestId('documents').setInputFiles(join(folder, 'samples', 'classical', 'valid.json'));
    await settled(page, 1);
    expect(await page.getByTestId('result').getAttribute('data-trust')).toBe('unpinned');
    expect(failures).toEqual([]);
    await page.close();
  });

  it('shows fingerprints of loaded keys and of each signing key, equal to the CLI’s', async () => {
    const page = await openPage();
    const keysFile = join(folder, 'samples', 'keys.json');
    const keys = (JSON.parse(readFileSync(keysFile, 'utf8')) as { keys: { key_id: string; public_key: string }[] })
      .keys;
    await page.getByTestId('trust').setInputFiles(keysFile);
    const listed = page.getByTestId('trust-fingerprints').locator('li');
    await expect.poll(() => listed.count()).toBe(keys.length);
    for (const [index, key] of keys.entries()) {
      expect(await listed.nth(index).getAttribute('data-key-id')).toBe(key.key_id);
      expect(await listed.nth(index).locator('[data-fingerprint]').textContent()).toBe(
        fingerprintOf(b64uDecode(key.public_key)),
      );
    }
    const documentFile = join(folder, 'samples', 'classical', 'valid.json');
    await page.getByTestId('documents').setInputFiles(documentFile);
    await settled(page, 1);
    const cli = evroom(['verify', '--json', '--no-trust-store', '--trust', keysFile, documentFile]);
    expect(cli.status, cli.stderr).toBe(0);
    const report = JSON.parse(cli.stdout.trim().split('\n')[0]!) as { trust: { key_fingerprint?: string } };
    expect(report.trust.key_fingerprint).toMatch(/^[0-9A-F]{4}(-[0-9A-F]{4}){7}$/);
    expect(await page.getByTestId('result').getByTestId('fingerprint').textContent()).toBe(
      report.trust.key_fingerprint,
    );
    // The human output reads it too.
    const human = evroom(['verify', '--no-trust-store', '--trust', keysFile, documentFile]);
    expect(human.stdout).toContain(`fingerprint ${report.trust.key_fingerprint}`);
    await page.close();
  });

  it('shows a tampered document naming a pinned key unattributed, with the claimed key id, never trusted', async () => {
    const page = await openPage();
    const keysFile = join(folder, 'samples', 'keys.json');
    await page.getByTestId('trust').setInputFiles(keysFile);
    await expect.poll(() => page.getByTestId('trust-status').textContent()).toMatch(/keys\.json: \d+ loaded/);
    const documentFile = join(folder, 'samples', 'classical', 'tampered.json');
    const cli = evroom(['verify', '--json', '--no-trust-store', '--trust', keysFile, documentFile]);
    const report = JSON.parse(cli.stdout.trim().split('\n')[0]!) as {
      status: string;
      trust: { status: string; claimed_key_id?: string; key_fingerprint?: string };
    };
    expect([report.status, report.trust.status]).toEqual(['MISMATCH', 'unattributed']);
    // The key the document embeds is pinned: without the rule it would read trusted.
    const valid = JSON.parse(
      evroom([
        'verify',
        '--json',
        '--no-trust-store',
        '--trust',
        keysFile,
        join(folder, 'samples', 'classical', 'valid.json'),
      ])
        .stdout.trim()
        .split('\n')[0]!,
    ) as { trust: { status: string; key_id: string } };
    expect(valid.trust.status).toBe('trusted');
    expect(report.trust.claimed_key_id).toBe(valid.trust.key_id);

    await page.getByTestId('documents').setInputFiles(documentFile);
    await settled(page, 1);
    const result = page.getByTestId('result');
    expect(await result.getAttribute('data-trust')).toBe('unattributed');
    expect(await result.locator('[data-trust="trusted"]').count()).toBe(0);
    expect(await result.locator('.verdict-good, .badge-good[data-trust]').count()).toBe(0);
    const verdict = result.getByTestId('verdict');
    expect(await verdict.getAttribute('data-verdict')).toBe('altered');
    expect(await verdict.getAttribute('class')).toContain('verdict-bad');
    expect(await verdict.textContent()).toContain(
      `it names ${report.trust.claimed_key_id}, but that key did not sign what is here`,
    );
    expect(await result.locator('[data-trust="unattributed"]').first().textContent()).toContain('unattributed');
    expect(await result.getByTestId('report-reading').textContent()).toBe(
      'Not valid: the document disagrees with itself, not signed by the key it names',
    );
    // Nothing on the result says trusted: no badge, no check detail.
    expect(await result.textContent()).not.toMatch(/\btrusted\b/);
    expect(await result.getByTestId('fingerprint').textContent()).toBe(report.trust.key_fingerprint);
    expect(await page.getByTestId('summary').getAttribute('data-summary')).toBe('1 file: 1 altered after signing');
    await page.close();
  });

  it('is axe-clean with mixed results, light and dark, at every width and in print', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await openPage(scheme);
      await page.getByTestId('trust').setInputFiles(join(folder, 'samples', 'keys.json'));
      await page
        .getByTestId('documents')
        .setInputFiles([
          bundle.file,
          tamperedFile,
          join(folder, 'samples', 'classical', 'valid.json'),
          join(folder, 'samples', 'classical', 'tampered.json'),
        ]);
      await settled(page, 4);
      expect(
        await page.evaluate(
          () => (globalThis as unknown as PageGlobals).document.documentElement.dataset['theme'] ?? '',
        ),
      ).toBe(scheme);
      // Open a failing receipt's report too: its badges and checks are on the page.
      await page
        .locator('[data-file="evidence-tampered.zip"] [data-testid="receipts-failed"] details summary')
        .first()
        .click();
      const messages = await axeAcrossWidths(page, `verifier (${scheme})`);
      expect(messages.join('\n')).toBe('');
      await page.close();
    }
  }, 240_000);
});

describe('the app reads the same fingerprints', () => {
  it('lists each pinned key with its fingerprint in the Trust store, as the verifier and the CLI give it', async () => {
    const [app, browser] = await Promise.all([startWebApp(), launchBrowser()]);
    try {
      // RFC 8032 section 7.1, test 1.
      const publicKey = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
      await callApi(app, 'trust.pin', { key_id: 'did:svc:acme:k1', algorithm: 'Ed25519', public_key: publicKey });
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(app.url);
      await page.getByRole('link', { name: 'Trust store' }).click();
      const row = page.locator('[data-testid="pinned-table"] tr[data-key-id="did:svc:acme:k1"]');
      await row.waitFor();
      const expected = fingerprintOf(b64uDecode(publicKey));
      expect(await row.locator('[data-fingerprint]').getAttribute('data-fingerprint')).toBe(expected);
      expect(await row.locator('[data-fingerprint]').textContent()).toBe(`fingerprint ${expected}`);
    } finally {
      await browser.close();
      await app.stop();
    }
  }, 120_000);
});
