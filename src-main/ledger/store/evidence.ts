/**
 * A tenant's receipts and log evidence for a period, read in one snapshot, for the evidence route
 * and `evroom export --tenant` (h-evidence; docs/logs.md "The service's log", docs/deploy.md).
 *
 * The bundle (src-main/evidence) needs, all from ONE consistent view of the store: the tenant's
 * newest signed checkpoint with its cosignatures, the earlier checkpoints a caller names for
 * consistency proofs, the leaves of the period (found through the receipts' issuing times), the
 * log's nodes for the proofs, the receipts of the leaves (their bytes, a page at a time), the
 * two boundary receipts, and the anchor records of the receipts. {@link EvidenceStore.snapshot}
 * gives an {@link EvidenceReader} over such a view for as long as the caller's function runs:
 * SQLite, a read snapshot of the ledger file; PostgreSQL, one read-only repeatable-read
 * transaction (`pool.read`), so receipts committed through any node while the bundle is written
 * are not in it, and everything in it agrees.
 *
 * A snapshot is a read transaction held while the zip is written (the only way to stream a large
 * period from one view); it writes nothing and locks nothing a writer waits for.
 */
import { checkTenantId } from '../checks';
import { checkHex64, checkInteger } from '../checks';
import type { TlogCheckpointRecord, TlogCosignatureRecord } from '../tlog';

export type { TlogCheckpointRecord, TlogCosignatureRecord } from '../tlog';

/** A receipt of a tenant's log, as the bundle carries it. */
export interface EvidenceReceipt {
  /** Its leaf in the tenant's log. */
  leaf_index: number;
  /** Lowercase hex SHA-256 of the JCS bytes (the leaf's receipt). */
  receipt_sha256: string;
  /** The document's own id, when it has one. */
  receipt_id: string | null;
  issuer_key_id: string | null;
  /** The receipt's format (`envelope…` names a key per role). */
  format: string;
  /** The JCS bytes as issued. */
  raw: Uint8Array;
  /** The issuing instant the store keeps (ms), as readDocumentFacts reads it. */
  issued_at: number | null;
}

/** An anchor record of a receipt (the `anchors` rows of its hash), as anchors/<batch>.json lists it. */
export interface EvidenceAnchor {
  batch_id: string;
  receipt_sha256: string | null;
  /** The record (parsed JSON). */
  record: unknown;
}

/** The most receipts {@link EvidenceReader.leafReceipts} answers at once. */
export const MAX_EVIDENCE_PAGE = 1000;
/** The most leaves {@link EvidenceReader.leafHashes} answers at once (the proofs' block). */
export const MAX_EVIDENCE_HASH_PAGE = 4096;
/** The most hashes {@link EvidenceReader.anchors} takes at once. */
export const MAX_EVIDENCE_ANCHOR_HASHES = 1000;

/**
 * One tenant's evidence, read from one snapshot. Every method reads the same view; none writes.
 * The tenant is the one the snapshot was opened for.
 */
export interface EvidenceReader {
  /** The tenant's newest signed checkpoint; undefined when none was signed. */
  checkpoint(): Promise<TlogCheckpointRecord | undefined>;
  /** The checkpoint signed at `size`; undefined when none was. */
  checkpointAt(size: number): Promise<TlogCheckpointRecord | undefined>;
  /** The cosignature lines of the checkpoint at `size`, in the order they are served. */
  cosignatures(size: number): Promise<TlogCosignatureRecord[]>;
  /**
   * The first and last leaf index below `size` whose receipts were issued in `[since, until)`
   * (ms; null: open; a receipt without an issuing time is in the period only when both are);
   * null when none was. Exact for any order of issuing times along the log.
   */
  periodIndices(
    size: number,
    period: { since: number | null; until: number | null },
  ): Promise<{
    first: number;
    last: number;
  } | null>;
  /** The last leaf index below `size` whose receipt was issued before `before` (ms); null when none. */
  lastIndexBefore(size: number, before: number): Promise<number | null>;
  /**
   * The receipts of leaves `[from, to)`, in leaf order, at most {@link MAX_EVIDENCE_PAGE}
   * (keyset paging by leaf index: the caller asks for the next range).
   */
  leafReceipts(from: number, to: number): Promise<EvidenceReceipt[]>;
  /**
   * The receipts' hashes of leaves `[from, to)`, in leaf order, at most {@link MAX_EVIDENCE_HASH_PAGE}
   * (proofs.json names each leaf's receipt by it; no receipt bytes are read).
   */
  leafHashes(from: number, to: number): Promise<{ leaf_index: number; receipt_sha256: string }[]>;
  /** The complete nodes `[from, to)` of one level (0: the leaf hashes), in index order. */
  nodes(level: number, from: number, to: number): Promise<{ index: number; hash: Uint8Array }[]>;
  /**
   * The anchor records of these receipt hashes (at most {@link MAX_EVIDENCE_ANCHOR_HASHES}): the
   * hashes in the order given, each one's records in the order they were recorded.
   */
  anchors(receiptSha256: readonly string[]): Promise<EvidenceAnchor[]>;
}

/** How the export reads a store. */
export type EvidenceExportPath =
  /**
   * SQLite: src-main/evidence reads its own snapshot of the ledger file (on the export worker
   * for the HTTP route), as before the store existed; {@link EvidenceStore.snapshot} reads the
   * same view.
   */
  | 'ledger-file'
  /** PostgreSQL: the export reads through {@link EvidenceStore.snapshot}, on the calling thread. */
  | 'snapshot';

/** A tenant's evidence (h-evidence). */
export interface EvidenceStore {
  /** Which path `exportTenantEvidence` takes for this store. */
  readonly exportPath: EvidenceExportPath;
  /** Whether the store knows this tenant. */
  hasTenant(tenantId: string): Promise<boolean>;
  /**
   * Runs `fn` over one consistent snapshot of the tenant's evidence, closed when its promise
   * settles (whatever it answers or throws is the call's).
   *
   * @throws StoreUnavailableError when the database cannot be reached (PostgreSQL)
   * @throws TypeError / RangeError for a malformed tenant id
   */
  snapshot<T>(tenantId: string, fn: (reader: EvidenceReader) => Promise<T>): Promise<T>;
}

/**
 * A tenant id as the stores take it.
 *
 * @throws TypeError / RangeError when it is not one
 */
export function checkEvidenceTenant(tenantId: unknown): string {
  return checkTenantId(tenantId);
}

/**
 * A range of leaves `[from, to)` of at most `max`.
 *
 * @throws TypeError / RangeError otherwise
 */
export function checkEvidenceRange(from: unknown, to: unknown, max: number): void {
  const low = checkInteger(from, 'from');
  const high = checkInteger(to, 'to');
  if (low > high) throw new RangeError('from must not be after to');
  if (high - low > max) throw new RangeError(`at most ${max} leaves at once`);
}

/**
 * At most `max` lowercase hex SHA-256 digests.
 *
 * @throws TypeError / RangeError otherwise
 */
export function checkEvidenceHashes(hashes: unknown, max: number): string[] {
  if (!Array.isArray(hashes)) throw new TypeError('receiptSha256 must be an array');
  if (hashes.length > max) throw new RangeError(`at most ${max} hashes at once`);
  return hashes.map((hash, index) => checkHex64(hash, `receiptSha256[${index}]`));
}
