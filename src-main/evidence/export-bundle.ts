/**
 * Export a selection of the ledger as an evidence bundle (PROTOCOL section 9), signed by the
 * local signing key, that imports back with zero findings on another machine.
 *
 * The ledger is read page by page (keyset paging, import order) from a snapshot taken when the
 * export begins, and each receipt's bytes are fetched only when the zip writer reaches it, so
 * memory holds one page of summaries and the manifest's file list, never the bundle. Layout:
 * `receipts/<receipt id>.json` (the stored bytes exactly; `<receipt_sha256>.json` for receipts
 * without a usable or unique id), `anchors/<batch_id>.json` (every anchor record when the whole
 * ledger is exported, else the records of the exported receipts; see anchors-file.ts),
 * `keys/service-keys.json` (the local signing key and the key of every issuer of an exported
 * receipt that the ledger knows, pinned or advertised: the receiving side needs them to verify,
 * and listing a key confers no trust), then `manifest.json` and `manifest.sig`. A served
 * tenant's evidence (the `log` option) also carries `log/checkpoint.txt` and `log/proofs.json`
 * (log-evidence.ts), and lists the log key in the keys file with `use: ["log-checkpoints"]`.
 */
import { DomainError } from '../../src-shared/api/domain-error';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { b64uEncode, utf8Encode } from '../../src-shared/crypto';
import type { KeyEntry } from '../../src-shared/verify/context';
import { isKeyId } from '../../src-shared/verify/keys';
import { serializeKeyFile } from '../../src-shared/verify/key-file';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { exportWorkerSource } from '../core/worker-source';
import {
  appendAudit,
  countReceipts,
  getReceipt,
  getTrustedKey,
  listAdvertisedKeys,
  listAnchors,
  LedgerError,
  listReceipts,
  openReadSnapshot,
  type Ledger,
  type ReadableDB,
  type ReceiptFilters,
} from '../ledger/index';
import { serializeAnchorsFile } from './anchors-file';
import { BundleError } from './errors';
import { KEYS_NAME, receiptPath } from './bundle-layout';
import { hashFile } from './hash-file';
import {
  LOG_CHECKPOINT_NAME,
  LOG_PROOFS_NAME,
  LogEvidenceError,
  readLogEvidence,
  type LogEvidenceRequest,
} from './log-evidence';
import { DEFAULT_ZIP_LIMITS } from './limits';
import {
  BUNDLE_FORMAT,
  isManifestTenantId,
  MANIFEST_NAME,
  MAX_MANIFEST_TENANT_ID_LENGTH,
  serializeManifest,
  serializeManifestSignature,
  SIGNATURE_NAME,
  signManifest,
  type ManifestFile,
} from './manifest';
import { createProgressReporter, type ExportPhase, type ExportProgress } from './progress';
import { loadOrCreateSigningKey, SigningKeyError } from './signing-key';
import { createZipWriter } from './zip-writer';

/** The tenant id written when none is given. */
export const DEFAULT_EXPORT_TENANT = 'local';
/** Receipt summaries read per ledger page. */
const PAGE_SIZE = 500;

