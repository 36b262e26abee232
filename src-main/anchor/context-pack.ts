/**
 * Context packs, offline side (docs/anchoring.md, "Air-gapped verification"): reading a pack's
 * contents and answering anchoring steps 2 and 3 from them with no network.
 *
 * Everything here is checked with real libraries: block headers are decoded and hashed by
 * `@ethereumjs/block` (keccak-256 of their RLP, fields per hardfork), the transaction and receipt
 * proofs are checked against the header's roots by `@ethereumjs/mpt`, the transaction is decoded
 * and its sender recovered by viem, the receipt decoded by `@ethereumjs/rlp`. The pack's maker is
 * trusted for nothing checked here; what stays claimed (its head, its time, its RPC) is said so.
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
import { CONTEXT_PACK_FORMAT } from '../../src-shared/anchor/context';
import { encodeAnchorHash, type AnchorStep, type ResolvedAnchorRecord } from '../../src-shared/anchor/proof';
import { DomainError } from '../../src-shared/api/domain-error';
import { didKeyFromEd25519, ed25519FromDidKey } from '../../src-shared/crypto';
import { b64uDecode, b64uEncode, equalBytes, hexEncode } from '../../src-shared/crypto/encoding';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import { jcs, jcsTree, JsonParseError, parseJsonBytes, toPlain } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { rootFromCalldata } from './chain';

/**
 * One transparency-log checkpoint the pack's maker had seen (docs/logs.md): the signed note as
 * seen, and the Ed25519 log key that verified it there. The key is the maker's word: the
 * workstation that imports the pack checks the note with it, and whether the key is pinned is
 * the workstation's own trust store's answer, never the pack's.
 */
export interface ContextCheckpointEntry {
  origin: string;
  key_name: string;
  /** The whole signed note. */
  note: string;
  /** base64url of the 32-byte Ed25519 log key. */
  public_key: string;
}

/** The manifest's name in the pack. */
export const CONTEXT_MANIFEST = 'manifest.json';
/** The manifest signature's name in the pack. */
export const CONTEXT_SIGNATURE = 'manifest.sig.json';
/** The most headers per file of the pack (`headers/<index>.json`, about 13 MB each). */
export const CONTEXT_HEADERS_PER_FILE = 10_000;
/** The trust store snapshot's name in the pack. */
export const CONTEXT_TRUST = 'trust/keys.json';
/** The log checkpoints' file in the pack (issue 28: the checkpoints the maker had seen). */
export const CONTEXT_CHECKPOINTS = 'logs/checkpoints.json';
/** The most log checkpoints one pack carries. */
export const MAX_CONTEXT_CHECKPOINTS = 10_000;
/** The most anchor transactions one pack carries. */
export const MAX_CONTEXT_ANCHORS = 10_000;
/** The most headers one pack carries (about 27 days of Ethereum blocks, 4.6 days of Base; ~270 MB). */
export const MAX_CONTEXT_HEADERS = 200_000;

/** The file of the `index`-th run of {@link CONTEXT_HEADERS_PER_FILE} headers. */
export function contextHeadersFile(index: number): string {
  return `headers/${index}.json`;
}

/** The file of an anchor transaction's evidence in the pack. */
export function contextAnchorFile(txHash: string): string {
  return `anchors/${txHash.toLowerCase()}.json`;
}

/** One block header as the pack carries it. */
export interface ContextHeaderEntry {
  number: number;
  /** `0x` and 64 hex: keccak-256 of `rlp`. */
  hash: string;
  /** The header's RLP as `0x` hex. */
  rlp: string;
}

/** One anchor transaction's evidence. */
export interface ContextAnchorEntry {
  tx_hash: string;
  block_number: number;
  block_hash: string;
  tx_index: number;
  /** The block's header as the RPC answered it (for people; the checks use the RLP of the headers files). */
  header: Record<string, unknown>;
  /** The transaction as the RPC answered it, and its canonical encoding (the trie's value). */
  transaction: { rpc: Record<string, unknown>; raw: string };
  /** The receipt as the RPC answered it, and its consensus encoding (the trie's value). */
  receipt: { rpc: Record<string, unknown>; raw: string };
  /** The transactions trie's nodes from the root to the leaf at rlp(tx_index), `0x` hex each. */
  tx_proof: string[];
  /** The receipts trie's nodes from the root to the leaf at rlp(tx_index), `0x` hex each. */
  receipt_proof: string[];
}

