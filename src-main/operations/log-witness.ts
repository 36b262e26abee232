/**
 * A workstation checking a service's transparency log, and witnessing it (issue 28;
 * docs/logs.md, "Checking a log from a workstation"): `evroom log check`, `evroom log cosign`,
 * `evroom log key`.
 *
 * - check: fetches a tenant's newest checkpoint and the service's log keys, verifies the note
 *   with the log key pinned in the trust store or, when none is pinned, with the key the service
 *   advertises (said plainly: an advertised key proves only that the service signed it), records
 *   it, fetches a consistency proof between it and every other size seen of that log, and
 *   records what each showed.
 * - cosign: a check first; only a checkpoint consistent with every checkpoint seen of its log is
 *   cosigned (C2SP tlog-cosignature, type 0x04) with the workstation's auditor key, and given to
 *   the service. Offline, a checkpoint file of a seen log is cosigned on the same condition.
 */
import { DomainError } from '../../src-shared/api/domain-error';
import { hexDecode, hexEncode } from '../../src-shared/crypto';
import {
  formatNote,
  formatVkey,
  NOTE_COSIGNATURE_ED25519,
  NOTE_ED25519,
  noteKeyId,
  parseCheckpoint,
  parseNote,
  signCosignatureLine,
  verifyNote,
  type Checkpoint,
  type Note,
  type NoteSignature,
  type NoteVerifierKey,
} from '../../src-shared/crypto/signed-note';
import { withAuditorKey } from '../report/auditor-key';
import { AnchorServiceError, checkApiUrl } from './anchor-client';
import {
  checkpointStanding,
  isLogKeyPinned,
  recordConsistencyProof,
  recordSeenCheckpoint,
  sizesToProve,
  type CheckpointRecordOutcome,
} from './log-checkpoints';
import {
  fetchLogCheckpoint,
  fetchLogConsistency,
  fetchServiceLogKeys,
  postLogCosignature,
  type LogServiceOptions,
} from './log-client';
import { listSeenCheckpoints } from '../ledger';
import type { Workspace } from './workspace';

/** The longest witness name accepted (a note key name: no spaces, no `+`). */
export const MAX_WITNESS_NAME = 256;

/** A checkpoint the workstation will not accept or cosign; the CLI exits 1. */
export class LogRefusedError extends DomainError {
  override readonly code:
    'log_checkpoint_invalid' | 'log_key_unknown' | 'log_split_view' | 'log_unchecked' | 'log_unknown';
  constructor(code: LogRefusedError['code'], message: string) {
    super(message);
    this.name = 'LogRefusedError';
    this.code = code;
  }
}

/** One consistency proof asked of the service. */
export interface LogProofResult {
  from_size: number;
  to_size: number;
  /** `unavailable`: the service did not give it (the message says why). */
  result: 'fetched' | 'unavailable';
  message?: string;
}

/** What `evroom log check` found. */
export interface LogCheckResult {
  api: string;
  tenant: string;
  origin: string;
  key_name: string;
  tree_size: number;
  root_hex: string;
  /** `pinned`: the trust store's log key verified it; `advertised`: only the service's own word. */
  signer: 'pinned' | 'advertised';
  /** The Ed25519 log key (hex) that verified the checkpoint. */
  log_key_hex: string;
  /** The checkpoint as served (its note, with the cosignature lines the service was given). */
  note: string;
  cosignatures: number;
  /** Checkpoints of this log seen before this check. */
  seen_before: number;
  proofs: LogProofResult[];
  outcome: CheckpointRecordOutcome;
}

/** What `evroom log cosign` did. */
export interface LogCosignResult {
  check: LogCheckResult;
  witness: { name: string; vkey: string };
  /** The cosignature line added. */
  line: string;
  /** The checkpoint as the service served it after the cosignature was given. */
  served: string;
  /** Whether the checkpoint served now carries the cosignature (false when the log grew meanwhile). */
  served_with_cosignature: boolean;
}

