/**
 * A bundle's log evidence checked (issue 28; docs/logs.md, "What the import checks"): the one
 * checker the import (src-main/operations/import.ts) and the browser reference verifier
 * (check-bundle.ts) both run, so that they say the same of the same bundle.
 *
 * A served tenant's bundle carries `log/checkpoint.txt` (the tenant log's signed C2SP checkpoint)
 * and `log/proofs.json` (`evroom.log-evidence/1`: each receipt's leaf index and inclusion proof,
 * the two boundary leaves just outside the period with their receipts and proofs, and optional
 * consistency proofs). From them and the bundle's receipts this checks:
 * - the checkpoint's note signature by the log key: a pinned key of the trust store (`pinned`),
 *   else a key the bundle's keys file advertises for `log-checkpoints` (`advertised`), else none
 *   (`unknown`, `log_key_unknown`, invalid);
 * - that the checkpoint's origin, size and root are the ones proofs.json was made against, and
 *   that the origin is the log of the bundle's tenant;
 * - every leaf's inclusion in the checkpoint's tree, from the receipt in the bundle (its leaf hash
 *   SHA-256(0x00 || JCS(receipt))); a leaf whose receipt the bundle lacks, and every index of
 *   first..last that has no leaf, is missing (named by its index);
 * - leaves in order, each index once and each receipt once; a receipt of the bundle without a
 *   leaf is `log_receipt_unlogged`;
 * - the boundaries: the leaf before the first one was issued before `since`, the leaf after the
 *   last one at or after `until`, both included in the tree; at the log's start or end (as of the
 *   checkpoint) there is none;
 * - a leaf at or past the checkpoint's size: a stale checkpoint;
 * - the carried consistency proofs (the workstation's earlier checkpoints are the import's to
 *   compare: src-main/operations/log-checkpoints.ts).
 *
 * It is pure: bytes in, a {@link LogCompleteness} and findings out. Receipts are handed in one by
 * one as the caller reads them ({@link LogEvidenceCheck.addReceipt}), so nothing is kept per
 * receipt but what proofs.json already holds.
 *
 * Decisions (docs/logs.md says them for people):
 * - A pinned log key is a trust-store Ed25519 key (not revoked, for the `service` role or any)
 *   whose note key id, under the name of a signature line of the checkpoint, is that line's id:
 *   the id binds name and key, so the key pinned from /v1/keys needs no note name of its own.
 *   A checkpoint signed by a revoked key is invalid.
 * - Any finding but a missing leaf makes the evidence `invalid`; missing leaves alone make it
 *   `incomplete`. A receipt with no leaf is invalid evidence, not a gap: the log does not
 *   account for it.
 * - A receipt's issuing instant is the ledger's (readDocumentFacts); the leaves between the two
 *   boundaries are not compared with the period (the boundaries show where the period's edges
 *   are in the log; issuance order is log order).
 */
import type { FindingCode } from '../api/vocabulary';
import type { LogCompleteness, LogSigner } from '../api/logs-contract';
import { b64uDecode, equalBytes, hexEncode, lowerHexDecode, utf8Decode, utf8Encode } from '../crypto';
import type { CryptoProvider } from '../crypto/provider';
import {
  NOTE_ED25519,
  NoteError,
  noteKeyId,
  parseCheckpoint,
  parseNote,
  parseVkey,
  verifyNote,
  type Checkpoint,
  type Note,
  type NoteVerifierKey,
} from '../crypto/signed-note';
import { tlogLeafHash, tlogVerifyConsistency, tlogVerifyInclusion } from '../crypto/tlog';
import { jcsTree, JsonParseError, parseJsonBytes, pointerAppend, toPlain } from '../json';
import type { JsonNode } from '../json/types';
import type { KeyEntry } from '../verify/context';
import { KeyFileError, parseKeyFile } from '../verify/key-file';
import { readDocumentFacts } from '../verify/receipt-facts';
import { isTimestamp, timestampToMillis } from '../verify/timestamp';
import { KEYS_NAME, LOG_CHECKPOINT_NAME, LOG_PROOFS_NAME } from './bundle-layout';
import type { FindingList } from './bundle-findings';
import { printableName } from './errors';

/** The `format` of log/proofs.json. */
export const LOG_EVIDENCE_FORMAT = 'evroom.log-evidence/1';

/** Missing indices a {@link LogCompleteness} lists; the rest are counted. */
export const MAX_LISTED_MISSING = 1000;

/** Hashes an inclusion or consistency proof may hold (a tree of 2^53 leaves needs 53). */
export const MAX_PROOF_HASHES = 64;

/** Consistency proofs proofs.json may carry (the evidence route takes up to 16 sizes). */
export const MAX_CONSISTENCY_PROOFS = 16;

/** Indices the sentence of an incomplete bundle names before "…". */
const SENTENCE_INDICES = 10;

/** One leaf of proofs.json. */
export interface LogEvidenceLeaf {
  index: number;
  /** hex SHA-256 of the receipt's JCS form (its identity in the ledger). */
  receipt_sha256: string;
  inclusion: Uint8Array[];
}

/** A boundary leaf of proofs.json, with what its receipt says. */
export interface LogEvidenceBoundary {
  index: number;
  /** SHA-256(0x00 || JCS(receipt)). */
  leafHash: Uint8Array;
  /** The receipt's issuing instant as the ledger derives it (ms), or null when it says none. */
  issued_at: number | null;
  inclusion: Uint8Array[];
}

