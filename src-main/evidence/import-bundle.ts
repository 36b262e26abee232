/**
 * Import a tenant evidence bundle into the ledger (PROTOCOL section 9).
 *
 * Two passes over the zip, so that every rule is enforced before anything is written:
 *
 * 1. Checking (no writes). The zip is hashed (its SHA-256 identifies the bundle); the central
 *    directory is checked entry by entry (zip-hygiene.ts) against the limits; manifest.json is
 *    parsed strictly; then every file is read, inflated with an output cap, and checked against
 *    its declared size and CRC-32 (by the verification workers, from the stored bytes this thread
 *    reads: entry-data.ts), and its SHA-256 is compared with the manifest. Any rule
 *    broken is a {@link BundleError} and the ledger is untouched.
 * 2. Importing. The bundle row is written `partial`, with the advertised keys of
 *    keys/service-keys.json; receipts go to the worker pool in batches of stored bytes (the
 *    workers inflate, check, compare each digest with pass 1's and verify) and are stored with
 *    their reports in one transaction per `transactionSize` receipts; the last transaction
 *    stores the anchors (linked to their receipts, anchor-links.ts), marks the bundle `complete`,
 *    stores counts, findings and the manifest signature result, and appends the `import` audit row.
 *
 * A crash in pass 2 leaves a `partial` bundle row and whole batches. Importing the same zip
 * again (same SHA-256) finds that row and goes through every receipt once more: stored
 * receipts (same JCS SHA-256) are left as they are, sources are a set, anchors are keyed by
 * URN, so nothing is duplicated and the bundle ends `complete`.
 *
 * Findings (the bundle is imported, exit 1 in the CLI): files missing from the zip, extra files,
 * files whose bytes differ from the manifest, unexpected files, manifest.sig problems, an
 * unusable keys file or anchors file, counts that disagree, receipts whose report is not PASS,
 * receipts whose file name is neither their id nor their SHA-256. A signer that is merely
 * unpinned is reported as the signature's trust, never as a finding.
 */
import type { Finding, FindingCode, ImportCounts } from '../../src-shared/api/vocabulary';
import { createHash, hash as hashOnce } from 'node:crypto';
import path from 'node:path';
import type { KeyEntry, VerifyContext } from '../../src-shared/verify/context';
import { checkKeySources, KeyFileError, parseKeyFile } from '../../src-shared/verify/key-file';
import { timestampToMillis } from '../../src-shared/verify/timestamp';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import type { VerifiedReceipt } from '../core/receipt-facts';
import {
  createVerifyPool,
  DEFAULT_VERIFY_BATCH_SIZE,
  type EntriesResult,
  type EntryBatch,
  type VerifyPool,
} from '../core/worker-pool';
import {
  appendAudit,
  getBundle,
  insertAnchor,
  insertBundle,
  insertReceipts,
  updateBundle,
  type Ledger,
  type NewAnchor,
  type NewReceipt,
  type WritableDB,
} from '../ledger/index';
import { createTrustStore, TrustError } from '../trust/index';
import { AnchorsFileError, parseAnchorsFile } from './anchors-file';
import { BundleReceiptDigests, linkAnchorsToReceipts } from './anchor-links';
import { classifyBundlePath, KEYS_NAME, pathStem, type BundlePathKind } from './bundle-layout';
import { BundleError, ImportCancelledError, printableName, throwIfCancelled, type BundleErrorCode } from './errors';
import { maxZipFileBytes, resolveZipLimits, type ZipLimits } from './limits';
import { checkManifestSignature, MANIFEST_NAME, SIGNATURE_NAME, type Manifest, type SignatureCheck } from './manifest';
import { DIGEST_BYTES, listedDigestHex, parseManifestCompact, type CompactFileList } from './manifest-lean';
import { createProgressReporter, type ImportPhase, type ImportProgress } from './progress';
import { openRegularFile, openZipArchive, type ZipArchive, type ZipEntry } from './zip-reader';

// Defined beside BundleError (the zip reader throws it too); exported here as before.
export { ImportCancelledError } from './errors';

/** Receipts stored per transaction by default. */
export const DEFAULT_TRANSACTION_SIZE = 2000;
/** Findings listed one by one in a result and in the bundle row; the rest are only counted. */
export const MAX_LISTED_FINDINGS = 1000;
/** The smallest buffer a batch's receipts are gathered in (see {@link SlabPool}); most batches fit one. */
const MIN_SLAB_BYTES = 256 * 1024;
/** Free slabs kept for reuse; the import has about (transaction + in flight) / batch of them in use. */
const MAX_FREE_SLABS = 32;

/**
 * Reusable buffers for the bytes of receipts between reading and storing.
 *
 * Each receipt read in pass 2 lives until the transaction that stores it, long enough for V8 to
 * move it to the old generation, where its buffer is freed only by a full collection: on 100,000
 * receipts that let 50 to 90 MB of dead buffers pile up on the importing thread at a time. A
 * batch's receipts are instead copied into one slab, stored from views of it, and the slab is
 * reused once every receipt in it is stored; the buffers the zip reader returns die young. The
 * slab travels to the verification worker, which writes the batch's inflated receipts into it,
 * and comes back with them.
 */
class SlabPool {
  private readonly free: Uint8Array[] = [];

