/**
 * Context packs, online side (docs/anchoring.md, "Air-gapped verification"): gathering a chain's
 * evidence for anchor transactions over JSON-RPC, checked before anything is written.
 *
 * For each block that holds an anchor transaction: the block with all its transactions and all
 * their receipts; the transactions and receipts tries are rebuilt with `@ethereumjs/mpt` (keys
 * rlp(index), values the canonical transaction and consensus receipt encodings) and their roots
 * must equal the header's `transactionsRoot` and `receiptsRoot`; then the proof of each anchor
 * transaction and its receipt is taken from them. Then every header from the lowest such block
 * to the chain's head, each re-encoded with `@ethereumjs/block` and required to hash to the hash
 * the chain gave, and to name the previous one as its parent.
 */
import { createBlockHeaderFromRPC } from '@ethereumjs/block';
import { Hardfork } from '@ethereumjs/common';
import { createMerkleProof, createMPT, type MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import {
  bytesToHex,
  formatTransaction,
  hexToBytes,
  keccak256,
  serializeTransaction,
  type Hex,
  type RpcTransaction,
  type Signature,
  type TransactionSerializable,
} from 'viem';
import type { ContextHead } from '../../src-shared/anchor/context';
import { ChainError, type ChainClient } from './chain';
import { commonFor } from './context-check';
import { MAX_CONTEXT_HEADERS, type ContextAnchorEntry, type ContextHeaderEntry } from './context-pack';

/** What {@link gatherContext} found. */
export interface GatheredContext {
  chain_id: number;
  head: ContextHead;
  /** Every header from the lowest anchor block to the head, in order. */
  headers: ContextHeaderEntry[];
  /** Each anchor transaction found mined on the chain. */
  anchors: ContextAnchorEntry[];
  /** The transactions that could not be gathered, and why. */
  missing: { tx_hash: string; reason: string }[];
}

/** How to gather. */
export interface GatherContextOptions {
  /** A line of progress for a long gathering (the CLI prints it on stderr). */
  onProgress?: (line: string) => void;
  /** Stops the gathering between requests. */
  signal?: AbortSignal;
  /** Headers fetched at a time; default 100. */
  chunk?: number;
}

type RpcObject = Record<string, unknown>;

function isObject(value: unknown): value is RpcObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hexNumber(value: unknown, what: string): number {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value))
    throw new ChainError('rejected', `The chain's ${what} is not a hex quantity.`);
  return Number(BigInt(value));
}

function checkCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new ChainError('rejected', 'The gathering was cancelled.');
}

/** The hardfork whose header fields an RPC header has. */
function hardforkOfRpcHeader(header: RpcObject): Hardfork {
  if (header.requestsHash !== undefined && header.requestsHash !== null) return Hardfork.Prague;
  if (header.parentBeaconBlockRoot !== undefined && header.parentBeaconBlockRoot !== null) return Hardfork.Cancun;
  if (header.withdrawalsRoot !== undefined && header.withdrawalsRoot !== null) return Hardfork.Shanghai;
  if (header.baseFeePerGas !== undefined && header.baseFeePerGas !== null)
    return header.difficulty === '0x0' ? Hardfork.Paris : Hardfork.London;
  return Hardfork.Berlin;
}

/**
 * One header as the pack keeps it: re-encoded to RLP with `@ethereumjs/block`, which must hash
 * to the hash the chain gave.
 *
 * @param header - eth_getBlockByNumber's answer.
 * @param chainId - The chain id.
 * @returns The pack's entry.
 * @throws ChainError when the header cannot be encoded to its own hash.
 */
