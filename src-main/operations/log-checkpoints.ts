/**
 * The workstation's memory of transparency-log checkpoints (issue 28; docs/logs.md, "Checking a
 * log from a workstation"): every checkpoint seen of every log, the consistency proofs checked
 * between them, and what they add up to for each log.
 *
 * A log is one tenant's Merkle log at a service, named by its checkpoints' origin line. Two
 * checkpoints of one log verified by the same Ed25519 key disagree (a split view, the loudest
 * finding the app has) when they have the same size and different roots, or when a consistency
 * proof between them fails. A checkpoint with no chain of proofs to another one of another size
 * is `unchecked` against it. Checkpoints verified by different keys are never compared: anyone
 * can advertise a key under a service's note key name in a bundle, so only the key that signed
 * both can make two checkpoints disagree (docs/logs.md, "Split views are judged per key").
 *
 * Callers verify the note's signature before they record it (the import with the bundle's or the
 * trust store's log key, `evroom log check` with the service's); this module checks that the note
 * says what the caller says it does, checks every consistency proof it is given, and records.
 */
import { hexEncode, hexDecode, type CryptoProvider } from '../../src-shared/crypto';
import {
  NOTE_ED25519,
  noteKeyId,
  parseCheckpoint,
  parseNote,
  verifyNote,
  type Note,
  type NoteVerifierKey,
} from '../../src-shared/crypto/signed-note';
import { tlogVerifyConsistency } from '../../src-shared/crypto/tlog';
import type {
  LogBundleView,
  LogCompleteness,
  LogConsistency,
  LogDetail,
  LogSigner,
  LogView,
  SeenCheckpointView,
} from '../../src-shared/api/logs-contract';
import {
  listBundlesOfLog,
  listConsistencyResults,
  listSeenCheckpoints,
  listSeenOrigins,
  recordConsistencyResult,
  recordSeenCheckpointRow,
  type ConsistencyResultRecord,
  type SeenCheckpointRecord,
  type WritableDB,
} from '../ledger';
import { OperationError } from './errors';
import type { Workspace } from './workspace';

/** A checkpoint to record, as the caller read and verified it. */
export interface SeenCheckpointInput {
  /** The whole signed note (checkpoint text, blank line, signature lines). */
  note: string;
  origin: string;
  key_name: string;
  /** The 32-byte Ed25519 public key that verified the note (as key_name); checkpoints are compared only with those of the same key. */
  log_key: Uint8Array;
  size: number;
  root: Uint8Array;
  /** `bundle:<id>`, `api:<url>` or `context:<pack id>`. */
  source: string;
  /** Consistency proofs from earlier sizes to this checkpoint (a bundle's, or fetched). */
  consistency?: { from_size: number; from_root: Uint8Array; proof: Uint8Array[] }[];
}

/** How a checkpoint stands with every other checkpoint seen of its log. */
export interface CheckpointRecordOutcome {
  consistency: 'consistent' | 'unchecked' | 'split_view';
  /** sizes of earlier checkpoints it could not be checked against (no proof) */
  unchecked_sizes: number[];
  split?: { size: number; root_hex: string; other_size: number; other_root_hex: string };
}

/** The most consistency proofs one call checks (a bundle carries up to 16). */
export const MAX_CONSISTENCY_PROOFS = 64;
/** The most hashes in one consistency proof (2 * 64 is far above any safe-integer tree). */
export const MAX_PROOF_HASHES = 128;

interface Node {
  size: number;
  root: string;
}

function nodeKey(node: Node): string {
  return `${node.size}:${node.root}`;
}

function checkRoot(value: unknown, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (value.length !== 32) throw new RangeError(`${name} must be 32 bytes`);
  return value;
}

function checkSize(value: unknown, name: string): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number`);
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number from 0`);
  return value;
}

