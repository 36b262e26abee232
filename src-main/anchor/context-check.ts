/**
 * Context packs, offline side (docs/anchoring.md, "Air-gapped verification"): answering
 * anchoring steps 2 and 3 from a pack's contents with no network.
 *
 * Everything here is checked with real libraries: block headers are decoded and hashed by
 * `@ethereumjs/block` (keccak-256 of their RLP, fields per hardfork), the transaction and receipt
 * proofs are checked against the header's roots by `@ethereumjs/mpt`, the transaction is decoded
 * and its sender recovered by viem, the receipt decoded by `@ethereumjs/rlp`. The pack's maker is
 * trusted for nothing checked here; what stays claimed (its head, its time, its RPC) is said so.
 *
 * Its callers load it when they check a pack (`await import('./context-check')`): the
 * `@ethereumjs` packages cost a noticeable part of the app's start.
 *
 * Where each failure belongs:
 * - the pack as a whole (its manifest signature, its files' digests): steps 2 and 3 fail;
 * - the anchor's block header, the transaction and receipt proofs, the transaction's shape and
 *   the receipt's status: step 2;
 * - the chain of headers from the anchor's block to the pack's head (hashes, parent links, no
 *   gap), a pinned block hash, the depth: step 3.
 */
import { createBlockHeaderFromRLP } from '@ethereumjs/block';
import { createCustomCommon, Hardfork, Mainnet, type Common } from '@ethereumjs/common';
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import {
  bytesToHex,
  hexToBytes,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  type TransactionSerialized,
} from 'viem';
import type { ContextEvidence, ContextHead, PinnedBlock } from '../../src-shared/anchor/context';
import { encodeAnchorHash, type AnchorStep, type ResolvedAnchorRecord } from '../../src-shared/anchor/proof';
import { equalBytes, hexEncode } from '../../src-shared/crypto/encoding';
import { rootFromCalldata } from './chain';
import type { ContextHeaderEntry, OpenedContextPack } from './context-pack';

// ---------------------------------------------------------------------------------------------
// Headers

const commons = new Map<string, Common>();

/**
 * The hardfork whose header fields a header has, by their count (15 before London; 16 London
 * or Paris; 17 Shanghai; 20 Cancun; 21 Prague and later).
 */
function hardforkOfFields(fields: Uint8Array[]): Hardfork | undefined {
  switch (fields.length) {
    case 15:
      return Hardfork.Berlin;
    case 16:
      return (fields[7] as Uint8Array).length === 0 ? Hardfork.Paris : Hardfork.London;
    case 17:
      return Hardfork.Shanghai;
    case 20:
      return Hardfork.Cancun;
    case 21:
      return Hardfork.Prague;
    default:
      return undefined;
  }
}

/**
 * The `@ethereumjs/common` of a chain id at the hardfork a header's fields show.
 *
 * @param chainId - The chain id.
 * @param hardfork - The hardfork.
 * @returns The Common (cached).
 */
export function commonFor(chainId: number, hardfork: Hardfork): Common {
  const key = `${chainId}:${hardfork}`;
  let common = commons.get(key);
  if (common === undefined) {
    common = createCustomCommon({ chainId }, Mainnet, { hardfork });
    commons.set(key, common);
  }
  return common;
}

/** A header decoded by `@ethereumjs/block`. */
export interface DecodedHeader {
  number: number;
  hash: string;
  parentHash: string;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  timestamp: number;
}

/**
 * Decodes one header's RLP with `@ethereumjs/block` and hashes it (keccak-256 of the RLP).
 *
 * @param rlpHex - The RLP as `0x` hex.
 * @param chainId - The chain id (for the Common).
 * @returns The decoded header, or a reason it cannot be decoded.
 */