  /** A slab of at least `bytes` bytes, with `count` receipts that will each be {@link release}d. */
  take(bytes: number, count: number): Slab {
    const index = this.free.findIndex((slab) => slab.length >= bytes);
    const buffer =
      index === -1 ? new Uint8Array(Math.max(bytes, MIN_SLAB_BYTES)) : (this.free.splice(index, 1)[0] as Uint8Array);
    return { buffer, live: count };
  }

  /** One receipt of the slab is stored; the last one makes the slab free again. */
  release(slab: Slab): void {
    slab.live -= 1;
    if (slab.live === 0 && this.free.length < MAX_FREE_SLABS) this.free.push(slab.buffer);
  }
}

/** A slab in use (see {@link SlabPool}). */
interface Slab {
  buffer: Uint8Array;
  /** Receipts in it not yet stored. */
  live: number;
}

/** Batches queued per verification worker in pass 2 (each holds at most a slab and its stored bytes). */
const IN_FLIGHT_PER_WORKER = 8;
/**
 * The most bytes (stored plus inflated) of the batches in flight in pass 2: small receipts make
 * batches of about 300 KB, but a bundle of large receipts makes 4 MiB batches, and 16 of them
 * would hold over 100 MB.
 */
const MAX_IN_FLIGHT_BYTES = 32 * 1024 * 1024;

/** Bytes of receipts per batch sent to a worker, whatever the count: large receipts make small batches. */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Zip entries gathered as stored (compressed) for one {@link VerifyPool.entries} batch: the
 * workers inflate, check and hash them, so the importing thread only reads the file and writes
 * the ledger (both passes used to inflate and hash every entry on this thread while a core idled).
 */
class StoredBatch {
  readonly indexes: number[] = [];
  readonly entries: ZipEntry[] = [];
  private readonly stored: Uint8Array[] = [];
  storedBytes = 0;
  declaredBytes = 0;

  add(index: number, entry: ZipEntry, stored: Uint8Array): void {
    this.indexes.push(index);
    this.entries.push(entry);
    this.stored.push(stored);
    this.storedBytes += stored.length;
    this.declaredBytes += entry.uncompressedSize;
  }

  get length(): number {
    return this.entries.length;
  }

  /** Whether the batch is as large as one message should be. */
  full(): boolean {
    return (
      this.entries.length >= DEFAULT_VERIFY_BATCH_SIZE ||
      this.storedBytes >= MAX_BATCH_BYTES ||
      this.declaredBytes >= MAX_BATCH_BYTES
    );
  }

  /** The batch in the pool's form (its own buffers, ready to be transferred). */
  toBatch(maxEntryBytes: number, verify: boolean): EntryBatch {
    const count = this.entries.length;
    const bytes = new Uint8Array(this.storedBytes);
    const offsets = new Uint32Array(count + 1);
    const methods = new Uint8Array(count);
    const sizes = new Float64Array(count);
    const crcs = new Uint32Array(count);
    let at = 0;
    for (let index = 0; index < count; index += 1) {
      const entry = this.entries[index] as ZipEntry;
      const stored = this.stored[index] as Uint8Array;
      bytes.set(stored, at);
      at += stored.length;
      offsets[index + 1] = at;
      methods[index] = entry.compressionMethod;
      sizes[index] = entry.uncompressedSize;
      crcs[index] = entry.crc32;
    }
    return {
      bytes,
      offsets,
      names: this.entries.map((entry) => entry.name),
      methods,
      sizes,
      crcs,
      maxEntryBytes,
      verify,
    };
  }
}

/** The BundleError a worker reported for an entry of a batch. */
function entryFailure(failure: NonNullable<EntriesResult['failure']>): BundleError {
  return new BundleError(
    failure.code as BundleErrorCode,
    failure.message,
    failure.entry === undefined ? {} : { entry: failure.entry },
  );
}

/** Stable codes of {@link Finding} (the one list: src-shared/api/vocabulary.ts). */
export type { FindingCode } from '../../src-shared/api/vocabulary';

/** Something wrong with an imported bundle that did not stop the import. */
export type { Finding } from '../../src-shared/api/vocabulary';

/**
 * An import that stopped after it had started writing (a storage failure, a worker that died,
 * the zip changing on disk). The bundle is recorded as `partial`; importing the same zip again
 * finishes it without duplicates.
 */
export class ImportInterruptedError extends Error {
  /** hex SHA-256 of the zip. */
  readonly bundleSha256: string;
  constructor(bundleSha256: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`The import stopped part-way: ${reason} The bundle is recorded as partial; import it again to finish.`, {
      cause,
    });
    this.name = 'ImportInterruptedError';
    this.bundleSha256 = bundleSha256;
  }
}

/** Options of {@link importBundle}. */
export interface ImportOptions {
  /** Zip limits; unset ones take the defaults of limits.ts. */
  limits?: Partial<ZipLimits>;
  /** Worker threads verifying receipts (default: os.availableParallelism()). */
  workers?: number;
  /** Receipts per transaction (default {@link DEFAULT_TRANSACTION_SIZE}). */
  transactionSize?: number;
  /** Receives progress events. */
  onProgress?: (event: ImportProgress) => void;
  /** The instant validity windows are judged at and the import is recorded at (default now). */
  now?: Date;
  /** The name recorded for the bundle (default: the file's base name). */
  fileName?: string;
  /**
   * Stops the import promptly with ImportCancelledError: while the zip is hashed (between 1 MiB
   * chunks) or checked (between entries) nothing has been written; later it stops at the next
   * batch boundary, and what was stored stays (whole batches, the bundle `partial`), exactly as
   * after a crash: importing the same zip again finishes it.
   */
  signal?: AbortSignal;
}