function checkProof(value: unknown, name: string): Uint8Array[] {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of hashes`);
  if (value.length > MAX_PROOF_HASHES) throw new RangeError(`${name} holds more than ${MAX_PROOF_HASHES} hashes`);
  return value.map((hash, index) => checkRoot(hash, `${name}[${index}]`));
}

/** The cosignature lines of a note: every signature line by another name than the log key's. */
function cosignatureCount(note: Note, keyName: string): number {
  return note.signatures.filter((signature) => signature.name !== keyName).length;
}

/**
 * Whether a consistency proof holds between two trees. A tree of size 0 is a prefix of every
 * tree (its root must be the empty tree's, and the proof empty); equal sizes need equal roots.
 */
function proofHolds(
  crypto: CryptoProvider,
  from: { size: number; root: Uint8Array },
  to: { size: number; root: Uint8Array },
  proof: readonly Uint8Array[],
): boolean {
  if (from.size > to.size) return false;
  if (from.size === 0) return proof.length === 0 && hexEncode(from.root) === hexEncode(crypto.sha256(new Uint8Array()));
  try {
    return tlogVerifyConsistency((data) => crypto.sha256(data), from.size, to.size, from.root, to.root, proof);
  } catch (error) {
    // The verifier throws only for arguments out of range, which the checks above rule out; a
    // proof of the wrong shape is simply a proof that does not hold.
    if (error instanceof RangeError || error instanceof TypeError) return false;
    throw error;
  }
}

/**
 * Checks one consistency proof from size `fromSize` to size `toSize` of a log against every
 * pair of seen roots of those sizes (and the root the caller names for the smaller tree when no
 * checkpoint of that size is seen), and records each result. A proof that fails between two
 * seen checkpoints makes a split view.
 */
function checkProofAgainstSeen(
  database: WritableDB,
  crypto: CryptoProvider,
  origin: string,
  logKey: string,
  from: { size: number; roots: readonly string[] },
  to: { size: number; roots: readonly string[] },
  proof: readonly Uint8Array[],
  source: string,
  now: number,
): void {
  for (const fromRoot of from.roots)
    for (const toRoot of to.roots) {
      if (from.size === to.size && fromRoot === toRoot) continue;
      const holds = proofHolds(
        crypto,
        { size: from.size, root: hexDecode(fromRoot) },
        { size: to.size, root: hexDecode(toRoot) },
        proof,
      );
      recordConsistencyResult(database, {
        origin,
        log_key: logKey,
        from_size: from.size,
        from_root: fromRoot,
        to_size: to.size,
        to_root: toRoot,
        result: holds ? 'consistent' : 'inconsistent',
        source,
        checked_at: now,
      });
    }
}

function seenRootsOf(seen: readonly SeenCheckpointRecord[], size: number): string[] {
  return [...new Set(seen.filter((record) => record.tree_size === size).map((record) => record.root))];
}

/**
 * The consistency proofs recorded for one log as a graph: an edge from the smaller tree to the
 * larger for each proof that held, and the pairs a proof failed for. Consistency is transitive,
 * so a checkpoint is consistent with another when a chain of edges leads from the smaller to the
 * larger (or the smaller is the empty tree). Every question is answered by one walk of the graph,
 * so a log of many checkpoints costs about as many steps as it has proofs.
 */
class ProofGraph {
  private readonly up = new Map<string, string[]>();
  private readonly down = new Map<string, string[]>();
  private readonly failed = new Set<string>();
  constructor(
    readonly emptyRoot: string,
    results: readonly ConsistencyResultRecord[],
  ) {
    for (const result of results) {
      const from = nodeKey({ size: result.from_size, root: result.from_root });
      const to = nodeKey({ size: result.to_size, root: result.to_root });
      if (result.result === 'inconsistent') this.failed.add(`${from}>${to}`);
      else {
        this.up.set(from, [...(this.up.get(from) ?? []), to]);
        this.down.set(to, [...(this.down.get(to) ?? []), from]);
      }
    }
  }

  /** Whether a proof between these two failed (the smaller first). */
  failedBetween(small: Node, large: Node): boolean {
    return this.failed.has(`${nodeKey(small)}>${nodeKey(large)}`);
  }

  /** Whether the tree is the empty one, a prefix of every tree. */
  isEmptyTree(node: Node): boolean {
    return node.size === 0 && node.root === this.emptyRoot;
  }

  /**
   * Every node a chain of proofs that held leads to from `start`, upwards (larger trees) or
   * downwards (smaller ones); `bound` stops an upward walk above a size.
   */
  walk(start: Node, direction: 'up' | 'down', bound = Number.MAX_SAFE_INTEGER): Set<string> {
    const edges = direction === 'up' ? this.up : this.down;
    const seen = new Set<string>([nodeKey(start)]);
    const stack = [nodeKey(start)];
    while (stack.length > 0) {
      for (const next of edges.get(stack.pop() as string) ?? []) {
        if (seen.has(next) || Number(next.slice(0, next.indexOf(':'))) > bound) continue;
        seen.add(next);
        stack.push(next);
      }
    }
    return seen;
  }
}

function emptyRootHex(crypto: CryptoProvider): string {
  return hexEncode(crypto.sha256(new Uint8Array()));
}

/** How one checkpoint stands with every other one seen of its log. */
function standing(
  crypto: CryptoProvider,
  seen: readonly SeenCheckpointRecord[],
  results: readonly ConsistencyResultRecord[],
  focus: Node,
): CheckpointRecordOutcome {
  const graph = new ProofGraph(emptyRootHex(crypto), results);
  const above = graph.walk(focus, 'up');
  const below = graph.walk(focus, 'down');
  const unchecked = new Set<number>();
  let split: CheckpointRecordOutcome['split'];
  for (const other of seen) {
    const node = { size: other.tree_size, root: other.root };
    const key = nodeKey(node);
    if (key === nodeKey(focus)) continue;
    const [small, large] = node.size < focus.size ? [node, focus] : [focus, node];
    if (node.size === focus.size || graph.failedBetween(small, large))
      split ??= { size: focus.size, root_hex: focus.root, other_size: node.size, other_root_hex: node.root };
    else if (!graph.isEmptyTree(small) && !(node.size < focus.size ? below : above).has(key)) unchecked.add(node.size);
  }
  const unchecked_sizes = [...unchecked].sort((a, b) => a - b);
  if (split !== undefined) return { consistency: 'split_view', unchecked_sizes, split };
  return { consistency: unchecked_sizes.length > 0 ? 'unchecked' : 'consistent', unchecked_sizes };
}

/**
 * How a whole log stands: a split view between any two of its checkpoints (two roots at one
 * size, or a failed proof between two seen), else `unchecked` when some checkpoint has no chain
 * of proofs to the next larger one, else consistent (each reaching the next, all are consistent).
 */
function logStanding(
  crypto: CryptoProvider,
  seen: readonly SeenCheckpointRecord[],
  results: readonly ConsistencyResultRecord[],
): { consistency: LogConsistency; split?: CheckpointRecordOutcome['split'] } {
  const graph = new ProofGraph(emptyRootHex(crypto), results);
  const bySize = new Map<number, SeenCheckpointRecord>();
  for (const record of seen) {
    const first = bySize.get(record.tree_size);
    if (first === undefined) bySize.set(record.tree_size, record);
    else if (first.root !== record.root)
      return {
        consistency: 'split_view',
        split: {
          size: first.tree_size,
          root_hex: first.root,
          other_size: record.tree_size,
          other_root_hex: record.root,
        },
      };
  }
  const known = new Set(seen.map((record) => nodeKey({ size: record.tree_size, root: record.root })));
  for (const result of results) {
    const from = nodeKey({ size: result.from_size, root: result.from_root });
    const to = nodeKey({ size: result.to_size, root: result.to_root });
    if (result.result === 'inconsistent' && known.has(from) && known.has(to))
      return {
        consistency: 'split_view',
        split: {
          size: result.to_size,
          root_hex: result.to_root,
          other_size: result.from_size,
          other_root_hex: result.from_root,
        },
      };
  }
  const ordered = [...bySize.values()]
    .map((record) => ({ size: record.tree_size, root: record.root }))
    .sort((a, b) => a.size - b.size);
  for (let index = 0; index + 1 < ordered.length; index += 1) {
    const small = ordered[index] as Node;
    const large = ordered[index + 1] as Node;
    if (!graph.isEmptyTree(small) && !graph.walk(small, 'up', large.size).has(nodeKey(large)))
      return { consistency: 'unchecked' };
  }
  return { consistency: 'consistent' };
}

function checkInput(
  crypto: CryptoProvider,
  input: SeenCheckpointInput,
): { note: Note; rootHex: string; keyHex: string } {
  if (typeof input !== 'object' || input === null) throw new TypeError('recordSeenCheckpoint expects an input object');
  if (typeof input.note !== 'string') throw new TypeError('note must be a string');
  if (typeof input.origin !== 'string' || input.origin.length === 0) throw new TypeError('origin must be a string');
  if (typeof input.key_name !== 'string' || input.key_name.length === 0)
    throw new TypeError('key_name must be a string');
  const keyHex = hexEncode(checkPublicKey(input.log_key, 'log_key'));
  checkSize(input.size, 'size');
  checkRoot(input.root, 'root');
  if (typeof input.source !== 'string' || input.source.length === 0) throw new TypeError('source must be a string');
  if (input.consistency !== undefined) {
    if (!Array.isArray(input.consistency)) throw new TypeError('consistency must be an array');
    if (input.consistency.length > MAX_CONSISTENCY_PROOFS)
      throw new RangeError(`consistency holds more than ${MAX_CONSISTENCY_PROOFS} proofs`);
    input.consistency.forEach((item, index) => {
      checkSize(item.from_size, `consistency[${index}].from_size`);
      checkRoot(item.from_root, `consistency[${index}].from_root`);
      checkProof(item.proof, `consistency[${index}].proof`);
      if (item.from_size > input.size)
        throw new RangeError(`consistency[${index}].from_size is above the checkpoint's size`);
    });
  }
  // The note must say what the caller says it does: recording one thing under another's name
  // would make the memory lie.
  const note = parseNote(input.note);
  const checkpoint = parseCheckpoint(note.text);
  const rootHex = hexEncode(input.root);
  if (
    checkpoint.origin !== input.origin ||
    checkpoint.size !== input.size ||
    hexEncode(checkpoint.rootHash) !== rootHex
  )
    throw new RangeError('The note is not the checkpoint named (origin, size and root must be the note’s)');
  if (!note.signatures.some((signature) => signature.name === input.key_name))
    throw new RangeError(`The note carries no signature by ${input.key_name}`);
  if (!noteSignedBy(crypto, note, input.key_name, input.log_key))
    throw new RangeError(`The note's signature by ${input.key_name} does not verify with log_key`);
  return { note, rootHex, keyHex };
}