function sha256Of(workspace: Workspace): (data: Uint8Array) => Uint8Array {
  return (data) => workspace.crypto.sha256(data);
}

/** Checks a witness name (see {@link isWitnessName}); the doors check it first and say so. */
function checkWitnessName(name: string): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_WITNESS_NAME || /[\s+]/u.test(name))
    throw new RangeError(`A witness name is 1 to ${MAX_WITNESS_NAME} characters without spaces or “+”`);
  return name;
}

/** `evroom-witness/` and the first 16 hex digits of SHA-256 of the auditor public key. */
function defaultWitnessName(workspace: Workspace, publicKey: Uint8Array): string {
  return `evroom-witness/${hexEncode(workspace.crypto.sha256(publicKey)).slice(0, 16)}`;
}

/**
 * Whether a text is a witness (note key) name: 1 to 256 characters, no white space, no `+`.
 *
 * @param name - The text.
 */
export function isWitnessName(name: string): boolean {
  return typeof name === 'string' && name.length > 0 && name.length <= MAX_WITNESS_NAME && !/[\s+]/u.test(name);
}

/**
 * The workstation's witness identity: its auditor key under a note key name, as a vkey
 * (`NAME+hex8+base64(0x04||key)`). The default name is `evroom-witness/` and the first 16 hex
 * digits of SHA-256 of the auditor public key. Makes the auditor key on first use.
 *
 * @param workspace - The open workspace.
 * @param name - Another name, if wanted.
 */
export function witnessIdentity(workspace: Workspace, name?: string): { name: string; vkey: string } {
  const { result } = withAuditorKey(workspace.dataDirectory, workspace.crypto, (_seed, key) => {
    const witnessName = name === undefined ? defaultWitnessName(workspace, key.public_key) : checkWitnessName(name);
    return {
      name: witnessName,
      vkey: formatVkey(sha256Of(workspace), witnessName, NOTE_COSIGNATURE_ED25519, key.public_key),
    };
  });
  return result;
}

function noteKeys(
  workspace: Workspace,
  names: readonly string[],
  publicKeys: readonly Uint8Array[],
): NoteVerifierKey[] {
  const sha256 = sha256Of(workspace);
  return names.flatMap((name) =>
    publicKeys.map((publicKey) => ({
      name,
      type: NOTE_ED25519,
      publicKey,
      keyId: noteKeyId(sha256, name, NOTE_ED25519, publicKey),
    })),
  );
}

function parseServed(text: string): { note: Note; checkpoint: Checkpoint } {
  try {
    const note = parseNote(text);
    return { note, checkpoint: parseCheckpoint(note.text) };
  } catch (error) {
    throw new LogRefusedError(
      'log_checkpoint_invalid',
      `The service's checkpoint is not a C2SP signed checkpoint: ${(error as Error).message}`,
    );
  }
}

/**
 * Checks a tenant's log at a service (see the module's comment) and records what it found.
 *
 * @param workspace - The open workspace.
 * @param options - The service, the tenant and its API key.
 * @param warn - Told when the checkpoint is verified only with the service's advertised key.
 * @returns What was found; a split view is in `outcome`, not thrown.
 * @throws LogRefusedError when the note does not parse or no known log key verifies it (nothing
 *   recorded); OperationError for bad options; AnchorServiceError when the service cannot be
 *   reached or answers the checkpoint or keys with an error.
 */
