/**
 * Sealed documents in the app's Verify view: a sealed sample pasted without its secret is not
 * opened and says which secret it needs; the secrets file chosen in Verify (as `evroom verify
 * --secret` and the one-file page take it) opens it and shows the decrypted document's report; a
 * trust file pins its key for the session; a wrong secrets file gives the sealed format's specific
 * error and a broken one is refused naming the place; "Forget these files" closes it again. The
 * files are shown by name and count, never by value, and the view is axe-clean with them chosen.
 *
 * Also takes the user guide's picture docs/screenshots/verify-sealed.png.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { axeAcrossWidths } from './a11y';
import { launchBrowser, REPO_ROOT, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const VIEWPORT = { width: 1280, height: 800 };

function evroom(args: string[]): string {
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'evroom.mjs'), ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (run.status !== 0) throw new Error(`evroom ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return run.stdout;
}

describe('sealed documents in Verify, with the session’s key, trust and secrets files', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  let folder: string;
  let samples: string;
  let sealed: string;
  let secretValue: string;
  let secretId: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'evroom-sealed-e2e-'));
    samples = join(folder, 'samples');
    evroom(['samples', '--out', samples]);
    sealed = readFileSync(join(samples, 'sealed', 'valid.json'), 'utf8');
    const secrets = JSON.parse(readFileSync(join(samples, 'secrets.json'), 'utf8')) as {
      secrets: { key_id: string; key: string }[];
    };
    secretId = secrets.secrets[0]!.key_id;
    secretValue = secrets.secrets[0]!.key;
    // The same secret id with another key: the document's tag cannot verify under it.
    writeFileSync(
      join(folder, 'wrong-secrets.json'),
      JSON.stringify({ secrets: [{ key_id: secretId, key: Buffer.alloc(32, 7).toString('base64url') }] }),
    );
    writeFileSync(
      join(folder, 'broken-secrets.json'),
      JSON.stringify({ secrets: [{ key_id: secretId, key: 'AAAA' }] }),
    );
    app = await startWebApp();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(app.url);
    await page.getByRole('link', { name: 'Verify', exact: true }).click();
    await page.getByRole('heading', { name: 'Verify', level: 1 }).waitFor();
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  /** The report of the document (the outer one). */
  function report(): Locator {
    return page.locator('.verify-result .report').first();
  }

  async function reportStatus(expected: string): Promise<void> {
    await page.locator(`.verify-result .report[data-report-status="${expected}"]`).first().waitFor();
  }

  it('does not open a sealed document without its secret, and says which one it needs', async () => {
    await page.getByLabel('Or paste a document').fill(sealed);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await reportStatus('INDETERMINATE');
    expect(await report().textContent()).toContain(`No secret named "${secretId}" was supplied`);
    expect(await page.getByRole('region', { name: 'Decrypted document', exact: true }).count()).toBe(0);
    expect(await page.getByTestId('verify-secrets-status').textContent()).toBe('None chosen.');
  });

  it('opens it with the secrets file chosen in Verify, shows the decrypted report, and trusts it with the trust file', async () => {
    await page.getByTestId('verify-secrets').setInputFiles(join(samples, 'secrets.json'));
    await expect.poll(() => page.getByTestId('verify-secrets-status').textContent()).toBe('✓ secrets.json: 1 secret');
    // The document on screen is verified again with the file.
    await reportStatus('PASS');
    const inner = page.getByRole('region', { name: 'Decrypted document', exact: true });
    await inner.waitFor();
    expect(await inner.locator('.report').first().getAttribute('data-report-status')).toBe('PASS');
    expect(await inner.locator('.report-format').first().textContent()).toBe('classical');
    expect(await report().getAttribute('data-report-trust')).toBe('unpinned');

    await page.getByTestId('verify-trust').setInputFiles(join(samples, 'keys.json'));
    await expect
      .poll(() => page.getByTestId('verify-trust-status').textContent())
      .toMatch(/^✓ keys\.json: \d+ keys pinned for this session$/);
    await page.locator('.verify-result .report[data-report-trust="trusted"]').first().waitFor();
    // Names and counts; never a secret's value.
    expect(await page.content()).not.toContain(secretValue);

    // Kept for the session: leaving Verify and coming back keeps the files.
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Verify', exact: true }).click();
    await page.getByRole('heading', { name: 'Verify', level: 1 }).waitFor();
    expect(await page.getByTestId('verify-secrets-status').textContent()).toBe('✓ secrets.json: 1 secret');
    await page.getByLabel('Or paste a document').fill(sealed);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.locator('.verify-result .report[data-report-trust="trusted"]').first().waitFor();
    await page.getByRole('region', { name: 'Decrypted document', exact: true }).waitFor();
    // The picture shows the files in use beside the decrypted document's report.
    await page
      .getByTestId('verify-files')
      .evaluate((element) =>
        (element as unknown as { scrollIntoView(options: object): void }).scrollIntoView({ block: 'end' }),
      );
    await page.screenshot({ path: join(SCREENSHOTS, 'verify-sealed.png') });
    expect((await axeAcrossWidths(page, 'verify with files chosen')).join('\n')).toBe('');

    // Saved, the document keeps the secret's opening, but its trust is the ledger's own: the trust
    // file pinned the key for this window only.
    await page.getByRole('button', { name: 'Save to ledger' }).click();
    await page.getByTestId('saved-notice').waitFor();
    await reportStatus('PASS');
    expect(await report().getAttribute('data-report-trust')).toBe('unpinned');
    await page.getByRole('region', { name: 'Decrypted document', exact: true }).waitFor();
  });

  it('gives the specific error for a wrong secrets file, refuses a broken one naming the place, and forgets the files', async () => {
    await page.getByLabel('Or paste a document').fill(sealed);
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.locator('.verify-result .report[data-report-trust="trusted"]').first().waitFor();
    await page.getByTestId('verify-secrets').setInputFiles(join(folder, 'wrong-secrets.json'));
    await expect
      .poll(() => page.getByTestId('verify-secrets-status').textContent())
      .toBe('✓ wrong-secrets.json: 1 secret');
    await page.locator('.verify-result .report:not([data-report-status="PASS"])').first().waitFor();
    expect(await report().textContent()).toContain(
      `AES-256-GCM authentication failed with secret "${secretId}": the key is wrong or the sealed data was altered.`,
    );
    expect(await page.getByRole('region', { name: 'Decrypted document', exact: true }).count()).toBe(0);

    await page.getByTestId('verify-secrets').setInputFiles(join(folder, 'broken-secrets.json'));
    const status = page.getByTestId('verify-secrets-status');
    await expect.poll(() => status.getAttribute('role')).toBe('alert');
    expect(await status.textContent()).toBe(
      '✗ broken-secrets.json: not used: "key" must be 32 bytes as unpadded base64url. (at /secrets/0/key)',
    );
    // A file that is not used opens nothing.
    await reportStatus('INDETERMINATE');
    expect((await axeAcrossWidths(page, 'verify with a refused file')).join('\n')).toBe('');

    await page.getByRole('button', { name: 'Forget these files' }).click();
    for (const kind of ['keys', 'trust', 'secrets'])
      expect(await page.getByTestId(`verify-${kind}-status`).textContent()).toBe('None chosen.');
    await reportStatus('INDETERMINATE');
    expect(await report().getAttribute('data-report-trust')).not.toBe('trusted');
    expect(await page.getByRole('button', { name: 'Forget these files' }).isDisabled()).toBe(true);
  });
});