/**
 * Records a checkpoint the caller has read and verified, checks the consistency proofs it came
 * with against every checkpoint seen of its log, and says how it stands with every one of them.
 *
 * Each carried proof from size M is checked against every root seen at size M (and against the
 * `from_root` it names, when none is seen at M): a proof that fails between two seen checkpoints
 * is a split view, and so is another root seen at the checkpoint's own size. Everything is
 * written in one ledger transaction.
 *
 * @param workspace - The open workspace.
 * @param input - The checkpoint, where it was seen, and its proofs.
 * @returns `split_view` (with the two checkpoints), `unchecked` (with the sizes of the
 *   checkpoints it could not be checked against) or `consistent`.
 * @throws TypeError/RangeError for input of the wrong shape, or a note that is not the
 *   checkpoint named; NoteError for a note that does not parse; nothing is written then.
 */
export function recordSeenCheckpoint(workspace: Workspace, input: SeenCheckpointInput): CheckpointRecordOutcome {
  const crypto = workspace.crypto;
  const { note, rootHex, keyHex } = checkInput(crypto, input);
  const now = Date.now();
  return workspace.ledger.runInTransaction((database) => {
    recordSeenCheckpointRow(database, {
      origin: input.origin,
      key_name: input.key_name,
      log_key: keyHex,
      tree_size: input.size,
      root: rootHex,
      note: input.note,
      cosignatures: cosignatureCount(note, input.key_name),
      source: input.source,
      seen_at: now,
    });
    const seen = listSeenCheckpoints(database, input.origin, keyHex);
    for (const item of input.consistency ?? []) {
      const seenRoots = seenRootsOf(seen, item.from_size);
      checkProofAgainstSeen(
        database,
        crypto,
        input.origin,
        keyHex,
        { size: item.from_size, roots: seenRoots.length > 0 ? seenRoots : [hexEncode(item.from_root)] },
        { size: input.size, roots: [rootHex] },
        item.proof,
        input.source,
        now,
      );
    }
    return standing(crypto, seen, listConsistencyResults(database, input.origin, keyHex), {
      size: input.size,
      root: rootHex,
    });
  });
}