export function headerEntryFromRpc(header: RpcObject, chainId: number): ContextHeaderEntry {
  const number = hexNumber(header.number, 'block number');
  const hardfork = hardforkOfRpcHeader(header);
  let rlp: Uint8Array;
  let hash: string;
  try {
    const decoded = createBlockHeaderFromRPC(header as never, {
      common: commonFor(chainId, hardfork),
      skipConsensusFormatValidation: true,
    });
    rlp = decoded.serialize();
    hash = bytesToHex(decoded.hash());
  } catch (error) {
    throw new ChainError(
      'rejected',
      `The header of block ${number} cannot be encoded as a ${hardfork} header: ${(error as Error).message.split('\n')[0]?.slice(0, 200)}`,
    );
  }
  if (typeof header.hash !== 'string' || hash !== header.hash.toLowerCase())
    throw new ChainError(
      'rejected',
      `The header of block ${number} encodes to hash ${hash}, not ${String(header.hash)} as the chain says; this program cannot pack this chain's headers.`,
    );
  return { number, hash, rlp: bytesToHex(rlp) };
}

/** The canonical encoding of a transaction (its trie value), checked against its hash. */
async function rawTransaction(chain: ChainClient, tx: RpcObject): Promise<Hex> {
  const hash = String(tx.hash).toLowerCase();
  try {
    const formatted = formatTransaction(tx as unknown as RpcTransaction);
    const { r, s, v, yParity } = formatted as { r: Hex; s: Hex; v?: bigint; yParity?: number };
    const serialized = serializeTransaction(
      { ...(formatted as unknown as TransactionSerializable), data: formatted.input } as TransactionSerializable,
      { r, s, ...(v === undefined ? {} : { v }), ...(yParity === undefined ? {} : { yParity }) } as Signature,
    );
    if (keccak256(serialized) === hash) return serialized;
  } catch {
    // A type viem does not serialise: ask the chain for the bytes.
  }
  const raw = await chain
    .request(`Fetching the raw transaction ${hash}`, 'eth_getRawTransactionByHash', [hash])
    .catch(() => undefined);
  if (typeof raw === 'string' && /^0x[0-9a-fA-F]*$/.test(raw) && keccak256(raw as Hex) === hash)
    return raw.toLowerCase() as Hex;
  throw new ChainError(
    'rejected',
    `Transaction ${hash} (type ${String(tx.type)}) cannot be encoded to its hash, and the chain does not give its raw bytes.`,
  );
}

/** The OP Stack's deposit transaction type. */
const OP_DEPOSIT_TYPE = 0x7e;

/** The consensus encoding of a receipt (its trie value). */
function rawReceipt(receipt: RpcObject): Uint8Array {
  const logs = Array.isArray(receipt.logs) ? (receipt.logs as RpcObject[]) : [];
  const first =
    typeof receipt.root === 'string' && receipt.root.length === 66
      ? hexToBytes(receipt.root as Hex)
      : receipt.status === '0x1'
        ? Uint8Array.of(1)
        : new Uint8Array();
  const type = receipt.type === undefined ? 0 : hexNumber(receipt.type, 'receipt type');
  const fields: unknown[] = [
    first,
    BigInt(String(receipt.cumulativeGasUsed)),
    hexToBytes(String(receipt.logsBloom) as Hex),
    logs.map((log) => [
      hexToBytes(String(log.address) as Hex),
      (log.topics as string[]).map((topic) => hexToBytes(topic as Hex)),
      hexToBytes(String(log.data) as Hex),
    ]),
  ];
  // OP Stack deposit receipts (type 0x7e) also carry depositNonce (Regolith) and
  // depositReceiptVersion (Canyon) in their consensus encoding.
  if (type === OP_DEPOSIT_TYPE && typeof receipt.depositNonce === 'string') {
    fields.push(BigInt(receipt.depositNonce));
    if (typeof receipt.depositReceiptVersion === 'string') fields.push(BigInt(receipt.depositReceiptVersion));
  }
  const body = RLP.encode(fields as Parameters<typeof RLP.encode>[0]);
  return type === 0 ? body : Uint8Array.of(type, ...body);
}

async function blockReceipts(chain: ChainClient, number: number, txs: RpcObject[]): Promise<RpcObject[]> {
  const tag = `0x${number.toString(16)}`;
  try {
    const receipts = await chain.request(`Fetching the receipts of block ${number}`, 'eth_getBlockReceipts', [tag]);
    if (Array.isArray(receipts) && receipts.length === txs.length) return receipts as RpcObject[];
  } catch (error) {
    if (error instanceof ChainError && error.kind === 'unreachable') throw error;
  }
  const each: RpcObject[] = [];
  for (const tx of txs) {
    const receipt = await chain.request(`Fetching the receipt of ${String(tx.hash)}`, 'eth_getTransactionReceipt', [
      tx.hash,
    ]);
    if (!isObject(receipt)) throw new ChainError('rejected', `The chain gives no receipt for ${String(tx.hash)}.`);
    each.push(receipt);
  }
  return each;
}

