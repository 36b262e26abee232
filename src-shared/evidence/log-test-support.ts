/**
 * Test support: a tenant log's evidence files made with the real parts (TlogMemory for the tree,
 * signNoteLine for the checkpoint), as a service's evidence route writes them (docs/logs.md),
 * for the tests of log-evidence.ts, check-bundle.ts and the import. Not used by the program.
 *
 * The proofs come back as a plain object, so that a test can break them before they are written.
 */
import { b64uEncode, hexEncode, utf8Encode, type CryptoProvider } from '../crypto';
import { formatCheckpoint, formatNote, formatVkey, NOTE_ED25519, signNoteLine } from '../crypto/signed-note';
import { tlogLeafHash, TlogMemory } from '../crypto/tlog';
import { jcsTree, parseJsonBytes, toPlain } from '../json';
import { LOG_EVIDENCE_FORMAT } from './log-evidence';

/** A log key for tests. */
export interface TestLogKey {
  seed: Uint8Array;
  /** The note key name (the service's log name). */
  name: string;
}

/** What {@link makeLogEvidence} is asked for. */
export interface LogEvidenceSpec {
  crypto: CryptoProvider;
  key: TestLogKey;
  /** The origin's tenant: `<name>/tenants/<tenant>`. */
  tenant: string;
  /** Every receipt document of the log, in log order, as bytes. */
  log: readonly Uint8Array[];
  /** The checkpoint's tree size (default: the whole log). */
  size?: number;
  period: { since: string | null; until: string | null };
  /** The period's leaves, inclusive, or null for an empty period. */
  first: number | null;
  last: number | null;
  /** The boundary leaves, or null. */
  before: number | null;
  after: number | null;
  /** Earlier sizes to prove the checkpoint consistent with. */
  consistentWith?: number[];
}

/** The files, and the parts a test may want. */
export interface LogEvidenceFixture {
  /** log/checkpoint.txt's text. */
  checkpoint: string;
  /** log/proofs.json's content, to change and serialize. */
  proofs: Record<string, unknown>;
  tree: TlogMemory;
  /** hex receipt_sha256 of each log entry. */
  digests: string[];
}

function jcsBytes(bytes: Uint8Array): Uint8Array {
  return utf8Encode(jcsTree(parseJsonBytes(bytes)));
}

/**
 * A signed checkpoint of a tree.
 *
 * @param crypto - For the signature.
 * @param key - The log key.
 * @param origin - The origin line.
 * @param size - The tree size.
 * @param root - Its root.
 * @returns The signed note.
 */
export function signedCheckpoint(
  crypto: CryptoProvider,
  key: TestLogKey,
  origin: string,
  size: number,
  root: Uint8Array,
): string {
  const text = formatCheckpoint({ origin, size, rootHash: root, extensions: [] });
  return formatNote(text, [signNoteLine(crypto, text, key.name, key.seed)]);
}

/**
 * The log evidence of a period, as the service writes it.
 *
 * @param spec - The log, the period and its edges.
 * @returns The files.
 */
export function makeLogEvidence(spec: LogEvidenceSpec): LogEvidenceFixture {
  const { crypto } = spec;
  const sha256 = (data: Uint8Array): Uint8Array => crypto.sha256(data);
  const tree = new TlogMemory(sha256);
  const digests: string[] = [];
  for (const bytes of spec.log) {
    const canonical = jcsBytes(bytes);
    digests.push(hexEncode(sha256(canonical)));
    tree.append(tlogLeafHash(sha256, canonical));
  }
  const size = spec.size ?? spec.log.length;
  const origin = `${spec.key.name}/tenants/${spec.tenant}`;
  const root = tree.root(size);
  const proof = (index: number): string[] =>
    index < size ? tree.inclusionProof(index, size).map((hash) => hexEncode(hash)) : [];
  const leaves: unknown[] = [];
  if (spec.first !== null && spec.last !== null) {
    for (let index = spec.first; index <= spec.last; index += 1) {
      leaves.push({ index, receipt_sha256: digests[index], inclusion: proof(index) });
    }
  }
  const boundary = (index: number | null): unknown =>
    index === null
      ? null
      : { index, receipt: toPlain(parseJsonBytes(spec.log[index] as Uint8Array)), inclusion: proof(index) };
  const proofs: Record<string, unknown> = {
    format: LOG_EVIDENCE_FORMAT,
    origin,
    key_name: spec.key.name,
    tree_size: size,
    root: hexEncode(root),
    period: spec.period,
    first_index: spec.first,
    last_index: spec.last,
    leaves,
    before: boundary(spec.before),
    after: boundary(spec.after),
  };
  if (spec.consistentWith !== undefined) {
    proofs['consistency'] = spec.consistentWith.map((from) => ({
      from_size: from,
      from_root: hexEncode(tree.root(from)),
      proof: tree.consistencyProof(from, size).map((hash) => hexEncode(hash)),
    }));
  }
  return { checkpoint: signedCheckpoint(crypto, spec.key, origin, size, root), proofs, tree, digests };
}

/**
 * The log key as /v1/keys and a bundle's keys file list it.
 *
 * @param crypto - For the public key.
 * @param key - The log key.
 * @param keyId - Its key_id.
 * @returns The key file entry.
 */
export function logKeyEntry(crypto: CryptoProvider, key: TestLogKey, keyId: string): Record<string, unknown> {
  const publicKey = crypto.ed25519PublicKey(key.seed);
  return {
    key_id: keyId,
    algorithm: 'Ed25519',
    public_key: b64uEncode(publicKey),
    use: ['log-checkpoints'],
    status: 'active',
    note_key_name: key.name,
    vkey: formatVkey((data) => crypto.sha256(data), key.name, NOTE_ED25519, publicKey),
  };
}

/**
 * A key file's text with more entries.
 *
 * @param text - A key file (`{"keys": [...]}`).
 * @param entries - Entries to append.
 * @returns The new text.
 */
export function withKeyEntries(text: string, entries: readonly Record<string, unknown>[]): string {
  const parsed = JSON.parse(text) as { keys: unknown[] };
  return `${JSON.stringify({ keys: [...parsed.keys, ...entries] }, null, 2)}\n`;
}