/** log/proofs.json, parsed and checked for shape. */
export interface LogEvidence {
  origin: string;
  key_name: string;
  tree_size: number;
  root: Uint8Array;
  period: { since: string | null; until: string | null };
  first_index: number | null;
  last_index: number | null;
  leaves: LogEvidenceLeaf[];
  before: LogEvidenceBoundary | null;
  after: LogEvidenceBoundary | null;
  consistency: { from_size: number; from_root: Uint8Array; proof: Uint8Array[] }[];
}

/** log/proofs.json that cannot be used: where (a JSON Pointer) and why. */
export class LogEvidenceError extends Error {
  /** JSON Pointer (RFC 6901) to the offending value; `""` for the whole file. */
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.name = 'LogEvidenceError';
    this.path = path;
  }
}

const TOP_MEMBERS = [
  'format',
  'origin',
  'key_name',
  'tree_size',
  'root',
  'period',
  'first_index',
  'last_index',
  'leaves',
  'before',
  'after',
  'consistency',
];
const REQUIRED_TOP = TOP_MEMBERS.filter((name) => name !== 'consistency');

function member(node: JsonNode, name: string): JsonNode | undefined {
  if (node.type !== 'object') return undefined;
  for (const [key, value] of node.members) if (key === name) return value;
  return undefined;
}

function expectObject(node: JsonNode, path: string, required: readonly string[], allowed: readonly string[]): void {
  if (node.type !== 'object') throw new LogEvidenceError(path, 'must be an object.');
  for (const [key] of node.members) {
    if (!allowed.includes(key)) throw new LogEvidenceError(pointerAppend(path, key), `unknown member ${quoted(key)}.`);
  }
  for (const name of required) {
    if (member(node, name) === undefined)
      throw new LogEvidenceError(pointerAppend(path, name), `required member ${quoted(name)} is missing.`);
  }
}

function quoted(text: string): string {
  return `"${printableName(text.slice(0, 64))}"`;
}

function stringAt(node: JsonNode, path: string, maxLength: number): string {
  if (node.type !== 'string' || node.value.length === 0 || node.value.length > maxLength)
    throw new LogEvidenceError(path, `must be a string of 1 to ${maxLength} characters.`);
  return node.value;
}

function integerAt(node: JsonNode, path: string, min: number): number {
  if (node.type !== 'number' || !/^(0|[1-9][0-9]*)$/.test(node.lexeme) || !Number.isSafeInteger(node.value))
    throw new LogEvidenceError(path, 'must be a non-negative integer.');
  if (node.value < min) throw new LogEvidenceError(path, `must be at least ${min}.`);
  return node.value;
}

function nullableIndexAt(node: JsonNode, path: string): number | null {
  return node.type === 'null' ? null : integerAt(node, path, 0);
}

function hashAt(node: JsonNode, path: string): Uint8Array {
  const bytes = node.type === 'string' && node.value.length === 64 ? lowerHexDecode(node.value) : undefined;
  if (bytes === undefined) throw new LogEvidenceError(path, 'must be 64 lowercase hex digits (a SHA-256 hash).');
  return bytes;
}

function hashListAt(node: JsonNode, path: string): Uint8Array[] {
  if (node.type !== 'array') throw new LogEvidenceError(path, 'must be an array of hashes.');
  if (node.items.length > MAX_PROOF_HASHES)
    throw new LogEvidenceError(path, `holds ${node.items.length} hashes; a proof has at most ${MAX_PROOF_HASHES}.`);
  return node.items.map((item, index) => hashAt(item, pointerAppend(path, index)));
}

function timestampAt(node: JsonNode, path: string): string | null {
  if (node.type === 'null') return null;
  if (node.type !== 'string' || !isTimestamp(node.value))
    throw new LogEvidenceError(path, 'must be null or a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z.');
  return node.value;
}

function boundaryAt(
  sha256: (data: Uint8Array) => Uint8Array,
  node: JsonNode,
  path: string,
): LogEvidenceBoundary | null {
  if (node.type === 'null') return null;
  const names = ['index', 'receipt', 'inclusion'];
  expectObject(node, path, names, names);
  const receipt = member(node, 'receipt') as JsonNode;
  if (receipt.type !== 'object')
    throw new LogEvidenceError(pointerAppend(path, 'receipt'), 'must be the receipt document (an object).');
  return {
    index: integerAt(member(node, 'index') as JsonNode, pointerAppend(path, 'index'), 0),
    leafHash: tlogLeafHash(sha256, utf8Encode(jcsTree(receipt))),
    issued_at: readDocumentFacts(receipt).issued_at,
    inclusion: hashListAt(member(node, 'inclusion') as JsonNode, pointerAppend(path, 'inclusion')),
  };
}

/**
 * Parse log/proofs.json strictly: strict JSON, every member known and of its type, hashes as
 * lowercase hex, indices as safe integers, `first_index`/`last_index` both null or both set and
 * in order. What the values mean is {@link LogEvidenceCheck}'s to judge.
 *
 * @param sha256 - SHA-256 (for the boundary receipts' leaf hashes).
 * @param bytes - The file's bytes.
 * @returns The evidence.
 * @throws TypeError for arguments of the wrong type.
 * @throws LogEvidenceError naming the first problem and its JSON Pointer.
 */