export async function checkLogAtService(
  workspace: Workspace,
  options: LogServiceOptions,
  warn: (message: string) => void = () => undefined,
): Promise<LogCheckResult> {
  const base = checkApiUrl(options.apiUrl, true);
  const text = await fetchLogCheckpoint(options);
  const keys = await fetchServiceLogKeys(base, options.timeoutMs);
  const { note, checkpoint } = parseServed(text);
  const names = [...new Set(note.signatures.map((signature) => signature.name))];

  // The pinned log keys first: a pinned key whose signature fails is a forgery, whatever else.
  const pinnedKeys = workspace.trust
    .list()
    .filter((key) => key.algorithm === 'Ed25519' && isLogKeyPinned(workspace, key.public_key))
    .map((key) => key.public_key);
  const pinnedResults = verifyNote(workspace.crypto, note, noteKeys(workspace, names, pinnedKeys));
  const badPinned = pinnedResults.find((result) => result.status === 'invalid');
  if (badPinned !== undefined)
    throw new LogRefusedError(
      'log_checkpoint_invalid',
      `The checkpoint's signature by ${badPinned.key.name} does not verify with the pinned log key: it is not the log's.`,
    );
  let keyName: string;
  let signer: 'pinned' | 'advertised';
  let logKey: Uint8Array;
  const pinnedValid = pinnedResults.find((result) => result.status === 'valid');
  if (pinnedValid !== undefined) {
    keyName = pinnedValid.key.name;
    logKey = pinnedValid.key.publicKey;
    signer = 'pinned';
  } else {
    const advertised: NoteVerifierKey[] = keys.map((key) => ({
      name: key.note_key_name,
      type: NOTE_ED25519,
      publicKey: key.public_key,
      keyId: noteKeyId(sha256Of(workspace), key.note_key_name, NOTE_ED25519, key.public_key),
    }));
    const results = verifyNote(workspace.crypto, note, advertised);
    const valid = results.find((result) => result.status === 'valid');
    if (valid === undefined) {
      const advertisedNames = keys.map((key) => key.note_key_name);
      if (results.length > 0)
        throw new LogRefusedError(
          'log_checkpoint_invalid',
          `The checkpoint's signature does not verify with the log key the service advertises (${advertisedNames.join(', ')}).`,
        );
      // A line under the advertised name with another key id: signed by another key.
      const impostor = note.signatures.find((signature) => advertisedNames.includes(signature.name));
      if (impostor !== undefined)
        throw new LogRefusedError(
          'log_checkpoint_invalid',
          `The checkpoint is signed as ${impostor.name} by another key than the log key the service advertises (key id ${impostor.keyId.toString(16).padStart(8, '0')}).`,
        );
      throw new LogRefusedError(
        'log_key_unknown',
        `No log key verifies the checkpoint: none is pinned, and the service advertises ${advertisedNames.length === 0 ? 'none' : `only ${advertisedNames.join(', ')}`}.`,
      );
    }
    keyName = valid.key.name;
    logKey = valid.key.publicKey;
    signer = 'advertised';
    workspace.trust.recordAdvertised(
      keys
        .filter((key) => key.note_key_name === keyName)
        .map((key) => ({ key_id: key.key_id, algorithm: 'Ed25519' as const, public_key: key.public_key })),
      `api:${base}`,
    );
    warn(
      `the log key ${keyName} is not pinned: the checkpoint was verified with the key the service advertises, which shows only that the service signed it. Pin the log key (evroom trust pin) once you have checked it another way.`,
    );
  }
  const expectedOrigin = `${keyName}/tenants/${options.tenant}`;
  if (checkpoint.origin !== expectedOrigin)
    throw new LogRefusedError(
      'log_checkpoint_invalid',
      `The checkpoint is of the log ${checkpoint.origin}, not of tenant ${options.tenant}'s (${expectedOrigin}).`,
    );

  // Only checkpoints verified by the same key are compared (docs/logs.md, "Split views are judged per key").
  const seen = listSeenCheckpoints(workspace.ledger.readable, checkpoint.origin, hexEncode(logKey));
  const source = `api:${base}`;
  const proofs: LogProofResult[] = [];
  const earlier: { from_size: number; from_root: Uint8Array; proof: Uint8Array[] }[] = [];
  const later: { to_size: number; proof: Uint8Array[] }[] = [];
  for (const size of sizesToProve(workspace, checkpoint.origin, checkpoint.size, logKey)) {
    // The empty tree is a prefix of every tree: no proof to ask for.
    if (checkpoint.size === 0) continue;
    const [from, to] = size < checkpoint.size ? [size, checkpoint.size] : [checkpoint.size, size];
    let proof: Uint8Array[];
    try {
      proof = await fetchLogConsistency({ ...options, from, to });
    } catch (error) {
      // No answer at all stops the check; an answer that refuses this proof is reported, and the
      // pair stays unchecked.
      if (!(error instanceof AnchorServiceError) || error.status === 0) throw error;
      proofs.push({ from_size: from, to_size: to, result: 'unavailable', message: error.message });
      continue;
    }
    proofs.push({ from_size: from, to_size: to, result: 'fetched' });
    if (size < checkpoint.size) {
      const root = seen.find((record) => record.tree_size === size)?.root as string;
      earlier.push({ from_size: size, from_root: Buffer.from(root, 'hex'), proof });
    } else later.push({ to_size: size, proof });
  }
  recordSeenCheckpoint(workspace, {
    note: text,
    origin: checkpoint.origin,
    key_name: keyName,
    log_key: logKey,
    size: checkpoint.size,
    root: checkpoint.rootHash,
    source,
    consistency: earlier,
  });
  for (const item of later)
    recordConsistencyProof(workspace, {
      origin: checkpoint.origin,
      log_key: logKey,
      from_size: checkpoint.size,
      to_size: item.to_size,
      proof: item.proof,
      source,
    });
  const outcome = checkpointStanding(workspace, checkpoint.origin, checkpoint.size, checkpoint.rootHash, logKey);
  return {
    api: base,
    tenant: options.tenant,
    origin: checkpoint.origin,
    key_name: keyName,
    tree_size: checkpoint.size,
    root_hex: hexEncode(checkpoint.rootHash),
    signer,
    log_key_hex: hexEncode(logKey),
    note: text,
    cosignatures: note.signatures.filter((signature) => signature.name !== keyName).length,
    seen_before: seen.length,
    proofs,
    outcome,
  };
}