/** Options of {@link exportBundle}. */
export interface ExportOptions {
  /** The zip to write. */
  out: string;
  /** The data directory holding (or to hold) the local signing key. */
  dataDirectory: string;
  /** Which receipts (as the ledger's list filters); all when omitted. */
  filters?: ReceiptFilters;
  /** manifest.json's tenant_id (default {@link DEFAULT_EXPORT_TENANT}). */
  tenantId?: string;
  /** Replace `out` when it exists (default: refuse). */
  overwrite?: boolean;
  /** generated_at and entry times (default now). */
  now?: Date;
  /**
   * The key that signs manifest.sig (the HTTP service signs tenant evidence with its own key).
   * Default: the data folder's export signing key, made on first use. The caller's seed is
   * copied, never wiped.
   */
  signingKey?: { key_id: string; seed: Uint8Array; public_key: Uint8Array };
  onProgress?: (event: ExportProgress) => void;
  /**
   * A served tenant's log evidence (docs/logs.md, "The service's log"): the bundle's receipts are
   * then the leaves of the tenant's log from the first to the last receipt issued in the period,
   * under its newest signed checkpoint (`filters` are not used), and `log/checkpoint.txt` and
   * `log/proofs.json` are written; `key` is the log key, listed in the keys file.
   */
  log?: LogEvidenceRequest & {
    key: { key_id: string; public_key: Uint8Array; note_key_name: string; vkey: string };
  };
  /**
   * Write the zip on a worker thread of its own (default: on the calling thread). The HTTP
   * service does: its thread is busy with requests, and the zip writer moves one entry per turn
   * of the event loop, so a busy loop would stretch an export of n receipts to n of its turns.
   */
  worker?: boolean;
  /**
   * Told when the export worker stopped or could not start; the export is then written on the
   * calling thread instead (the service logs it).
   */
  onWorkerError?: (error: Error) => void;
}

/** What an export wrote. */
export interface ExportResult {
  file: string;
  /** hex SHA-256 of the zip. */
  sha256: string;
  /** The zip's size. */
  bytes: number;
  receipts: number;
  anchors: number;
  /** Keys listed in keys/service-keys.json. */
  keys: number;
  /** The local signing key's id (a did:key). */
  key_id: string;
  /** True when this export created the signing key. */
  keyCreated: boolean;
  tenant_id: string;
  generated_at: string;
  /** The checkpoint's tree size, for a bundle with log evidence. */
  log_tree_size?: number;
}

/** An export that cannot be done; nothing was written. */
export class ExportError extends DomainError {
  override readonly code: 'out_exists' | 'out_unwritable';
  constructor(code: 'out_exists' | 'out_unwritable', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExportError';
    this.code = code;
  }
}

/** The key ids an envelope's `signatures` name, one per role; none when it cannot be read. */
export function envelopeRoleKeyIds(raw: Uint8Array | undefined): string[] {
  if (raw === undefined) return [];
  try {
    const document = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8')) as {
      signatures?: unknown;
    };
    const signatures = document.signatures;
    if (typeof signatures !== 'object' || signatures === null || Array.isArray(signatures)) return [];
    return Object.values(signatures as Record<string, unknown>)
      .map((entry) =>
        typeof entry === 'object' && entry !== null ? (entry as { key_id?: unknown }).key_id : undefined,
      )
      .filter((keyId): keyId is string => typeof keyId === 'string');
  } catch {
    return [];
  }
}

/** The entry for keys/service-keys.json: what a verifier needs, without label or status. */
function publicEntry(entry: {
  key_id: string;
  algorithm: KeyEntry['algorithm'];
  public_key: Uint8Array;
  not_before?: string | null;
  not_after?: string | null;
}): KeyEntry {
  const out: KeyEntry = {
    key_id: entry.key_id,
    algorithm: entry.algorithm,
    public_key: new Uint8Array(entry.public_key),
  };
  if (entry.not_before !== undefined && entry.not_before !== null) out.not_before = entry.not_before;
  if (entry.not_after !== undefined && entry.not_after !== null) out.not_after = entry.not_after;
  return out;
}

/**
 * Export receipts of the ledger as a signed evidence bundle.
 *
 * The bundle holds the ledger as it was when the export began (a read snapshot of its own):
 * what is committed while it is written waits for the next export.
 *
 * The zip is written to a temporary file beside `out` and renamed into place when complete; an
 * `export` audit row records the file, its SHA-256, the counts and the filters.
 *
 * @param ledger - The open ledger.
 * @param options - Output, data directory, filters, tenant id, overwrite, clock, progress, and
 *   whether to write on a worker thread.
 * @returns What was written.
 * @throws ExportError out_exists / out_unwritable; SigningKeyError for a damaged key file;
 *   TypeError / RangeError for bad filters (nothing written).
 */