export function parseLogEvidence(sha256: (data: Uint8Array) => Uint8Array, bytes: Uint8Array): LogEvidence {
  if (typeof sha256 !== 'function') throw new TypeError('parseLogEvidence expects a hash function');
  if (!(bytes instanceof Uint8Array)) throw new TypeError('parseLogEvidence expects a Uint8Array');
  let root: JsonNode;
  try {
    root = parseJsonBytes(bytes);
  } catch (error) {
    if (!(error instanceof JsonParseError)) throw error;
    throw new LogEvidenceError(error.path, `is not strict JSON: ${error.message} (at offset ${error.offset}).`);
  }
  expectObject(root, '', REQUIRED_TOP, TOP_MEMBERS);
  const at = (name: string): JsonNode => member(root, name) as JsonNode;
  const format = at('format');
  if (format.type !== 'string' || format.value !== LOG_EVIDENCE_FORMAT)
    throw new LogEvidenceError('/format', `must be "${LOG_EVIDENCE_FORMAT}".`);
  const origin = stringAt(at('origin'), '/origin', 1024);
  const keyName = stringAt(at('key_name'), '/key_name', 1024);
  const treeSize = integerAt(at('tree_size'), '/tree_size', 0);
  const treeRoot = hashAt(at('root'), '/root');
  const periodNode = at('period');
  expectObject(periodNode, '/period', ['since', 'until'], ['since', 'until']);
  const since = timestampAt(member(periodNode, 'since') as JsonNode, '/period/since');
  const until = timestampAt(member(periodNode, 'until') as JsonNode, '/period/until');
  if (since !== null && until !== null && timestampToMillis(since) >= timestampToMillis(until))
    throw new LogEvidenceError('/period/until', 'must be after since.');
  const firstIndex = nullableIndexAt(at('first_index'), '/first_index');
  const lastIndex = nullableIndexAt(at('last_index'), '/last_index');
  if ((firstIndex === null) !== (lastIndex === null))
    throw new LogEvidenceError('/last_index', 'first_index and last_index must both be null or both be set.');
  if (firstIndex !== null && lastIndex !== null && lastIndex < firstIndex)
    throw new LogEvidenceError('/last_index', 'must not be below first_index.');
  const leavesNode = at('leaves');
  if (leavesNode.type !== 'array') throw new LogEvidenceError('/leaves', 'must be an array.');
  const leafNames = ['index', 'receipt_sha256', 'inclusion'];
  const leaves = leavesNode.items.map((item, position) => {
    const path = pointerAppend('/leaves', position);
    expectObject(item, path, leafNames, leafNames);
    const digest = member(item, 'receipt_sha256') as JsonNode;
    hashAt(digest, pointerAppend(path, 'receipt_sha256'));
    return {
      index: integerAt(member(item, 'index') as JsonNode, pointerAppend(path, 'index'), 0),
      receipt_sha256: (digest as { value: string }).value,
      inclusion: hashListAt(member(item, 'inclusion') as JsonNode, pointerAppend(path, 'inclusion')),
    };
  });
  if (firstIndex === null && leaves.length > 0)
    throw new LogEvidenceError('/leaves', 'must be empty when first_index and last_index are null.');
  const before = boundaryAt(sha256, at('before'), '/before');
  const after = boundaryAt(sha256, at('after'), '/after');
  const consistency: LogEvidence['consistency'] = [];
  const consistencyNode = member(root, 'consistency');
  if (consistencyNode !== undefined) {
    if (consistencyNode.type !== 'array') throw new LogEvidenceError('/consistency', 'must be an array.');
    if (consistencyNode.items.length > MAX_CONSISTENCY_PROOFS)
      throw new LogEvidenceError('/consistency', `holds more than ${MAX_CONSISTENCY_PROOFS} proofs.`);
    const names = ['from_size', 'from_root', 'proof'];
    for (const [position, item] of consistencyNode.items.entries()) {
      const path = pointerAppend('/consistency', position);
      expectObject(item, path, names, names);
      consistency.push({
        from_size: integerAt(member(item, 'from_size') as JsonNode, pointerAppend(path, 'from_size'), 1),
        from_root: hashAt(member(item, 'from_root') as JsonNode, pointerAppend(path, 'from_root')),
        proof: hashListAt(member(item, 'proof') as JsonNode, pointerAppend(path, 'proof')),
      });
    }
  }
  return {
    origin,
    key_name: keyName,
    tree_size: treeSize,
    root: treeRoot,
    period: { since, until },
    first_index: firstIndex,
    last_index: lastIndex,
    leaves,
    before,
    after,
    consistency,
  };
}

/**
 * The log keys a bundle's keys file advertises: entries whose `use` names `log-checkpoints` and
 * that carry a `vkey` (C2SP note verifier key) of type Ed25519, whose `note_key_name`, when
 * given, is the vkey's name and whose `public_key` is the vkey's key.
 *
 * @param crypto - For the vkey's key id.
 * @param bytes - keys/service-keys.json, or undefined; a file the key file rules refuse gives no keys.
 * @returns The keys, and the problem of each entry that cannot be used (JSON Pointer and words).
 */
