/**
 * Test fixtures for anchoring: post a batch's Merkle root on a real chain (anvil) and build the
 * resolved record of every digest, as the engine would after the batch resolved.
 *
 * Not used by the program itself; the tests of src-main/anchor, the CLI and the operations use
 * it so that every anchor fixture is a real transaction on a real chain.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PrivateKeyAccount } from 'viem/accounts';
import { encodeAnchorHash } from '../../src-shared/anchor/proof';
import { anchorSuffix, resolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { anchorTree } from '../../src-shared/crypto/merkle';
import { EMBEDDED_NETWORK, startAnvil } from './anvil';
import { ChainClient } from './chain';
import { embeddedStablecoin, StablecoinChain } from './stablecoin';

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

/** A real anvil with the real token deployed, for the payment tests. */
export interface TestChainWithToken {
  rpcUrl: string;
  /** The embedded chain's client. */
  client: ChainClient;
  /** The token and treasury, as the service sees them (network `anvil-local`). */
  chain: StablecoinChain;
  /** The folder holding the token's owner and treasury keys and stablecoin.json. */
  anchorFolder: string;
  /** anvil's `evm_snapshot`: an id to revert to. */
  snapshot(): Promise<string>;
  /** anvil's `evm_revert` to a snapshot: every block after it is gone (a reorganisation, as far as readers can tell). */
  revert(id: string): Promise<void>;
  /** Mines `blocks` empty blocks. */
  mine(blocks?: number): Promise<void>;
  /** Stops anvil and removes the folder. */
  stop(): Promise<void>;
}

/**
 * Starts anvil on a free port and sets the token up as `evroom serve` does on the embedded chain
 * (deployed by an owner key, a treasury, development accounts holding 1,000,000 tokens).
 */
export async function startTestChainWithToken(): Promise<TestChainWithToken> {
  const folder = mkdtempSync(path.join(tmpdir(), 'evroom-chain-'));
  chmodSync(folder, 0o700);
  const anvil = await startAnvil({});
  try {
    const client = new ChainClient(anvil.rpcUrl);
    const config = await embeddedStablecoin(client, folder, EMBEDDED_NETWORK);
    const chain = new StablecoinChain(client, config);
    const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
      const response = await fetch(anvil.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      const body = (await response.json()) as { result?: unknown; error?: { message: string } };
      if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
      return body.result;
    };
    return {
      rpcUrl: anvil.rpcUrl,
      client,
      chain,
      anchorFolder: folder,
      snapshot: async () => String(await rpc('evm_snapshot', [])),
      revert: async (id) => {
        if ((await rpc('evm_revert', [id])) !== true) throw new Error(`evm_revert ${id} failed`);
      },
      mine: (blocks = 1) => client.mineOnDevelopmentChain(blocks),
      stop: async () => {
        await anvil.stop();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await anvil.stop();
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}
