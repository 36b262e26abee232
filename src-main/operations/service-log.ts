/**
 * The service's transparency logs, one per tenant (issue 28; docs/logs.md, "The service's log").
 *
 * Leaves are appended where receipts are stored (service-issue.ts), in the service's store
 * (src-main/ledger/store/issuance.ts: SQLite, or PostgreSQL shared by several nodes, each of
 * which signs the logs that grew whichever node stored their leaves). This module holds the log
 * key (its own Ed25519 key, `service/log-key.json`, 0600, made on first start), signs checkpoints
 * in the C2SP tlog-checkpoint / signed-note format for every log that grew (by the service's
 * timer, and on demand before a checkpoint or an evidence answer), answers inclusion and
 * consistency proofs at sizes it signed, and keeps the cosignatures witnesses give.
 *
 * One key and one note key name (the log name) sign every tenant's log; the origin of tenant T's
 * log is `NAME/tenants/T`. A size is signed once (the store's primary key; a second node's
 * signature of a size already kept is dropped), so no two roots are ever signed for one size,
 * across restarts and nodes too: a size already signed is never signed again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { hexEncode } from '../../src-shared/crypto';
import {
  formatCheckpoint,
  formatNote,
  formatVkey,
  NOTE_COSIGNATURE_ED25519,
  NOTE_ED25519,
  NoteError,
  noteKeyId,
  parseCheckpoint,
  parseNote,
  parseVkey,
  signNoteLine,
  verifyNote,
  type NoteVerifierKey,
} from '../../src-shared/crypto/signed-note';
import { createPrivateKey, readPrivateKeyFile, writePrivateKeyFile, type PrivateKey } from '../core/private-key-file';
import { MAX_TLOG_COSIGNATURES, type TlogCheckpointRecord } from '../ledger/store/issuance';
import { OperationError } from './errors';
import { SERVICE_KEYS_FOLDER } from './service-keys';
import { workspaceServiceStore, type ServiceStore } from './service-store';
import type { Workspace } from './workspace';

/** The log key's file in the service's key folder. */
export const LOG_KEY_FILE = 'log-key.json';
/** How often the service signs checkpoints of the logs that grew, by default (ms). */
export const DEFAULT_LOG_CHECKPOINT_MS = 1000;
/** The longest log name. */
export const MAX_LOG_NAME_LENGTH = 200;
/** The longest cosignature request's vkey and checkpoint, in characters. */
export const MAX_VKEY_LENGTH = 1024;
export const MAX_COSIGNED_CHECKPOINT_LENGTH = 16 * 1024;
const LABEL = 'Evidence Room service log key';

