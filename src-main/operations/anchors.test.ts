import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeAnchorHash } from '../../src-shared/anchor/proof';
import { hexDecode, hexEncode } from '../../src-shared/crypto/encoding';
import { anchorFold, anchorTree } from '../../src-shared/crypto/merkle';
import { startAnvil, type AnvilProcess } from '../anchor/anvil';
import { ChainClient } from '../anchor/chain';
import { getReceipt, listAnchorStates } from '../ledger';
import { buildAnchoredBundle, fundedAnchorAccount, TEST_BATCH_ID, type AnchoredBundle } from './anchor-test-support';
import {
  anchorBatches,
  anchorDetail,
  checkAnchorOnChain,
  checkAnchorsOffline,
  listAnchorRows,
  merkleProof,
  receiptAnchor,
  receiptAnchorDetail,
} from './anchors';
import { checkAnchorsOnChain } from './anchor-check-many';
import { exportContextPack, importContextPack, pinBlockHash } from './context';
import { OperationError } from './errors';
import { importEvidence } from './evidence';
import { openWorkspace, type Workspace } from './workspace';

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());

let anvil: AnvilProcess;
let chain: ChainClient;
let scratch: string;
let workspace: Workspace;
let bundle: AnchoredBundle;

/** The anchor id of the receipt at `index` of the bundle. */
function anchorIdOf(index: number): number {
  const rows = listAnchorStates(workspace.ledger.readable, { limit: 1000 }).rows;
  const found = rows.find((row) => row.receipt_sha256 === bundle.receipts[index]);
  if (found === undefined) throw new Error(`no anchor for receipt ${index}`);
  return found.id;
}

beforeAll(async () => {
  anvil = await startAnvil();
  chain = new ChainClient(anvil.rpcUrl);
  scratch = mkdtempSync(join(tmpdir(), 'evroom-anchors-op-'));
  const account = await fundedAnchorAccount(chain);
  bundle = await buildAnchoredBundle({
    out: join(scratch, 'anchored.zip'),
    chain,
    account,
    nonce: 0,
    receipts: 6,
    tamper: (records, digests) => {
      // Receipt 4: one sibling of its path changed, so the fold misses the root (step 1 fails).
      const path = records[4]?.merkle_path as string[];
      path[0] = `sha256:${'00'.repeat(32)}`;
      // Receipt 5: a forged root with a path that folds to it (step 1 passes, the chain disagrees).
      const forged = anchorTree(sha256, [digests[5] as Uint8Array, sha256(new TextEncoder().encode('forged'))]);
      (records[5] as Record<string, unknown>).merkle_root = `sha256:${hexEncode(forged.root)}`;
      (records[5] as Record<string, unknown>).merkle_path = (forged.paths[0] as Uint8Array[]).map(
        (hash) => `sha256:${hexEncode(hash)}`,
      );
    },
  });
  workspace = openWorkspace(join(scratch, 'home'));
  await importEvidence(workspace, bundle.file);
}, 120_000);