/** The pack's manifest (its JCS bytes are what the signature covers). */
export interface ContextManifest {
  format: typeof CONTEXT_PACK_FORMAT;
  /** RFC 3339 UTC. */
  made_at: string;
  rpc: string;
  chain_id: number;
  head: ContextHead;
  /** did:key of the key that signs the manifest. */
  signer: string;
  anchors: { tx_hash: string; block_number: number; block_hash: string; file: string }[];
  /** The headers from `from` to `to` (the head), {@link CONTEXT_HEADERS_PER_FILE} per file. */
  headers: { from: number; to: number; files: string[] };
  /** Every other file of the pack and the hex SHA-256 of its bytes. */
  files: Record<string, string>;
}

/** The manifest signature file. */
export interface ContextSignatureFile {
  alg: 'Ed25519';
  key_id: string;
  /** base64url of the 64-byte signature of the manifest's bytes. */
  signature: string;
}

/** A pack read and checked as a whole (signature, digests); its evidence is checked per anchor. */
export interface OpenedContextPack {
  pack_id: string;
  manifest: ContextManifest;
  /** Whether the manifest's signature and the files' digests hold; `detail` says what failed. */
  integrity: { ok: true } | { ok: false; detail: string };
  /** The headers, in the pack's order. */
  headers: ContextHeaderEntry[];
  /** Each anchor transaction's evidence, by lowercase hash. */
  anchors: Map<string, ContextAnchorEntry>;
  /** The log checkpoints it carries (none in a pack made before logs, or by a maker who had seen none). */
  checkpoints: ContextCheckpointEntry[];
}

/** A pack that cannot be read as one (not what it claims to be); nothing in it is used. */
export class ContextPackError extends DomainError {
  override readonly code = 'context_pack_invalid';
  override readonly kind = 'invalid_input';
  constructor(message: string) {
    super(message);
    this.name = 'ContextPackError';
  }
}

const HASH_PATTERN = /^0x[0-9a-f]{64}$/;
const HEX_PATTERN = /^0x(?:[0-9a-f]{2})*$/;
const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function fail(where: string, message: string): never {
  throw new ContextPackError(`The context pack's ${where} ${message}`);
}

function parseStrictJson(bytes: Uint8Array, where: string): { plain: unknown; canonical: boolean } {
  try {
    const tree = parseJsonBytes(bytes);
    return { plain: toPlain(tree), canonical: jcsTree(tree) === new TextDecoder().decode(bytes) };
  } catch (error) {
    if (error instanceof JsonParseError) fail(where, `is not strict JSON: ${error.message}`);
    throw error;
  }
}

function checkManifest(value: unknown): ContextManifest {
  if (!isRecord(value)) fail(CONTEXT_MANIFEST, 'is not a JSON object.');
  const m = value;
  if (m.format !== CONTEXT_PACK_FORMAT)
    fail(CONTEXT_MANIFEST, `has format ${JSON.stringify(m.format)}; this program reads ${CONTEXT_PACK_FORMAT}.`);
  if (typeof m.made_at !== 'string' || !INSTANT_PATTERN.test(m.made_at))
    fail(CONTEXT_MANIFEST, 'has no made_at instant (RFC 3339, UTC).');
  if (typeof m.rpc !== 'string' || m.rpc.length === 0 || m.rpc.length > 2048) fail(CONTEXT_MANIFEST, 'names no rpc.');
  if (!isCount(m.chain_id) || m.chain_id === 0) fail(CONTEXT_MANIFEST, 'has no chain_id.');
  const head = m.head;
  if (!isRecord(head) || !isCount(head.number) || typeof head.hash !== 'string' || !HASH_PATTERN.test(head.hash))
    fail(CONTEXT_MANIFEST, 'has no head {number, hash}.');
  if (typeof m.signer !== 'string') fail(CONTEXT_MANIFEST, 'names no signer.');
  try {
    ed25519FromDidKey(m.signer);
  } catch {
    fail(CONTEXT_MANIFEST, `names signer ${JSON.stringify(m.signer.slice(0, 80))}, which is not an Ed25519 did:key.`);
  }
  if (!Array.isArray(m.anchors) || m.anchors.length > MAX_CONTEXT_ANCHORS)
    fail(CONTEXT_MANIFEST, `has no anchors list of at most ${MAX_CONTEXT_ANCHORS}.`);
  for (const [index, anchor] of m.anchors.entries()) {
    if (
      !isRecord(anchor) ||
      typeof anchor.tx_hash !== 'string' ||
      !HASH_PATTERN.test(anchor.tx_hash) ||
      !isCount(anchor.block_number) ||
      typeof anchor.block_hash !== 'string' ||
      !HASH_PATTERN.test(anchor.block_hash) ||
      anchor.file !== contextAnchorFile(anchor.tx_hash)
    )
      fail(CONTEXT_MANIFEST, `has an unusable anchors/${index} entry.`);
  }
  const headers = m.headers;
  if (!isRecord(headers) || !isCount(headers.from) || !isCount(headers.to) || !Array.isArray(headers.files))
    fail(CONTEXT_MANIFEST, 'has no headers {from, to, files}.');
  if (headers.to !== head.number || headers.from > headers.to || headers.to - headers.from + 1 > MAX_CONTEXT_HEADERS)
    fail(CONTEXT_MANIFEST, 'has a headers range that does not end at its head or is too long.');
  const fewest = Math.ceil((headers.to - headers.from + 1) / CONTEXT_HEADERS_PER_FILE);
  if (
    headers.files.length < fewest ||
    headers.files.length > headers.to - headers.from + 1 ||
    headers.files.some((name, index) => name !== contextHeadersFile(index))
  )
    fail(CONTEXT_MANIFEST, 'does not list its headers as files headers/0.json, headers/1.json, ... in order.');
  if (!isRecord(m.files)) fail(CONTEXT_MANIFEST, 'has no files map.');
  for (const [name, digest] of Object.entries(m.files)) {
    if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest))
      fail(CONTEXT_MANIFEST, `gives file ${JSON.stringify(name)} no SHA-256.`);
  }
  return m as unknown as ContextManifest;
}