export async function exportBundle(ledger: Ledger, options: ExportOptions): Promise<ExportResult> {
  if (typeof ledger !== 'object' || ledger === null || typeof ledger.runInTransaction !== 'function') {
    throw new TypeError('exportBundle: ledger must be an open Ledger');
  }
  if (typeof options !== 'object' || options === null) throw new TypeError('exportBundle: options must be an object');
  const { onProgress, worker, onWorkerError, ...rest } = options;
  checkExportOptions(rest);
  const started = performance.now();
  let result: ExportResult;
  try {
    result =
      worker === true
        ? await writeBundleOnWorker(ledger.file, rest, onProgress)
        : await writeBundle(ledger.file, rest, onProgress);
  } catch (error) {
    // A worker that stopped costs speed, not the export: it is written here instead.
    if (!(error instanceof ExportWorkerStopped)) throw error;
    onWorkerError?.(error);
    result = await writeBundle(ledger.file, rest, onProgress);
  }
  recordExport(ledger, rest, result, started, onProgress);
  return result;
}

/**
 * After an export: its `export` audit row in the ledger (see {@link exportAuditDetails}), and
 * the last progress event.
 */
export function recordExport(
  ledger: Ledger,
  options: Pick<BundleOptions, 'filters' | 'log'>,
  result: ExportResult,
  started: number,
  onProgress: ((event: ExportProgress) => void) | undefined,
): void {
  appendAudit(ledger.writable, 'export', result.file, exportAuditDetails(options, result));
  reportExportDone(result, started, onProgress);
}

/** An `export` audit row's details: the file's SHA-256 and size, the counts, and the filters or the log period. */
export function exportAuditDetails(
  options: Pick<BundleOptions, 'filters' | 'log'>,
  result: ExportResult,
): Record<string, unknown> {
  return {
    sha256: result.sha256,
    bytes: result.bytes,
    receipts: result.receipts,
    anchors: result.anchors,
    keys: result.keys,
    key_id: result.key_id,
    key_created: result.keyCreated,
    tenant_id: result.tenant_id,
    filters:
      options.log === undefined
        ? (options.filters ?? {})
        : { log: { since: options.log.since, until: options.log.until, tree_size: result.log_tree_size ?? null } },
  };
}

/** An export's last progress event (`done`), with its rate since `started` (performance.now()). */
export function reportExportDone(
  result: ExportResult,
  started: number,
  onProgress: ((event: ExportProgress) => void) | undefined,
): void {
  const seconds = (performance.now() - started) / 1000;
  onProgress?.({
    phase: 'done',
    receiptsWritten: result.receipts,
    receiptsTotal: result.receipts,
    perSecond: seconds > 0 ? Math.round(result.receipts / seconds) : 0,
    secondsLeft: 0,
  });
}

/** An export's options as the export worker gets them: everything but the callback. */
export type BundleOptions = Omit<ExportOptions, 'onProgress' | 'worker' | 'onWorkerError'>;

/** Checks an export's output and tenant id (TypeError / RangeError). */
export function checkExportOptions(options: BundleOptions): void {
  if (typeof options.out !== 'string' || options.out.length === 0)
    throw new TypeError('exportBundle: out must be a path');
  const tenantId = options.tenantId ?? DEFAULT_EXPORT_TENANT;
  if (!isManifestTenantId(tenantId)) {
    throw new RangeError(
      `exportBundle: tenantId must be 1 to ${MAX_MANIFEST_TENANT_ID_LENGTH} characters without control characters`,
    );
  }
}

/**
 * Writes the bundle from a snapshot of the ledger file: all of {@link exportBundle} but its
 * audit row and its last progress event. Runs on the calling thread or on the export worker.
 *
 * @param ledgerFile - The ledger's file (a snapshot connection of its own reads it).
 * @param options - As for exportBundle.
 * @param onProgress - Told of the writing and finishing phases.
 * @returns What was written.
 */