function refuseUnlessConsistent(outcome: CheckpointRecordOutcome, what: string): void {
  if (outcome.consistency === 'split_view')
    throw new LogRefusedError(
      'log_split_view',
      `SPLIT VIEW: ${what} disagrees with the checkpoint of size ${outcome.split?.other_size} seen before; not cosigned.`,
    );
  if (outcome.consistency === 'unchecked')
    throw new LogRefusedError(
      'log_unchecked',
      `${what} could not be checked against the checkpoints of size ${outcome.unchecked_sizes.join(', ')} seen before (no consistency proof); not cosigned.`,
    );
}

function cosignatureLine(
  workspace: Workspace,
  text: string,
  name: string | undefined,
  now: Date,
): { name: string; vkey: string; line: string } {
  const { result } = withAuditorKey(workspace.dataDirectory, workspace.crypto, (seed, key) => {
    const witnessName = name === undefined ? defaultWitnessName(workspace, key.public_key) : checkWitnessName(name);
    return {
      name: witnessName,
      vkey: formatVkey(sha256Of(workspace), witnessName, NOTE_COSIGNATURE_ED25519, key.public_key),
      line: signCosignatureLine(workspace.crypto, text, witnessName, seed, Math.floor(now.getTime() / 1000)),
    };
  });
  return result;
}

/**
 * Checks a tenant's log at a service and, when its newest checkpoint is consistent with every
 * checkpoint seen of that log, cosigns it with the auditor key and gives the cosignature to the
 * service.
 *
 * @param workspace - The open workspace.
 * @param options - The service, tenant and key; `name`: the witness name (default from the key).
 * @param warn - Told when the checkpoint is verified only with the advertised key.
 * @returns The check, the cosignature, and the checkpoint as the service serves it after.
 * @throws LogRefusedError when the check refused the checkpoint, found a split view, or left an
 *   earlier checkpoint unchecked (nothing sent); the errors of {@link checkLogAtService}.
 */