export function decodeHeader(rlpHex: string, chainId: number): DecodedHeader | { error: string } {
  let bytes: Uint8Array;
  let fields: unknown;
  try {
    bytes = hexToBytes(rlpHex as `0x${string}`);
    fields = RLP.decode(bytes);
  } catch (error) {
    return { error: `its RLP does not decode (${(error as Error).message.slice(0, 120)})` };
  }
  if (!Array.isArray(fields) || fields.some((field) => !(field instanceof Uint8Array)))
    return { error: 'its RLP is not a list of byte strings' };
  const hardfork = hardforkOfFields(fields as Uint8Array[]);
  if (hardfork === undefined) return { error: `it has ${fields.length} fields, which no known hardfork's header has` };
  try {
    const header = createBlockHeaderFromRLP(bytes, {
      common: commonFor(chainId, hardfork),
      skipConsensusFormatValidation: true,
    });
    if (!equalBytes(header.serialize(), bytes)) return { error: 'it does not encode back to the same RLP' };
    return {
      number: Number(header.number),
      hash: bytesToHex(header.hash()),
      parentHash: bytesToHex(header.parentHash),
      transactionsRoot: header.transactionsTrie,
      receiptsRoot: header.receiptTrie,
      timestamp: Number(header.timestamp),
    };
  } catch (error) {
    return {
      error: `it is not a valid ${hardfork} header (${(error as Error).message.split('\n')[0]?.slice(0, 160)})`,
    };
  }
}

/** Each pack's headers by number, and each header decoded once (a pack is checked for many anchors). */
const packHeaders = new WeakMap<OpenedContextPack, Map<number, ContextHeaderEntry>>();
const decodedHeaders = new WeakMap<ContextHeaderEntry, DecodedHeader | { error: string }>();

function headersByNumber(pack: OpenedContextPack): Map<number, ContextHeaderEntry> {
  let byNumber = packHeaders.get(pack);
  if (byNumber === undefined) {
    byNumber = new Map();
    for (const entry of pack.headers) if (!byNumber.has(entry.number)) byNumber.set(entry.number, entry);
    packHeaders.set(pack, byNumber);
  }
  return byNumber;
}

function decodedHeader(pack: OpenedContextPack, entry: ContextHeaderEntry): DecodedHeader | { error: string } {
  let decoded = decodedHeaders.get(entry);
  if (decoded === undefined) {
    decoded = decodeHeader(entry.rlp, pack.manifest.chain_id);
    decodedHeaders.set(entry, decoded);
  }
  return decoded;
}

/** What the headers from one block to the pack's head show. */
type ChainCheck = { ok: true; headers: Map<number, DecodedHeader> } | { ok: false; detail: string };

/** Headers checked between two turns of the event loop (about a quarter of a second's work). */
const HEADERS_PER_TURN = 1_000;
/** Headers checked between two progress reports. */
export const HEADERS_PER_PROGRESS = 10_000;

/** What a long check of headers reports: headers checked so far, of how many. */
export type HeaderProgress = (checked: number, total: number) => void;

/**
 * Checks the pack's headers from `from` to its head: each decodes and hashes to the hash the
 * pack gives, numbers follow each other with no gap, each names the previous one as its parent,
 * and the last is the manifest's head. A header costs about a quarter of a millisecond, so a
 * long chain yields to the event loop every {@link HEADERS_PER_TURN} headers (the app and its
 * HTTP door keep answering) and reports every {@link HEADERS_PER_PROGRESS}.
 */