export async function writeBundle(
  ledgerFile: string,
  options: BundleOptions,
  onProgress?: (event: ExportProgress) => void,
): Promise<ExportResult> {
  checkExportOptions(options);
  // The ledger as it is now, for the whole export: receipts committed while it is written (the
  // service issuing more for the same tenant) are not in it, so it ends, and its count, files,
  // anchors and keys agree with each other.
  const snapshot = openReadSnapshot(ledgerFile);
  try {
    return await writeSnapshot(snapshot.readable, options, onProgress);
  } finally {
    snapshot.close();
  }
}

async function writeSnapshot(
  readable: ReadableDB,
  options: BundleOptions,
  onProgress: ((event: ExportProgress) => void) | undefined,
): Promise<ExportResult> {
  const out = path.resolve(options.out);
  const filters = options.filters ?? {};
  const tenantId = options.tenantId ?? DEFAULT_EXPORT_TENANT;
  const now = options.now ?? new Date();
  const generatedAt = now.toISOString();
  // The log evidence, read first: with it, the receipts are its leaves; without, the filters'.
  const logEvidence =
    options.log === undefined ? undefined : readLogEvidence(readable, createNodeCryptoProvider().sha256, options.log);
  // proofs.json past the import's entry limit: refused now, not after every receipt is written.
  if (logEvidence !== undefined && logEvidence.proofs_bytes > DEFAULT_ZIP_LIMITS.maxEntryBytes) {
    throw new BundleError(
      'zip_entry_too_large',
      `Entry ${LOG_PROOFS_NAME} would be ${logEvidence.proofs_bytes} bytes (${logEvidence.receipts.length} leaves), over the limit of ${DEFAULT_ZIP_LIMITS.maxEntryBytes} an import accepts; ask for a shorter period.`,
      { entry: LOG_PROOFS_NAME },
    );
  }
  // Checks the filters (TypeError / RangeError) before anything is created.
  const total = logEvidence === undefined ? countReceipts(readable, filters) : logEvidence.receipts.length;
  if (!options.overwrite && fs.existsSync(out)) {
    throw new ExportError('out_exists', `${out} exists; choose another name or allow overwriting.`);
  }
  const crypto = createNodeCryptoProvider();
  const { key, keyCreated, progress, temporary } = startBundle(options, out, now, crypto, onProgress);
  const written = { receipts: 0, anchors: 0, keys: 0 };
  try {
    // The import's default limits: what we write must import back anywhere without raising them
    // (the writer stores an entry that deflate would shrink past the ratio limit).
    const writer = createZipWriter(temporary, { mtime: now, limits: DEFAULT_ZIP_LIMITS });
    const files: ManifestFile[] = [];
    const fields = { receiptsWritten: 0, receiptsTotal: total };
    const issuers = new Set<string>();
    const usedStems = new Set<string>();
    const anchorsByBatch = new Map<string, { receipt_sha256: string | null; record: unknown }[]>();
    // The whole ledger takes every anchor record; a selection takes those of its receipts.
    const whole = logEvidence === undefined && Object.values(filters).every((value) => value === undefined);
    const withAnchors = !whole && listAnchors(readable, { limit: 1 }).rows.length > 0;
    let receipts = 0;
    let anchorCount = 0;

    function record(name: string, data: Uint8Array): Uint8Array {
      files.push({ path: name, sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length });
      return data;
    }

    progress.update('writing', 0, total, fields);
    let after: string | undefined;
    let logPosition = 0;
    do {
      let rows: {
        id: number;
        receipt_id: string | null;
        receipt_sha256: string;
        issuer_key_id: string | null;
        format: string;
      }[];
      if (logEvidence === undefined) {
        const page = listReceipts(readable, {
          filters,
          sort: { column: 'imported_at', direction: 'asc' },
          limit: PAGE_SIZE,
          ...(after === undefined ? {} : { after }),
        });
        rows = page.rows;
        after = page.nextCursor ?? undefined;
      } else {
        // The leaves' receipts, in leaf order, a page at a time.
        rows = logEvidence.receipts.slice(logPosition, logPosition + PAGE_SIZE).map((id) => {
          const stored = getReceipt(readable, id);
          if (stored === undefined) throw new Error(`Receipt row ${id} of the log is missing from the ledger.`);
          return stored;
        });
        logPosition += rows.length;
        after = logPosition < logEvidence.receipts.length ? String(logPosition) : undefined;
      }
      for (const row of rows) {
        const name = receiptPath(row.receipt_id, row.receipt_sha256, usedStems);
        if (row.issuer_key_id !== null) issuers.add(row.issuer_key_id);
        // An envelope names a key per role (PROTOCOL section 4), and one key signs one role: the
        // receiving side needs the requester's and the operator's keys too.
        if (row.format.startsWith('envelope'))
          for (const keyId of envelopeRoleKeyIds(getReceipt(readable, row.id)?.raw)) issuers.add(keyId);
        receipts += 1;
        writer.add(name, () => {
          const stored = getReceipt(readable, row.id);
          if (stored === undefined)
            throw new Error(`Receipt ${row.receipt_sha256} disappeared from the ledger during the export.`);
          fields.receiptsWritten += 1;
          progress.update('writing', fields.receiptsWritten, total, fields);
          return record(name, stored.raw);
        });
        if (withAnchors) {
          for (const anchor of listAnchors(readable, { receipt_sha256: row.receipt_sha256, limit: 1000 }).rows) {
            const list = anchorsByBatch.get(anchor.batch_id) ?? [];
            list.push({ receipt_sha256: anchor.receipt_sha256, record: anchor.record });
            anchorsByBatch.set(anchor.batch_id, list);
            anchorCount += 1;
          }
        }
      }
      await writer.waitForRoom();
    } while (after !== undefined);
    if (logEvidence !== undefined) {
      const checkpointText = logEvidence.checkpoint;
      const makeProofs = logEvidence.proofs;
      writer.add(LOG_CHECKPOINT_NAME, () => record(LOG_CHECKPOINT_NAME, utf8Encode(checkpointText)));
      // Made when the writer reaches it, straight into one buffer: no proof is held twice.
      writer.add(LOG_PROOFS_NAME, () => record(LOG_PROOFS_NAME, makeProofs()));
    }

    if (whole) {
      let anchorsAfter: string | undefined;
      do {
        const page = listAnchors(readable, {
          limit: 1000,
          ...(anchorsAfter === undefined ? {} : { after: anchorsAfter }),
        });
        for (const anchor of page.rows) {
          const list = anchorsByBatch.get(anchor.batch_id) ?? [];
          list.push({ receipt_sha256: anchor.receipt_sha256, record: anchor.record });
          anchorsByBatch.set(anchor.batch_id, list);
          anchorCount += 1;
        }
        anchorsAfter = page.nextCursor ?? undefined;
      } while (anchorsAfter !== undefined);
    }
    const keyCount = addBundleTail(writer, {
      record,
      anchorsByBatch,
      issuers,
      knownKey: (keyId) => getTrustedKey(readable, keyId) ?? listAdvertisedKeys(readable, { key_id: keyId })[0],
      key,
      logKey: options.log?.key,
      manifest: { tenantId, generatedAt, receipts, anchors: anchorCount },
      files,
      onManifest: () => progress.update('finishing', fields.receiptsWritten, total, fields),
      crypto,
    });
    await writer.finish();
    fs.renameSync(temporary, out);
    written.receipts = receipts;
    written.anchors = anchorCount;
    written.keys = keyCount;
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  } finally {
    key.seed.fill(0);
  }

  const sha256 = await hashFile(out);
  const bytes = fs.statSync(out).size;
  return {
    file: out,
    sha256,
    bytes,
    receipts: written.receipts,
    anchors: written.anchors,
    keys: written.keys,
    key_id: key.key_id,
    keyCreated,
    tenant_id: tenantId,
    generated_at: generatedAt,
    ...(logEvidence === undefined ? {} : { log_tree_size: logEvidence.tree_size }),
  };
}