export function readAdvertisedLogKeys(
  crypto: CryptoProvider,
  bytes: Uint8Array | undefined,
): { keys: NoteVerifierKey[]; problems: { path: string; message: string }[] } {
  const keys: NoteVerifierKey[] = [];
  const problems: { path: string; message: string }[] = [];
  if (bytes === undefined) return { keys, problems };
  let plain: unknown;
  try {
    // The key file's own rules first: an unusable file is readAdvertisedKeys' finding (keys_invalid) already.
    parseKeyFile(utf8Decode(bytes), { advertised: true });
    plain = toPlain(parseJsonBytes(bytes));
  } catch (error) {
    if (error instanceof JsonParseError || error instanceof KeyFileError || error instanceof RangeError)
      return { keys, problems };
    throw error;
  }
  const list =
    typeof plain === 'object' && plain !== null && !Array.isArray(plain)
      ? (plain as Record<string, unknown>)['keys']
      : undefined;
  if (!Array.isArray(list)) return { keys, problems };
  const sha256 = (data: Uint8Array): Uint8Array => crypto.sha256(data);
  for (const [position, item] of list.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const entry = item as Record<string, unknown>;
    const use = entry['use'];
    if (!Array.isArray(use) || !use.includes('log-checkpoints')) continue;
    const path = `/keys/${position}`;
    const vkey = entry['vkey'];
    if (typeof vkey !== 'string') {
      problems.push({ path: `${path}/vkey`, message: 'a key for log checkpoints carries no "vkey".' });
      continue;
    }
    let key: NoteVerifierKey;
    try {
      key = parseVkey(sha256, vkey);
    } catch (error) {
      if (!(error instanceof NoteError)) throw error;
      problems.push({ path: `${path}/vkey`, message: `the vkey cannot be used: ${error.message}` });
      continue;
    }
    if (key.type !== NOTE_ED25519) {
      problems.push({ path: `${path}/vkey`, message: `the vkey is of type ${key.type}, not an Ed25519 note key.` });
      continue;
    }
    const name = entry['note_key_name'];
    if (name !== undefined && name !== key.name) {
      problems.push({ path: `${path}/note_key_name`, message: 'note_key_name is not the name of the vkey.' });
      continue;
    }
    const publicKey = entry['public_key'];
    let listed: Uint8Array | undefined;
    try {
      listed = typeof publicKey === 'string' ? b64uDecode(publicKey) : undefined;
    } catch {
      listed = undefined;
    }
    if (listed === undefined || !equalBytes(listed, key.publicKey)) {
      problems.push({ path: `${path}/public_key`, message: 'public_key is not the key of the vkey.' });
      continue;
    }
    keys.push(key);
  }
  return { keys, problems };
}

/** A verified checkpoint of a bundle, as the workstation records it (src-main/operations/log-checkpoints.ts). */
export interface SeenLogCheckpoint {
  /** The signed note exactly as the bundle holds it. */
  note: string;
  origin: string;
  key_name: string;
  /** The Ed25519 public key that verified the note (the pinned one when a pinned key did). */
  log_key: Uint8Array;
  size: number;
  root: Uint8Array;
  consistency: { from_size: number; from_root: Uint8Array; proof: Uint8Array[] }[];
}

/** A receipt of the bundle, as the log checker needs it. */
export interface LogReceipt {
  /** Its bundle path (findings name it). */
  path: string;
  /** hex SHA-256 of its JCS form (of its bytes when they do not parse). */
  receipt_sha256: string;
  /** SHA-256(0x00 || JCS(receipt)): its leaf hash in the log. */
  leaf_hash: Uint8Array;
}

/** What {@link LogEvidenceCheck} is given. */
export interface LogEvidenceInput {
  /** log/checkpoint.txt's bytes, when the bundle has it. */
  checkpoint: Uint8Array | undefined;
  /** log/proofs.json's bytes, when the bundle has it. */
  proofs: Uint8Array | undefined;
  /** The caller's pinned keys (the trust store, or the page's trusted keys). */
  pinned: readonly KeyEntry[];
  /**
   * keys/service-keys.json's bytes, when the bundle has it and its keys are used (its advertised
   * log keys); undefined when readAdvertisedKeys found it unusable.
   */
  keysFile: Uint8Array | undefined;
  /** The manifest's tenant_id: the checkpoint's origin must be that tenant's log. */
  tenantId: string | undefined;
}

interface Problem {
  code: FindingCode;
  path: string;
  message: string;
}

interface LeafState {
  index: number;
  inclusion: Uint8Array[];
  matched: boolean;
  /** At or past the checkpoint's size: its inclusion cannot be checked (the stale finding). */
  stale: boolean;
}

/**
 * The log evidence of one bundle, checked as its receipts are read.
 *
 * Construct it with the log files and keys (before the receipts are read), hand it every receipt
 * with {@link addReceipt}, then {@link finish} it: it adds its findings and answers the
 * completeness, or null for a bundle without log files.
 */
export class LogEvidenceCheck {
  private readonly crypto: CryptoProvider;
  private readonly sha256: (data: Uint8Array) => Uint8Array;
  private readonly problems: Problem[] = [];
  private readonly present: boolean;
  private evidence: LogEvidence | undefined;
  private checkpoint: Checkpoint | undefined;
  /** log/checkpoint.txt as text, once it parsed. */
  private noteText: string | undefined;
  private signer: LogSigner = 'unknown';
  /** The public key that verified the checkpoint's note (set with `signer`). */
  private signerKey: Uint8Array | undefined;
  /** The tree the leaves are checked against (the signed one), when it is usable. */
  private tree: { size: number; root: Uint8Array } | undefined;
  private readonly bySha = new Map<string, LeafState>();
  private finished = false;
  /** The carried consistency proofs that verified. */
  private readonly consistent: LogEvidence['consistency'] = [];