/**
 * Checks a consistency proof between two sizes of a log the workstation has seen checkpoints of
 * at both sizes (`evroom log check` fetches them), against every pair of roots seen at those
 * sizes verified by the same log key, and records each result.
 *
 * @param workspace - The open workspace.
 * @param input - The log, the key that verified its checkpoints, the two sizes (from <= to), the
 *   proof and where it came from.
 * @returns How the checkpoints of size `to` stand afterwards (the first of them).
 * @throws OperationError not_found when no checkpoint of either size is seen; TypeError/RangeError
 *   for input of the wrong shape.
 */
export function recordConsistencyProof(
  workspace: Workspace,
  input: {
    origin: string;
    log_key: Uint8Array;
    from_size: number;
    to_size: number;
    proof: Uint8Array[];
    source: string;
  },
): CheckpointRecordOutcome {
  const keyHex = hexEncode(checkPublicKey(input.log_key, 'log_key'));
  checkSize(input.from_size, 'from_size');
  checkSize(input.to_size, 'to_size');
  if (input.from_size > input.to_size) throw new RangeError('from_size must not be above to_size');
  const proof = checkProof(input.proof, 'proof');
  if (typeof input.source !== 'string' || input.source.length === 0) throw new TypeError('source must be a string');
  const now = Date.now();
  return workspace.ledger.runInTransaction((database) => {
    const seen = listSeenCheckpoints(database, input.origin, keyHex);
    const fromRoots = seenRootsOf(seen, input.from_size);
    const toRoots = seenRootsOf(seen, input.to_size);
    if (fromRoots.length === 0 || toRoots.length === 0)
      throw new OperationError(
        'not_found',
        'not_found',
        `No checkpoint of size ${fromRoots.length === 0 ? input.from_size : input.to_size} of ${input.origin} signed by this key has been seen.`,
      );
    checkProofAgainstSeen(
      database,
      workspace.crypto,
      input.origin,
      keyHex,
      { size: input.from_size, roots: fromRoots },
      { size: input.to_size, roots: toRoots },
      proof,
      input.source,
      now,
    );
    return standing(workspace.crypto, seen, listConsistencyResults(database, input.origin, keyHex), {
      size: input.to_size,
      root: toRoots[0] as string,
    });
  });
}