/** Counts of an import (the one shape: src-shared/api/vocabulary.ts). */
export type { ImportCounts } from '../../src-shared/api/vocabulary';

/** The outcome of an import that was not refused. */
export interface ImportResult {
  bundle: {
    id: number;
    sha256: string;
    file_name: string;
    tenant_id: string;
    generated_at: string;
    key_id: string;
    status: 'complete';
  };
  /** An earlier import of this zip had stopped part-way; this one finished it. */
  resumed: boolean;
  /** This zip had been imported completely before; nothing new was stored. */
  alreadyImported: boolean;
  signature: SignatureCheck;
  counts: ImportCounts;
  /** At most {@link MAX_LISTED_FINDINGS}, in the order found. */
  findings: Finding[];
  /** Every finding, counted by code. */
  findingCounts: Partial<Record<FindingCode, number>>;
  totalFindings: number;
  /** True when there are no findings. */
  clean: boolean;
}

/** The kinds of {@link BundlePathKind}, numbered for {@link ScannedFiles.kinds}. */
const KINDS: readonly BundlePathKind[] = ['manifest', 'signature', 'keys', 'receipt', 'anchor', 'directory', 'other'];
const RECEIPT_KIND = KINDS.indexOf('receipt');
const ANCHOR_KIND = KINDS.indexOf('anchor');

/**
 * The zip's files as pass 1 read them, in columns rather than an object per file (a bundle of
 * 100,000 receipts would otherwise keep 100,000 objects and hex strings to the end of pass 2).
 */
interface ScannedFiles {
  /** The file entries (no directories), in central directory order. */
  entries: readonly ZipEntry[];
  /** Entry `i`'s place in the bundle, as an index of {@link KINDS}. */
  kinds: Uint8Array;
  /** Entry `i`'s SHA-256 as pass 1 read it: `digests[32 * i .. 32 * i + 32)`. */
  digests: Uint8Array;
}

/** Whether `a` at `aOffset` and `b` at `bOffset` hold the same 32-byte digest. */
function sameDigest(a: Uint8Array, aOffset: number, b: Uint8Array, bOffset: number): boolean {
  for (let index = 0; index < DIGEST_BYTES; index += 1) if (a[aOffset + index] !== b[bOffset + index]) return false;
  return true;
}

function digestHex(digests: Uint8Array, index: number): string {
  return Buffer.from(digests.buffer, digests.byteOffset + index * DIGEST_BYTES, DIGEST_BYTES).toString('hex');
}

class FindingList {
  readonly listed: Finding[] = [];
  readonly counts: Partial<Record<FindingCode, number>> = {};
  total = 0;

  add(code: FindingCode, filePath: string, message: string): void {
    this.total += 1;
    this.counts[code] = (this.counts[code] ?? 0) + 1;
    if (this.listed.length < MAX_LISTED_FINDINGS) this.listed.push({ code, path: filePath, message });
  }
}

function checkOptions(options: ImportOptions): { limits: ZipLimits; transactionSize: number; now: Date } {
  if (typeof options !== 'object' || options === null) throw new TypeError('importBundle: options must be an object');
  const limits = resolveZipLimits(options.limits ?? {});
  const transactionSize = options.transactionSize ?? DEFAULT_TRANSACTION_SIZE;
  if (!Number.isSafeInteger(transactionSize) || transactionSize < 1) {
    throw new RangeError('importBundle: transactionSize must be a positive integer');
  }
  const now = options.now ?? new Date();
  if (!(now instanceof Date) || !Number.isFinite(now.getTime()))
    throw new TypeError('importBundle: now must be a valid Date');
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new TypeError('importBundle: onProgress must be a function');
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw new TypeError('importBundle: signal must be an AbortSignal');
  }
  return { limits, transactionSize, now };
}

/** Bytes read per step while hashing: between steps the signal and the size cap are checked. */
const HASH_CHUNK_BYTES = 1024 * 1024;

/** Options of {@link hashFile}. */
export interface HashFileOptions {
  /** Stops the hashing between chunks with ImportCancelledError. */
  signal?: AbortSignal;
  /** The most bytes read: a larger file is refused before reading, one that grows past it on the way. */
  maxBytes?: number;
  /** Called after each chunk with the bytes hashed so far and the size the file had when opened. */
  onChunk?: (hashed: number, size: number) => void;
}

/**
 * The SHA-256 of a whole regular file, read in chunks.
 *
 * Only a regular file is read (a FIFO or a device would never end); between chunks the
 * signal is checked and the bytes read are held to the cap, so hashing stops promptly whatever
 * the file does.
 *
 * @param file - The path.
 * @param options - Signal, size cap, chunk listener.
 * @returns HEX64.
 * @throws BundleError zip_unreadable when the file cannot be read or is not a regular file;
 *   zip_file_too_large when it is, or grows, larger than `maxBytes`. ImportCancelledError when
 *   the signal fired.
 */
