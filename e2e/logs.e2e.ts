/**
 * Transparency logs in the app, end to end (issue 28, docs/logs.md), with real evidence: the
 * HTTP service is started from the Service view, receipts are issued for a tenant over real
 * HTTP, the tenant's evidence (with its log checkpoint and proofs) is fetched from the service
 * and imported in the Bundles view. The bundle says `complete for … at size N` and the Logs view
 * lists the log. A later bundle with one receipt taken out names the missing leaf. A second
 * service (`evroom serve` over another data folder, started with the first one's log name and log key)
 * issues other receipts under the same origin: its checkpoint at the same size has another
 * root, a split view, which is an alert on the Logs view and the first item of the Overview's
 * "Needs attention". axe checks the Logs views at every width, in print and in the dark theme.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { JsonValue } from '../src-shared/json/types';
import { jcs } from '../src-shared/json/jcs';
import { DEFAULT_ZIP_LIMITS, openZipArchive } from '../src-main/evidence';
import { runEvroom, startServeChild, stopServeChild, type ServedChild } from '../src-main/test-support/serve-child';
import { axeAcrossWidths, axeViolations, describeFindings } from './a11y';
import { buildStoredZip } from './fixtures';
import { REPO_ROOT, callApi, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const TENANT = 'acme';

async function screenshot(page: Page, name: string, height = 800): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
  await page.setViewportSize({ width: 1280, height });
  await page.screenshot({ path: join(SCREENSHOTS, name) });
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** Issues `count` receipts for the tenant over HTTP. */
async function issueReceipts(serviceUrl: string, key: string, count: number, label: string): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(`${serviceUrl}/tenants/${TENANT}/receipts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        agent_did: 'did:web:agent.example.com',
        input: `${label} ${index}`,
        content_type: 'text/plain',
      }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
  }
}

/** The tenant's evidence bundle, as the service serves it. */
async function fetchEvidence(serviceUrl: string, key: string, query = ''): Promise<Buffer> {
  const response = await fetch(`${serviceUrl}/tenants/${TENANT}/evidence${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** The note key name of the service's log key, from `/v1/keys`. */
async function logName(serviceUrl: string): Promise<string> {
  const body = (await (await fetch(`${serviceUrl}/v1/keys`)).json()) as
    { keys: { use?: string[]; note_key_name?: string }[] } | { use?: string[]; note_key_name?: string }[];
  const keys = Array.isArray(body) ? body : body.keys;
  const name = keys.find((key) => key.use?.includes('log-checkpoints'))?.note_key_name;
  expect(name).toBeTypeOf('string');
  return name as string;
}

/** Rewrites a zip without one entry (a receipt taken out of the bundle after it was made). */
async function withoutEntry(file: string, drop: (name: string, data: Buffer) => boolean): Promise<Buffer> {
  const archive = await openZipArchive(file, DEFAULT_ZIP_LIMITS);
  try {
    const kept: { name: string; data: Buffer }[] = [];
    let dropped = 0;
    for (const entry of archive.entries) {
      if (entry.directory) continue;
      const data = await archive.read(entry);
      if (dropped === 0 && drop(entry.name, data)) dropped += 1;
      else kept.push({ name: entry.name, data });
    }
    expect(dropped).toBe(1);
    return buildStoredZip(kept);
  } finally {
    await archive.close();
  }
}

/** Imports a zip from the Bundles view and waits for its page. */
async function importInView(page: Page, file: string, name: string): Promise<void> {
  await page.getByRole('link', { name: 'Bundles', exact: true }).click();
  await page.getByRole('heading', { name: 'Bundles', exact: true }).waitFor();
  await page.getByLabel('Evidence bundle (.zip) to import').setInputFiles(file);
  await page.getByRole('heading', { name, level: 1 }).waitFor({ timeout: 60_000 });
}

describe('transparency logs in the app', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  let work: string;
  let second: ServedChild | undefined;
  const failures: string[] = [];
  let serviceUrl = '';
  let key = '';
  let name = '';
  let origin = '';

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    work = mkdtempSync(join(tmpdir(), 'evroom-logs-e2e-'));
    [app, browser] = await Promise.all([startWebApp(), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 120_000);

  afterAll(async () => {
    if (second) await stopServeChild(second);
    await browser?.close();
    await app?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('says how logs arrive while there is none', async () => {
    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    await page.getByRole('heading', { name: 'Logs', exact: true, level: 1 }).waitFor();
    await page.getByText('No logs yet', { exact: true }).waitFor();
    expect(await page.locator('.empty-state').textContent()).toContain('evroom log check --api URL --tenant T');
    expect((await axeAcrossWidths(page, 'logs, none yet')).join('\n')).toBe('');
  });

  it('imports a served tenant’s evidence: complete for its period at size 3, and the Logs view lists the log', async () => {
    await page.getByRole('link', { name: 'Service', exact: true }).click();
    await page.getByRole('button', { name: 'Start service' }).click();
    await page.locator('[data-testid="service-state"][data-running="true"]').waitFor();
    serviceUrl = (await page.getByTestId('service-url').textContent()) ?? '';
    await callApi(app, 'tenants.create', { id: TENANT, tier: 'pro' });
    key = (await callApi<{ key: string }>(app, 'apikeys.issue', { tenant: TENANT })).key;
    await issueReceipts(serviceUrl, key, 3, 'first');
    name = await logName(serviceUrl);
    origin = `${name}/tenants/${TENANT}`;

    const file = join(work, 'acme-evidence.zip');
    writeFileSync(file, await fetchEvidence(serviceUrl, key));
    await importInView(page, file, 'acme-evidence.zip');
    const line = page.getByTestId('log-completeness').first();
    await line.waitFor();
    expect(await line.textContent()).toMatch(/complete for the whole log at size 3/);
    expect(await page.locator('[data-log-status="complete"]').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('log-origin-link').textContent()).toBe(origin);

    // The bundles list carries the same line under the verdict.
    await page.getByRole('link', { name: 'All bundles' }).click();
    const row = page.locator('[data-testid="bundle-table"] tbody tr').first();
    await row.waitFor();
    expect(await row.getByTestId('log-completeness').textContent()).toContain('at size 3');

    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    const logRow = page.locator(`[data-testid="log-table"] tr[data-origin="${origin}"]`);
    await logRow.waitFor();
    expect(await logRow.textContent()).toContain('size 3');
    expect(await logRow.locator('td.numeric').last().textContent()).toBe('1');
    expect(await page.getByTestId('split-view-alert').count()).toBe(0);
    await screenshot(page, 'logs.png');
  });

  it('names the missing leaf of a bundle with a receipt taken out', async () => {
    await issueReceipts(serviceUrl, key, 2, 'second');
    const file = join(work, 'acme-evidence-5.zip');
    writeFileSync(file, await fetchEvidence(serviceUrl, key, '?consistent_with=3'));
    // Take out the receipt at leaf 1 (the proofs name each leaf's receipt by its JCS SHA-256).
    const archive = await openZipArchive(file, DEFAULT_ZIP_LIMITS);
    let target = '';
    try {
      const proofsEntry = archive.entries.find((entry) => entry.name === 'log/proofs.json');
      const proofs = JSON.parse((await archive.read(proofsEntry!)).toString('utf8')) as {
        leaves: { index: number; receipt_sha256: string }[];
      };
      target = proofs.leaves.find((leaf) => leaf.index === 1)!.receipt_sha256;
    } finally {
      await archive.close();
    }
    const cut = join(work, 'acme-evidence-cut.zip');
    writeFileSync(
      cut,
      await withoutEntry(
        file,
        (entryName, data) =>
          entryName.startsWith('receipts/') &&
          createHash('sha256')
            .update(jcs(JSON.parse(data.toString('utf8')) as JsonValue))
            .digest('hex') === target,
      ),
    );
    await importInView(page, cut, 'acme-evidence-cut.zip');
    const line = page.getByTestId('log-completeness').first();
    await line.waitFor();
    expect(await line.textContent()).toMatch(/incomplete: 1 leaf missing \(ind(ex|ices) 1\)/);
    expect(await page.locator('[data-log-status="incomplete"]').count()).toBeGreaterThan(0);
    // The verdict (a file missing from the zip) and, further down, the log's own account of it.
    await screenshot(page, 'bundle-log-incomplete.png', 1250);

    // The printed record carries the line too.
    await page.emulateMedia({ media: 'print' });
    await page.getByTestId('bundle-record').waitFor();
    expect(await page.getByTestId('print-log-completeness').textContent()).toContain('1 leaf missing');
    await page.emulateMedia({ media: 'screen' });

    // The log's page: two checkpoints (sizes 5 and 3), consistent, and both bundles.
    await page.getByTestId('log-origin-link').click();
    await page.getByRole('heading', { name: `Log of tenant ${TENANT}`, level: 1 }).waitFor();
    await expect.poll(() => page.locator('[data-testid="log-history"] tbody tr').count()).toBe(2);
    expect(await page.locator('[data-testid="log-history"] tbody tr').first().getAttribute('data-tree-size')).toBe('5');
    // Each checkpoint names the key that verified it: the note key id of the service's vkey.
    const keys = (await (await fetch(`${serviceUrl}/v1/keys`)).json()) as { keys: { use: string[]; vkey?: string }[] };
    const keyId = keys.keys.find((entry) => entry.use.includes('log-checkpoints'))?.vkey?.split('+')[1];
    expect(keyId).toMatch(/^[0-9a-f]{8}$/);
    for (const keyCell of await page.locator('[data-testid="log-history"] tbody tr').all()) {
      expect(await keyCell.getAttribute('data-key-id')).toBe(keyId);
      expect(await keyCell.textContent()).toContain(keyId as string);
      expect(await keyCell.locator('[data-log-signer]').getAttribute('data-log-signer')).toBe('advertised');
    }
    expect(await page.locator('[data-consistency]').first().getAttribute('data-consistency')).toBe('consistent');
    expect(await page.locator('[data-testid="log-bundles"] tbody tr').count()).toBe(2);
    expect(await page.locator('[data-testid="log-bundles"] tr[data-log-status="incomplete"]').count()).toBe(1);
    await screenshot(page, 'log-detail.png', 1100);
    const messages = await axeAcrossWidths(page, 'log detail');
    expect(messages.join('\n')).toBe('');
  });

  it('shows a split view when a second service signs another tree of the same log', async () => {
    // A second service over its own data folder, under the first one's log name and with the
    // first one's log key (a service that forks its log keeps its key): the same origin, signed
    // by the same key over another tree. A second service with a key of its own would only be
    // another key claiming the origin, which is no split view of this log (docs/logs.md).
    const home = join(work, 'second');
    mkdirSync(join(home, 'service'), { recursive: true, mode: 0o700 });
    copyFileSync(join(app.home, 'service', 'log-key.json'), join(home, 'service', 'log-key.json'));
    chmodSync(join(home, 'service', 'log-key.json'), 0o600);
    expect((await runEvroom(home, ['tenants', 'create', TENANT, '--tier', 'pro'])).code).toBe(0);
    const issued = await runEvroom(home, ['apikeys', 'issue', '--tenant', TENANT, '--json']);
    expect(issued.code).toBe(0);
    const otherKey = (JSON.parse(issued.stdout) as { key: string }).key;
    second = await startServeChild(home, ['--log-name', name]);
    await issueReceipts(second.url, otherKey, 5, 'other');
    const file = join(work, 'acme-evidence-other.zip');
    writeFileSync(file, await fetchEvidence(second.url, otherKey));
    await importInView(page, file, 'acme-evidence-other.zip');
    await page.locator('[data-log-status="split_view"]').first().waitFor();

    await page.getByRole('link', { name: 'Logs', exact: true }).click();
    const alert = page.getByTestId('split-view-alert');
    await alert.waitFor();
    expect(await alert.getAttribute('role')).toBe('alert');
    expect(await alert.textContent()).toContain(origin);
    expect(
      await page.locator(`[data-testid="log-table"] tr[data-origin="${origin}"]`).getAttribute('data-consistency'),
    ).toBe('split_view');
    await screenshot(page, 'logs-split-view.png');
    const messages = await axeAcrossWidths(page, 'logs with a split view');

    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    const attention = page.locator('.overview-attention-panel');
    await attention.getByTestId('attention-split-view').waitFor();
    // The first item of "Needs attention".
    expect(await attention.locator('.overview-attention-group').first().getAttribute('data-testid')).toBe(
      'attention-split-view',
    );
    await screenshot(page, 'overview-split-view.png');
    messages.push(...(await axeAcrossWidths(page, 'overview with a split view')));
    expect(messages.join('\n')).toBe('');
    expect(failures).toEqual([]);
  });

  it('finds no axe violation in the dark theme on the logs, a log, the bundles and the overview', async () => {
    const dark = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    await dark.goto(app.url);
    await dark.locator('html[data-theme="dark"]').waitFor({ state: 'attached' });
    const messages: string[] = [];
    const views: [string, () => Promise<void>][] = [
      ['logs', () => dark.getByTestId('split-view-alert').waitFor()],
      [`logs/${encodeURIComponent(origin)}`, () => dark.getByTestId('log-bundles').waitFor()],
      ['bundles', () => dark.getByTestId('bundle-table').waitFor()],
      ['bundles/2', () => dark.getByRole('heading', { name: 'Log completeness', level: 2 }).waitFor()],
      ['overview', () => dark.getByTestId('attention-split-view').waitFor()],
    ];
    for (const [hash, ready] of views) {
      await dark.evaluate((value) => {
        (globalThis as unknown as { location: { hash: string } }).location.hash = `#/${value}`;
      }, hash);
      await ready();
      const findings = await axeViolations(dark);
      if (findings.length > 0) messages.push(describeFindings(`${hash} (dark)`, findings));
    }
    expect(messages.join('\n')).toBe('');
    await dark.close();
  });
});