  /**
   * @param crypto - SHA-256 and Ed25519.
   * @param input - The log files, the keys, the tenant.
   * @throws TypeError for arguments of the wrong type.
   */
  constructor(crypto: CryptoProvider, input: LogEvidenceInput) {
    if (typeof crypto !== 'object' || crypto === null || typeof crypto.sha256 !== 'function')
      throw new TypeError('LogEvidenceCheck expects a crypto provider');
    if (typeof input !== 'object' || input === null || !Array.isArray(input.pinned))
      throw new TypeError('LogEvidenceCheck expects the log files and the pinned keys');
    for (const name of ['checkpoint', 'proofs', 'keysFile'] as const) {
      const value = input[name];
      if (value !== undefined && !(value instanceof Uint8Array))
        throw new TypeError(`LogEvidenceCheck: ${name} must be a Uint8Array or undefined`);
    }
    this.crypto = crypto;
    this.sha256 = (data) => crypto.sha256(data);
    this.present = input.checkpoint !== undefined || input.proofs !== undefined;
    if (!this.present) return;
    if (input.proofs === undefined) {
      this.problem(
        'log_evidence_invalid',
        LOG_PROOFS_NAME,
        'The bundle has log/checkpoint.txt but no log/proofs.json.',
      );
    } else {
      try {
        this.evidence = parseLogEvidence(this.sha256, input.proofs);
      } catch (error) {
        if (!(error instanceof LogEvidenceError)) throw error;
        const where = error.path === '' ? 'log/proofs.json' : `log/proofs.json at ${error.path}`;
        this.problem('log_evidence_invalid', LOG_PROOFS_NAME, `${where} cannot be used: it ${error.message}`);
      }
    }
    if (input.checkpoint === undefined) {
      this.problem(
        'log_evidence_invalid',
        LOG_CHECKPOINT_NAME,
        'The bundle has log/proofs.json but no log/checkpoint.txt.',
      );
      return;
    }
    const note = this.readNote(input.checkpoint);
    if (note === undefined) return;
    this.checkSignature(note, input);
    this.checkTree(input.tenantId);
  }

  /** Whether the bundle has log files: receipts need handing in only then. */
  get active(): boolean {
    return this.present;
  }

  private problem(code: FindingCode, path: string, message: string): void {
    this.problems.push({ code, path, message });
  }

  private readNote(bytes: Uint8Array): Note | undefined {
    try {
      const text = utf8Decode(bytes);
      const note = parseNote(text);
      this.checkpoint = parseCheckpoint(note.text);
      this.noteText = text;
      return note;
    } catch (error) {
      if (!(error instanceof NoteError) && !(error instanceof RangeError)) throw error;
      this.problem('log_checkpoint_invalid', LOG_CHECKPOINT_NAME, `The checkpoint cannot be read: ${error.message}`);
      return undefined;
    }
  }

  /** The note signature by the log key: pinned, else advertised, else unknown. */
  private checkSignature(note: Note, input: LogEvidenceInput): void {
    const advertised = readAdvertisedLogKeys(this.crypto, input.keysFile);
    for (const problem of advertised.problems)
      this.problem('keys_invalid', KEYS_NAME, `The log key at ${problem.path} cannot be used: ${problem.message}`);
    const pinned: NoteVerifierKey[] = [];
    const revoked: NoteVerifierKey[] = [];
    for (const entry of input.pinned) {
      if (entry.algorithm !== 'Ed25519') continue;
      if (entry.roles !== undefined && !entry.roles.includes('service')) continue;
      for (const line of note.signatures) {
        const keyId = noteKeyId(this.sha256, line.name, NOTE_ED25519, entry.public_key);
        if (keyId !== line.keyId) continue;
        const key = { name: line.name, type: NOTE_ED25519, publicKey: entry.public_key, keyId };
        (entry.status === 'revoked' ? revoked : pinned).push(key);
      }
    }
    const name = this.evidence?.key_name;
    const results = verifyNote(this.crypto, note, [...pinned, ...revoked, ...advertised.keys]).filter(
      (result) => result.key.type === NOTE_ED25519 && (name === undefined || result.key.name === name),
    );
    const isIn = (list: readonly NoteVerifierKey[], key: NoteVerifierKey): boolean =>
      list.some(
        (item) => item.keyId === key.keyId && item.name === key.name && equalBytes(item.publicKey, key.publicKey),
      );
    const failed = results.find((result) => result.status === 'invalid');
    if (failed !== undefined) {
      this.problem(
        'log_checkpoint_invalid',
        LOG_CHECKPOINT_NAME,
        `The checkpoint's signature by ${printableName(failed.key.name)} does not verify.`,
      );
      return;
    }
    const valid = results.filter((result) => result.status === 'valid').map((result) => result.key);
    if (valid.some((key) => isIn(revoked, key))) {
      this.problem(
        'log_checkpoint_invalid',
        LOG_CHECKPOINT_NAME,
        'The checkpoint is signed by a key the trust store marks revoked.',
      );
      return;
    }
    const pinnedValid = valid.find((key) => isIn(pinned, key));
    if (pinnedValid !== undefined) {
      this.signer = 'pinned';
      this.signerKey = pinnedValid.publicKey;
    } else if (valid.length > 0) {
      this.signer = 'advertised';
      this.signerKey = (valid[0] as NoteVerifierKey).publicKey;
    } else {
      const named = name === undefined ? '' : ` ${printableName(name)}`;
      this.problem(
        'log_key_unknown',
        LOG_CHECKPOINT_NAME,
        `The checkpoint is not signed by a known log key${named}: none is pinned and the bundle advertises none that signed it.`,
      );
    }
  }

