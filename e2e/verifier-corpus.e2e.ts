/**
 * The conformance corpus made from the real producers (test-vectors/, issue 24) through the
 * browser reference verifier page, as a user runs it: `evroom verifier --out` writes the page,
 * Chromium opens it from file://, and per format folder and key file one page gets the key file
 * in its "Key file" input and every document of the group at once. Each result must show its
 * case's status, trust, format and error code; the page must make no network request and log no
 * error. One browser for the whole corpus.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupByKeys, tryLoadCorpus } from '../src-main/test-support/conformance-corpus';
import { launchBrowser, REPO_ROOT } from './harness';

/** The few DOM names the page functions use (this file is compiled for Node, without the DOM's types). */
interface PageGlobals {
  document: { querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }> };
}

/** What the page shows for one result. */
interface Shown {
  file: string;
  status: string | null;
  trust: string | null;
  format: string | null;
  errors: string[];
}

const { cases, error } = tryLoadCorpus();
const groups = groupByKeys(cases);

describe('the conformance corpus through the browser reference verifier', () => {
  let folder: string;
  let pageUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  const requests: string[] = [];
  const failures: string[] = [];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'evroom-verifier-corpus-e2e-'));
    const file = join(folder, 'verifier.html');
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'evroom.mjs'), 'verifier', '--out', file], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(run.status, run.stderr).toBe(0);
    pageUrl = pathToFileURL(file).toString();
    browser = await launchBrowser();
    context = await browser.newContext();
    context.on('request', (request) => {
      if (request.url() !== pageUrl) requests.push(request.url());
    });
  });

  afterAll(async () => {
    await browser?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('is present and well-formed: at least one case, every cases.json read', () => {
    if (error !== undefined) throw error;
    expect(cases.length).toBeGreaterThan(0);
    expect(groups.reduce((total, group) => total + group.cases.length, 0)).toBe(cases.length);
  });

  it.each(groups.map((group) => [group.label, group] as const))('%s', async (_label, group) => {
    const page = await context.newPage();
    page.on('pageerror', (pageError) => failures.push(pageError.message));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') failures.push(message.text());
    });
    await page.goto(pageUrl);
    await page.getByRole('heading', { name: 'Evidence Room reference verifier' }).waitFor();
    if (group.keys !== undefined) {
      const name = basename(group.keys.name);
      await page
        .getByTestId('keys')
        .setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(group.keys.text, 'utf8') });
      await expect.poll(() => page.getByTestId('keys-status').textContent()).toMatch(/: (\d+ loaded|not used: .*)$/);
      expect(await page.getByTestId('keys-status').textContent()).toMatch(new RegExp(`^${escape(name)}: \\d+ loaded$`));
    }
    // Each document under a name unique in the group (two folders of a format may share names).
    const names = group.cases.map((entry, index) => `${index + 1}-${basename(entry.file)}`);
    await page.getByTestId('documents').setInputFiles(
      group.cases.map((entry, index) => ({
        name: names[index]!,
        mimeType: 'application/json',
        buffer: Buffer.from(entry.bytes),
      })),
    );
    await page.waitForFunction(
      (expected) => {
        const results = Array.from(
          (globalThis as unknown as PageGlobals).document.querySelectorAll('[data-testid="result"]'),
        );
        return results.length === expected && results.every((result) => result.getAttribute('data-kind') !== 'pending');
      },
      group.cases.length,
      { timeout: 90_000 },
    );
    const shown = (await page.evaluate(`[...document.querySelectorAll('[data-testid="result"]')].map((result) => ({
      file: result.getAttribute('data-file'),
      status: result.getAttribute('data-status'),
      trust: result.getAttribute('data-trust'),
      format: result.querySelector('.report-format')?.textContent ?? null,
      errors: [...result.querySelectorAll('.report > .report-section .report-error-code')].map((code) => code.textContent),
    }))`)) as Shown[];
    expect(shown.map((result) => result.file)).toEqual(names);
    group.cases.forEach((entry, index) => {
      const result = shown[index]!;
      const seen = `${entry.id} (${entry.note}) shows ${result.format} ${result.status}/${result.trust} ${JSON.stringify(result.errors)}`;
      expect(result.format, seen).toBe(entry.format);
      expect(result.status, seen).toBe(entry.status);
      if (entry.trust !== undefined) expect(result.trust, seen).toBe(entry.trust);
      if (entry.error !== undefined) expect(result.errors, seen).toContain(entry.error);
    });
    await page.close();
  });

  it('made no network request and logged no error or policy violation', () => {
    // Blob URLs are the inlined worker, held in memory: not the network.
    expect(requests.filter((url) => !url.startsWith('blob:'))).toEqual([]);
    expect(failures).toEqual([]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
