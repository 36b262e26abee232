/**
 * Air-gapped anchor checks in the app end to end (issue 29): anchors posted to a real anvil; an
 * online workstation makes a signed context pack from them (the operation `evroom context
 * export` runs); the chain is stopped, so nothing live can answer. In the app: the anchored
 * bundle is imported, a pack cut short is refused in Settings with its reason and nothing stored,
 * the real pack is imported with its summary, a bad block hash is refused naming the field, the
 * pack's head is pinned; "Check on chain" in the Anchors view then answers steps 2-3 from the pack:
 * `verified with context`, each step naming its evidence, the head checked by the pin. Axe runs
 * on the new states; the pictures go to docs/anchoring.md and docs/user-guide.md.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startAnvil, type AnvilProcess } from '../src-main/anchor/anvil';
import { ChainClient } from '../src-main/anchor/chain';
import {
  buildAnchoredBundle,
  fundedAnchorAccount,
  TEST_BATCH_ID,
  type AnchoredBundle,
} from '../src-main/operations/anchor-test-support';
import { exportContextPack, type ContextExportResult } from '../src-main/operations/context';
import { importEvidence } from '../src-main/operations/evidence';
import { openWorkspace } from '../src-main/operations/workspace';
import { axeAcrossWidths } from './a11y';
import { callApi, REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');

describe('anchors verified with a context pack on a workstation that cannot reach the chain', () => {
  let anvil: AnvilProcess;
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  let work: string;
  let bundle: AnchoredBundle;
  let made: ContextExportResult;
  let deadRpc: string;
  let changedPack: string;
  const failures: string[] = [];

  async function anchorIdOf(index: number): Promise<number> {
    const listed = await callApi<{ rows: { id: number; receipt_sha256: string | null }[] }>(app, 'anchors.list', {
      limit: 500,
    });
    const row = listed.rows.find((candidate) => candidate.receipt_sha256 === bundle.receipts[index]);
    if (row === undefined) throw new Error(`no anchor for receipt ${index}`);
    return row.id;
  }

  function stepsOf(scope: ReturnType<Page['getByTestId']>, attribute: 'stepStatus' | 'stepEvidence') {
    return scope
      .locator('[data-step]')
      .evaluateAll(
        (rows, name) => rows.map((row) => (row as unknown as { dataset: Record<string, string> }).dataset[name]),
        attribute,
      );
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    work = mkdtempSync(join(tmpdir(), 'evroom-context-e2e-'));
    anvil = await startAnvil();
    const chain = new ChainClient(anvil.rpcUrl);
    bundle = await buildAnchoredBundle({
      out: join(work, 'anchored-evidence.zip'),
      chain,
      account: await fundedAnchorAccount(chain),
      nonce: 0,
      receipts: 3,
    });
    await chain.mineOnDevelopmentChain(3);
    // The online workstation: the bundle's anchors in its ledger, a pack of them from the live chain.
    const online = openWorkspace(join(work, 'online'));
    try {
      await importEvidence(online, bundle.file);
      made = await exportContextPack(online, {
        out: join(work, 'context-pack.zip'),
        rpcUrl: anvil.rpcUrl,
        inputs: [],
      });
    } finally {
      online.close();
    }
    expect(made.anchors).toBe(1);
    // A copy cut short on its way over (its zip's central directory lost).
    const bytes = new Uint8Array(readFileSync(made.out));
    changedPack = join(work, 'cut-pack.zip');
    writeFileSync(changedPack, bytes.subarray(0, bytes.length - 64));
    // The chain goes away: from here on nothing live can answer steps 2-3.
    deadRpc = anvil.rpcUrl;
    await anvil.stop();
    [app, browser] = await Promise.all([startWebApp(), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      // The refused uploads answer 4xx, which Chromium logs as a failed resource: expected here.
      if (message.type() === 'error' && !message.text().includes('Failed to load resource'))
        failures.push(message.text());
    });
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // The RPC the workstation knew, now unreachable.
    await callApi(app, 'settings.set', { chain: { rpc_url: deadRpc, confirmations: 1 } });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await anvil?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('imports the anchored bundle; with the chain stopped, Check on chain leaves steps 2-3 unchecked', async () => {
    await page.getByRole('link', { name: 'Bundles' }).click();
    await page.getByLabel('Evidence bundle (.zip) to import').setInputFiles(bundle.file);
    await page.getByRole('heading', { name: 'anchored-evidence.zip' }).waitFor({ timeout: 60_000 });
    await page.goto(`${app.url.split('#')[0]}#/anchors/${await anchorIdOf(0)}`);
    const panel = page.getByTestId('anchor-panel');
    await panel.waitFor();
    await panel.getByRole('button', { name: 'Check on chain' }).click();
    const notAsked = page.getByTestId('anchor-not-asked');
    await notAsked.waitFor({ timeout: 60_000 });
    expect(await notAsked.textContent()).toContain('import a context pack');
    expect(await stepsOf(panel, 'stepStatus')).toEqual(['pass', 'unchecked', 'unchecked']);
  });

  it('Settings refuses a pack cut short saying why and stores nothing, then imports the real one with its summary', async () => {
    await page.goto(`${app.url.split('#')[0]}#/settings`);
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    await page.getByTestId('context-none').waitFor();
    const chooser = page.getByLabel('Import a context pack (.zip)');
    await chooser.setInputFiles(changedPack);
    const refused = page.getByRole('alert').filter({ hasText: 'was refused' });
    await refused.waitFor();
    expect(await refused.textContent()).toContain('Nothing was stored');
    expect(await callApi<unknown[]>(app, 'context.list')).toEqual([]);
    await page.getByTestId('context-none').waitFor();
    await page
      .locator('section.panel')
      .filter({ has: page.getByRole('heading', { name: 'Context packs', exact: true }) })
      .first()
      .screenshot({ path: join(SCREENSHOTS, 'context-pack-refused.png') });

    await chooser.setInputFiles(made.out);
    await page.getByTestId('context-imported').waitFor();
    const card = page.locator(`[data-testid="context-pack"][data-pack-id="${made.pack_id}"]`);
    await card.waitFor();
    const text = (await card.textContent()) ?? '';
    expect(text).toContain(`chain id ${made.chain_id}`);
    expect(text).toContain(`block ${made.head.number.toLocaleString('en-US')}`);
    expect(text).toContain(made.made_at);
    expect(text).toContain(deadRpc);
    expect(await card.locator(`[title="${made.signer}"]`).count()).toBe(1);
    expect(text).toContain('1 anchor transaction,');
    expect(text).toContain(`headers ${made.headers.from} to ${made.headers.to}`);
    await page
      .locator('section.panel')
      .filter({ has: page.getByRole('heading', { name: 'Context packs', exact: true }) })
      .first()
      .screenshot({ path: join(SCREENSHOTS, 'context-pack-imported.png') });
  });

  it('pins the head’s block hash, refusing a malformed one naming the field', async () => {
    await page.getByLabel('Chain id', { exact: true }).fill(String(made.chain_id));
    await page.getByLabel('Block number', { exact: true }).fill(String(made.head.number));
    await page.getByLabel('Block hash', { exact: true }).fill('0x1234');
    await page.getByRole('button', { name: 'Pin block hash' }).click();
    expect(await page.getByTestId('pin-hash-error').textContent()).toContain('0x and 64 hex digits');
    expect(await callApi<unknown[]>(app, 'context.pins')).toEqual([]);
    await page.getByLabel('Block hash', { exact: true }).fill(made.head.hash.toUpperCase().replace('0X', '0x'));
    await page.getByLabel('Note (optional)', { exact: true }).fill('read out by the online workstation’s operator');
    await page.getByRole('button', { name: 'Pin block hash' }).click();
    const row = page.locator(`[data-testid="context-pins"] tr[data-pin="${made.chain_id}:${made.head.number}"]`);
    await row.waitFor();
    expect(await row.locator(`[title="${made.head.hash}"]`).count()).toBe(1);
    await page
      .locator('section.panel')
      .filter({ has: page.getByRole('heading', { name: 'Pinned block hashes', exact: true }) })
      .first()
      .screenshot({ path: join(SCREENSHOTS, 'context-pins.png') });
    const findings = await axeAcrossWidths(page, 'Settings with a context pack and a pin');
    expect(findings).toEqual([]);
  });

  it('Check on chain answers steps 2-3 from the pack: verified with context, the evidence per step, the head checked', async () => {
    await page.goto(`${app.url.split('#')[0]}#/anchors/${await anchorIdOf(0)}`);
    const panel = page.getByTestId('anchor-panel');
    await panel.waitFor();
    await panel.getByRole('button', { name: 'Check on chain' }).click();
    await panel.locator('.anchor-panel-head [data-anchor-state="verified_with_context"]').waitFor({ timeout: 60_000 });
    expect(await panel.locator('.anchor-panel-head [data-anchor-state]').textContent()).toContain(
      'verified with context',
    );
    expect(await stepsOf(panel, 'stepStatus')).toEqual(['pass', 'pass', 'pass']);
    expect(await stepsOf(panel, 'stepEvidence')).toEqual(['offline', 'context', 'context']);
    for (const step of [2, 3]) {
      const evidence = panel.locator(`[data-step="${step}"] [data-evidence="context"]`);
      expect(await evidence.getAttribute('data-pack-id')).toBe(made.pack_id);
      expect(await evidence.getAttribute('data-head-trust')).toBe('checked');
      const words = (await evidence.textContent()) ?? '';
      expect(words).toContain(`context pack ${made.pack_id}`);
      expect(words).toContain(`head ${made.head.number}`);
      expect(words).toContain(`made at ${made.made_at}`);
      expect(words).toContain('signed by did:key:');
      expect(words).toContain(`head checked by a pinned block (#${made.head.number})`);
    }
    expect(await panel.locator('[data-step="1"] [data-evidence="offline"]').textContent()).toContain('offline proof');
    expect(await page.getByTestId('anchor-check-note').textContent()).toContain('from the imported context packs');
    expect(await page.getByTestId('anchor-steps-caption').textContent()).toContain(made.pack_id);
    await panel.screenshot({ path: join(SCREENSHOTS, 'anchor-verified-with-context.png') });
    const findings = await axeAcrossWidths(page, 'Anchor verified with context');
    expect(findings).toEqual([]);

    // The ledger keeps it as its own state, never as verified.
    await page.goto(`${app.url.split('#')[0]}#/anchors`);
    await page.locator('[data-total-state="verified_with_context"] .stat', { hasText: '1' }).waitFor();
    expect(await page.locator('[data-total-state="verified"] .stat').textContent()).toBe('0');
    const counts = await callApi<{ counts: Record<string, number> }>(app, 'anchors.counts');
    expect(counts.counts).toMatchObject({ verified: 0, verified_with_context: 1 });
    await page.screenshot({ path: join(SCREENSHOTS, 'anchors-with-context.png') });
    const listFindings = await axeAcrossWidths(page, 'Anchors with a record verified with context');
    expect(listFindings).toEqual([]);
  });

  it('with no RPC set, "Check this batch on chain" runs from the imported packs', async () => {
    await callApi(app, 'settings.set', { chain: { rpc_url: null } });
    await page.goto(`${app.url.split('#')[0]}#/anchors?batch=${encodeURIComponent(TEST_BATCH_ID)}`);
    await page.getByTestId('anchor-check-from-packs').waitFor();
    const start = page.getByTestId('anchor-check-start');
    expect(await start.isDisabled()).toBe(false);
    await start.click();
    const result = page.getByTestId('anchor-check-result');
    await result.waitFor({ timeout: 60_000 });
    const words = (await result.textContent()) ?? '';
    expect(words).toContain('checked 3 anchor records from the imported context packs');
    expect(words).toContain('3 verified with context (from a pack)');
    const counts = await callApi<{ counts: Record<string, number> }>(app, 'anchors.counts');
    expect(counts.counts).toMatchObject({ verified: 0, verified_with_context: 3 });
  });

  it('removes the pack (after a confirmation) and unpins the block in Settings; the recorded check stays', async () => {
    await page.goto(`${app.url.split('#')[0]}#/settings`);
    const card = page.locator(`[data-testid="context-pack"][data-pack-id="${made.pack_id}"]`);
    await card.getByRole('button', { name: `Remove context pack ${made.pack_id}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove this context pack?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await card.count()).toBe(1);
    await card.getByRole('button', { name: `Remove context pack ${made.pack_id}` }).click();
    await dialog.getByRole('button', { name: 'Remove pack' }).click();
    await page.getByTestId('context-none').waitFor();
    expect(await callApi<unknown[]>(app, 'context.list')).toEqual([]);
    await page.getByRole('button', { name: `Unpin block ${made.head.number} of chain ${made.chain_id}` }).click();
    await page.getByText('No block hash is pinned.').waitFor();
    expect(await callApi<unknown[]>(app, 'context.pins')).toEqual([]);
    const detail = await callApi<{ state: string }>(app, 'anchors.get', { id: await anchorIdOf(0) });
    expect(detail.state).toBe('verified_with_context');
    expect(failures).toEqual([]);
  });
});
