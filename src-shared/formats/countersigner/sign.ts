/**
 * Countersigning as the real countersigner does (PROTOCOL section 5), for `evroom sign`, the
 * samples, tests and benchmarks: the countersign answer for a record, and the inclusion answer
 * and verify request built from entries of a log.
 *
 * The log lives with the caller: an entry's `seq` and `prev_leaf` come from the leaves before it
 * (none: seq 1 and the genesis leaf), and `log_root_after` is the root over them and the new leaf.
 */
import { b64Encode, isBytes, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { fromPlain, skp } from '../../json';
import { pythonFloatRepr, pythonJsonDumps } from '../../json/python-dumps';
import type { JsonNode, JsonObjectNode, JsonValue } from '../../json/types';
import { auditPath, genesisLeaf, leafHash, logRoot, taggedHash } from './log';

/** What the countersigner is asked to countersign (the body of its `POST /countersign`). */
export interface CountersignRequest {
  /** The record: a JSON object as a tree (number spellings kept; `fromPlain` makes one). */
  record: JsonNode;
  /** The operator's signature over the record, as text; only its tagged hash is kept. */
  operator_signature: string;
  /** Default `unstated`, as the producer writes when none is sent. */
  operator_signature_scheme?: string;
}

/** Options for {@link countersign}. */
export interface CountersignOptions {
  /** The countersigner's clock: Unix seconds (written as a Python float). */
  time: number;
  /** The leaves of the log's earlier entries, in order (default none: this is entry 1). */
  previousLeaves?: readonly string[];
}

/** One countersigned log entry and its countersign answer. */
export interface CountersignedEntry {
  seq: number;
  leaf: string;
  /** The `signed_over` object as a tree (its time spelled as Python writes it). */
  signedOver: JsonObjectNode;
  /** C(signed_over), the signed text. */
  canonical: string;
  /** Standard base64 of the Ed25519 countersignature. */
  countersignature: string;
  /** Standard base64 of the countersigner's public key. */
  publicKey: string;
  /** The root over the earlier leaves and this one. */
  logRootAfter: string;
  /** The countersign answer as compact JSON text (members sorted, as the producer answers). */
  answer: string;
}

/**
 * Countersign a record as the next entry of a log.
 *
 * @param request - The record, the operator signature and its scheme.
 * @param seed - The countersigner's 32-byte Ed25519 secret seed.
 * @param crypto - The crypto provider.
 * @param options - The clock and the earlier leaves.
 * @returns The entry and its countersign answer.
 * @throws TypeError if the record is not an object, the operator signature or scheme not a
 *   string, or a previous leaf not 64 lowercase hex characters.
 * @throws RangeError if the seed is not 32 bytes or the time is not a finite number.
 */
export function countersign(
  request: CountersignRequest,
  seed: Uint8Array,
  crypto: CryptoProvider,
  options: CountersignOptions,
): CountersignedEntry {
  const record = request.record;
  if (record.type !== 'object') throw new TypeError('the record must be a JSON object');
  if (typeof request.operator_signature !== 'string') throw new TypeError('operator_signature must be a string');
  const scheme = request.operator_signature_scheme ?? 'unstated';
  if (typeof scheme !== 'string') throw new TypeError('operator_signature_scheme must be a string');
  if (!isBytes(seed) || seed.length !== 32) throw new RangeError('the seed must be 32 bytes');
  if (typeof options.time !== 'number' || !Number.isFinite(options.time)) {
    throw new RangeError('the time must be a finite number of seconds');
  }
  const previous = options.previousLeaves ?? [];
  for (const leaf of previous) {
    if (typeof leaf !== 'string' || !/^[0-9a-f]{64}$/.test(leaf)) {
      throw new TypeError('each previous leaf must be 64 lowercase hex characters');
    }
  }
  const seq = previous.length + 1;
  const prevLeaf = previous.at(-1) ?? genesisLeaf(crypto);
  const recordDigest = taggedHash(crypto, pythonJsonDumps(record), 'record');
  const opsigDigest = taggedHash(crypto, request.operator_signature, 'opsig');
  const time = pythonFloatRepr(options.time);
  const leaf = leafHash(crypto, {
    seq: String(seq),
    prev_leaf: prevLeaf,
    record_digest: recordDigest,
    countersigner_time: time,
    operator_signature_digest: opsigDigest,
  });
  const signedOver: JsonObjectNode = {
    type: 'object',
    members: [
      ['seq', number(String(seq))],
      ['record_digest', text(recordDigest)],
      ['operator_signature_digest', text(opsigDigest)],
      ['operator_signature_scheme', text(scheme)],
      ['countersigner_time', number(time)],
      ['prev_leaf', text(prevLeaf)],
      ['leaf', text(leaf)],
    ],
  };
  const canonical = pythonJsonDumps(signedOver);
  const countersignature = b64Encode(crypto.ed25519Sign(utf8Encode(canonical), seed));
  const publicKey = b64Encode(crypto.ed25519PublicKey(seed));
  const logRootAfter = logRoot(crypto, [...previous, leaf]);
  const answer = skp({
    type: 'object',
    members: [
      ['countersigned', { type: 'boolean', value: true }],
      ['seq', number(String(seq))],
      ['signed_over', signedOver],
      ['signed_over_canonical', text(canonical)],
      ['countersignature', text(countersignature)],
      ['countersignature_scheme', text('Ed25519')],
      ['countersigner_public_key_b64', text(publicKey)],
      ['log_root_after', text(logRootAfter)],
      ['independent', { type: 'boolean', value: false }],
      ['note', text('Second key and second clock. Not an independent party. See /health.')],
    ],
  });
  return { seq, leaf, signedOver, canonical, countersignature, publicKey, logRootAfter, answer };
}

/**
 * The inclusion answer (`GET /log/inclusion?seq=N`) of an entry of a log.
 *
 * @param entries - The log's entries, in order.
 * @param seq - The entry's seq (1 to entries.length).
 * @param crypto - The crypto provider.
 * @returns The answer as compact JSON text.
 * @throws RangeError if no entry has that seq.
 */
export function inclusionAnswer(entries: readonly CountersignedEntry[], seq: number, crypto: CryptoProvider): string {
  const entry = entries[seq - 1];
  if (entry === undefined || !Number.isSafeInteger(seq)) throw new RangeError(`no entry has seq ${seq}`);
  const leaves = entries.map((item) => item.leaf);
  const path = auditPath(crypto, leaves, seq - 1);
  return skp({
    type: 'object',
    members: [
      ['seq', number(String(seq))],
      ['signed_over', entry.signedOver],
      ['signed_over_canonical', text(entry.canonical)],
      ['countersigner_public_key_b64', text(entry.publicKey)],
      ['countersignature', text(entry.countersignature)],
      ['audit_path', { type: 'array', items: path.map(([side, sibling]) => array([text(side), text(sibling)])) }],
      ['root', text(logRoot(crypto, leaves))],
    ],
  });
}

/**
 * A verify request (the body of the countersigner's `POST /verify`) for an entry.
 *
 * @param entry - The entry.
 * @param extras - The record, and an inclusion answer's path and root, when to be checked.
 * @returns The request as compact JSON text.
 */
export function verifyRequest(
  entry: CountersignedEntry,
  extras: { record?: JsonNode; inclusion?: string } = {},
): string {
  const members: [string, JsonNode][] = [
    ['signed_over', entry.signedOver],
    ['countersignature', text(entry.countersignature)],
    ['countersigner_public_key_b64', text(entry.publicKey)],
  ];
  if (extras.inclusion !== undefined) {
    const value = JSON.parse(extras.inclusion) as { audit_path: JsonValue; root: JsonValue };
    members.push(['audit_path', fromPlain(value.audit_path)], ['root', fromPlain(value.root)]);
  }
  if (extras.record !== undefined) {
    members.push(['record', extras.record]);
  }
  return skp({ type: 'object', members });
}

function number(lexeme: string): JsonNode {
  return { type: 'number', lexeme, value: Number(lexeme) };
}

function text(value: string): JsonNode {
  return { type: 'string', value };
}

function array(items: JsonNode[]): JsonNode {
  return { type: 'array', items };
}
