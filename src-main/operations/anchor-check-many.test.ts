import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '../../src-shared/crypto/encoding';
import { anchorTree } from '../../src-shared/crypto/merkle';
import { startAnvil, type AnvilProcess } from '../anchor/anvil';
import { ChainClient } from '../anchor/chain';
import { anchorStateCounts, getReceipt } from '../ledger';
import { checkAnchorsOnChain } from './anchor-check-many';
import { buildAnchoredBundle, fundedAnchorAccount, TEST_BATCH_ID, type AnchoredBundle } from './anchor-test-support';
import { importEvidence } from './evidence';
import { openWorkspace, type Workspace } from './workspace';

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());

let anvil: AnvilProcess;
let scratch: string;
let workspace: Workspace;
let bundle: AnchoredBundle;

beforeAll(async () => {
  anvil = await startAnvil();
  const chain = new ChainClient(anvil.rpcUrl);
  scratch = mkdtempSync(join(tmpdir(), 'evroom-anchor-check-many-'));
  bundle = await buildAnchoredBundle({
    out: join(scratch, 'anchored.zip'),
    chain,
    account: await fundedAnchorAccount(chain),
    nonce: 0,
    receipts: 5,
    tamper: (records, digests) => {
      // Receipt 4: a root that folds from the receipt but is not on chain.
      const forged = anchorTree(sha256, [digests[4] as Uint8Array, sha256(new TextEncoder().encode('forged'))]);
      Object.assign(records[4] as object, {
        merkle_root: `sha256:${hexEncode(forged.root)}`,
        merkle_path: (forged.paths[0] as Uint8Array[]).map((hash) => `sha256:${hexEncode(hash)}`),
      });
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

const stateOf = (index: number): string | undefined =>
  getReceipt(workspace.ledger.readable, bundle.receipts[index] as string)?.anchor_state;

describe('check these on chain, on a real anvil', () => {
  it('is refused without a chain RPC, saying what to set', async () => {
    await expect(
      checkAnchorsOnChain(workspace, { kind: 'filter', filters: {} }, { rpc_url: null, confirmations: 1 }),
    ).rejects.toMatchObject({ code: 'no_chain_rpc', message: expect.stringContaining('Settings') });
  });

  it('records nothing for a chain that does not answer, and stops when cancelled', async () => {
    const unreachable = { rpc_url: 'http://127.0.0.1:9', confirmations: 1 };
    const counts = await checkAnchorsOnChain(
      workspace,
      { kind: 'filter', filters: { anchor: 'pending' } },
      unreachable,
    );
    expect(counts).toMatchObject({ total: 5, checked: 5, unanswered: 5, verified: 0, failed: 0 });
    expect(anchorStateCounts(workspace.ledger.readable)).toMatchObject({ pending: 5, verified: 0, failed: 0 });
    const controller = new AbortController();
    controller.abort();
    await expect(
      checkAnchorsOnChain(workspace, { kind: 'batch', batch_id: TEST_BATCH_ID }, unreachable, {
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('checks the records of a filter, with progress; pending turns verified, a root not on chain failed', async () => {
    const events: string[] = [];
    const counts = await checkAnchorsOnChain(
      workspace,
      { kind: 'filter', filters: { anchor: 'pending' } },
      { rpc_url: anvil.rpcUrl, confirmations: 1 },
      { onProgress: (event) => events.push(`${event.phase} ${event.checked}/${event.total}`) },
    );
    expect(counts).toEqual({
      total: 5,
      checked: 5,
      verified: 4,
      verified_with_context: 0,
      failed: 1,
      pending: 0,
      unanswered: 0,
      skipped: 0,
    });
    expect(events[0]).toBe('collecting 0/5');
    expect(events).toContain('checking 0/5');
    expect(events[events.length - 1]).toBe('checking 5/5');
    expect([0, 1, 2, 3, 4].map(stateOf)).toEqual(['verified', 'verified', 'verified', 'verified', 'failed']);
    expect(anchorStateCounts(workspace.ledger.readable)).toMatchObject({ pending: 0, verified: 4, failed: 1 });
  });

  it('checks a batch; depth short of the confirmations asked is pending, not failed', async () => {
    const counts = await checkAnchorsOnChain(
      workspace,
      { kind: 'batch', batch_id: TEST_BATCH_ID },
      { rpc_url: anvil.rpcUrl, confirmations: 500 },
    );
    expect(counts).toMatchObject({ total: 5, checked: 5, verified: 0, pending: 4, failed: 1 });
    expect([0, 1, 2, 3, 4].map(stateOf)).toEqual(['pending', 'pending', 'pending', 'pending', 'failed']);
  });
});