/**
 * The sizes of a log a new checkpoint of size `size` should be proved consistent with: every
 * other size seen (but 0, a prefix of every tree), except a smaller size whose checkpoints all
 * reach every checkpoint of the largest smaller size through proofs already checked: the proof
 * from that size covers them (consistency is transitive), so a log checked every minute for a
 * year asks for one proof per check, not one per checkpoint ever seen.
 *
 * @param workspace - The open workspace.
 * @param origin - The log.
 * @param size - The new checkpoint's size.
 * @param logKey - The key that verified it: only checkpoints of that key count.
 * @returns The smaller sizes to prove from, ascending, then the larger ones to prove to.
 */
export function sizesToProve(workspace: Workspace, origin: string, size: number, logKey: Uint8Array): number[] {
  checkSize(size, 'size');
  const keyHex = hexEncode(checkPublicKey(logKey, 'logKey'));
  const database = workspace.ledger.readable;
  const seen = listSeenCheckpoints(database, origin, keyHex);
  const sizes = [...new Set(seen.map((record) => record.tree_size))].filter((other) => other !== 0 && other !== size);
  const smaller = sizes.filter((other) => other < size).sort((a, b) => a - b);
  const larger = sizes.filter((other) => other > size).sort((a, b) => a - b);
  const largest = smaller.at(-1);
  if (largest === undefined) return larger;
  const graph = new ProofGraph(emptyRootHex(workspace.crypto), listConsistencyResults(database, origin, keyHex));
  const targets = seenRootsOf(seen, largest).map((root) => nodeKey({ size: largest, root }));
  const covered = (other: number): boolean =>
    seenRootsOf(seen, other).every((root) => {
      const reached = graph.walk({ size: other, root }, 'up', largest);
      return targets.every((target) => reached.has(target));
    });
  return [...smaller.filter((other) => other === largest || !covered(other)), ...larger];
}

/**
 * How one seen checkpoint stands with every other one of its log verified by the same key, from
 * what is recorded.
 *
 * @param workspace - The open workspace.
 * @param origin - The log.
 * @param size - The checkpoint's size.
 * @param root - Its root.
 * @param logKey - The key that verified it.
 */
export function checkpointStanding(
  workspace: Workspace,
  origin: string,
  size: number,
  root: Uint8Array,
  logKey: Uint8Array,
): CheckpointRecordOutcome {
  checkSize(size, 'size');
  checkRoot(root, 'root');
  const keyHex = hexEncode(checkPublicKey(logKey, 'logKey'));
  const database = workspace.ledger.readable;
  return standing(
    workspace.crypto,
    listSeenCheckpoints(database, origin, keyHex),
    listConsistencyResults(database, origin, keyHex),
    { size, root: hexEncode(root) },
  );
}