export async function hashFile(file: string, options: HashFileOptions = {}): Promise<string> {
  if (typeof options !== 'object' || options === null) throw new TypeError('hashFile: options must be an object');
  const { signal, maxBytes = Number.MAX_SAFE_INTEGER, onChunk } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
    throw new RangeError('hashFile: maxBytes must be a non-negative integer');
  throwIfCancelled(signal);
  const { handle, size } = await openRegularFile(file);
  try {
    const tooLarge = (bytes: number): BundleError =>
      new BundleError(
        'zip_file_too_large',
        `The bundle file is ${bytes} bytes or more, over the limit of ${maxBytes} bytes.`,
      );
    if (size > maxBytes) throw tooLarge(size);
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
    let hashed = 0;
    for (;;) {
      throwIfCancelled(signal);
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, buffer.length, hashed));
      } catch (error) {
        throw new BundleError('zip_unreadable', `The bundle cannot be read: ${(error as Error).message}.`, {
          cause: error,
        });
      }
      if (bytesRead === 0) break;
      hashed += bytesRead;
      if (hashed > maxBytes) throw tooLarge(hashed);
      hash.update(buffer.subarray(0, bytesRead));
      onChunk?.(hashed, size);
    }
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

/** What pass 1 learnt: everything pass 2 needs, and nothing it does not (see checkBundle). */
interface CheckedBundle {
  /** The manifest without its file list (the list is only needed by pass 1). */
  manifest: Omit<Manifest, 'files'> & { listedReceipts: number };
  /** manifest.json as text, for the bundle row; handed over once, then released. */
  takeManifestJson(): string;
  signature: SignatureCheck;
  advertised: KeyEntry[];
  scanned: ScannedFiles;
  fileCount: number;
  fields: { filesRead: number; filesTotal: number; receiptsVerified: number; receiptsTotal: number };
}

interface CheckOptions {
  findings: FindingList;
  signal: AbortSignal | undefined;
  progress: ReturnType<typeof createProgressReporter<ImportPhase, ImportProgress>>;
  pinned: KeyEntry[];
  now: Date;
  /** Called once the advertised keys are known, to start the verification workers (pass 1 uses them too). */
  startPool(pinned: KeyEntry[], advertised: KeyEntry[]): VerifyPool;
}

/**
 * Pass 1: every file read and checked; nothing written.
 *
 * A function of its own so that what only this pass needs (the manifest's file list and bytes,
 * the name index) is garbage once it returns. The manifest is read in compact form
 * (manifest-lean.ts: same rules and errors as the strict parse, without its parse tree, which
 * for 100,000 receipts made about 110 MB of garbage at the memory peak), and what pass 2 keeps
 * per file is a kind byte and 32 digest bytes. No file's bytes are kept for pass 2,
 * which reads each receipt again: keeping the first 32 MiB saved no measurable time on a
 * 100,000-receipt import and cost about 50 MB of peak memory.
 */