  /** The signed tree against proofs.json and the tenant; leaves are indexed for the receipts. */
  private checkTree(tenantId: string | undefined): void {
    const { checkpoint, evidence } = this;
    if (checkpoint === undefined) return;
    if (tenantId !== undefined && !checkpoint.origin.endsWith(`/tenants/${tenantId}`)) {
      this.problem(
        'log_checkpoint_invalid',
        LOG_CHECKPOINT_NAME,
        `The checkpoint is of the log ${printableName(checkpoint.origin)}, not of tenant ${printableName(tenantId)}'s.`,
      );
      return;
    }
    if (evidence === undefined) return;
    const differs: string[] = [];
    if (evidence.origin !== checkpoint.origin) differs.push('origin');
    if (evidence.tree_size !== checkpoint.size) differs.push('tree_size');
    if (!equalBytes(evidence.root, checkpoint.rootHash)) differs.push('root');
    if (differs.length > 0) {
      this.problem(
        'log_checkpoint_invalid',
        LOG_CHECKPOINT_NAME,
        `The checkpoint (${printableName(checkpoint.origin)}, size ${checkpoint.size}, root ${hexEncode(checkpoint.rootHash)}) ` +
          `is not the tree log/proofs.json was made against (its ${differs.join(', ')} differ).`,
      );
      return;
    }
    this.tree = { size: checkpoint.size, root: checkpoint.rootHash };
    this.indexLeaves(evidence, checkpoint.size);
  }

  private indexLeaves(evidence: LogEvidence, size: number): void {
    const first = evidence.first_index as number;
    const last = evidence.last_index as number;
    let previous = -1;
    const seenIndices = new Set<number>();
    let staleFrom: number | undefined;
    for (const leaf of evidence.leaves) {
      const where = `leaf ${leaf.index}`;
      if (leaf.index < first || leaf.index > last) {
        this.problem(
          'log_evidence_invalid',
          LOG_PROOFS_NAME,
          `The ${where} is outside first_index..last_index (${first}..${last}).`,
        );
        continue;
      }
      if (seenIndices.has(leaf.index)) {
        this.problem('log_leaf_duplicate', LOG_PROOFS_NAME, `Leaf ${leaf.index} appears more than once.`);
        continue;
      }
      if (leaf.index < previous) {
        this.problem(
          'log_leaf_order',
          LOG_PROOFS_NAME,
          `Leaf ${leaf.index} comes after leaf ${previous}: leaves must be in index order.`,
        );
      }
      previous = Math.max(previous, leaf.index);
      seenIndices.add(leaf.index);
      const other = this.bySha.get(leaf.receipt_sha256);
      if (other !== undefined) {
        this.problem(
          'log_leaf_duplicate',
          LOG_PROOFS_NAME,
          `Leaves ${other.index} and ${leaf.index} name the same receipt ${leaf.receipt_sha256}.`,
        );
        continue;
      }
      const stale = leaf.index >= size;
      if (stale) staleFrom = staleFrom === undefined ? leaf.index : Math.min(staleFrom, leaf.index);
      this.bySha.set(leaf.receipt_sha256, { index: leaf.index, inclusion: leaf.inclusion, matched: false, stale });
    }
    // An empty period (first and last null) reaches no leaf: an empty log's size-0 checkpoint covers it.
    if (evidence.last_index !== null && last >= size)
      staleFrom = staleFrom === undefined ? Math.max(first, size) : staleFrom;
    for (const boundary of [evidence.before, evidence.after]) {
      if (boundary !== null && boundary.index >= size) staleFrom = staleFrom ?? boundary.index;
    }
    if (staleFrom !== undefined) {
      this.problem(
        'log_checkpoint_stale',
        LOG_CHECKPOINT_NAME,
        `The checkpoint is stale: it covers ${size} leaves, but the bundle's evidence reaches leaf ${Math.max(last, staleFrom)}.`,
      );
    }
  }

  /**
   * One receipt of the bundle: its leaf's inclusion is checked now.
   *
   * @param receipt - Its path, identity and leaf hash.
   * @throws TypeError for a receipt of the wrong shape; Error after {@link finish}.
   */
  addReceipt(receipt: LogReceipt): void {
    if (
      typeof receipt !== 'object' ||
      receipt === null ||
      typeof receipt.path !== 'string' ||
      typeof receipt.receipt_sha256 !== 'string' ||
      !(receipt.leaf_hash instanceof Uint8Array)
    )
      throw new TypeError('addReceipt expects {path, receipt_sha256, leaf_hash}');
    if (this.finished) throw new Error('LogEvidenceCheck: addReceipt after finish');
    if (!this.present || this.tree === undefined || this.evidence === undefined) return;
    const leaf = this.bySha.get(receipt.receipt_sha256);
    if (leaf === undefined) {
      const { before, after } = this.evidence;
      // A boundary receipt carried as a file too is outside the period, not unlogged.
      if (
        (before !== null && equalBytes(before.leafHash, receipt.leaf_hash)) ||
        (after !== null && equalBytes(after.leafHash, receipt.leaf_hash))
      )
        return;
      this.problem('log_receipt_unlogged', receipt.path, 'The receipt has no leaf in the bundle’s log evidence.');
      return;
    }
    if (leaf.matched) return;
    leaf.matched = true;
    if (leaf.stale) return;
    if (
      !tlogVerifyInclusion(this.sha256, receipt.leaf_hash, leaf.index, this.tree.size, leaf.inclusion, this.tree.root)
    ) {
      this.problem(
        'log_proof_invalid',
        receipt.path,
        `The receipt's inclusion proof at leaf ${leaf.index} does not verify against the checkpoint (size ${this.tree.size}).`,
      );
    }
  }