// A schema-less URL (C2SP tlog-checkpoint's advice for an origin): a host, then path segments;
// no spaces, no plus, no "scheme://", no trailing slash (the origin appends "/tenants/T").
const LOG_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?(?:\/[A-Za-z0-9._~!$&'()*,;=:@%-]+)*$/;

/**
 * Whether `name` may name the service's logs (`evroom serve --log-name`): a schema-less URL such
 * as `logs.example.com/evroom`, at most {@link MAX_LOG_NAME_LENGTH} characters, without spaces,
 * `+`, a scheme or a trailing slash.
 */
export function isLogName(name: unknown): name is string {
  return typeof name === 'string' && name.length <= MAX_LOG_NAME_LENGTH && LOG_NAME.test(name);
}

/** The rule {@link isLogName} checks, in words (for error messages). */
export const LOG_NAME_RULE =
  'a schema-less URL such as logs.example.com/evroom (host, then /path segments; no scheme, spaces, + or trailing /; at most 200 characters)';

/**
 * The log name when none is given: `evroom.local/` and the first 16 hex digits of the SHA-256
 * of the log's public key.
 */
export function defaultLogName(sha256: (data: Uint8Array) => Uint8Array, publicKey: Uint8Array): string {
  return `evroom.local/${hexEncode(sha256(publicKey)).slice(0, 16)}`;
}

/**
 * The service's log key, made on first use in the data folder's `service/` (0600).
 *
 * @returns The key; wipe its seed when the service stops.
 * @throws PrivateKeyFileError when the file exists but cannot be used (it is never replaced).
 */
export function loadLogKey(workspace: Workspace): PrivateKey {
  const file = path.join(workspace.dataDirectory, SERVICE_KEYS_FOLDER, LOG_KEY_FILE);
  if (fs.existsSync(file)) return readPrivateKeyFile(file, workspace.crypto).key;
  const key = createPrivateKey('Ed25519', workspace.crypto, { label: LABEL, createdAt: new Date() });
  writePrivateKeyFile(file, key);
  return key;
}

/** An inclusion proof as the proof route answers it. */
export interface InclusionAnswer {
  index: number;
  size: number;
  hashes: string[];
}

/** A consistency proof as the consistency route answers it. */
export interface ConsistencyAnswer {
  from: number;
  to: number;
  hashes: string[];
}

/** The service's logs: one key, one name, a log per tenant. */
export interface ServiceLog {
  /** The log name, also the note key name. */
  readonly name: string;
  /** The note verifier key: `NAME+hex8+base64(0x01 || public key)`. */
  readonly vkey: string;
  /** The note key id (uint32). */
  readonly noteKeyId: number;
  /** The log key's did:key id (its /v1/keys entry's key_id). */
  readonly keyId: string;
  readonly publicKey: Uint8Array;
  /** The origin of a tenant's log: `NAME/tenants/T`. */
  origin(tenantId: string): string;
  /**
   * Signs a checkpoint of every log that grew since its last one, whichever node stored its
   * leaves; returns how many were signed.
   */
  signGrown(now?: Date): Promise<number>;
  /**
   * The newest checkpoint of a tenant's log, signed now when the log grew since the last one (or
   * has none yet, even empty), so it covers every receipt stored before the call.
   */
  freshCheckpoint(tenantId: string, now?: Date): Promise<TlogCheckpointRecord>;
  /** The checkpoint note as served: the signed note, then the cosignature lines it was given. */
  servedNote(checkpoint: TlogCheckpointRecord): Promise<string>;
  /**
   * Refuses a size this log never signed a checkpoint at (400, naming `what`: the query
   * parameter), or returns that checkpoint.
   */
  signedCheckpoint(tenantId: string, size: number, what: string): Promise<TlogCheckpointRecord>;
  /** RFC 9162 inclusion proof of leaf `index` in the tree of `size` (a signed size). */
  inclusion(tenantId: string, index: number, size: number): Promise<InclusionAnswer>;
  /** RFC 9162 consistency proof from size `from` to `to` (a signed size). */
  consistency(tenantId: string, from: number, to: number): Promise<ConsistencyAnswer>;
  /** Checks and keeps a witness's cosignature of a checkpoint; returns that checkpoint as now served. */
  cosign(tenantId: string, request: { vkey: string; checkpoint: string }, now?: Date): Promise<string>;
  /** Wipes the key's seed (the service closed). */
  close(): void;
}

/**
 * The service's logs over the service's store.
 *
 * @param workspace - The open workspace.
 * @param key - The log key (see {@link loadLogKey}); its seed is used until close.
 * @param options - `name`: the log name (default {@link defaultLogName}); `store`: the service's
 *   store (default the workspace's own, SQLite).
 * @throws RangeError for a name that {@link isLogName} refuses.
 */
export function openServiceLog(
  workspace: Workspace,
  key: PrivateKey,
  options: { name?: string | undefined; store?: ServiceStore | undefined } = {},
): ServiceLog {
  if (key.algorithm !== 'Ed25519') throw new TypeError('The log key must be an Ed25519 key');
  const sha256 = workspace.crypto.sha256;
  const name = options.name ?? defaultLogName(sha256, key.public_key);
  if (!isLogName(name)) throw new RangeError(`The log name must be ${LOG_NAME_RULE}`);
  const seed = key.seed;
  const vkey = formatVkey(sha256, name, NOTE_ED25519, key.public_key);
  const keyId = noteKeyId(sha256, name, NOTE_ED25519, key.public_key);
  const origin = (tenantId: string): string => `${name}/tenants/${tenantId}`;
  const issuance = (options.store ?? workspaceServiceStore(workspace)).issuance;

  /**
   * Signs the log's size and root now when it grew past its newest checkpoint. Another node may
   * sign the same size meanwhile: the store keeps the first, and both get it.
   */
  async function signNow(tenantId: string, now: Date, unsignedToo: boolean): Promise<TlogCheckpointRecord | undefined> {
    const { latest, due } = await issuance.checkpointDue(tenantId, unsignedToo);
    if (due === undefined) return latest;
    const text = formatCheckpoint({ origin: origin(tenantId), size: due.size, rootHash: due.root, extensions: [] });
    const note = formatNote(text, [signNoteLine(workspace.crypto, text, name, seed)]);
    return issuance.insertCheckpoint({
      tenant_id: tenantId,
      tree_size: due.size,
      root: due.root,
      note,
      signed_at: now.getTime(),
    });
  }

  async function signedSize(tenantId: string, size: number, what: string): Promise<TlogCheckpointRecord> {
    const checkpoint = await issuance.getCheckpoint(tenantId, size);
    if (checkpoint !== undefined) return checkpoint;
    const latest = await issuance.latestCheckpoint(tenantId);
    throw new OperationError(
      'invalid_input',
      'invalid_request',
      `${what} ${size} is not a size this log signed a checkpoint at${latest === undefined ? '' : ` (the newest is ${latest.tree_size})`}; ask for a size from the log's checkpoints.`,
      { details: [{ path: `?${what}`, message: 'is not a signed tree size' }] },
    );
  }

  async function emptyLog(tenantId: string): Promise<void> {
    if ((await issuance.tlogSize(tenantId)) === 0)
      throw new OperationError(
        'not_found',
        'not_found',
        `The log of tenant ${tenantId} is empty: it has no proofs yet.`,
      );
  }

  async function servedNote(checkpoint: TlogCheckpointRecord): Promise<string> {
    const lines = await issuance.listCosignatures(checkpoint.tenant_id, checkpoint.tree_size);
    return checkpoint.note + lines.map((line) => `${line.line}\n`).join('');
  }

  return {
    name,
    vkey,
    noteKeyId: keyId,
    keyId: key.key_id,
    publicKey: key.public_key,
    origin,
    async signGrown(now = new Date()) {
      let signed = 0;
      for (const grown of await issuance.tlogsToSign()) {
        if ((await signNow(grown.tenant_id, now, false)) !== undefined) signed += 1;
      }
      return signed;
    },
    async freshCheckpoint(tenantId, now = new Date()) {
      const checkpoint = await signNow(tenantId, now, true);
      if (checkpoint === undefined) throw new Error('no checkpoint was signed');
      return checkpoint;
    },
    servedNote,
    signedCheckpoint: (tenantId, size, what) => signedSize(tenantId, size, what),
    async inclusion(tenantId, index, size) {
      await emptyLog(tenantId);
      await signedSize(tenantId, size, 'size');
      if (index >= size) {
        throw new OperationError(
          'invalid_input',
          'invalid_request',
          `index ${index} is not a leaf of the tree of size ${size} (indices run from 0 to ${size - 1}).`,
          { details: [{ path: '?index', message: `must be below size ${size}` }] },
        );
      }
      return { index, size, hashes: (await issuance.inclusionProof(tenantId, index, size)).map(hexEncode) };
    },
    async consistency(tenantId, from, to) {
      await emptyLog(tenantId);
      await signedSize(tenantId, to, 'to');
      if (from < 1 || from > to) {
        throw new OperationError(
          'invalid_input',
          'invalid_request',
          `from must be a tree size from 1 to ${to} (to), not ${from}.`,
          { details: [{ path: '?from', message: `must be from 1 to ${to}` }] },
        );
      }
      return { from, to, hashes: (await issuance.consistencyProof(tenantId, from, to)).map(hexEncode) };
    },
    async cosign(tenantId, request, now = new Date()) {
      const refuse = (message: string, pointer: string, detail: string): never => {
        throw new OperationError('invalid_input', 'invalid_request', message, {
          details: [{ path: pointer, message: detail }],
        });
      };
      let witness: NoteVerifierKey;
      try {
        witness = parseVkey(sha256, request.vkey);
      } catch (error) {
        if (!(error instanceof NoteError)) throw error;
        return refuse(`vkey is not a note verifier key: ${error.message}`, '/vkey', 'is not a vkey');
      }
      if (witness.type !== NOTE_COSIGNATURE_ED25519)
        refuse(
          `vkey must be a cosignature key (type 0x04, C2SP tlog-cosignature), not type 0x${witness.type.toString(16).padStart(2, '0')}.`,
          '/vkey',
          'is not a cosignature key',
        );
      if (witness.name === name) refuse('A witness key cannot bear the log’s own key name.', '/vkey', 'names the log');
      let note;
      let size: number;
      try {
        note = parseNote(request.checkpoint);
        const parsed = parseCheckpoint(note.text);
        if (parsed.origin !== origin(tenantId))
          return refuse(
            `The checkpoint is of ${parsed.origin}, not of this log (${origin(tenantId)}).`,
            '/checkpoint',
            'is of another log',
          );
        size = parsed.size;
      } catch (error) {
        if (!(error instanceof NoteError)) throw error;
        return refuse(`checkpoint is not a signed checkpoint: ${error.message}`, '/checkpoint', 'is malformed');
      }
      const signed = await issuance.getCheckpoint(tenantId, size);
      if (signed === undefined || !signed.note.startsWith(`${note.text}\n`))
        refuse(
          `The checkpoint's text is not one this log signed${signed === undefined ? ` (it signed no checkpoint at size ${size})` : ''}; cosign a checkpoint as the service serves it.`,
          '/checkpoint',
          'is not a checkpoint this log signed',
        );
      const checked = verifyNote(workspace.crypto, note, [witness]);
      const valid = checked.find((entry) => entry.status === 'valid');
      if (valid === undefined)
        refuse(
          checked.length === 0
            ? `The checkpoint carries no cosignature by ${witness.name} (key id ${witness.keyId.toString(16).padStart(8, '0')}).`
            : `The cosignature by ${witness.name} does not verify with the vkey given.`,
          '/checkpoint',
          'carries no valid cosignature of vkey',
        );
      const line = note.signatures.find((entry) => entry.name === witness.name && entry.keyId === witness.keyId)?.line;
      if (line === undefined) throw new Error('the verified cosignature has no line');
      const outcome = await issuance.addCosignature({
        tenant_id: tenantId,
        tree_size: size,
        key_name: witness.name,
        key_id: witness.keyId,
        line,
        received_at: now.getTime(),
      });
      if (outcome === 'full') {
        throw new OperationError(
          'conflict',
          'cosignatures_full',
          `This checkpoint keeps ${MAX_TLOG_COSIGNATURES} cosignatures already, the most it keeps; a key that cosigned it may cosign again.`,
        );
      }
      const stored = await issuance.getCheckpoint(tenantId, size);
      if (stored === undefined) throw new Error('the cosigned checkpoint disappeared');
      return servedNote(stored);
    },
    close() {
      seed.fill(0);
    },
  };
}