async function checkBundle(archive: ZipArchive, options: CheckOptions): Promise<CheckedBundle> {
  const { findings, progress, now } = options;
  const files = archive.entries.filter((entry) => !entry.directory);
  const fields = { filesRead: 0, filesTotal: files.length, receiptsVerified: 0, receiptsTotal: 0 };
  progress.update('checking', 0, files.length, fields);

  // manifest.json first: without it (or with a bad one) nothing else is worth reading.
  const kinds = new Uint8Array(files.length);
  let manifestEntry: ZipEntry | undefined;
  let signatureEntry: ZipEntry | undefined;
  let keysEntry: ZipEntry | undefined;
  files.forEach((entry, index) => {
    const kind = classifyBundlePath(entry.name);
    kinds[index] = KINDS.indexOf(kind);
    if (kind === 'manifest') manifestEntry = entry;
    else if (kind === 'signature') signatureEntry = entry;
    else if (kind === 'keys') keysEntry = entry;
  });
  if (manifestEntry === undefined) {
    throw new BundleError('manifest_missing', 'The bundle has no manifest.json at its top level.', {
      entry: MANIFEST_NAME,
    });
  }
  const manifestBytes = await archive.read(manifestEntry);
  const { header: manifest, files: listed } = parseManifestCompact(manifestBytes);
  const signatureBytes = signatureEntry === undefined ? undefined : await archive.read(signatureEntry);
  const keysBytes = keysEntry === undefined ? undefined : await archive.read(keysEntry);

  const advertised = readAdvertisedKeys(keysBytes, options.pinned, findings);
  const context: VerifyContext = {
    crypto: createNodeCryptoProvider(),
    pinned: options.pinned,
    advertised,
    secrets: [],
    now,
  };
  const pool = options.startPool(options.pinned, advertised);

  const scanned: ScannedFiles = { entries: files, kinds, digests: new Uint8Array(files.length * DIGEST_BYTES) };
  const known = new Map<ZipEntry, Uint8Array>([[manifestEntry, manifestBytes]]);
  if (signatureEntry !== undefined && signatureBytes !== undefined) known.set(signatureEntry, signatureBytes);
  if (keysEntry !== undefined && keysBytes !== undefined) known.set(keysEntry, keysBytes);
  // Every other file goes to the workers as stored: they inflate, check and hash it. Answers are
  // taken in order, so the first entry that breaks a rule is the one reported, as when read here.
  const inFlight: Promise<void>[] = [];
  const maxInFlight = pool.size * 4;
  let batch = new StoredBatch();
  const dispatch = (): void => {
    const sent = batch;
    batch = new StoredBatch();
    const answer = pool.entries(sent.toBatch(archive.maxEntryBytes, false));
    const previous = inFlight[inFlight.length - 1] ?? Promise.resolve();
    const taken = Promise.all([answer, previous]).then(([result]) => {
      throwIfCancelled(options.signal);
      if (result.failure !== undefined) throw entryFailure(result.failure);
      const digests = result.digests as Uint8Array;
      sent.indexes.forEach((index, item) => {
        scanned.digests.set(digests.subarray(item * DIGEST_BYTES, (item + 1) * DIGEST_BYTES), index * DIGEST_BYTES);
      });
      fields.filesRead += sent.length;
      progress.update('checking', fields.filesRead, fields.filesTotal, fields);
    });
    // Awaited below; this only keeps a failure after an earlier one from going unhandled.
    taken.catch(() => undefined);
    inFlight.push(taken);
  };
  for (const [index, entry] of files.entries()) {
    throwIfCancelled(options.signal);
    const data = known.get(entry);
    if (data !== undefined) {
      scanned.digests.set(hashOnce('sha256', data, 'buffer'), index * DIGEST_BYTES);
      fields.filesRead += 1;
      progress.update('checking', fields.filesRead, fields.filesTotal, fields);
      continue;
    }
    batch.add(index, entry, await archive.readStored(entry));
    if (batch.full()) dispatch();
    while (inFlight.length >= maxInFlight) await inFlight.shift();
  }
  if (batch.length > 0) dispatch();
  while (inFlight.length > 0) await inFlight.shift();
  throwIfCancelled(options.signal);
  for (const entry of archive.entries) {
    if (entry.directory && classifyBundlePath(entry.name) !== 'directory') {
      findings.add(
        'unexpected_file',
        entry.name,
        `The directory ${printableName(entry.name)} is not part of the bundle layout.`,
      );
    }
  }
  checkFiles(listed, scanned, findings);
  const signature = checkManifestSignature(manifestBytes, signatureBytes, context);
  addSignatureFindings(signature, manifest, findings);

  let manifestJson: string | undefined = Buffer.from(manifestBytes).toString('utf8');
  return {
    manifest: {
      ...manifest,
      listedReceipts: listed.paths.filter((listedPath) => classifyBundlePath(listedPath) === 'receipt').length,
    },
    takeManifestJson: () => {
      if (manifestJson === undefined) throw new Error('importBundle: the manifest text was already handed over');
      const text = manifestJson;
      manifestJson = undefined;
      return text;
    },
    signature,
    advertised,
    scanned,
    fileCount: files.length,
    fields,
  };
}

/**
 * Import an evidence bundle.
 *
 * @param ledger - The open ledger.
 * @param file - The zip's path.
 * @param options - Limits, workers, batch size, progress listener, clock, recorded name.
 * @returns What was imported, the manifest signature check, counts and findings.
 * @throws BundleError when the bundle is refused (nothing was written); TypeError / RangeError
 *   for bad options; LedgerError when the ledger cannot be written at all (nothing was written);
 *   ImportInterruptedError when storing fails part-way (the bundle stays `partial` and
 *   importing it again finishes it).
 */
