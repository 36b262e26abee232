/**
 * Anchoring across the ledger, end to end on a real chain (anvil), in the app: the Receipts
 * anchor column and filter, the Overview's counts per anchor state with their links, and
 * "check these on chain" for a filter (Receipts) and for a batch (Anchors) with progress,
 * against the chain RPC in Settings; without an RPC the button says why it is disabled.
 *
 * The bundle: six receipts anchored in one batch whose root is on chain; receipt 4's Merkle
 * path is tampered (step 1 fails: failed from the import on), receipt 5 carries a forged root
 * that folds from the receipt but is not on chain (pending until checked on chain, then failed).
 * Two more documents are verified and saved without any anchor (not anchored).
 *
 * Writes docs/screenshots/receipts-check-on-chain.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ReceiptPage } from '../src-shared/api/contract';
import { hexEncode } from '../src-shared/crypto/encoding';
import { anchorTree } from '../src-shared/crypto/merkle';
import { createPortableProvider } from '../src-shared/crypto/portable-provider';
import { signClassical } from '../src-shared/formats/classical';
import { startAnvil, type AnvilProcess } from '../src-main/anchor/anvil';
import { ChainClient } from '../src-main/anchor/chain';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import {
  buildAnchoredBundle,
  fundedAnchorAccount,
  TEST_BATCH_ID,
  type AnchoredBundle,
} from '../src-main/operations/anchor-test-support';
import { axeAcrossWidths } from './a11y';
import { callApi, REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const sha256 = createNodeCryptoProvider().sha256;

describe('anchoring across the ledger, on a real anvil', () => {
  let anvil: AnvilProcess;
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  let work: string;
  let bundle: AnchoredBundle;
  let bundleId: number;
  const failures: string[] = [];

  const base = (): string => app.url.split('#')[0] as string;

  async function goReceipts(query: string): Promise<void> {
    await page.goto(`${base()}#/receipts${query ? `?${query}` : ''}`);
    await page.getByRole('heading', { name: 'Receipts', exact: true }).waitFor();
  }

  /** The anchor state each receipt of the ledger has, by receipt_sha256 (through the API). */
  async function statesByDigest(): Promise<Map<string, string>> {
    const page = await callApi<ReceiptPage>(app, 'receipts.list', { limit: 500 });
    return new Map(page.rows.map((row) => [row.receipt_sha256, row.anchor_state]));
  }

  async function countOf(anchor: string): Promise<number> {
    return (await callApi<{ count: number }>(app, 'receipts.count', { filters: { anchor } })).count;
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    work = mkdtempSync(join(tmpdir(), 'evroom-anchors-ledger-e2e-'));
    anvil = await startAnvil();
    const chain = new ChainClient(anvil.rpcUrl);
    const account = await fundedAnchorAccount(chain);
    bundle = await buildAnchoredBundle({
      out: join(work, 'anchored-ledger.zip'),
      chain,
      account,
      nonce: 0,
      receipts: 6,
      tamper: (records, digests) => {
        (records[4] as { merkle_path: string[] }).merkle_path[0] = `sha256:${'00'.repeat(32)}`;
        const forged = anchorTree(sha256, [digests[5] as Uint8Array, sha256(new TextEncoder().encode('forged'))]);
        Object.assign(records[5] as object, {
          merkle_root: `sha256:${hexEncode(forged.root)}`,
          merkle_path: (forged.paths[0] as Uint8Array[]).map((hash) => `sha256:${hexEncode(hash)}`),
        });
      },
    });
    [app, browser] = await Promise.all([startWebApp(), launchBrowser()]);
    // Two documents that are not anchored.
    const crypto = createPortableProvider();
    for (const index of [1, 2]) {
      await callApi(app, 'verify', {
        text: signClassical(
          `{"amount":${index}.25,"currency":"EUR","receipt_id":"r-unanchored-${index}","sequence":${index}}`,
          new Uint8Array(32).fill(9),
          crypto,
        ),
        save: true,
        name: `unanchored-${index}.json`,
      });
    }
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'Bundles', exact: true }).click();
    await page.getByLabel('Evidence bundle (.zip) to import').setInputFiles(bundle.file);
    await page.getByRole('heading', { name: 'anchored-ledger.zip' }).waitFor({ timeout: 60_000 });
    bundleId = Number(/#\/bundles\/(\d+)/.exec(page.url())?.[1]);
    expect(bundleId).toBeGreaterThan(0);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await anvil?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the anchor column shows each receipt’s state and the filter narrows the list (in the URL)', async () => {
    const states = await statesByDigest();
    expect(bundle.receipts.map((digest) => states.get(digest))).toEqual([
      'pending',
      'pending',
      'pending',
      'pending',
      'failed',
      'pending',
    ]);
    expect([...states.values()].filter((state) => state === 'none')).toHaveLength(2);

    await goReceipts('');
    await page.getByTestId('receipts-total').getByText('8 receipts').waitFor();
    const grid = page.getByRole('grid', { name: 'Receipts' });
    expect(await grid.getByRole('columnheader', { name: /Anchor/ }).count()).toBe(1);
    const cells = grid.locator('.receipts-row [data-anchor-ledger]');
    await expect.poll(() => cells.count()).toBe(8);
    const shown = await cells.evaluateAll((nodes) =>
      nodes.map((node) => (node as unknown as { dataset: { anchorLedger: string } }).dataset.anchorLedger).sort(),
    );
    expect(shown).toEqual(['failed', 'none', 'none', 'pending', 'pending', 'pending', 'pending', 'pending']);
    // Words, not colour alone.
    expect(await grid.locator('.receipts-row [data-anchor-ledger="none"]').first().textContent()).toContain(
      'not anchored',
    );

    for (const [state, total] of [
      ['pending', '5 receipts'],
      ['failed', '1 receipt'],
      ['none', '2 receipts'],
    ] as const) {
      await page.getByTestId('filter-anchor').selectOption(state);
      await page.waitForURL(new RegExp(`anchor=${state}`));
      await page.getByTestId('receipts-total').getByText(total, { exact: true }).waitFor();
      await expect.poll(() => grid.locator('.receipts-row').count()).toBe(Number(total.split(' ')[0]));
      expect(
        await grid.locator(`.receipts-row [data-anchor-ledger]:not([data-anchor-ledger="${state}"])`).count(),
      ).toBe(0);
    }
    // The filter survives a reload: it lives in the URL.
    await page.reload();
    await page.getByTestId('receipts-total').getByText('2 receipts', { exact: true }).waitFor();
    expect(await page.getByTestId('filter-anchor').inputValue()).toBe('none');
  });

  it('with no chain RPC set, "check these on chain" is disabled and says what to set, and where', async () => {
    await goReceipts('anchor=pending');
    const start = page.getByTestId('anchor-check-start');
    await page.getByTestId('anchor-check-why').waitFor();
    expect(await start.isDisabled()).toBe(true);
    expect(await start.textContent()).toContain('Check these on chain');
    const why = page.getByTestId('anchor-check-why');
    expect(await why.textContent()).toContain('No chain RPC is set');
    expect(await start.getAttribute('aria-describedby')).toBe(await why.getAttribute('id'));
    expect(await why.getByRole('link', { name: /Settings/ }).getAttribute('href')).toBe('#/settings');
    // The API refuses too, in words.
    await expect(callApi(app, 'anchors.checkStart', { filters: {} })).rejects.toThrow(
      /no_chain_rpc No chain RPC is set/,
    );
    // Receipts with the anchor column, its filter and the disabled button are accessible.
    await goReceipts('');
    await page.getByTestId('receipts-total').getByText('8 receipts').waitFor();
    expect((await axeAcrossWidths(page, 'Receipts with the anchor column')).join('\n')).toBe('');
  });

  it('the Overview counts receipts per anchor state, each linking to Receipts filtered by it', async () => {
    await page.goto(base());
    const summary = page.getByTestId('anchor-summary');
    await summary.waitFor();
    const expected = { none: 2, pending: 5, verified: 0, failed: 1 };
    for (const [state, count] of Object.entries(expected)) {
      expect(await summary.locator(`[data-anchor-summary="${state}"] .anchor-summary-count`).textContent()).toBe(
        String(count),
      );
      expect(await countOf(state)).toBe(count);
    }
    expect((await axeAcrossWidths(page, 'Overview with the anchoring panel')).join('\n')).toBe('');
    await summary.locator('[data-anchor-summary="pending"] a').click();
    await page.waitForURL(/#\/receipts\?anchor=pending$/);
    await page.getByTestId('receipts-total').getByText('5 receipts', { exact: true }).waitFor();
    expect(await page.getByTestId('filter-anchor').inputValue()).toBe('pending');
  });

  it('"check these on chain" for a filter shows progress, turns pending into verified and a root not on chain into failed', async () => {
    await callApi(app, 'settings.set', { chain: { rpc_url: anvil.rpcUrl, confirmations: 1 } });
    // The receipts of the bundle: five pending, one failed.
    await goReceipts(`bundle=${bundleId}`);
    await page.getByTestId('receipts-total').getByText('6 receipts', { exact: true }).waitFor();
    const start = page.getByTestId('anchor-check-start');
    await page.getByText(`against ${anvil.rpcUrl}`).waitFor();
    expect(await start.isDisabled()).toBe(false);
    await start.click();
    // Progress first (the job runs; its progress is polled), then the result.
    await page.locator('[data-testid="anchor-check-progress"][data-job-state="running"]').waitFor();
    await page.locator('[data-testid="anchor-check-progress"] progress').waitFor();
    const result = page.getByTestId('anchor-check-result');
    await page.locator('[data-testid="anchor-check-progress"][data-job-state="done"]').waitFor({ timeout: 60_000 });
    expect(await result.textContent()).toContain(
      `checked 6 anchor records against ${anvil.rpcUrl} · 4 verified · 2 failed · 0 still pending`,
    );
    // The list reloaded with each receipt's new state.
    const grid = page.getByRole('grid', { name: 'Receipts' });
    await expect
      .poll(() => grid.locator('.receipts-row [data-anchor-ledger="verified"]').count(), { timeout: 10_000 })
      .toBe(4);
    expect(await grid.locator('.receipts-row [data-anchor-ledger="failed"]').count()).toBe(2);
    await page.getByTestId('receipts-total').getByText('6 receipts', { exact: true }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'receipts-check-on-chain.png') });

    const states = await statesByDigest();
    expect(bundle.receipts.map((digest) => states.get(digest))).toEqual([
      'verified',
      'verified',
      'verified',
      'verified',
      'failed',
      'failed',
    ]);
    // The forged root failed at step 2, on chain.
    const forged = (
      await callApi<{ rows: { id: number; receipt_sha256: string | null }[] }>(app, 'anchors.list', { limit: 100 })
    ).rows.find((row) => row.receipt_sha256 === bundle.receipts[5]);
    const detail = await callApi<{ last_check: { steps: { status: string }[]; rpc: string } }>(app, 'anchors.get', {
      id: forged?.id,
    });
    expect(detail.last_check.steps.map((step) => step.status)).toEqual(['pass', 'fail', 'unchecked']);
    expect(detail.last_check.rpc).toBe(anvil.rpcUrl);

    // The filter by the old state is now empty, and the Overview counts follow.
    await goReceipts('anchor=pending');
    await page.getByText('No receipt matches these filters').waitFor();
    await page.goto(base());
    const summary = page.getByTestId('anchor-summary');
    await summary.locator('[data-anchor-summary="verified"] .anchor-summary-count', { hasText: '4' }).waitFor();
    expect(await summary.locator('[data-anchor-summary="failed"] .anchor-summary-count').textContent()).toBe('2');
    expect(await summary.locator('[data-anchor-summary="pending"] .anchor-summary-count').textContent()).toBe('0');
    expect(await summary.locator('[data-anchor-summary="none"] .anchor-summary-count').textContent()).toBe('2');
  });

  it('"check this batch on chain" in the Anchors view runs as a job with progress and a result', async () => {
    await page.goto(`${base()}#/anchors?batch=${encodeURIComponent(TEST_BATCH_ID)}`);
    const start = page.getByRole('button', { name: /Check this batch on chain/ });
    await start.waitFor();
    await page.getByText(`against ${anvil.rpcUrl}`).waitFor();
    await start.click();
    await page.locator('[data-testid="anchor-check-progress"][data-job-state="running"]').waitFor();
    await page.locator('[data-testid="anchor-check-progress"][data-job-state="done"]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('anchor-check-result').textContent()).toContain('checked 6 anchor records against');
    expect(await page.getByTestId('anchor-check-result').textContent()).toContain('4 verified · 2 failed');
    await page.locator('[data-total-state="verified"] .stat', { hasText: '4' }).waitFor();
    expect((await axeAcrossWidths(page, 'Anchors with a batch check')).join('\n')).toBe('');
    expect(failures).toEqual([]);
  });
});
