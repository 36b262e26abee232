/**
 * Context packs, the format (docs/anchoring.md, "Air-gapped verification"): a pack's files, its
 * manifest and its signature; reading a pack's contents and checking it as a whole (signature,
 * digests, every file's shape).
 *
 * What the headers, proofs, transactions and receipts prove (steps 2 and 3) is
 * src-main/anchor/context-check.ts's business: it needs the `@ethereumjs` packages, which are
 * loaded only when a pack is checked (`await import('./context-check')`), so that neither the
 * app nor a CLI command that never meets a pack pays for loading them.
 */
import { CONTEXT_PACK_FORMAT } from '../../src-shared/anchor/context';
import type { ContextHead } from '../../src-shared/anchor/context';
import { DomainError } from '../../src-shared/api/domain-error';
import { didKeyFromEd25519, ed25519FromDidKey } from '../../src-shared/crypto';
import { b64uDecode, b64uEncode, hexEncode } from '../../src-shared/crypto/encoding';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import { jcs, jcsTree, JsonParseError, parseJsonBytes, toPlain } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';

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