export async function importBundle(ledger: Ledger, file: string, options: ImportOptions = {}): Promise<ImportResult> {
  if (typeof ledger !== 'object' || ledger === null || typeof ledger.runInTransaction !== 'function') {
    throw new TypeError('importBundle: ledger must be an open Ledger');
  }
  if (typeof file !== 'string' || file.length === 0) throw new TypeError('importBundle: file must be a path');
  const { limits, transactionSize, now } = checkOptions(options);
  const fileName = options.fileName ?? path.basename(file);
  const progress = createProgressReporter<ImportPhase, ImportProgress>(
    options.onProgress,
    (phase, fields, perSecond, secondsLeft) => ({
      phase,
      filesRead: fields.filesRead ?? 0,
      filesTotal: fields.filesTotal ?? 0,
      receiptsVerified: fields.receiptsVerified ?? 0,
      receiptsTotal: fields.receiptsTotal ?? 0,
      perSecond,
      secondsLeft,
    }),
  );

  progress.update('hashing', 0, 0, {});
  const { signal } = options;
  const bundleSha256 = await hashFile(file, { signal, maxBytes: maxZipFileBytes(limits) });
  const archive = await openZipArchive(file, limits, { signal });
  let pool: VerifyPool | undefined;
  let writing = false;
  try {
    const findings = new FindingList();
    const trust = createTrustStore(ledger);
    const checked = await checkBundle(archive, {
      findings,
      signal,
      progress,
      pinned: trust.pinnedEntries(),
      now,
      startPool: (pinned, advertised) => {
        // Workers start now and load their modules while pass 1 reads the manifest.
        pool = createVerifyPool({
          pinned,
          advertised,
          now,
          ...(options.workers === undefined ? {} : { size: options.workers }),
        });
        return pool;
      },
    });
    const { manifest, signature, advertised, scanned, fields } = checked;

    // Pass 2: everything below writes.
    let receiptCount = 0;
    for (const kind of scanned.kinds) if (kind === RECEIPT_KIND) receiptCount += 1;
    fields.receiptsTotal = receiptCount;
    const stored = ledger.runInTransaction((database) => {
      const bundle = insertBundle(
        database,
        {
          bundle_sha256: bundleSha256,
          file_name: fileName,
          tenant_id: manifest.tenant_id,
          generated_at: timestampToMillis(manifest.generated_at),
          manifest_json: checked.takeManifestJson(),
          signature,
          status: 'partial',
        },
        { at: now.getTime() },
      );
      const previous = bundle.created ? undefined : getBundle(database, bundle.id);
      if (advertised.length > 0) {
        try {
          trust.recordAdvertised(advertised, `bundle:${bundle.id}`);
        } catch (error) {
          if (!(error instanceof TrustError)) throw error;
          findings.add('keys_invalid', KEYS_NAME, `The keys could not be recorded: ${error.message}`);
        }
      }
      return { id: bundle.id, previousStatus: previous?.status };
    });
    writing = true;

    const counts: ImportCounts = {
      files: checked.fileCount,
      receipts: receiptCount,
      receiptsNew: 0,
      receiptsKnown: 0,
      byStatus: {},
      byTrust: {},
      anchors: 0,
      anchorsNew: 0,
      advertisedKeys: advertised.length,
    };
    const source = { kind: 'bundle' as const, ref: String(stored.id) };
    const pendingReceipts: NewReceipt[] = [];
    /** The slab each pending receipt's bytes are in, in the same order. */
    const pendingSlabs: Slab[] = [];
    const slabs = new SlabPool();
    let pendingAnchors: NewAnchor[] = [];
    // Anchors wait for the last transaction, when every receipt they may link to is known.
    const bundleAnchors: NewAnchor[] = [];
    const receiptDigests = scanned.kinds.includes(ANCHOR_KIND) ? new BundleReceiptDigests() : undefined;
    const at = now.getTime();

    /** Store up to `limit` pending receipts (all when omitted) and every pending anchor. */
    function flush(database: WritableDB, limit = pendingReceipts.length): void {
      const chunk = pendingReceipts.splice(0, limit);
      const chunkSlabs = pendingSlabs.splice(0, limit);
      if (chunk.length > 0) {
        for (const inserted of insertReceipts(database, chunk, { at })) {
          if (inserted.created) counts.receiptsNew += 1;
          else counts.receiptsKnown += 1;
        }
      }
      // Stored (SQLite copied the bytes): their slabs can be reused.
      for (const slab of chunkSlabs) slabs.release(slab);
      for (const anchor of pendingAnchors) {
        if (insertAnchor(database, anchor, { at }).created) counts.anchorsNew += 1;
      }
      pendingAnchors = [];
    }

    function accept(entry: ZipEntry, data: Uint8Array, slab: Slab, facts: VerifiedReceipt): void {
      const { report } = facts;
      counts.byStatus[report.status] = (counts.byStatus[report.status] ?? 0) + 1;
      counts.byTrust[report.trust.status] = (counts.byTrust[report.trust.status] ?? 0) + 1;
      if (report.status !== 'PASS') {
        findings.add(
          'receipt_not_pass',
          entry.name,
          `${report.status}${facts.problem === '' ? '' : `: ${facts.problem}`}`,
        );
      }
      receiptDigests?.add(facts.receipt_sha256);
      const stem = pathStem(entry.name);
      if (facts.receipt_id !== null && stem !== facts.receipt_id && stem !== facts.receipt_sha256) {
        findings.add(
          'receipt_name_mismatch',
          entry.name,
          `The file is named ${printableName(stem)} but holds receipt ${printableName(facts.receipt_id)}.`,
        );
      }
      pendingSlabs.push(slab);
      pendingReceipts.push({
        receipt_sha256: facts.receipt_sha256,
        raw: data,
        report,
        receipt_id: facts.receipt_id,
        issued_at: facts.issued_at,
        issuer_key_id: facts.issuer_key_id,
        source,
      });
    }

    // Assigned by checkBundle's startPool callback, which the compiler cannot follow.
    const startedPool = pool as VerifyPool | undefined;
    if (startedPool === undefined) throw new Error('importBundle: the verification pool did not start');
    const verifyPool: VerifyPool = startedPool;
    const inFlight: Promise<void>[] = [];
    /** The bytes each batch of `inFlight` holds, in the same order. */
    const inFlightBytes: number[] = [];
    let inFlightTotal = 0;
    // Deep enough that the workers still have work queued while this thread stores a whole
    // transaction (2,000 rows, 150-250 ms; 4 batches per worker are about that much work).
    const maxInFlight = verifyPool.size * IN_FLIGHT_PER_WORKER;
    let batch = new StoredBatch();
    async function awaitOldest(): Promise<void> {
      const bytes = inFlightBytes.shift() ?? 0;
      try {
        await inFlight.shift();
      } finally {
        inFlightTotal -= bytes;
      }
    }

    function dispatch(): void {
      const sent = batch;
      batch = new StoredBatch();
      const slab = slabs.take(sent.declaredBytes, sent.length);
      const request = sent.toBatch(archive.maxEntryBytes, true);
      const expected = new Uint8Array(sent.length * DIGEST_BYTES);
      sent.indexes.forEach((index, item) => {
        expected.set(scanned.digests.subarray(index * DIGEST_BYTES, (index + 1) * DIGEST_BYTES), item * DIGEST_BYTES);
      });
      request.expected = expected;
      // The slab travels to the worker and back with the receipts' data in it.
      request.out = slab.buffer;
      const answer = verifyPool.entries(request);
      // Results are accepted in dispatch order: each waits for the one before it.
      const previous = inFlight[inFlight.length - 1] ?? Promise.resolve();
      const accepted = Promise.all([answer, previous]).then(([result]) => {
        // A batch boundary: a cancelled import stops here, with whole transactions stored.
        throwIfCancelled(signal);
        if (result.data !== undefined) slab.buffer = result.data;
        const results = result.results ?? [];
        const offsets = result.dataOffsets as Uint32Array;
        results.forEach((facts, item) => {
          accept(sent.entries[item] as ZipEntry, slab.buffer.subarray(offsets[item], offsets[item + 1]), slab, facts);
        });
        // Receipts after a failure were never verified: their share of the slab is released.
        for (let item = results.length; item < sent.length; item += 1) slabs.release(slab);
        fields.receiptsVerified += results.length;
        if (result.failure !== undefined) throw entryFailure(result.failure);
        // Exactly `transactionSize` receipts per transaction; the rest wait for the next one.
        while (pendingReceipts.length >= transactionSize)
          ledger.runInTransaction((database) => flush(database, transactionSize));
        progress.update('verifying', fields.receiptsVerified, fields.receiptsTotal, fields);
      });
      // Awaited below; this handler only keeps a failure that is never awaited (because an
      // earlier one ended the import) from becoming an unhandled rejection.
      accepted.catch(() => undefined);
      inFlight.push(accepted);
      inFlightBytes.push(sent.storedBytes + sent.declaredBytes);
      inFlightTotal += sent.storedBytes + sent.declaredBytes;
    }

    progress.update('verifying', 0, receiptCount, fields);
    for (const [index, entry] of scanned.entries.entries()) {
      throwIfCancelled(signal);
      const kind = scanned.kinds[index];
      if (kind === ANCHOR_KIND) {
        const data = await archive.read(entry);
        if (!sameDigest(hashOnce('sha256', data, 'buffer'), 0, scanned.digests, index * DIGEST_BYTES)) {
          throw new BundleError(
            'zip_changed',
            `Entry "${printableName(entry.name)}" changed on disk during the import.`,
            {
              entry: printableName(entry.name),
            },
          );
        }
        readAnchors(entry.name, data, bundleAnchors, counts, findings);
        continue;
      }
      if (kind !== RECEIPT_KIND) continue;
      batch.add(index, entry, await archive.readStored(entry));
      if (batch.full()) dispatch();
      while (inFlight.length >= maxInFlight || (inFlight.length > 0 && inFlightTotal > MAX_IN_FLIGHT_BYTES))
        await awaitOldest();
    }
    if (batch.length > 0) dispatch();
    while (inFlight.length > 0) await awaitOldest();
    throwIfCancelled(signal);

    progress.update('finishing', fields.receiptsVerified, fields.receiptsTotal, fields);
    checkCounts(manifest, counts, findings);
    ledger.runInTransaction((database) => {
      pendingAnchors.push(...linkAnchorsToReceipts(bundleAnchors, receiptDigests ?? []));
      flush(database);
      // After the last flush: it counts the final batch's new and known receipts.
      const summary = {
        ...counts,
        findings: { total: findings.total, byCode: findings.counts },
      };
      updateBundle(database, stored.id, { status: 'complete', counts: summary, findings: findings.listed, signature });
      appendAudit(
        database,
        'import',
        bundleSha256,
        {
          bundle_id: stored.id,
          file_name: fileName,
          tenant_id: manifest.tenant_id,
          receipts: counts.receipts,
          new: counts.receiptsNew,
          known: counts.receiptsKnown,
          anchors: counts.anchors,
          findings: findings.total,
          signature: signature.status,
          signer_trust: signature.trust.status,
          resumed: stored.previousStatus === 'partial',
          already_imported: stored.previousStatus === 'complete',
        },
        { at },
      );
    });
    progress.update('done', fields.receiptsVerified, fields.receiptsTotal, fields, true);
    return {
      bundle: {
        id: stored.id,
        sha256: bundleSha256,
        file_name: fileName,
        tenant_id: manifest.tenant_id,
        generated_at: manifest.generated_at,
        key_id: manifest.key_id,
        status: 'complete',
      },
      resumed: stored.previousStatus === 'partial',
      alreadyImported: stored.previousStatus === 'complete',
      signature,
      counts,
      findings: findings.listed,
      findingCounts: findings.counts,
      totalFindings: findings.total,
      clean: findings.total === 0,
    };
  } catch (error) {
    // A cancellation is already the caller's own, precise error.
    if (writing && !(error instanceof ImportCancelledError)) throw new ImportInterruptedError(bundleSha256, error);
    throw error;
  } finally {
    await archive.close();
    await pool?.close();
  }
}