/**
 * Whether a public key is pinned in the trust store as a log key: a pinned (not revoked)
 * Ed25519 entry with these key bytes, trusted for every role or for the `service` role (the
 * service's log key is one of the service's keys). docs/logs.md, "How a log key is pinned".
 *
 * @param workspace - The open workspace.
 * @param publicKey - The 32-byte Ed25519 public key.
 */
export function isLogKeyPinned(workspace: Workspace, publicKey: Uint8Array): boolean {
  const hex = hexEncode(checkPublicKey(publicKey, 'publicKey'));
  return pinnedLogKeys(workspace).some((key) => hexEncode(key) === hex);
}

function checkPublicKey(value: unknown, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (value.length !== 32) throw new RangeError(`${name} must be 32 bytes (an Ed25519 public key)`);
  return value;
}

/** The public keys the trust store pins as log keys (see {@link isLogKeyPinned}). */
function pinnedLogKeys(workspace: Workspace): Uint8Array[] {
  return workspace.trust
    .list()
    .filter(
      (key) =>
        key.status === 'pinned' &&
        key.algorithm === 'Ed25519' &&
        (key.roles === undefined || key.roles.includes('service')),
    )
    .map((key) => key.public_key);
}

/** The note verifier keys of the Ed25519 keys given, under the log's note key name. */
/**
 * Whether a note carries a valid signature by `publicKey` under the note key name `name`
 * (Ed25519, C2SP signed-note).
 *
 * @param crypto - The crypto provider.
 * @param note - The parsed note.
 * @param name - The note key name.
 * @param publicKey - The 32-byte Ed25519 key.
 */
export function noteSignedBy(crypto: CryptoProvider, note: Note, name: string, publicKey: Uint8Array): boolean {
  return verifyNote(crypto, note, noteKeysOf(crypto, name, [publicKey])).some((result) => result.status === 'valid');
}

function noteKeysOf(crypto: CryptoProvider, name: string, publicKeys: readonly Uint8Array[]): NoteVerifierKey[] {
  const sha256 = (data: Uint8Array): Uint8Array => crypto.sha256(data);
  return publicKeys
    .filter((key) => key.length === 32)
    .map((publicKey) => ({
      name,
      type: NOTE_ED25519,
      publicKey,
      keyId: noteKeyId(sha256, name, NOTE_ED25519, publicKey),
    }));
}

/**
 * How the key that verified a seen checkpoint (its `log_key`) is known: `pinned` when it is a
 * log key pinned in the trust store, `advertised` when it is only advertised to this workstation
 * (a bundle's keys file, a service's /v1/keys), else `unknown`.
 */
function signerOf(workspace: Workspace, logKey: string): LogSigner {
  if (pinnedLogKeys(workspace).some((key) => hexEncode(key) === logKey)) return 'pinned';
  const advertised = workspace.trust
    .listAdvertised()
    .some((key) => key.algorithm === 'Ed25519' && hexEncode(key.public_key) === logKey);
  return advertised ? 'advertised' : 'unknown';
}

/**
 * A seen checkpoint as the views show it, with the key that verified it: its note key id and how
 * it is known (`signerOf`, asked once per key by {@link viewMaker}).
 */
function toView(record: SeenCheckpointRecord, keyId: string, signer: LogSigner): SeenCheckpointView {
  return {
    tree_size: record.tree_size,
    root_hex: record.root,
    key_name: record.key_name,
    source: record.source,
    first_seen_at: record.first_seen_at,
    note: record.note,
    cosignatures: record.cosignatures,
    key_id: keyId,
    signer,
  };
}

/** Turns seen checkpoints into views, reading the trust store once per key (a history may be long). */
function viewMaker(workspace: Workspace): (record: SeenCheckpointRecord) => SeenCheckpointView {
  const known = new Map<string, { keyId: string; signer: LogSigner }>();
  return (record) => {
    const cacheKey = `${record.key_name}\n${record.log_key}`;
    let key = known.get(cacheKey);
    if (key === undefined) {
      const id = noteKeyId(workspace.crypto.sha256, record.key_name, NOTE_ED25519, hexDecode(record.log_key));
      key = { keyId: id.toString(16).padStart(8, '0'), signer: signerOf(workspace, record.log_key) };
      known.set(cacheKey, key);
    }
    return toView(record, key.keyId, key.signer);
  };
}

