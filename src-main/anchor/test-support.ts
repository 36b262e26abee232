/**
 * Test fixtures for anchoring: post a batch's Merkle root on a real chain (anvil) and build the
 * resolved record of every digest, as the engine would after the batch resolved.
 *
 * Not used by the program itself; the tests of src-main/anchor, the CLI and the operations use
 * it so that every anchor fixture is a real transaction on a real chain.
 */
import { createHash } from 'node:crypto';
import type { PrivateKeyAccount } from 'viem/accounts';
import { encodeAnchorHash } from '../../src-shared/anchor/proof';
import { anchorSuffix, resolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { anchorTree } from '../../src-shared/crypto/merkle';
import type { ChainClient } from './chain';

/** SHA-256 through Node's crypto, as a HashFunction. */
export function nodeSha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

/** A batch posted by {@link postAnchorBatch}. */
export interface PostedBatch {
  /** The resolved record (spec 2.6) of each digest, in the digests' order. */
  records: Record<string, unknown>[];
  /** The anchor transaction's hash. */
  hash: string;
  /** The block it was mined in. */
  blockHeight: number;
}

/**
 * Posts the root of a batch as an anchor transaction and waits until it is mined.
 *
 * @param chain - A client of a development chain (anvil mines a block per transaction).
 * @param account - The anchor account (funded).
 * @param digests - The batch's 32-byte digests.
 * @param nonce - The account's next nonce.
 * @param options - The network name (default `anvil-local`) and batch id written in the records.
 * @returns Each digest's resolved record, the transaction hash and its block.
 */
export async function postAnchorBatch(
  chain: ChainClient,
  account: PrivateKeyAccount,
  digests: readonly Uint8Array[],
  nonce: number,
  options: { network?: string; batchId?: string } = {},
): Promise<PostedBatch> {
  const network = options.network ?? 'anvil-local';
  const batchId = options.batchId ?? '2026-11-23T09:00Z';
  const { root, paths } = anchorTree(nodeSha256, digests);
  const signed = await chain.signAnchorTransaction(account, root, nonce);
  await chain.broadcast(signed.raw);
  let tx = await chain.transaction(signed.hash);
  for (let tries = 0; tx?.blockNumber === null || tx === undefined; tries += 1) {
    if (tries > 250) throw new Error(`postAnchorBatch: ${signed.hash} was not mined`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    tx = await chain.transaction(signed.hash);
  }
  const height = tx.blockNumber as number;
  const records = digests.map((digest, index) => ({
    svc_anchor: resolvedAnchorUrn({
      network,
      block_height: height,
      tx_hash: signed.hash,
      suffix: anchorSuffix(digest),
    }),
    batch_id: batchId,
    network,
    block_height: height,
    tx_hash: signed.hash,
    merkle_root: encodeAnchorHash(root),
    merkle_path: (paths[index] as Uint8Array[]).map(encodeAnchorHash),
    verified_at: '2026-11-23T09:01:00Z',
  }));
  return { records, hash: signed.hash, blockHeight: height };
}