/**
 * The bundle's keys/service-keys.json, or none when it cannot be used (a `keys_invalid` finding).
 *
 * One key id names one key (PROTOCOL section 0): a file that gives a key_id of the trust store
 * another key is unusable exactly as a file that names one key_id twice is, with the rule and
 * message `evroom verify` applies to its key files (checkKeySources). Its keys then neither
 * check signatures nor are recorded as advertised.
 */
function readAdvertisedKeys(
  bytes: Uint8Array | undefined,
  pinned: readonly KeyEntry[],
  findings: FindingList,
): KeyEntry[] {
  if (bytes === undefined) return [];
  try {
    const entries = parseKeyFile(Buffer.from(bytes).toString('utf8'), { advertised: true });
    checkKeySources([
      { name: 'the trust store', entries: pinned },
      { name: KEYS_NAME, entries },
    ]);
    return entries;
  } catch (error) {
    if (!(error instanceof KeyFileError)) throw error;
    const where = error.path === '' ? '' : ` at ${error.path}`;
    findings.add('keys_invalid', KEYS_NAME, `The key file cannot be used${where}: ${error.message}`);
    return [];
  }
}

function readAnchors(
  name: string,
  data: Uint8Array,
  pending: NewAnchor[],
  counts: ImportCounts,
  findings: FindingList,
): void {
  try {
    const parsed = parseAnchorsFile(data, pathStem(name));
    for (const anchor of parsed.anchors) {
      pending.push({
        svc_anchor: anchor.svc_anchor,
        batch_id: parsed.batch_id,
        receipt_sha256: anchor.receipt_sha256,
        record: anchor.record,
        status: anchor.status,
      });
    }
    counts.anchors += parsed.anchors.length;
  } catch (error) {
    if (!(error instanceof AnchorsFileError)) throw error;
    const where = error.path === '' ? '' : ` at ${error.path}`;
    findings.add('anchors_invalid', name, `The anchors file cannot be used${where}: ${error.message}`);
  }
}