afterAll(async () => {
  workspace?.close();
  await anvil?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('anchors in the workspace, on a real anvil', () => {
  it('runs step 1 after an import and stores the states the view lists and counts', async () => {
    // importEvidence ran step 1 (listing alone verifies nothing).
    expect(listAnchorRows(workspace, { state: 'unchecked' }).rows).toEqual([]);
    expect(listAnchorRows(workspace, { state: 'verified_offline' }).rows).toHaveLength(5);
    const batches = await anchorBatches(workspace);
    expect(batches.batches).toHaveLength(1);
    expect(batches.batches[0]).toMatchObject({
      batch_id: '2026-11-23T09:00Z',
      total: 6,
      network: 'anvil-local',
      block_height: bundle.height,
      tx_hash: bundle.hash,
    });
    expect(batches.totals).toEqual({
      verified: 0,
      verified_with_context: 0,
      verified_offline: 5,
      pending: 0,
      unchecked: 0,
      failed: 1,
    });
    expect(listAnchorRows(workspace, { state: 'failed' }).rows.map((row) => row.receipt_sha256)).toEqual([
      bundle.receipts[4],
    ]);
    expect(receiptAnchor(workspace, bundle.receipts[0] as string).state).toBe('verified_offline');
    expect(receiptAnchor(workspace, bundle.receipts[4] as string).state).toBe('failed');
    expect(receiptAnchor(workspace, '0'.repeat(64))).toEqual({ state: 'none', anchors: [] });
    // Nothing left for the sweep.
    expect(await checkAnchorsOffline(workspace)).toBe(0);
  });

  it("draws the Merkle path from the receipt's leaf to the root, as anchorFold computes it", () => {
    const detail = anchorDetail(workspace, anchorIdOf(1));
    const record = bundle.records[1] as { merkle_path: string[]; merkle_root: string };
    expect(detail.step_one).toMatchObject({ step: 1, status: 'pass' });
    expect(detail.proof?.digest).toBe(bundle.receipts[1]);
    expect(detail.proof?.leaf).toBe(hexEncode(sha256(new Uint8Array([0, ...hexDecode(bundle.receipts[1] as string)]))));
    expect(detail.proof?.levels.map((level) => `sha256:${level.sibling}`)).toEqual(record.merkle_path);
    const folded = anchorFold(
      sha256,
      hexDecode(bundle.receipts[1] as string),
      record.merkle_path.map((hash) => decodeAnchorHash(hash) as Uint8Array),
    );
    expect(detail.proof?.levels.at(-1)?.node).toBe(hexEncode(folded));
    expect(detail.proof).toMatchObject({
      matches: true,
      folded_root: record.merkle_root.slice(7),
      record_root: record.merkle_root.slice(7),
    });
    expect(detail).toMatchObject({
      network: 'anvil-local',
      block_height: bundle.height,
      tx_hash: bundle.hash,
      merkle_root: record.merkle_root,
      verified_at: '2026-11-23T09:01:00Z',
      state: 'verified_offline',
    });
    // The tampered path: step 1 fails and the drawing shows where the fold ends.
    const broken = anchorDetail(workspace, anchorIdOf(4));
    expect(broken.step_one?.status).toBe('fail');
    expect(broken.proof?.matches).toBe(false);
    // The receipt's panel shows every record of the receipt.
    const receipt = getReceipt(workspace.ledger.readable, bundle.receipts[1] as string);
    const panel = receiptAnchorDetail(workspace, receipt?.id as number);
    expect(panel).toMatchObject({ receipt_sha256: bundle.receipts[1], state: 'verified_offline' });
    expect(panel.anchors.map((anchor) => anchor.id)).toEqual([detail.id]);
  });

  it('checks steps 2-3 against the chain and records the verdict; a forged root fails at step 2', async () => {
    const settings = { rpc_url: anvil.rpcUrl, confirmations: 1 };
    const good = await checkAnchorOnChain(workspace, anchorIdOf(0), settings);
    expect(good.outcome.steps.map((step) => step.status)).toEqual(['pass', 'pass', 'pass']);
    expect(good).toMatchObject({
      recorded: true,
      outcome: { state: 'verified', rpc: anvil.rpcUrl },
      anchor: { state: 'verified', last_check: { state: 'verified', rpc: anvil.rpcUrl } },
    });
    expect(receiptAnchor(workspace, bundle.receipts[0] as string).state).toBe('verified');

    const forged = await checkAnchorOnChain(workspace, anchorIdOf(5), settings);
    expect(forged.outcome.steps.map((step) => step.status)).toEqual(['pass', 'fail', 'unchecked']);
    expect(forged.outcome.steps[1]?.detail).toMatch(/carries root/);
    expect(forged).toMatchObject({ recorded: true, anchor: { state: 'failed' } });

    const brokenPath = await checkAnchorOnChain(workspace, anchorIdOf(4), settings);
    expect(brokenPath.outcome.steps.map((step) => step.status)).toEqual(['fail', 'unchecked', 'unchecked']);

    // Step 3 wants more depth than the chain has: pending (awaiting confirmations, recorded, not
    // failed: the transaction carries the root), then verified once blocks are mined.
    const deep = await checkAnchorOnChain(workspace, anchorIdOf(2), { rpc_url: anvil.rpcUrl, confirmations: 50 });
    expect(deep.outcome.steps.map((step) => step.status)).toEqual(['pass', 'pass', 'fail']);
    expect(deep).toMatchObject({ recorded: true, outcome: { state: 'pending' }, anchor: { state: 'pending' } });
    await chain.mineOnDevelopmentChain(50);
    expect(
      (await checkAnchorOnChain(workspace, anchorIdOf(2), { rpc_url: anvil.rpcUrl, confirmations: 50 })).anchor.state,
    ).toBe('verified');
  }, 60_000);

  it('without an RPC, or with a chain that does not answer, says why steps 2-3 are unchecked and keeps the last check', async () => {
    const id = anchorIdOf(0);
    const before = anchorDetail(workspace, id).last_check;
    expect(before?.state).toBe('verified');
    const offline = await checkAnchorOnChain(workspace, id, { rpc_url: null, confirmations: 1 });
    expect(offline.recorded).toBe(false);
    expect(offline.outcome.state).toBe('verified_offline');
    expect(offline.outcome.steps.map((step) => step.status)).toEqual(['pass', 'unchecked', 'unchecked']);
    expect(offline.outcome.steps[1]?.detail).toMatch(/No chain RPC is set.*Settings/);
    const unreachable = await checkAnchorOnChain(workspace, id, { rpc_url: 'http://127.0.0.1:9', confirmations: 1 });
    expect(unreachable.recorded).toBe(false);
    expect(unreachable.outcome.steps[1]?.detail).toMatch(/could not be asked/);
    expect(anchorDetail(workspace, id).last_check).toEqual(before);
  }, 60_000);

  it('says clearly what does not exist', async () => {
    expect(() => anchorDetail(workspace, 999_999)).toThrow(OperationError);
    expect(() => receiptAnchorDetail(workspace, 999_999)).toThrow(/no receipt 999999/);
    await expect(checkAnchorOnChain(workspace, 999_999, { rpc_url: null, confirmations: 1 })).rejects.toMatchObject({
      kind: 'not_found',
    });
    expect(merkleProof(sha256, new Uint8Array(32), { svc_anchor: 'not a urn' })).toBeNull();
  });
});

describe('anchor checks from imported context packs when the chain does not answer', () => {
  it('answers steps 2-3 from a pack (verified_with_context, each step naming the pack), and a pin checks its head', async () => {
    const id = anchorIdOf(3);
    const unreachable = { rpc_url: 'http://127.0.0.1:9', confirmations: 1 };
    // No pack imported: nothing answers, nothing is recorded.
    const before = await checkAnchorOnChain(workspace, id, unreachable);
    expect(before.recorded).toBe(false);
    expect(before.outcome.steps.map((step) => step.status)).toEqual(['pass', 'unchecked', 'unchecked']);

    const made = await exportContextPack(workspace, {
      out: join(scratch, 'pack.zip'),
      rpcUrl: anvil.rpcUrl,
      inputs: [],
    });
    await importContextPack(workspace, made.out);
    const claimed = await checkAnchorOnChain(workspace, id, { rpc_url: null, confirmations: 1 });
    expect(claimed.outcome.steps.map((step) => [step.status, step.evidence])).toEqual([
      ['pass', undefined],
      ['pass', 'context'],
      ['pass', 'context'],
    ]);
    expect(claimed).toMatchObject({
      recorded: true,
      outcome: { state: 'verified_with_context', rpc: null },
      anchor: { state: 'verified_with_context', last_check: { state: 'verified_with_context', rpc: null } },
    });
    expect(claimed.anchor.last_check?.steps[1]?.context).toMatchObject({
      pack_id: made.pack_id,
      head: made.head,
      head_trust: 'claimed',
      signer: made.signer,
    });
    expect(receiptAnchor(workspace, bundle.receipts[3] as string).state).toBe('verified_with_context');
    expect(getReceipt(workspace.ledger.readable, bundle.receipts[3] as string)?.anchor_state).toBe(
      'verified_with_context',
    );

    pinBlockHash(workspace, { chain_id: made.chain_id, number: made.head.number, hash: made.head.hash, note: 'test' });
    const checked = await checkAnchorOnChain(workspace, id, unreachable);
    expect(checked.outcome.state).toBe('verified_with_context');
    expect(checked.anchor.last_check?.steps[2]?.context).toMatchObject({ head_trust: 'checked', pinned: made.head });

    // A whole batch with no RPC, from the pack: the forged root fails at step 2 from the pack too.
    await expect(
      checkAnchorsOnChain(workspace, { kind: 'batch', batch_id: TEST_BATCH_ID }, { rpc_url: null, confirmations: 1 }),
    ).rejects.toMatchObject({ code: 'no_chain_rpc' });
    const batch = await checkAnchorsOnChain(
      workspace,
      { kind: 'batch', batch_id: TEST_BATCH_ID },
      { rpc_url: null, confirmations: 1 },
      { contextPacks: true },
    );
    expect(batch).toMatchObject({ total: 6, verified: 0, verified_with_context: 4, failed: 2, unanswered: 0 });
    const forged = anchorDetail(workspace, anchorIdOf(5)).last_check;
    expect(forged?.steps.map((step) => [step.status, step.evidence])).toEqual([
      ['pass', undefined],
      ['fail', 'context'],
      ['unchecked', undefined],
    ]);

    // An RPC that never answers (a firewall that drops): the run asks it once, waits once, and
    // takes every record to the packs at once instead of waiting 10 s for each.
    let asked = 0;
    const silent = createServer(() => {
      asked += 1;
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const dropped = await checkAnchorsOnChain(
        workspace,
        { kind: 'batch', batch_id: TEST_BATCH_ID },
        { rpc_url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, confirmations: 1 },
        { contextPacks: true },
      );
      expect(dropped).toMatchObject({ total: 6, verified_with_context: 4, failed: 2, unanswered: 0 });
      expect(asked).toBe(1);
      expect(anchorDetail(workspace, anchorIdOf(0)).last_check).toMatchObject({
        state: 'verified_with_context',
        rpc: null,
      });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }

    // A live chain that answers still wins: verified, steps carry evidence chain.
    const live = await checkAnchorOnChain(workspace, id, { rpc_url: anvil.rpcUrl, confirmations: 1 });
    expect(live.outcome).toMatchObject({ state: 'verified', rpc: anvil.rpcUrl });
    expect(live.outcome.steps[1]?.evidence).toBe('chain');
  }, 120_000);
});