/** Whether a stored value has the shape of a LogCompleteness (the import wrote it; old rows may differ). */
export function isLogCompleteness(value: unknown): value is LogCompleteness {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const log = value as Record<string, unknown>;
  return (
    typeof log.status === 'string' &&
    typeof log.sentence === 'string' &&
    typeof log.signer === 'string' &&
    typeof log.period === 'object' &&
    log.period !== null &&
    Array.isArray(log.missing) &&
    typeof log.missing_count === 'number'
  );
}

/** The imported bundles with evidence from a log (`bundles.log_json`, migration 12), the latest first. */
function logBundles(workspace: Workspace, origin: string): LogBundleView[] {
  return listBundlesOfLog(workspace.ledger.readable, origin).flatMap((record) =>
    isLogCompleteness(record.log)
      ? [{ bundle_id: record.id, file_name: record.file_name, imported_at: record.imported_at, log: record.log }]
      : [],
  );
}

const CONSISTENCY_RANK: Record<LogConsistency, number> = { split_view: 0, unchecked: 1, consistent: 2 };

/**
 * A log as the Logs view shows it. Its checkpoints are judged per key that verified them; when
 * some are verified by a pinned log key, only those keys' checkpoints are judged (and the latest
 * of them is shown), so a key a bundle merely advertises under the service's name cannot raise a
 * split view for a log whose key is pinned. Else every key's checkpoints are judged, the worst
 * standing of any key winning.
 */
function logViewOf(
  workspace: Workspace,
  origin: string,
  seen: readonly SeenCheckpointRecord[],
  view: (record: SeenCheckpointRecord) => SeenCheckpointView = viewMaker(workspace),
): LogView {
  const results = listConsistencyResults(workspace.ledger.readable, origin);
  const pinned = new Set(pinnedLogKeys(workspace).map((key) => hexEncode(key)));
  const keys = [...new Set(seen.map((record) => record.log_key))];
  const pinnedKeys = keys.filter((key) => pinned.has(key));
  const judgedKeys = pinnedKeys.length > 0 ? pinnedKeys : keys;
  let judged: ReturnType<typeof logStanding> = { consistency: 'consistent' };
  for (const key of judgedKeys) {
    const standingOfKey = logStanding(
      workspace.crypto,
      seen.filter((record) => record.log_key === key),
      results.filter((result) => result.log_key === key),
    );
    if (CONSISTENCY_RANK[standingOfKey.consistency] < CONSISTENCY_RANK[judged.consistency]) judged = standingOfKey;
  }
  const latest = seen.find((record) => judgedKeys.includes(record.log_key)) as SeenCheckpointRecord;
  const latestView = view(latest);
  return {
    origin,
    key_name: latest.key_name,
    signer: latestView.signer,
    checkpoints: seen.length,
    keys: keys.length,
    latest: latestView,
    consistency: judged.consistency,
    ...(judged.split === undefined ? {} : { split: judged.split }),
    bundles: logBundles(workspace, origin).length,
  };
}

/**
 * Every log the workstation has seen a checkpoint of: split views first, then by origin.
 *
 * @param workspace - The open workspace.
 */
export function listLogs(workspace: Workspace): LogView[] {
  const database = workspace.ledger.readable;
  const views = listSeenOrigins(database).map((origin) =>
    logViewOf(workspace, origin, listSeenCheckpoints(database, origin)),
  );
  const rank = (view: LogView): number => (view.consistency === 'split_view' ? 0 : 1);
  return views.sort((a, b) => rank(a) - rank(b) || (a.origin < b.origin ? -1 : a.origin > b.origin ? 1 : 0));
}

/**
 * One log in full: every checkpoint seen (largest tree first) and the imported bundles with
 * evidence from it.
 *
 * @param workspace - The open workspace.
 * @param origin - The log's origin line.
 * @throws OperationError not_found when no checkpoint of that log has been seen.
 */
export function logDetail(workspace: Workspace, origin: string): LogDetail {
  if (typeof origin !== 'string' || origin.length === 0) throw new TypeError('logDetail expects an origin');
  const seen = listSeenCheckpoints(workspace.ledger.readable, origin);
  if (seen.length === 0)
    throw new OperationError('not_found', 'not_found', `No checkpoint of the log ${origin} has been seen.`);
  const view = viewMaker(workspace);
  return {
    ...logViewOf(workspace, origin, seen, view),
    history: seen.map(view),
    bundles_detail: logBundles(workspace, origin),
  };
}