/** Compare the zip's files with the manifest's list: missing, extra, mismatching, unexpected. */
function checkFiles(listed: CompactFileList, scanned: ScannedFiles, findings: FindingList): void {
  const { entries, kinds, digests } = scanned;
  const present = new Map<string, number>();
  entries.forEach((entry, index) => present.set(entry.name, index));
  // Zip entry names are unique (zip-reader.ts refuses duplicates), so a flag per entry says it is listed.
  const isListed = new Uint8Array(entries.length);
  for (let item = 0; item < listed.count; item += 1) {
    const expectedPath = listed.paths[item] as string;
    const index = present.get(expectedPath);
    if (index === undefined) {
      findings.add('file_missing', expectedPath, 'The manifest lists this file but the zip does not have it.');
      continue;
    }
    isListed[index] = 1;
    const entry = entries[index] as ZipEntry;
    const expectedBytes = listed.sizes[item] as number;
    if (
      entry.uncompressedSize !== expectedBytes ||
      !sameDigest(digests, index * DIGEST_BYTES, listed.digests, item * DIGEST_BYTES)
    ) {
      findings.add(
        'file_mismatch',
        expectedPath,
        `The file differs from the manifest: ${entry.uncompressedSize} bytes with SHA-256 ${digestHex(digests, index)}, ` +
          `the manifest says ${expectedBytes} bytes with SHA-256 ${listedDigestHex(listed, item)}.`,
      );
    }
  }
  entries.forEach((entry, index) => {
    const kind = KINDS[kinds[index] as number];
    if (kind === 'manifest' || kind === 'signature') return;
    if (isListed[index] === 0) {
      findings.add('file_extra', entry.name, 'The zip has this file but the manifest does not list it.');
    }
    if (kind === 'other') {
      findings.add('unexpected_file', entry.name, 'The file is not part of the bundle layout and was not read.');
    }
  });
}

function addSignatureFindings(
  signature: SignatureCheck,
  manifest: Omit<Manifest, 'files'>,
  findings: FindingList,
): void {
  const codes: Partial<Record<SignatureCheck['status'], FindingCode>> = {
    missing: 'manifest_signature_missing',
    malformed: 'manifest_signature_malformed',
    mismatch: 'manifest_signature_mismatch',
    unavailable: 'manifest_signature_unavailable',
    unsupported: 'manifest_signature_unsupported',
    invalid: 'manifest_signature_invalid',
  };
  const code = codes[signature.status];
  if (code !== undefined) findings.add(code, SIGNATURE_NAME, signature.detail);
  if (signature.key_id !== undefined && signature.key_id !== manifest.key_id) {
    findings.add(
      'manifest_key_mismatch',
      SIGNATURE_NAME,
      `manifest.sig is signed by ${signature.key_id} but manifest.json names ${manifest.key_id}.`,
    );
  }
}

function checkCounts(manifest: CheckedBundle['manifest'], counts: ImportCounts, findings: FindingList): void {
  const { listedReceipts } = manifest;
  const declared = manifest.counts;
  if (declared.receipts !== undefined && declared.receipts !== listedReceipts) {
    findings.add(
      'count_mismatch',
      MANIFEST_NAME,
      `counts.receipts is ${declared.receipts} but the manifest lists ${listedReceipts} receipt files.`,
    );
  }
  if (declared.anchors !== undefined && declared.anchors !== counts.anchors) {
    findings.add(
      'count_mismatch',
      MANIFEST_NAME,
      `counts.anchors is ${declared.anchors} but the anchors files hold ${counts.anchors} records.`,
    );
  }
}