/** The signing key, progress reporter and temporary file an export starts with. */
export interface BundleStart {
  key: { key_id: string; algorithm: 'Ed25519'; public_key: Uint8Array; seed: Uint8Array };
  keyCreated: boolean;
  progress: ReturnType<typeof createProgressReporter<ExportPhase, ExportProgress>>;
  /** The file the zip is written to, beside `out`, renamed into place when complete. */
  temporary: string;
}

/**
 * Starts writing a bundle: the signing key (the caller's, copied, or the data folder's export
 * key), the progress reporter, and the empty temporary file beside `out` (0600).
 *
 * @throws ExportError out_unwritable (the key's seed is wiped); SigningKeyError
 */
export function startBundle(
  options: Pick<BundleOptions, 'signingKey' | 'dataDirectory'>,
  out: string,
  now: Date,
  crypto: ReturnType<typeof createNodeCryptoProvider>,
  onProgress: ((event: ExportProgress) => void) | undefined,
): BundleStart {
  const { key, created: keyCreated } =
    options.signingKey === undefined
      ? loadOrCreateSigningKey(options.dataDirectory, crypto, { now })
      : {
          key: {
            key_id: options.signingKey.key_id,
            algorithm: 'Ed25519' as const,
            public_key: options.signingKey.public_key,
            seed: options.signingKey.seed.slice(),
          },
          created: false,
        };
  const progress = createProgressReporter<ExportPhase, ExportProgress>(
    onProgress,
    (phase, fields, perSecond, secondsLeft) => ({
      phase,
      receiptsWritten: fields.receiptsWritten ?? 0,
      receiptsTotal: fields.receiptsTotal ?? 0,
      perSecond,
      secondsLeft,
    }),
  );

  const temporary = path.join(path.dirname(out), `.${path.basename(out)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    fs.writeFileSync(temporary, '', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    key.seed.fill(0);
    throw new ExportError('out_unwritable', `Cannot write beside ${out}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { key, keyCreated, progress, temporary };
}

/** A key an issuer id names, as the trust store knows it. */
export type KnownKey = Parameters<typeof publicEntry>[0];

/**
 * Adds what follows a bundle's receipts and log files: `anchors/<batch>.json` for each batch,
 * the keys file (the signing key, the known issuers, the log key), then manifest.json and
 * manifest.sig, made when the writer reaches them.
 *
 * @returns How many keys the keys file lists.
 */
export function addBundleTail(
  writer: ReturnType<typeof createZipWriter>,
  input: {
    record: (name: string, data: Uint8Array) => Uint8Array;
    anchorsByBatch: ReadonlyMap<string, { receipt_sha256: string | null; record: unknown }[]>;
    issuers: ReadonlySet<string>;
    knownKey: (keyId: string) => KnownKey | undefined;
    key: BundleStart['key'];
    logKey: NonNullable<ExportOptions['log']>['key'] | undefined;
    manifest: { tenantId: string; generatedAt: string; receipts: number; anchors: number };
    files: ManifestFile[];
    onManifest: () => void;
    crypto: ReturnType<typeof createNodeCryptoProvider>;
  },
): number {
  const { record, key, logKey, crypto } = input;
  for (const [batchId, anchors] of [...input.anchorsByBatch].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const text = serializeAnchorsFile(batchId, anchors);
    const name = `anchors/${batchId}.json`;
    writer.add(name, () => record(name, utf8Encode(text)));
  }

  const keys: KeyEntry[] = [publicEntry(key)];
  for (const issuer of [...input.issuers].sort()) {
    if (issuer === key.key_id || !isKeyId(issuer)) continue;
    const known = input.knownKey(issuer);
    if (known !== undefined) keys.push(publicEntry(known));
  }
  const keysText =
    logKey === undefined
      ? serializeKeyFile(keys)
      : withLogKey(serializeKeyFile(keys), {
          key_id: logKey.key_id,
          algorithm: 'Ed25519',
          public_key: b64uEncode(logKey.public_key),
          use: ['log-checkpoints'],
          note_key_name: logKey.note_key_name,
          vkey: logKey.vkey,
        });
  writer.add(KEYS_NAME, () => record(KEYS_NAME, utf8Encode(keysText)));

  // The manifest is made when the writer reaches it: every file before it is written by then.
  let manifestBytes: Uint8Array | undefined;
  writer.add(MANIFEST_NAME, () => {
    input.onManifest();
    manifestBytes = utf8Encode(
      serializeManifest({
        bundle_format: BUNDLE_FORMAT,
        tenant_id: input.manifest.tenantId,
        generated_at: input.manifest.generatedAt,
        key_id: key.key_id,
        files: input.files,
        counts: { receipts: input.manifest.receipts, anchors: input.manifest.anchors },
      }),
    );
    return manifestBytes;
  });
  writer.add(SIGNATURE_NAME, () => {
    if (manifestBytes === undefined) throw new Error('manifest.json was not written before manifest.sig');
    const signature = signManifest(manifestBytes, key.seed, key.key_id, crypto);
    key.seed.fill(0);
    return utf8Encode(serializeManifestSignature(signature));
  });
  return keys.length;
}

/** A key file's text with one more entry (the log key, with members KeyEntry has no place for). */
function withLogKey(text: string, entry: Record<string, unknown>): string {
  const file = JSON.parse(text) as { keys: unknown[] };
  file.keys.push(entry);
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** One export asked of the export worker. */
export interface ExportJob {
  id: number;
  ledgerFile: string;
  options: BundleOptions;
}

/** An error as it crosses from the export worker: its class's name and what it carries. */
export interface SentError {
  name: string;
  message: string;
  code?: string;
  entry?: string;
  path?: string;
}

/** What the export worker posts for a job: progress events, then the result or the error. */
export type ExportWorkerMessage = { id: number } & (
  | { kind: 'progress'; event: ExportProgress }
  | { kind: 'done'; result: ExportResult }
  | { kind: 'failed'; error: SentError }
);

/** An error of the export made fit to post (no stack: it may name files of this machine). */
export function sendableError(error: unknown): SentError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const carried = error as Error & { code?: unknown; entry?: unknown; path?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(typeof carried.code === 'string' ? { code: carried.code } : {}),
    ...(typeof carried.entry === 'string' ? { entry: carried.entry } : {}),
    ...(typeof carried.path === 'string' ? { path: carried.path } : {}),
  };
}

/** The error the export worker sent, as the class the calling thread would have thrown. */
function receivedError(sent: SentError): Error {
  const code = sent.code ?? '';
  switch (sent.name) {
    case 'ExportError':
      return new ExportError(code === 'out_exists' ? 'out_exists' : 'out_unwritable', sent.message);
    case 'SigningKeyError':
      return new SigningKeyError(
        code === 'signing_key_unreadable' ? 'signing_key_unreadable' : 'signing_key_invalid',
        sent.message,
      );
    case 'BundleError':
      return new BundleError(code as ConstructorParameters<typeof BundleError>[0], sent.message, {
        ...(sent.entry === undefined ? {} : { entry: sent.entry }),
        ...(sent.path === undefined ? {} : { path: sent.path }),
      });
    case 'LedgerError':
      return new LedgerError(code as ConstructorParameters<typeof LedgerError>[0], sent.message);
    case 'LogEvidenceError':
      return new LogEvidenceError(sent.message);
    case 'TypeError':
      return new TypeError(sent.message);
    case 'RangeError':
      return new RangeError(sent.message);
    default:
      return new Error(sent.message);
  }
}

/** The export worker stopped, or could not start, with this export in flight. */
class ExportWorkerStopped extends Error {
  constructor(cause: Error) {
    super(`The export worker stopped: ${cause.message}`, { cause });
    this.name = 'ExportWorkerStopped';
  }
}

/** An export waiting for the export worker. */
interface PendingExport {
  resolve(result: ExportResult): void;
  reject(error: Error): void;
  onProgress: ((event: ExportProgress) => void) | undefined;
}

/**
 * The export worker's young generation, as the verification workers' (src-main/core/worker-pool.ts):
 * an export's garbage is a page of rows, their file entries and deflated chunks at a time, and
 * V8's default (16 MB semi-spaces) held about 30 MB more of the service's RSS under load for it.
 */
const EXPORT_WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

/** The export worker of this process, started on the first export that asks for it. */
let exportWorker: { worker: Worker; jobs: Map<number, PendingExport> } | undefined;
let lastJob = 0;

/**
 * The process's export worker (src-main/evidence/export-worker.ts), started when first needed
 * and kept for the exports after: starting one costs tens of milliseconds, which small exports
 * asked often (a tenant checking for new receipts) would pay each time. It holds the process
 * open only while an export is under way. Should it stop, its exports are written on their
 * calling threads and the next export starts another.
 */
function theExportWorker(): { worker: Worker; jobs: Map<number, PendingExport> } {
  if (exportWorker !== undefined) return exportWorker;
  const source = exportWorkerSource();
  const worker =
    source.kind === 'file'
      ? new Worker(source.url, { resourceLimits: EXPORT_WORKER_LIMITS })
      : new Worker(source.code, { eval: true, resourceLimits: EXPORT_WORKER_LIMITS });
  const state = { worker, jobs: new Map<number, PendingExport>() };
  const fail = (error: Error): void => {
    if (exportWorker === state) exportWorker = undefined;
    for (const job of state.jobs.values()) job.reject(new ExportWorkerStopped(error));
    state.jobs.clear();
  };
  worker.on('message', (message: ExportWorkerMessage) => {
    const job = state.jobs.get(message.id);
    if (job === undefined) return;
    if (message.kind === 'progress') {
      job.onProgress?.(message.event);
      return;
    }
    state.jobs.delete(message.id);
    if (state.jobs.size === 0) worker.unref();
    if (message.kind === 'done') job.resolve(message.result);
    else job.reject(receivedError(message.error));
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`exit code ${code}, before the bundle was written`)));
  worker.unref();
  exportWorker = state;
  return state;
}

/**
 * Stops the export worker, if one runs (the service, when it closes). Exports still in flight
 * on it are written on their calling threads instead.
 */
export async function stopExportWorker(): Promise<void> {
  const state = exportWorker;
  if (state === undefined) return;
  exportWorker = undefined;
  await state.worker.terminate();
}

/**
 * {@link writeBundle} on the export worker: it reads a snapshot of its own of the ledger file
 * and writes the zip; progress events and the result or error come back. The signing seed is
 * copied to the worker, which wipes its copy.
 */
function writeBundleOnWorker(
  ledgerFile: string,
  options: BundleOptions,
  onProgress: ((event: ExportProgress) => void) | undefined,
): Promise<ExportResult> {
  const { worker, jobs } = theExportWorker();
  lastJob += 1;
  const job: ExportJob = { id: lastJob, ledgerFile, options };
  return new Promise<ExportResult>((resolve, reject) => {
    jobs.set(job.id, { resolve, reject, onProgress });
    worker.ref();
    try {
      worker.postMessage(job);
    } catch (error) {
      // Options that cannot be sent (a defect of the caller): nothing was started.
      jobs.delete(job.id);
      if (jobs.size === 0) worker.unref();
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