function checkHeaders(value: unknown, file: string): ContextHeaderEntry[] {
  if (!Array.isArray(value) || value.length > CONTEXT_HEADERS_PER_FILE)
    fail(file, `is not a list of at most ${CONTEXT_HEADERS_PER_FILE} headers.`);
  return value.map((entry, index) => {
    if (
      !isRecord(entry) ||
      !isCount(entry.number) ||
      typeof entry.hash !== 'string' ||
      !HASH_PATTERN.test(entry.hash) ||
      typeof entry.rlp !== 'string' ||
      !HEX_PATTERN.test(entry.rlp)
    )
      fail(file, `entry ${index} is not {number, hash, rlp} with lowercase 0x hex.`);
    return { number: entry.number, hash: entry.hash, rlp: entry.rlp };
  });
}

function checkHexList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > 64) fail(where, 'is not a list of trie nodes.');
  for (const node of value)
    if (typeof node !== 'string' || !HEX_PATTERN.test(node)) fail(where, 'has a node that is not 0x hex.');
  return value as string[];
}

function checkAnchorEntry(value: unknown, file: string): ContextAnchorEntry {
  if (!isRecord(value)) fail(file, 'is not a JSON object.');
  const e = value;
  if (typeof e.tx_hash !== 'string' || !HASH_PATTERN.test(e.tx_hash)) fail(file, 'has no tx_hash.');
  if (!isCount(e.block_number) || !isCount(e.tx_index)) fail(file, 'has no block_number or tx_index.');
  if (typeof e.block_hash !== 'string' || !HASH_PATTERN.test(e.block_hash)) fail(file, 'has no block_hash.');
  if (!isRecord(e.header)) fail(file, 'has no header.');
  for (const part of ['transaction', 'receipt'] as const) {
    const item = e[part];
    if (!isRecord(item) || !isRecord(item.rpc) || typeof item.raw !== 'string' || !HEX_PATTERN.test(item.raw))
      fail(file, `has no ${part} {rpc, raw}.`);
  }
  checkHexList(e.tx_proof, `${file} tx_proof`);
  checkHexList(e.receipt_proof, `${file} receipt_proof`);
  return e as unknown as ContextAnchorEntry;
}

/**
 * The pack id: `ctx_` and the first 32 hex characters of SHA-256 of the manifest's bytes.
 *
 * @param crypto - The crypto provider.
 * @param manifestBytes - The manifest's bytes.
 * @returns The id.
 */
export function contextPackId(crypto: CryptoProvider, manifestBytes: Uint8Array): string {
  return `ctx_${hexEncode(crypto.sha256(manifestBytes)).slice(0, 32)}`;
}

