import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey } from 'viem/accounts';
import { encodeAnchorHash } from '../../src-shared/anchor/proof';
import { anchorSuffix, resolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { anchorTree } from '../../src-shared/crypto/merkle';
import { startAnvil, type AnvilProcess } from './anvil';
import { anchorAccount, ChainClient } from './chain';
import { verifyAnchor } from './verify-anchor';

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());
const digestOf = (text: string): Uint8Array => sha256(new TextEncoder().encode(text));

let anvil: AnvilProcess;
let chain: ChainClient;
const account = anchorAccount(generatePrivateKey());

/** Posts a batch's root and returns each digest's resolved record. */
async function postBatch(
  digests: Uint8Array[],
  nonce: number,
): Promise<{ records: Record<string, unknown>[]; hash: string }> {
  const { root, paths } = anchorTree(sha256, digests);
  const signed = await chain.signAnchorTransaction(account, root, nonce);
  await chain.broadcast(signed.raw);
  let tx = await chain.transaction(signed.hash);
  for (let tries = 0; tx?.blockNumber === null || tx === undefined; tries += 1) {
    if (tries > 100) throw new Error('not mined');
    await new Promise((resolve) => setTimeout(resolve, 20));
    tx = await chain.transaction(signed.hash);
  }
  const height = tx.blockNumber as number;
  const records = digests.map((digest, index) => {
    const svcAnchor = resolvedAnchorUrn({
      network: 'anvil-local',
      block_height: height,
      tx_hash: signed.hash,
      suffix: anchorSuffix(digest),
    });
    return {
      svc_anchor: svcAnchor,
      batch_id: '2026-11-23T09:00Z',
      network: 'anvil-local',
      block_height: height,
      tx_hash: signed.hash,
      merkle_root: encodeAnchorHash(root),
      merkle_path: (paths[index] as Uint8Array[]).map(encodeAnchorHash),
      verified_at: '2026-11-23T09:01:00Z',
    };
  });
  return { records, hash: signed.hash };
}

beforeAll(async () => {
  anvil = await startAnvil();
  chain = new ChainClient(anvil.rpcUrl);
  await chain.fundOnDevelopmentChain(account.address);
});
afterAll(async () => {
  await anvil?.stop();
});

describe('verifyAnchor on a real anvil', () => {
  it('passes all three steps for every digest of a batch, and step 3 waits for the depth asked', async () => {
    const digests = Array.from({ length: 7 }, (_, index) => digestOf(`receipt ${index}`));
    const { records } = await postBatch(digests, 0);
    for (const [index, digest] of digests.entries()) {
      const result = await verifyAnchor({ sha256, digest, record: records[index], rpcUrl: anvil.rpcUrl });
      expect(result.anchor_status).toBe('verified');
      expect(result.steps.map((step) => step.status)).toEqual(['pass', 'pass', 'pass']);
    }
    const deep = await verifyAnchor({
      sha256,
      digest: digests[0] as Uint8Array,
      record: records[0],
      rpcUrl: anvil.rpcUrl,
      confirmations: 3,
    });
    expect(deep.anchor_status).toBe('failed');
    expect(deep.steps[2]).toMatchObject({ status: 'fail' });
    await chain.mineOnDevelopmentChain(2);
    const later = await verifyAnchor({
      sha256,
      digest: digests[0] as Uint8Array,
      record: records[0],
      rpcUrl: anvil.rpcUrl,
      confirmations: 3,
    });
    expect(later.anchor_status).toBe('verified');
  });

  it('offline, steps 2 and 3 are unchecked, never pass', async () => {
    const digests = [digestOf('offline a'), digestOf('offline b')];
    const { records } = await postBatch(digests, 1);
    const result = await verifyAnchor({
      sha256,
      digest: digests[1] as Uint8Array,
      record: records[1],
      rpcUrl: anvil.rpcUrl,
      offline: true,
    });
    expect(result.anchor_status).toBe('verified_offline');
    expect(result.steps.map((step) => step.status)).toEqual(['pass', 'unchecked', 'unchecked']);
  });

  it('a hash in the wrong batch fails step 1, a changed root fails step 2, another transaction fails step 2', async () => {
    const first = [digestOf('batch one a'), digestOf('batch one b'), digestOf('batch one c')];
    const second = [digestOf('batch two a'), digestOf('batch two b')];
    const one = await postBatch(first, 2);
    const two = await postBatch(second, 3);
    // Wrong batch: the record of batch two, with batch one's digest suffix.
    const wrongBatch = {
      ...two.records[0],
      svc_anchor: String(two.records[0]?.svc_anchor).replace(/[0-9a-f]{16}$/, anchorSuffix(first[0] as Uint8Array)),
    };
    const wrong = await verifyAnchor({
      sha256,
      digest: first[0] as Uint8Array,
      record: wrongBatch,
      rpcUrl: anvil.rpcUrl,
    });
    expect(wrong.steps.map((step) => step.status)).toEqual(['fail', 'unchecked', 'unchecked']);
    // A changed root with a path that folds to it: step 1 passes, the chain disagrees.
    const fakeTree = anchorTree(sha256, [first[0] as Uint8Array, digestOf('forged')]);
    const changedRoot = {
      ...one.records[0],
      merkle_root: encodeAnchorHash(fakeTree.root),
      merkle_path: (fakeTree.paths[0] as Uint8Array[]).map(encodeAnchorHash),
    };
    const changed = await verifyAnchor({
      sha256,
      digest: first[0] as Uint8Array,
      record: changedRoot,
      rpcUrl: anvil.rpcUrl,
    });
    expect(changed.steps.map((step) => step.status)).toEqual(['pass', 'fail', 'unchecked']);
    expect(changed.steps[1]?.detail).toMatch(/carries root/);
    // Another transaction's hash (and its block): the data carries another root.
    const otherTx = one.records[0] as { block_height: number };
    const swapped = {
      ...one.records[0],
      tx_hash: two.hash,
      block_height: (two.records[0] as { block_height: number }).block_height,
      svc_anchor: resolvedAnchorUrn({
        network: 'anvil-local',
        block_height: (two.records[0] as { block_height: number }).block_height,
        tx_hash: two.hash,
        suffix: anchorSuffix(first[0] as Uint8Array),
      }),
    };
    expect(otherTx.block_height).not.toBe(swapped.block_height);
    const other = await verifyAnchor({ sha256, digest: first[0] as Uint8Array, record: swapped, rpcUrl: anvil.rpcUrl });
    expect(other.steps.map((step) => step.status)).toEqual(['pass', 'fail', 'unchecked']);
  });

  it('a chain that does not answer leaves steps 2-3 unchecked and the verdict failed', async () => {
    const digests = [digestOf('unreachable')];
    const { records } = await postBatch(digests, 4);
    const result = await verifyAnchor({
      sha256,
      digest: digests[0] as Uint8Array,
      record: records[0],
      rpcUrl: 'http://127.0.0.1:9',
      timeoutMs: 2000,
    });
    expect(result.anchor_status).toBe('failed');
    expect(result.steps.map((step) => step.status)).toEqual(['pass', 'unchecked', 'unchecked']);
    expect(result.steps[1]?.detail).toMatch(/could not be asked/);
  });
});