  /**
   * Finish: missing leaves, boundaries and consistency proofs are judged, every finding is added.
   *
   * @param findings - Where the findings go.
   * @returns The completeness, or null when the bundle has no log files.
   */
  finish(findings: FindingList): LogCompleteness | null {
    if (this.finished) throw new Error('LogEvidenceCheck: finish called twice');
    this.finished = true;
    if (!this.present) return null;
    const missing: number[] = [];
    let missingCount = 0;
    const { evidence, tree } = this;
    if (evidence !== undefined && tree !== undefined) {
      ({ missingCount } = this.findMissing(evidence, tree.size, missing));
      this.checkBoundaries(evidence, tree);
      this.checkConsistency(evidence, tree);
    }
    for (const problem of this.problems) findings.add(problem.code, problem.path, problem.message);
    const invalid = this.problems.find((problem) => problem.code !== 'log_leaf_missing');
    const status = invalid !== undefined ? 'invalid' : missingCount > 0 ? 'incomplete' : 'complete';
    const checkpoint = this.checkpoint;
    const period = evidence?.period ?? { since: null, until: null };
    const result: LogCompleteness = {
      status,
      signer: this.signer,
      period,
      first_index: evidence?.first_index ?? null,
      last_index: evidence?.last_index ?? null,
      missing,
      missing_count: missingCount,
      stale: this.problems.some((problem) => problem.code === 'log_checkpoint_stale'),
      sentence: '',
    };
    const origin = checkpoint?.origin ?? evidence?.origin;
    if (origin !== undefined) result.origin = origin;
    if (evidence !== undefined) result.key_name = evidence.key_name;
    const size = checkpoint?.size ?? evidence?.tree_size;
    if (size !== undefined) result.tree_size = size;
    const root = checkpoint?.rootHash ?? evidence?.root;
    if (root !== undefined) result.root_hex = hexEncode(root);
    result.sentence = completenessSentence(result, invalid?.message);
    return result;
  }

  /** Missing leaves: an index of first..last without a leaf, or a leaf whose receipt the bundle lacks. */
  private findMissing(evidence: LogEvidence, size: number, missing: number[]): { missingCount: number } {
    if (evidence.first_index === null || evidence.last_index === null) return { missingCount: 0 };
    const present: number[] = [];
    for (const leaf of this.bySha.values()) if (leaf.matched && !leaf.stale) present.push(leaf.index);
    present.sort((a, b) => a - b);
    const first = evidence.first_index;
    // Leaves past the checkpoint are the stale finding's, not missing.
    const last = Math.min(evidence.last_index, size - 1);
    let missingCount = 0;
    let expected = first;
    const gap = (from: number, to: number): void => {
      if (to < from) return;
      missingCount += to - from + 1;
      for (let index = from; index <= to && missing.length < MAX_LISTED_MISSING; index += 1) missing.push(index);
      this.problem(
        'log_leaf_missing',
        LOG_PROOFS_NAME,
        from === to
          ? `Leaf ${from} is missing from the bundle.`
          : `Leaves ${from} to ${to} are missing from the bundle.`,
      );
    };
    for (const index of present) {
      gap(expected, index - 1);
      expected = index + 1;
    }
    gap(expected, last);
    return { missingCount };
  }

  private checkBoundaries(evidence: LogEvidence, tree: { size: number; root: Uint8Array }): void {
    const { before, after, period } = evidence;
    const low = evidence.first_index ?? (before === null ? 0 : before.index + 1);
    const high = evidence.last_index ?? low - 1;
    const bad = (message: string): void => this.problem('log_boundary_invalid', LOG_PROOFS_NAME, message);
    if (before === null) {
      if (low !== 0)
        bad(`There is no leaf before the period, but the period starts at leaf ${low}, not at the log's start.`);
    } else {
      if (period.since === null) bad('The period starts at the log’s start, yet a leaf before it is given.');
      else if (before.index !== low - 1) bad(`The leaf before the period is ${before.index}, not ${low - 1}.`);
      else if (before.issued_at === null)
        bad(`The receipt of leaf ${before.index} (before the period) says no issuing instant.`);
      else if (before.issued_at >= timestampToMillis(period.since))
        bad(
          `The receipt of leaf ${before.index}, before the period, was issued at or after its start ${period.since}.`,
        );
      this.checkBoundaryInclusion('before', before, tree);
    }
    if (after === null) {
      if (high + 1 < tree.size)
        bad(
          `There is no leaf after the period, but the log holds ${tree.size} leaves and the period ends at leaf ${high}.`,
        );
    } else {
      if (period.until === null) bad('The period runs to the log’s end, yet a leaf after it is given.');
      else if (after.index !== high + 1) bad(`The leaf after the period is ${after.index}, not ${high + 1}.`);
      else if (after.issued_at === null)
        bad(`The receipt of leaf ${after.index} (after the period) says no issuing instant.`);
      else if (after.issued_at < timestampToMillis(period.until))
        bad(`The receipt of leaf ${after.index}, after the period, was issued before its end ${period.until}.`);
      this.checkBoundaryInclusion('after', after, tree);
    }
  }