/**
 * Reads a pack from its files and checks it as a whole: the manifest (strict, canonical JSON),
 * its signature by the key it names, and every file's SHA-256 against the manifest. A signature
 * or digest that does not hold is not thrown: it is kept in `integrity`, and steps 2 and 3 fail
 * with it ({@link checkContextAnchor}).
 *
 * @param files - The pack's files by name (the zip's entries, src-main/evidence/context-zip.ts).
 * @param crypto - The crypto provider (SHA-256, Ed25519).
 * @returns The opened pack.
 * @throws ContextPackError when a file is missing, is not strict JSON, or does not have the
 *   shape of its kind.
 */
export function openContextPack(files: ReadonlyMap<string, Uint8Array>, crypto: CryptoProvider): OpenedContextPack {
  const manifestBytes = files.get(CONTEXT_MANIFEST);
  if (manifestBytes === undefined) throw new ContextPackError(`The context pack has no ${CONTEXT_MANIFEST}.`);
  const signatureBytes = files.get(CONTEXT_SIGNATURE);
  if (signatureBytes === undefined) throw new ContextPackError(`The context pack has no ${CONTEXT_SIGNATURE}.`);
  const parsedManifest = parseStrictJson(manifestBytes, CONTEXT_MANIFEST);
  if (!parsedManifest.canonical)
    fail(CONTEXT_MANIFEST, 'is not in canonical form (JCS), so its signature cannot be checked.');
  const manifest = checkManifest(parsedManifest.plain);
  const signature = parseStrictJson(signatureBytes, CONTEXT_SIGNATURE).plain;
  if (
    !isRecord(signature) ||
    signature.alg !== 'Ed25519' ||
    typeof signature.key_id !== 'string' ||
    typeof signature.signature !== 'string'
  )
    fail(CONTEXT_SIGNATURE, 'is not {alg: "Ed25519", key_id, signature}.');
  let integrity: OpenedContextPack['integrity'] = { ok: true };
  if (signature.key_id !== manifest.signer) {
    integrity = {
      ok: false,
      detail: `The context pack's manifest names signer ${manifest.signer}, but its signature is by ${signature.key_id.slice(0, 120)}.`,
    };
  } else {
    let signatureOk = false;
    try {
      signatureOk = crypto.ed25519Verify(
        b64uDecode(signature.signature),
        manifestBytes,
        ed25519FromDidKey(manifest.signer),
      );
    } catch {
      signatureOk = false;
    }
    if (!signatureOk)
      integrity = {
        ok: false,
        detail: `The context pack's manifest signature does not verify with the key it names (${manifest.signer}): the pack was changed or signed by another key.`,
      };
  }
  const expected = new Set([CONTEXT_MANIFEST, CONTEXT_SIGNATURE, ...Object.keys(manifest.files)]);
  for (const name of files.keys())
    if (!expected.has(name))
      throw new ContextPackError(`The context pack holds ${name}, which its manifest does not list.`);
  for (const required of [...manifest.headers.files, ...manifest.anchors.map((anchor) => anchor.file)]) {
    if (manifest.files[required] === undefined) fail(CONTEXT_MANIFEST, `does not list ${required}.`);
  }
  for (const [name, digest] of Object.entries(manifest.files)) {
    const bytes = files.get(name);
    if (bytes === undefined) throw new ContextPackError(`The context pack has no ${name}, which its manifest lists.`);
    if (integrity.ok && hexEncode(crypto.sha256(bytes)) !== digest)
      integrity = {
        ok: false,
        detail: `The context pack's ${name} does not match the SHA-256 its signed manifest gives: the file was changed after signing.`,
      };
  }
  const headers = manifest.headers.files.flatMap((name) =>
    checkHeaders(parseStrictJson(files.get(name) as Uint8Array, name).plain, name),
  );
  const anchors = new Map<string, ContextAnchorEntry>();
  for (const listed of manifest.anchors) {
    const entry = checkAnchorEntry(
      parseStrictJson(files.get(listed.file) as Uint8Array, listed.file).plain,
      listed.file,
    );
    anchors.set(listed.tx_hash, entry);
  }
  const checkpointBytes =
    manifest.files[CONTEXT_CHECKPOINTS] === undefined ? undefined : files.get(CONTEXT_CHECKPOINTS);
  const checkpoints =
    checkpointBytes === undefined
      ? []
      : checkCheckpointEntries(parseStrictJson(checkpointBytes, CONTEXT_CHECKPOINTS).plain, CONTEXT_CHECKPOINTS);
  return { pack_id: contextPackId(crypto, manifestBytes), manifest, integrity, headers, anchors, checkpoints };
}

