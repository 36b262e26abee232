/**
 * Import a tenant evidence bundle into the ledger (PROTOCOL section 9): the operation.
 *
 * This module orchestrates: it schedules the verification workers (core/worker-pool.ts), batches
 * entries and receipts (import-batches.ts), runs pass 1 (import-check.ts), judges keys against the
 * trust store and writes the ledger. Reading the zip (limits, hygiene, stored bytes), the manifest and its signature are the
 * zip library's (src-main/evidence); what each finding is, is src-shared/evidence/bundle-findings.ts,
 * which the browser reference verifier calls too.
 *
 * Two passes over the zip, so that every rule is enforced before anything is written:
 *
 * 1. Checking (no writes). The zip is hashed (its SHA-256 identifies the bundle); the central
 *    directory is checked entry by entry (evidence/zip-hygiene.ts) against the limits; manifest.json is
 *    parsed strictly; then every file is read, inflated with an output cap, and checked against
 *    its declared size and CRC-32 (by the verification workers, from the stored bytes this thread
 *    reads: core/entry-data.ts), and its SHA-256 is compared with the manifest. Any rule
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
 * receipts whose file name is neither their id nor their SHA-256, and what the bundle's log
 * evidence shows (src-shared/evidence/log-evidence.ts, read in pass 1 with the keys, given each
 * receipt as pass 2 stores it; its completeness goes to `bundles.log_json`). A signer that is
 * merely unpinned is reported as the signature's trust, never as a finding.
 */
import type { ImportPhase, ImportProgress } from '../../src-shared/api/contract';
import type { Finding, FindingCode, ImportCounts } from '../../src-shared/api/vocabulary';
import type { LogCompleteness } from '../../src-shared/api/logs-contract';
import { hash as hashOnce } from 'node:crypto';
import path from 'node:path';
import {
  addCountFindings,
  addReceiptNameFinding,
  addReceiptStatusFinding,
  FindingList,
  MAX_LISTED_FINDINGS,
} from '../../src-shared/evidence/bundle-findings';
import { timestampToMillis } from '../../src-shared/verify/timestamp';
import type { VerifiedReceipt } from '../core/receipt-facts';
import { createVerifyPool, type VerifyPool } from '../core/worker-pool';
import { AnchorsFileError, parseAnchorsFile } from '../evidence/anchors-file';
import { KEYS_NAME, LOG_CHECKPOINT_NAME, pathStem } from '../evidence/bundle-layout';
import { BundleError, ImportCancelledError, printableName, throwIfCancelled } from '../evidence/errors';
import { hashFile } from '../evidence/hash-file';
import { maxZipFileBytes, resolveZipLimits, type ZipLimits } from '../evidence/limits';
import type { SignatureCheck } from '../evidence/manifest';
import { DIGEST_BYTES } from '../evidence/manifest-lean';
import { createProgressReporter } from '../evidence/progress';
import { openZipArchive, type ZipEntry } from '../evidence/zip-reader';
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
import { BundleReceiptDigests, linkAnchorsToReceipts } from './anchor-links';
import { ANCHOR_KIND, checkBundle, RECEIPT_KIND, sameDigest } from './import-check';
import type { CheckpointRecordOutcome, SeenCheckpointInput } from './log-checkpoints';
import {
  entryFailure,
  IN_FLIGHT_PER_WORKER,
  MAX_IN_FLIGHT_BYTES,
  SlabPool,
  StoredBatch,
  type Slab,
} from './import-batches';

// The zip reader throws it too, so it is defined beside BundleError; exported here as before.
export { ImportCancelledError } from '../evidence/errors';
export { MAX_LISTED_FINDINGS };

/**
 * An import's progress as it runs: the public {@link ImportProgress} of the app API contract
 * without the fields of the job that runs it (the app's import jobs add them).
 */
export type ImportProgressEvent = Omit<
  ImportProgress,
  'jobId' | 'state' | 'fileName' | 'result' | 'error' | 'bundleId' | 'phase'
> & {
  phase: ImportPhase;
};

/** Receipts stored per transaction by default. */
export const DEFAULT_TRANSACTION_SIZE = 2000;
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
  onProgress?: (event: ImportProgressEvent) => void;
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
  /**
   * Records the bundle's checkpoint among those the workstation has seen of its log
   * (log-checkpoints.ts's recordSeenCheckpoint, bound to the workspace by importEvidence in
   * evidence.ts), once every receipt is stored; a checkpoint that disagrees with one seen before
   * is a `log_split_view` finding, and the completeness's `consistency` says how it stands.
   * Only a checkpoint whose signature verified is offered. Without it, `consistency` is unset.
   */
  recordCheckpoint?: (input: SeenCheckpointInput) => CheckpointRecordOutcome;
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
  /** What the bundle's log evidence shows (docs/logs.md), or null when it has no log files. */
  log: LogCompleteness | null;
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
  if (options.recordCheckpoint !== undefined && typeof options.recordCheckpoint !== 'function') {
    throw new TypeError('importBundle: recordCheckpoint must be a function');
  }
  return { limits, transactionSize, now };
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
  const progress = createProgressReporter<ImportPhase, ImportProgressEvent>(
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
      addReceiptStatusFinding(findings, entry.name, report.status, facts.problem);
      receiptDigests?.add(facts.receipt_sha256);
      if (checked.log.active) {
        checked.log.addReceipt({
          path: entry.name,
          receipt_sha256: facts.receipt_sha256,
          leaf_hash: Buffer.from(facts.leaf_hash, 'hex'),
        });
      }
      addReceiptNameFinding(findings, entry.name, pathStem(entry.name), facts.receipt_id, facts.receipt_sha256);
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
    addCountFindings(manifest.counts, manifest.listedReceipts, counts.anchors, findings);
    const log = checked.log.finish(findings);
    const seen = checked.log.seenCheckpoint();
    if (log !== null && seen !== undefined && options.recordCheckpoint !== undefined) {
      // Its own transaction: the receipts are stored, the bundle row is still partial.
      const outcome = options.recordCheckpoint({ ...seen, source: `bundle:${stored.id}` });
      log.consistency = outcome.consistency;
      if (outcome.consistency === 'split_view')
        findings.add('log_split_view', LOG_CHECKPOINT_NAME, splitWords(outcome));
    }
    ledger.runInTransaction((database) => {
      pendingAnchors.push(...linkAnchorsToReceipts(bundleAnchors, receiptDigests ?? []));
      flush(database);
      // After the last flush: it counts the final batch's new and known receipts.
      const summary = {
        ...counts,
        findings: { total: findings.total, byCode: findings.counts },
      };
      updateBundle(database, stored.id, {
        status: 'complete',
        counts: summary,
        findings: findings.listed,
        signature,
        ...(log === null ? {} : { log }),
      });
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
      log,
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

/** A split view in words: the two checkpoints of one log that disagree. */
function splitWords(outcome: CheckpointRecordOutcome): string {
  const { split } = outcome;
  if (split === undefined) return 'Split view: this checkpoint disagrees with one seen before of the same log.';
  return (
    `Split view: the log's checkpoint at size ${split.size} (root ${split.root_hex}) disagrees with the one ` +
    `seen at size ${split.other_size} (root ${split.other_root_hex}); the service has shown two histories of one log.`
  );
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