export async function cosignAtService(
  workspace: Workspace,
  options: LogServiceOptions & { name?: string; now?: Date },
  warn: (message: string) => void = () => undefined,
): Promise<LogCosignResult> {
  if (options.name !== undefined) checkWitnessName(options.name);
  const check = await checkLogAtService(workspace, options, warn);
  refuseUnlessConsistent(check.outcome, `The checkpoint of size ${check.tree_size}`);
  const { note } = parseServed(check.note);
  const logLines = note.signatures.filter((signature) => signature.name === check.key_name).map((s) => s.line);
  const witness = cosignatureLine(workspace, note.text, options.name, options.now ?? new Date());
  const served = await postLogCosignature({
    ...options,
    vkey: witness.vkey,
    checkpoint: formatNote(note.text, [...logLines, witness.line]),
  });
  const servedWithCosignature = served.split('\n').includes(witness.line);
  // The workstation's own record of the checkpoint counts the cosignatures it now carries (the
  // Logs view's "Witnesses"), this one included, without waiting for the next check.
  if (servedWithCosignature)
    recordSeenCheckpoint(workspace, {
      note: served,
      origin: check.origin,
      key_name: check.key_name,
      log_key: hexDecode(check.log_key_hex),
      size: check.tree_size,
      root: hexDecode(check.root_hex),
      source: `api:${check.api}`,
    });
  return {
    check,
    witness: { name: witness.name, vkey: witness.vkey },
    line: witness.line,
    served,
    served_with_cosignature: servedWithCosignature,
  };
}

/**
 * Cosigns a checkpoint file offline: its log must be one the workstation has seen, the
 * checkpoint one it has seen (same origin, size and root), consistent with every other one seen.
 *
 * @param workspace - The open workspace.
 * @param text - The checkpoint file's text (a signed note).
 * @param options - `name`: the witness name; `now`: the cosignature's time.
 * @returns The note with the cosignature line added, and the line.
 * @throws LogRefusedError for a note that is not a checkpoint, an unknown log or checkpoint, a
 *   split view or an unchecked pair.
 */
export function cosignCheckpointText(
  workspace: Workspace,
  text: string,
  options: { name?: string; now?: Date } = {},
): { note: string; line: string; witness: { name: string; vkey: string }; origin: string; tree_size: number } {
  if (options.name !== undefined) checkWitnessName(options.name);
  let note: Note;
  let checkpoint: Checkpoint;
  try {
    note = parseNote(text);
    checkpoint = parseCheckpoint(note.text);
  } catch (error) {
    throw new LogRefusedError('log_checkpoint_invalid', `Not a C2SP signed checkpoint: ${(error as Error).message}`);
  }
  const seen = listSeenCheckpoints(workspace.ledger.readable, checkpoint.origin);
  if (seen.length === 0)
    throw new LogRefusedError(
      'log_unknown',
      `No checkpoint of the log ${checkpoint.origin} has been seen here; check it first (evroom log check, or import a bundle).`,
    );
  const root = hexEncode(checkpoint.rootHash);
  const matching = seen.filter((record) => record.tree_size === checkpoint.size && record.root === root);
  if (matching.length === 0)
    throw new LogRefusedError(
      'log_unknown',
      `This checkpoint (size ${checkpoint.size}) of ${checkpoint.origin} has not been seen here; check it first.`,
    );
  // Seen under more than one key (rare): it must stand with the checkpoints of every one of them.
  for (const record of matching)
    refuseUnlessConsistent(
      checkpointStanding(workspace, checkpoint.origin, checkpoint.size, checkpoint.rootHash, hexDecode(record.log_key)),
      `The checkpoint of size ${checkpoint.size}`,
    );
  const witness = cosignatureLine(workspace, note.text, options.name, options.now ?? new Date());
  const lines = note.signatures
    .filter((signature: NoteSignature) => signature.name !== witness.name)
    .map((s) => s.line);
  return {
    note: formatNote(note.text, [...lines, witness.line]),
    line: witness.line,
    witness: { name: witness.name, vkey: witness.vkey },
    origin: checkpoint.origin,
    tree_size: checkpoint.size,
  };
}