const B64U_32 = /^[A-Za-z0-9_-]{43}$/;

function checkCheckpointEntries(value: unknown, name: string): ContextCheckpointEntry[] {
  if (!Array.isArray(value)) fail(name, 'is not a list of checkpoints.');
  if (value.length > MAX_CONTEXT_CHECKPOINTS)
    fail(name, `holds ${value.length} checkpoints; a pack carries at most ${MAX_CONTEXT_CHECKPOINTS}.`);
  return value.map((item: unknown, index) => {
    const where = `entry ${index}`;
    if (!isRecord(item)) fail(name, `${where} is not an object.`);
    const keys = Object.keys(item).sort().join(',');
    if (keys !== 'key_name,note,origin,public_key')
      fail(name, `${where} must have exactly origin, key_name, note and public_key (it has ${keys.slice(0, 120)}).`);
    const { origin, key_name: keyName, note, public_key: publicKey } = item;
    if (typeof origin !== 'string' || origin.length === 0 || origin.length > 512)
      fail(name, `${where}: origin must be a line of 1 to 512 characters.`);
    if (typeof keyName !== 'string' || keyName.length === 0 || keyName.length > 512)
      fail(name, `${where}: key_name must be 1 to 512 characters.`);
    if (typeof note !== 'string' || note.length === 0 || note.length > 1024 * 1024)
      fail(name, `${where}: note must be a signed note of at most 1 MiB.`);
    if (typeof publicKey !== 'string' || !B64U_32.test(publicKey))
      fail(name, `${where}: public_key must be a 32-byte Ed25519 key as base64url.`);
    return { origin, key_name: keyName, note, public_key: publicKey };
  });
}

/**
 * The canonical bytes of a manifest and its signature file, signed with an Ed25519 seed.
 *
 * @param manifest - The manifest (its `signer` must be the seed's did:key).
 * @param crypto - The crypto provider.
 * @param seed - The 32-byte secret seed (not kept).
 * @returns The manifest's JCS bytes and the signature file's bytes.
 */
export function signContextManifest(
  manifest: ContextManifest,
  crypto: CryptoProvider,
  seed: Uint8Array,
): { manifest: Uint8Array; signature: Uint8Array } {
  const publicKey = crypto.ed25519PublicKey(seed);
  if (didKeyFromEd25519(publicKey) !== manifest.signer)
    throw new RangeError('signContextManifest: the manifest names another signer than this key');
  const bytes = new TextEncoder().encode(jcs(manifest as unknown as JsonValue));
  const file: ContextSignatureFile = {
    alg: 'Ed25519',
    key_id: manifest.signer,
    signature: b64uEncode(crypto.ed25519Sign(bytes, seed)),
  };
  return { manifest: bytes, signature: new TextEncoder().encode(`${JSON.stringify(file, null, 2)}\n`) };
}

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

/**
 * Checks the pack's headers from `from` to its head: each decodes and hashes to the hash the
 * pack gives, numbers follow each other with no gap, each names the previous one as its parent,
 * and the last is the manifest's head.
 */
function checkHeaderChain(pack: OpenedContextPack, from: number): ChainCheck {
  const head = pack.manifest.head;
  const byNumber = headersByNumber(pack);
  const decoded = new Map<number, DecodedHeader>();
  let previous: DecodedHeader | undefined;
  for (let number = from; number <= head.number; number += 1) {
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
  const chain = checkHeaderChain(pack, record.block_height);
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
 * @returns Whether it holds, or what does not.
 */
export function checkContextPackWhole(pack: OpenedContextPack): { ok: true } | { ok: false; detail: string } {
  if (!pack.integrity.ok) return pack.integrity;
  const chain = checkHeaderChain(pack, pack.manifest.headers.from);
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

/**
 * The pack, required to be signed by one key: a pack whose (verified) signer is another key
 * fails steps 2 and 3 as a pack whose signature does not verify does.
 *
 * @param pack - The opened pack.
 * @param signer - The did:key the user expects.
 * @returns The pack, its integrity failed when the signer differs.
 */
export function requireContextSigner(pack: OpenedContextPack, signer: string): OpenedContextPack {
  if (!pack.integrity.ok || pack.manifest.signer === signer) return pack;
  return {
    ...pack,
    integrity: {
      ok: false,
      detail: `The context pack is signed by ${pack.manifest.signer}, not by ${signer} as required.`,
    },
  };
}