async function checkHeaderChain(
  pack: OpenedContextPack,
  from: number,
  onProgress?: HeaderProgress,
): Promise<ChainCheck> {
  const head = pack.manifest.head;
  const byNumber = headersByNumber(pack);
  const decoded = new Map<number, DecodedHeader>();
  const total = head.number - from + 1;
  let previous: DecodedHeader | undefined;
  for (let number = from; number <= head.number; number += 1) {
    const done = number - from;
    if (done > 0 && done % HEADERS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    if (done > 0 && done % HEADERS_PER_PROGRESS === 0) onProgress?.(done, total);
    const entry = byNumber.get(number);
    if (entry === undefined)
      return {
        ok: false,
        detail: `The pack's chain of headers has a gap: block ${number} is missing between block ${from} and the head ${head.number}.`,
      };
    const header = decodedHeader(pack, entry);
    if ('error' in header)
      return { ok: false, detail: `The pack's header of block ${number} cannot be used: ${header.error}.` };
    if (header.number !== number)
      return {
        ok: false,
        detail: `The pack's header listed as block ${number} is the header of block ${header.number}.`,
      };
    if (header.hash !== entry.hash)
      return {
        ok: false,
        detail: `The pack's header of block ${number} hashes to ${header.hash}, not ${entry.hash} as the pack says: it was edited.`,
      };
    if (previous !== undefined && header.parentHash !== previous.hash)
      return {
        ok: false,
        detail: `The pack's header of block ${number} names parent ${header.parentHash}, not block ${number - 1}'s hash ${previous.hash}: the chain of headers is broken.`,
      };
    decoded.set(number, header);
    previous = header;
  }
  if (previous === undefined || previous.hash !== head.hash)
    return { ok: false, detail: `The pack's last header is not its head ${head.number} (${head.hash}).` };
  return { ok: true, headers: decoded };
}

// ---------------------------------------------------------------------------------------------
// Steps 2 and 3

function evidenceOf(pack: OpenedContextPack, pinned: ContextHead | undefined): ContextEvidence {
  const { manifest } = pack;
  return {
    pack_id: pack.pack_id,
    made_at: manifest.made_at,
    rpc: manifest.rpc,
    chain_id: manifest.chain_id,
    head: { number: manifest.head.number, hash: manifest.head.hash },
    head_trust: pinned === undefined ? 'claimed' : 'checked',
    ...(pinned === undefined ? {} : { pinned }),
    signer: manifest.signer,
  };
}

async function proven(proof: string[], root: Uint8Array, key: Uint8Array): Promise<Uint8Array | null | 'invalid'> {
  try {
    return await verifyMerkleProof(
      key,
      proof.map((node) => hexToBytes(node as `0x${string}`)),
      { root } as never,
    );
  } catch {
    return 'invalid';
  }
}

/** The status field of a consensus-encoded receipt: 1 success, 0 failure; undefined if unreadable. */
function receiptStatus(raw: Uint8Array): { status: 'success' | 'failure' | 'pre-byzantium' } | undefined {
  try {
    const body = raw.length > 0 && (raw[0] as number) < 0x80 ? raw.subarray(1) : raw;
    const fields = RLP.decode(body);
    if (!Array.isArray(fields) || fields.length !== 4) return undefined;
    const first = fields[0];
    if (!(first instanceof Uint8Array)) return undefined;
    if (first.length === 32) return { status: 'pre-byzantium' };
    if (first.length === 0) return { status: 'failure' };
    if (first.length === 1 && first[0] === 1) return { status: 'success' };
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * Steps 2 and 3 of one anchor record, answered from a pack with no network.
 *
 * @param pack - The opened pack.
 * @param record - The resolved record (step 1 passed).
 * @param confirmations - The depth step 3 requires.
 * @param pins - Pinned block hashes (those of other chains, or outside the pack, are ignored).
 * @returns Steps 2 and 3, each with `evidence: 'context'` and the pack, or `unchecked` with
 *   what is missing when the pack does not carry this anchor.
 */
export async function checkContextAnchor(
  pack: OpenedContextPack,
  record: ResolvedAnchorRecord,
  confirmations: number,
  pins: readonly PinnedBlock[] = [],
): Promise<[AnchorStep, AnchorStep]> {
  const { manifest } = pack;
  const txHash = record.tx_hash.toLowerCase();
  const unchecked = (detail: string): [AnchorStep, AnchorStep] => [
    { step: 2, status: 'unchecked', detail },
    { step: 3, status: 'unchecked', detail },
  ];
  const entry = pack.anchors.get(txHash);
  if (entry === undefined) {
    if (record.block_height > manifest.head.number)
      return unchecked(
        `The context pack ${pack.pack_id} is older than block ${record.block_height}: its head is block ${manifest.head.number} (made ${manifest.made_at}), so it cannot carry transaction ${txHash}. Make a new pack online.`,
      );
    return unchecked(
      `The context pack ${pack.pack_id} carries no evidence for transaction ${txHash} (it carries ${pack.anchors.size} anchor transaction${pack.anchors.size === 1 ? '' : 's'}). Make a pack with this anchor online.`,
    );
  }
  // A pin that disagrees with the pack, or agrees with a header at or above the anchor's block.
  const chainPins = pins.filter((pin) => pin.chain_id === manifest.chain_id);
  const base = (pinned: ContextHead | undefined): Pick<AnchorStep, 'evidence' | 'context'> => ({
    evidence: 'context',
    context: evidenceOf(pack, pinned),
  });
  const fail = (step: 2 | 3, detail: string, pinned?: ContextHead): AnchorStep => ({
    step,
    status: 'fail',
    detail,
    ...base(pinned),
  });
  if (!pack.integrity.ok) return [fail(2, pack.integrity.detail), fail(3, pack.integrity.detail)];
  const notChecked: AnchorStep = {
    step: 3,
    status: 'unchecked',
    detail: 'Step 2 failed, so the depth was not counted.',
  };

  // Step 2: the anchor's block header, the proofs, the transaction, the receipt.
  const headerEntry = headersByNumber(pack).get(record.block_height);
  if (entry.block_number !== record.block_height)
    return [
      fail(
        2,
        `The pack puts transaction ${txHash} in block ${entry.block_number}, not block ${record.block_height} as the record says.`,
      ),
      notChecked,
    ];
  if (headerEntry === undefined)
    return [
      fail(
        2,
        `The pack carries no header of block ${record.block_height}, so the transaction's block cannot be checked.`,
      ),
      notChecked,
    ];
  const header = decodedHeader(pack, headerEntry);
  if ('error' in header)
    return [fail(2, `The pack's header of block ${record.block_height} cannot be used: ${header.error}.`), notChecked];
  if (header.number !== record.block_height || header.hash !== headerEntry.hash)
    return [
      fail(
        2,
        `The pack's header of block ${record.block_height} hashes to ${header.hash}, not ${headerEntry.hash} as the pack says: it was edited.`,
      ),
      notChecked,
    ];
  if (entry.block_hash !== header.hash)
    return [
      fail(
        2,
        `The pack names block hash ${entry.block_hash} for transaction ${txHash}, but block ${record.block_height}'s header hashes to ${header.hash}.`,
      ),
      notChecked,
    ];
  const key = RLP.encode(entry.tx_index);
  const txValue = await proven(entry.tx_proof, header.transactionsRoot, key);
  const rawTx = hexToBytes(entry.transaction.raw as `0x${string}`);
  if (txValue === 'invalid' || txValue === null || !equalBytes(txValue, rawTx))
    return [
      fail(
        2,
        `The transaction proof does not prove transaction ${txHash} at index ${entry.tx_index} of block ${record.block_height}: it does not lead from the header's transactionsRoot ${bytesToHex(header.transactionsRoot)} to the transaction's bytes.`,
      ),
      notChecked,
    ];
  if (keccak256(rawTx) !== txHash)
    return [fail(2, `The proven transaction hashes to ${keccak256(rawTx)}, not ${txHash}.`), notChecked];
  let from: string;
  let decoded: ReturnType<typeof parseTransaction>;
  try {
    decoded = parseTransaction(entry.transaction.raw as TransactionSerialized);
    from = (
      await recoverTransactionAddress({ serializedTransaction: entry.transaction.raw as TransactionSerialized })
    ).toLowerCase();
  } catch (error) {
    return [
      fail(2, `Transaction ${txHash} cannot be decoded: ${(error as Error).message.split('\n')[0]?.slice(0, 160)}.`),
      notChecked,
    ];
  }
  const root = rootFromCalldata(decoded.data ?? '0x');
  if (root === undefined)
    return [
      fail(2, `Transaction ${txHash} carries no anchor root: its data is not 0x4556524101 and 32 bytes.`),
      notChecked,
    ];
  if (!equalBytes(root, record.merkle_root))
    return [
      fail(
        2,
        `Transaction ${txHash} carries root sha256:${hexEncode(root)}, not merkle_root ${encodeAnchorHash(record.merkle_root)}.`,
      ),
      notChecked,
    ];
  if (decoded.to === undefined || decoded.to === null || decoded.to.toLowerCase() !== from)
    return [fail(2, `Transaction ${txHash} is not from the anchor account to itself.`), notChecked];
  if ((decoded.value ?? 0n) !== 0n)
    return [fail(2, `Transaction ${txHash} moves value; an anchor transaction has value 0.`), notChecked];
  const receiptValue = await proven(entry.receipt_proof, header.receiptsRoot, key);
  const rawReceipt = hexToBytes(entry.receipt.raw as `0x${string}`);
  if (receiptValue === 'invalid' || receiptValue === null || !equalBytes(receiptValue, rawReceipt))
    return [
      fail(
        2,
        `The receipt proof does not prove the receipt at index ${entry.tx_index} of block ${record.block_height}: it does not lead from the header's receiptsRoot ${bytesToHex(header.receiptsRoot)} to the receipt's bytes.`,
      ),
      notChecked,
    ];
  const status = receiptStatus(rawReceipt);
  if (status?.status !== 'success')
    return [
      fail(
        2,
        `Transaction ${txHash} did not succeed: its proven receipt's status is ${status === undefined ? 'unreadable' : status.status}.`,
      ),
      notChecked,
    ];
  const two: AnchorStep = {
    step: 2,
    status: 'pass',
    detail: `Transaction ${txHash} is proved at index ${entry.tx_index} of block ${record.block_height} (${header.hash}) by the pack, from ${from} to itself, carries merkle_root, and its proven receipt succeeded.`,
    ...base(undefined),
  };

  // Step 3: the headers from the anchor's block to the pack's head; pins; the depth.
  const chain = await checkHeaderChain(pack, record.block_height);
  if (!chain.ok) return [two, fail(3, chain.detail)];
  let pinned: ContextHead | undefined;
  for (const pin of chainPins) {
    const carried = headersByNumber(pack).get(pin.number);
    if (carried === undefined) continue;
    const hash = chain.headers.get(pin.number)?.hash ?? carried.hash;
    if (hash !== pin.hash.toLowerCase())
      return [
        two,
        fail(
          3,
          `Block ${pin.number} is pinned as ${pin.hash}, but the pack's header of block ${pin.number} is ${hash}: the pack is not on the pinned chain.`,
        ),
      ];
    if (pin.number >= record.block_height && (pinned === undefined || pin.number > pinned.number))
      pinned = { number: pin.number, hash };
  }
  const head = manifest.head.number;
  const depth = head - record.block_height + 1;
  const trust =
    pinned === undefined
      ? `the pack's head block ${head} is claimed by its signer ${manifest.signer} (no pinned block hash checks it)`
      : `pinned block ${pinned.number} (${pinned.hash}) checks the chain from block ${record.block_height} up to it`;
  const detail = `${depth} confirmations counted in the pack (head block ${head}, made ${manifest.made_at}); ${confirmations} required; ${trust}.`;
  const withPin = base(pinned);
  const twoFinal: AnchorStep = { ...two, ...withPin };
  if (depth >= confirmations) return [twoFinal, { step: 3, status: 'pass', detail, ...withPin }];
  return [twoFinal, { step: 3, status: 'fail', detail, ...withPin }];
}

/**
 * Checks a pack as a whole, for its import: its signature and digests, and its whole chain of
 * headers (from its first header to its head).
 *
 * @param pack - The opened pack.
 * @param onProgress - Called every {@link HEADERS_PER_PROGRESS} headers checked (a pack of
 *   200,000 headers takes about a minute).
 * @returns Whether it holds, or what does not.
 */
export async function checkContextPackWhole(
  pack: OpenedContextPack,
  onProgress?: HeaderProgress,
): Promise<{ ok: true } | { ok: false; detail: string }> {
  if (!pack.integrity.ok) return pack.integrity;
  const chain = await checkHeaderChain(pack, pack.manifest.headers.from, onProgress);
  if (!chain.ok) return chain;
  for (const anchor of pack.manifest.anchors) {
    if (chain.headers.get(anchor.block_number)?.hash !== anchor.block_hash)
      return {
        ok: false,
        detail: `The pack names block ${anchor.block_number} ${anchor.block_hash}, which its headers do not hold.`,
      };
  }
  return { ok: true };
}
