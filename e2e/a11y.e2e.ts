/**
 * Accessibility across the app: axe finds no violation in any view, with the built-in samples
 * loaded, at 1280, 1024 and 800 px, in print emulation, and in the dark theme; the same for the
 * one-file reference verifier page with results on it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { axeAcrossWidths, axeViolations, describeFindings } from './a11y';
import { callApi, launchBrowser, REPO_ROOT, startWebApp, type RunningApp } from './harness';

/** Every view of the app, with a heading that shows it has rendered. */
const VIEWS: { hash: string; ready: (page: Page) => Promise<void> }[] = [
  { hash: 'overview', ready: heading('Overview') },
  { hash: 'receipts', ready: async (page) => page.getByRole('row').nth(1).waitFor() },
  { hash: 'receipts/1', ready: async (page) => page.getByRole('heading', { level: 1 }).first().waitFor() },
  { hash: 'verify', ready: heading('Verify') },
  { hash: 'bundles', ready: heading('Bundles') },
  { hash: 'anchors', ready: heading('Anchors') },
  { hash: 'logs', ready: heading('Logs') },
  { hash: 'trust', ready: heading('Trust store') },
  { hash: 'reports', ready: heading('Reports') },
  { hash: 'service', ready: heading('Service') },
  { hash: 'settings', ready: heading('Settings') },
];

function heading(name: string): (page: Page) => Promise<void> {
  return async (page) => page.getByRole('heading', { name, level: 1 }).waitFor();
}

describe('accessibility (axe) in every view, width and medium', () => {
  let app: RunningApp;
  let browser: Browser;
  let folder: string;

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchBrowser();
    await callApi(app, 'samples.load');
    folder = mkdtempSync(join(tmpdir(), 'evroom-a11y-'));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('finds no violation in any view at 1280, 1024 and 800 px and in print', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(app.url);
    const messages: string[] = [];
    for (const view of VIEWS) {
      await page.evaluate((hash) => {
        (globalThis as unknown as { location: { hash: string } }).location.hash = `#/${hash}`;
      }, view.hash);
      await view.ready(page);
      messages.push(...(await axeAcrossWidths(page, view.hash)));
    }
    expect(messages.join('\n')).toBe('');
    await page.close();
  }, 300_000);

  it('finds no violation in the dark theme', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    await page.goto(app.url);
    await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
    const messages: string[] = [];
    for (const view of VIEWS) {
      await page.evaluate((hash) => {
        (globalThis as unknown as { location: { hash: string } }).location.hash = `#/${hash}`;
      }, view.hash);
      await view.ready(page);
      const findings = await axeViolations(page);
      if (findings.length > 0) messages.push(describeFindings(`${view.hash} (dark)`, findings));
    }
    expect(messages.join('\n')).toBe('');
    await page.close();
  }, 300_000);

  it('finds no violation on the one-file verifier with results on it', async () => {
    const pageFile = join(folder, 'verifier.html');
    execFileSync(process.execPath, [join(REPO_ROOT, 'bin', 'evroom.mjs'), 'verifier', '--out', pageFile], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    execFileSync(
      process.execPath,
      [join(REPO_ROOT, 'bin', 'evroom.mjs'), 'samples', '--out', join(folder, 'samples')],
      {
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(pathToFileURL(pageFile).toString());
    await page.getByRole('heading', { name: 'Evidence Room reference verifier' }).waitFor();
    const samples = readdirSync(join(folder, 'samples'))
      .filter((name) => name.endsWith('.json'))
      .slice(0, 4)
      .map((name) => join(folder, 'samples', name));
    await page.locator('input[type="file"]').first().setInputFiles(samples);
    await page.locator('table tbody tr, .result').first().waitFor();
    const messages = await axeAcrossWidths(page, 'verifier');
    expect(messages.join('\n')).toBe('');
    await page.close();
  }, 120_000);
});