async function trieOf(values: Uint8Array[]): Promise<MerklePatriciaTrie> {
  const trie = await createMPT();
  for (const [index, value] of values.entries()) await trie.put(RLP.encode(index), value);
  return trie;
}

function withoutTransactions(block: RpcObject): RpcObject {
  const { transactions: _transactions, ...header } = block;
  void _transactions;
  return header;
}

/**
 * Gathers the evidence of anchor transactions from a chain.
 *
 * @param chain - A client of the chain (with `batch` for many headers).
 * @param txHashes - The anchor transactions (`0x` and 64 hex).
 * @param options - See {@link GatherContextOptions}.
 * @returns The evidence, and the transactions that could not be gathered.
 * @throws ChainError when the chain does not answer, or answers something that does not check
 *   (a trie root, a header hash, a broken parent link), or the headers to the head are more
 *   than {@link MAX_CONTEXT_HEADERS}.
 */
export async function gatherContext(
  chain: ChainClient,
  txHashes: readonly string[],
  options: GatherContextOptions = {},
): Promise<GatheredContext> {
  const progress = options.onProgress ?? (() => undefined);
  const chunk = options.chunk ?? 100;
  const chainId = await chain.chainId();
  const missing: GatheredContext['missing'] = [];
  const byBlock = new Map<number, string[]>();
  const unique = [...new Set(txHashes.map((hash) => hash.toLowerCase()))];
  // The origin only, in messages: a provider's key in the URL's path stays out of logs.
  const where = new URL(chain.rpcUrl).origin;
  progress(`Looking up ${unique.length} anchor transaction${unique.length === 1 ? '' : 's'} at ${where}`);
  for (let start = 0; start < unique.length; start += chunk) {
    checkCancelled(options.signal);
    if (start > 0) progress(`Looked up ${start} of ${unique.length} transactions`);
    const part = unique.slice(start, start + chunk);
    const answers = await Promise.all(
      part.map((hash) => chain.request(`Fetching transaction ${hash}`, 'eth_getTransactionByHash', [hash])),
    );
    for (const [offset, tx] of answers.entries()) {
      const hash = part[offset] as string;
      if (!isObject(tx)) {
        missing.push({ tx_hash: hash, reason: `the chain at ${where} has no such transaction` });
        continue;
      }
      if (tx.blockNumber === null || tx.blockNumber === undefined) {
        missing.push({ tx_hash: hash, reason: 'it is not mined yet' });
        continue;
      }
      const number = hexNumber(tx.blockNumber, 'transaction block number');
      byBlock.set(number, [...(byBlock.get(number) ?? []), hash]);
    }
  }
  const latest = await chain.request('Reading the head', 'eth_getBlockByNumber', ['latest', false]);
  if (!isObject(latest)) throw new ChainError('rejected', 'The chain gives no latest block.');
  const headNumber = hexNumber(latest.number, 'head number');

  const anchors: ContextAnchorEntry[] = [];
  const blocks = [...byBlock.keys()].sort((a, b) => a - b);
  for (const [position, number] of blocks.entries()) {
    checkCancelled(options.signal);
    progress(`Block ${number} (${position + 1} of ${blocks.length}): transactions, receipts and their tries`);
    const block = await chain.request(`Fetching block ${number}`, 'eth_getBlockByNumber', [
      `0x${number.toString(16)}`,
      true,
    ]);
    if (!isObject(block) || !Array.isArray(block.transactions))
      throw new ChainError('rejected', `The chain gives no block ${number} with its transactions.`);
    const txs = block.transactions as RpcObject[];
    const raws: Uint8Array[] = [];
    for (const tx of txs) raws.push(hexToBytes(await rawTransaction(chain, tx)));
    const txTrie = await trieOf(raws);
    if (bytesToHex(txTrie.root()) !== String(block.transactionsRoot).toLowerCase())
      throw new ChainError(
        'rejected',
        `Block ${number}'s transactions do not rebuild its transactionsRoot (${bytesToHex(txTrie.root())}, header ${String(block.transactionsRoot)}).`,
      );
    const receipts = await blockReceipts(chain, number, txs);
    const receiptRaws = receipts.map(rawReceipt);
    const receiptTrie = await trieOf(receiptRaws);
    if (bytesToHex(receiptTrie.root()) !== String(block.receiptsRoot).toLowerCase())
      throw new ChainError(
        'rejected',
        `Block ${number}'s receipts do not rebuild its receiptsRoot (${bytesToHex(receiptTrie.root())}, header ${String(block.receiptsRoot)}).`,
      );
    const header = withoutTransactions(block);
    const headerEntry = headerEntryFromRpc(header, chainId);
    for (const hash of byBlock.get(number) ?? []) {
      const index = txs.findIndex((tx) => String(tx.hash).toLowerCase() === hash);
      if (index < 0) {
        missing.push({ tx_hash: hash, reason: `block ${number} no longer holds it (the chain reorganised)` });
        continue;
      }
      const key = RLP.encode(index);
      anchors.push({
        tx_hash: hash,
        block_number: number,
        block_hash: headerEntry.hash,
        tx_index: index,
        header,
        transaction: { rpc: txs[index] as RpcObject, raw: bytesToHex(raws[index] as Uint8Array) },
        receipt: { rpc: receipts[index] as RpcObject, raw: bytesToHex(receiptRaws[index] as Uint8Array) },
        tx_proof: (await createMerkleProof(txTrie, key)).map((node) => bytesToHex(node)),
        receipt_proof: (await createMerkleProof(receiptTrie, key)).map((node) => bytesToHex(node)),
      });
    }
  }
  if (anchors.length === 0)
    return {
      chain_id: chainId,
      head: { number: headNumber, hash: String(latest.hash) },
      headers: [],
      anchors,
      missing,
    };

  const from = Math.min(...anchors.map((anchor) => anchor.block_number));
  const total = headNumber - from + 1;
  if (total > MAX_CONTEXT_HEADERS)
    throw new ChainError(
      'rejected',
      `The pack would carry ${total} headers (block ${from} to the head ${headNumber}), more than ${MAX_CONTEXT_HEADERS}; make packs of more recent anchors.`,
    );
  const headers: ContextHeaderEntry[] = [];
  for (let start = from; start <= headNumber; start += chunk) {
    checkCancelled(options.signal);
    const end = Math.min(headNumber, start + chunk - 1);
    const answers = await Promise.all(
      Array.from({ length: end - start + 1 }, (_, offset) =>
        chain.request(`Fetching header ${start + offset}`, 'eth_getBlockByNumber', [
          `0x${(start + offset).toString(16)}`,
          false,
        ]),
      ),
    );
    for (const [offset, answer] of answers.entries()) {
      if (!isObject(answer)) throw new ChainError('rejected', `The chain gives no header of block ${start + offset}.`);
      const entry = headerEntryFromRpc(withoutTransactions(answer), chainId);
      const previous = headers[headers.length - 1];
      if (previous !== undefined && String(answer.parentHash).toLowerCase() !== previous.hash)
        throw new ChainError(
          'rejected',
          `Block ${entry.number}'s parent is not block ${previous.number} as read a moment ago: the chain reorganised while the pack was gathered; try again.`,
        );
      headers.push(entry);
    }
    progress(`Headers ${headers.length} of ${total} (block ${end})`);
  }
  for (const anchor of anchors) {
    const carried = headers[anchor.block_number - from];
    if (carried?.hash !== anchor.block_hash)
      throw new ChainError(
        'rejected',
        `Block ${anchor.block_number} changed while the pack was gathered (the chain reorganised); try again.`,
      );
  }
  const last = headers[headers.length - 1] as ContextHeaderEntry;
  return { chain_id: chainId, head: { number: last.number, hash: last.hash }, headers, anchors, missing };
}