  private checkBoundaryInclusion(
    which: 'before' | 'after',
    boundary: LogEvidenceBoundary,
    tree: { size: number; root: Uint8Array },
  ): void {
    if (boundary.index >= tree.size) return; // the stale finding's
    if (
      !tlogVerifyInclusion(this.sha256, boundary.leafHash, boundary.index, tree.size, boundary.inclusion, tree.root)
    ) {
      this.problem(
        'log_proof_invalid',
        LOG_PROOFS_NAME,
        `The inclusion proof of the leaf ${which} the period (${boundary.index}) does not verify against the checkpoint.`,
      );
    }
  }

  private checkConsistency(evidence: LogEvidence, tree: { size: number; root: Uint8Array }): void {
    for (const proof of evidence.consistency) {
      const ok =
        proof.from_size <= tree.size &&
        tlogVerifyConsistency(this.sha256, proof.from_size, tree.size, proof.from_root, tree.root, proof.proof);
      if (ok) this.consistent.push(proof);
      else {
        this.problem(
          'log_proof_invalid',
          LOG_PROOFS_NAME,
          `The consistency proof from size ${proof.from_size} to the checkpoint's size ${tree.size} does not verify.`,
        );
      }
    }
  }

  /**
   * The checkpoint to record among those the workstation has seen of its log (after
   * {@link finish}): only one whose signature verified by a known log key and that is the tree
   * proofs.json was made against, so a bundle cannot plant a note under a key nobody knows.
   *
   * @returns The note as read, its origin, key name, size and root, and the consistency proofs
   *   proofs.json carries that verified (a failed one is `log_proof_invalid`, bad evidence, not
   *   a disagreement between two checkpoints); undefined when there is nothing worth recording.
   */
  seenCheckpoint(): SeenLogCheckpoint | undefined {
    const { checkpoint, evidence, tree, noteText } = this;
    if (!this.finished || checkpoint === undefined || evidence === undefined || tree === undefined) return undefined;
    if (noteText === undefined || this.signer === 'unknown' || this.signerKey === undefined) return undefined;
    if (this.problems.some((problem) => problem.code === 'log_checkpoint_invalid')) return undefined;
    return {
      note: noteText,
      origin: checkpoint.origin,
      key_name: evidence.key_name,
      log_key: this.signerKey,
      size: checkpoint.size,
      root: checkpoint.rootHash,
      consistency: this.consistent.map((proof) => ({ ...proof, proof: [...proof.proof] })),
    };
  }
}

/** A bundle's period in words: `A to B`, `A onwards`, `everything before B` or `the whole log`. */
function periodWords(period: LogCompleteness['period']): string {
  if (period.since !== null && period.until !== null) return `${period.since} to ${period.until}`;
  if (period.since !== null) return `${period.since} onwards`;
  if (period.until !== null) return `everything before ${period.until}`;
  return 'the whole log';
}

/**
 * The completeness's one sentence for people.
 *
 * @param log - The completeness (its sentence unset).
 * @param problem - The first finding that makes it invalid, if any.
 * @returns `complete for <period> at size N` (the period `A to B`, `A onwards`, `everything
 *   before B` or `the whole log`), or `incomplete: K leaves missing (indices …)`, or
 *   `invalid: <the first problem>`.
 */
export function completenessSentence(log: Omit<LogCompleteness, 'sentence'>, problem?: string): string {
  if (log.status === 'absent') return 'no log evidence';
  if (log.status === 'invalid') return `invalid: ${problem ?? 'the log evidence cannot be used'}`;
  const size = log.tree_size ?? 0;
  if (log.status === 'complete') return `complete for ${periodWords(log.period)} at size ${size}`;
  const shown = log.missing.slice(0, SENTENCE_INDICES).join(', ');
  const more = log.missing_count > SENTENCE_INDICES ? '…' : '';
  const noun = log.missing_count === 1 ? 'leaf' : 'leaves';
  const label = log.missing_count === 1 ? 'index' : 'indices';
  return `incomplete: ${log.missing_count} ${noun} missing (${label} ${shown}${more})`;
}

/** What {@link checkLogEvidence} is given: the input of {@link LogEvidenceCheck} and every receipt. */
export interface CheckLogEvidenceInput extends LogEvidenceInput {
  receipts: Iterable<LogReceipt>;
}

/**
 * Check a bundle's log evidence in one call (the receipts all at hand).
 *
 * @param crypto - SHA-256 and Ed25519.
 * @param input - The log files, keys, tenant and receipts.
 * @param findings - Where the findings go.
 * @returns The completeness, or null for a bundle without log files.
 */
export function checkLogEvidence(
  crypto: CryptoProvider,
  input: CheckLogEvidenceInput,
  findings: FindingList,
): LogCompleteness | null {
  const check = new LogEvidenceCheck(crypto, input);
  for (const receipt of input.receipts) check.addReceipt(receipt);
  return check.finish(findings);
}
