/**
 * Anchoring in the app end to end, on a real chain: a batch root posted to anvil, an evidence
 * bundle whose anchors/<batch_id>.json holds its receipts' resolved records (two of them
 * tampered), imported through the Bundles view; the Anchors view lists the batch and the
 * records by state; a receipt's anchor panel draws its Merkle path (verified offline); the chain
 * RPC is set in Settings; "Check on chain" makes it verified on chain; the tampered records fail
 * at the right step. Takes the pictures of docs/user-guide.md's anchors section.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { hexEncode } from '../src-shared/crypto/encoding';
import { anchorTree } from '../src-shared/crypto/merkle';
import { startAnvil, type AnvilProcess } from '../src-main/anchor/anvil';
import { ChainClient } from '../src-main/anchor/chain';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import {
  buildAnchoredBundle,
  fundedAnchorAccount,
  TEST_BATCH_ID,
  type AnchoredBundle,
} from '../src-main/operations/anchor-test-support';
import { callApi, REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const sha256 = createNodeCryptoProvider().sha256;

describe('anchors on a real anvil, in the app', () => {
  let anvil: AnvilProcess;
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  let work: string;
  let bundle: AnchoredBundle;
  const failures: string[] = [];

  /** The receipt's ledger id, for the bundle receipt at `index`. */
  async function receiptLedgerId(index: number): Promise<number> {
    const page = await callApi<{ rows: { receipt_sha256: string | null; receipt_ledger_id: number | null }[] }>(
      app,
      'anchors.list',
      { limit: 500 },
    );
    const row = page.rows.find((candidate) => candidate.receipt_sha256 === bundle.receipts[index]);
    if (row?.receipt_ledger_id === null || row === undefined) throw new Error(`receipt ${index} is not in the ledger`);
    return row.receipt_ledger_id;
  }

  async function openReceipt(index: number): Promise<void> {
    await page.goto(`${app.url.split('#')[0]}#/receipts/${await receiptLedgerId(index)}`);
    await page.getByTestId('anchor-panel').waitFor();
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    work = mkdtempSync(join(tmpdir(), 'evroom-anchors-e2e-'));
    anvil = await startAnvil();
    const chain = new ChainClient(anvil.rpcUrl);
    const account = await fundedAnchorAccount(chain);
    bundle = await buildAnchoredBundle({
      out: join(work, 'anchored-evidence.zip'),
      chain,
      account,
      nonce: 0,
      receipts: 6,
      tamper: (records, digests) => {
        // Receipt 4: a sibling of its path changed (step 1 fails).
        (records[4] as { merkle_path: string[] }).merkle_path[0] = `sha256:${'00'.repeat(32)}`;
        // Receipt 5: a forged root whose path folds from the receipt (step 1 passes, step 2 fails on chain).
        const forged = anchorTree(sha256, [digests[5] as Uint8Array, sha256(new TextEncoder().encode('forged'))]);
        Object.assign(records[5] as object, {
          merkle_root: `sha256:${hexEncode(forged.root)}`,
          merkle_path: (forged.paths[0] as Uint8Array[]).map((hash) => `sha256:${hexEncode(hash)}`),
        });
      },
    });
    [app, browser] = await Promise.all([startWebApp(), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
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
    await anvil?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('imports an anchored bundle; the Anchors view lists the batch and its records by state', async () => {
    await page.getByRole('link', { name: 'Bundles' }).click();
    await page.getByLabel('Evidence bundle (.zip) to import').setInputFiles(bundle.file);
    await page.getByRole('heading', { name: 'anchored-evidence.zip' }).waitFor({ timeout: 60_000 });
    // A clean import: no findings.
    expect(await page.getByTestId('count-receipts').textContent()).toBe('6');

    await page.getByRole('link', { name: 'Anchors' }).click();
    await page.getByRole('heading', { name: 'Anchors', exact: true }).waitFor();
    const batch = page.locator(`[data-testid="anchor-batches"] tr[data-batch-id="${TEST_BATCH_ID}"]`);
    await batch.waitFor();
    expect(await batch.textContent()).toContain(`anvil-local · ${bundle.height}`);
    expect(await batch.locator('td.numeric').textContent()).toBe('6');
    expect(await page.locator('[data-total-state="verified_offline"] .stat').textContent()).toBe('5');
    expect(await page.locator('[data-total-state="failed"] .stat').textContent()).toBe('1');
    expect(await page.locator('[data-total-state="verified"] .stat').textContent()).toBe('0');
    await expect.poll(() => page.locator('[data-testid="anchor-records"] tbody tr').count()).toBe(6);
    await page.screenshot({ path: join(SCREENSHOTS, 'anchors.png') });

    // Filter by state: the one record whose path was tampered with.
    await page.getByLabel('State', { exact: true }).selectOption('failed');
    await expect.poll(() => page.locator('[data-testid="anchor-records"] tbody tr').count()).toBe(1);
    expect(page.url()).toContain('state=failed');
    const failedRow = page.locator('[data-testid="anchor-records"] tbody tr').first();
    expect(await failedRow.getAttribute('data-state')).toBe('failed');
    // The record opens on its own page with its panel.
    await failedRow.getByRole('link', { name: /Open anchor/ }).click();
    await page.getByTestId('anchor-panel').waitFor();
    expect(await page.locator('[data-step="1"]').getAttribute('data-step-status')).toBe('fail');
    expect(await page.getByTestId('merkle-result').textContent()).toContain('not to the record’s root');
  });

  it("a receipt's anchor panel draws the path from its leaf to the root: verified offline", async () => {
    await openReceipt(0);
    expect(await page.getByTestId('anchor').textContent()).toContain('verified offline');
    const panel = page.getByTestId('anchor-panel');
    expect(await panel.locator('.anchor-panel-head [data-anchor-state]').getAttribute('data-anchor-state')).toBe(
      'verified_offline',
    );
    const path = page.getByTestId('merkle-path');
    // The digest is the receipt's canonical SHA-256, each sibling is the record's, and the fold ends at the root.
    expect(await path.locator('.merkle-digest [data-hash]').getAttribute('data-hash')).toBe(bundle.receipts[0]);
    const record = bundle.records[0] as { merkle_path: string[]; merkle_root: string };
    expect(await path.locator('.merkle-level').count()).toBe(record.merkle_path.length);
    expect(
      await path
        .locator('.merkle-sibling [data-hash]')
        .evaluateAll((nodes) =>
          nodes.map((node) => `sha256:${(node as unknown as { dataset: { hash: string } }).dataset.hash}`),
        ),
    ).toEqual(record.merkle_path);
    expect(await path.locator('.merkle-root [data-hash]').getAttribute('data-hash')).toBe(record.merkle_root.slice(7));
    expect(await page.getByTestId('merkle-result').textContent()).toContain('folds to the record’s root');
    // The full hash is on hover (title) and in the copy button's name.
    const rootChip = path.locator('.merkle-root button');
    expect(await rootChip.getAttribute('title')).toContain(record.merkle_root.slice(7));
    expect(await rootChip.textContent()).toMatch(/^[0-9a-f]{10}…[0-9a-f]{6}/);
    // The transaction and the steps.
    expect(await panel.textContent()).toContain(bundle.hash.slice(0, 10));
    expect(
      await panel
        .locator('[data-step]')
        .evaluateAll((rows) =>
          rows.map((row) => (row as unknown as { dataset: { stepStatus: string } }).dataset.stepStatus),
        ),
    ).toEqual(['pass', 'unchecked', 'unchecked']);

    // No RPC yet: Check on chain says why steps 2-3 are unchecked and points to Settings.
    await panel.getByRole('button', { name: 'Check on chain' }).click();
    const notAsked = page.getByTestId('anchor-not-asked');
    await notAsked.waitFor();
    expect(await notAsked.textContent()).toContain('No chain RPC is set');
    expect(await notAsked.getByRole('link', { name: /Settings/ }).getAttribute('href')).toBe('#/settings');
    expect(await panel.locator('.anchor-panel-head [data-anchor-state]').getAttribute('data-anchor-state')).toBe(
      'verified_offline',
    );
    await page.locator('#receipt-anchor').screenshot({ path: join(SCREENSHOTS, 'anchor-panel.png') });
  });

  it('with the RPC set in Settings, Check on chain verifies on chain; a forged root fails at step 2', async () => {
    // The notice's link leads to Settings.
    await page
      .getByTestId('anchor-not-asked')
      .getByRole('link', { name: /Settings/ })
      .click();
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    const rpc = page.getByLabel('Chain RPC URL');
    await rpc.fill('ftp://127.0.0.1:8545');
    await page.getByRole('button', { name: 'Save chain settings' }).click();
    expect(await page.locator('#chain-rpc-error').textContent()).toContain('http:// or https://');
    await rpc.fill(anvil.rpcUrl);
    await page.getByLabel('Confirmations').fill('1');
    await page.getByRole('button', { name: 'Save chain settings' }).click();
    await page.getByText('Chain settings saved.').waitFor();
    expect((await callApi<{ chain: { rpc_url: string | null } }>(app, 'settings.get')).chain.rpc_url).toBe(
      anvil.rpcUrl,
    );

    await openReceipt(0);
    const panel = page.getByTestId('anchor-panel');
    await panel.getByRole('button', { name: 'Check on chain' }).click();
    await panel.locator('.anchor-panel-head [data-anchor-state="verified"]').waitFor();
    expect(
      await panel
        .locator('[data-step]')
        .evaluateAll((rows) =>
          rows.map((row) => (row as unknown as { dataset: { stepStatus: string } }).dataset.stepStatus),
        ),
    ).toEqual(['pass', 'pass', 'pass']);
    expect(await page.getByTestId('anchor-steps-caption').textContent()).toContain(`against ${anvil.rpcUrl}`);
    await page.locator('#receipt-anchor').screenshot({ path: join(SCREENSHOTS, 'anchor-checked.png') });

    // The forged root folds from the receipt (step 1 passes); the transaction carries another root.
    await openReceipt(5);
    const forged = page.getByTestId('anchor-panel');
    expect(await forged.locator('.anchor-panel-head [data-anchor-state]').getAttribute('data-anchor-state')).toBe(
      'verified_offline',
    );
    await forged.getByRole('button', { name: 'Check on chain' }).click();
    await forged.locator('.anchor-panel-head [data-anchor-state="failed"]').waitFor();
    expect(
      await forged
        .locator('[data-step]')
        .evaluateAll((rows) =>
          rows.map((row) => (row as unknown as { dataset: { stepStatus: string } }).dataset.stepStatus),
        ),
    ).toEqual(['pass', 'fail', 'unchecked']);
    expect(await forged.locator('[data-step="2"]').textContent()).toContain('carries root');

    // The tampered path fails at step 1, on chain too.
    await openReceipt(4);
    const broken = page.getByTestId('anchor-panel');
    await broken.getByRole('button', { name: 'Check on chain' }).click();
    await broken.getByTestId('anchor-check-note').waitFor();
    expect(
      await broken
        .locator('[data-step]')
        .evaluateAll((rows) =>
          rows.map((row) => (row as unknown as { dataset: { stepStatus: string } }).dataset.stepStatus),
        ),
    ).toEqual(['fail', 'unchecked', 'unchecked']);

    // The Anchors view counts what the checks recorded.
    await page.getByRole('link', { name: 'Anchors' }).click();
    await page.locator('[data-total-state="verified"] .stat', { hasText: '1' }).waitFor();
    expect(await page.locator('[data-total-state="failed"] .stat').textContent()).toBe('2');
    expect(await page.locator('[data-total-state="verified_offline"] .stat').textContent()).toBe('3');
    expect(failures).toEqual([]);
  });
});
