/**
 * Issued receipts stored with their quota use, wearable nonce and tenant-log leaf in one
 * transaction; the tenants' transparency logs (checkpoints, proofs, cosignatures).
 *
 * The service's group commit (src-main/operations/service-issue.ts) hands every receipt queued
 * in one turn of the event loop to {@link IssuanceStore.commit} as data: each item is checked
 * (its quota, its nonce) and refused on its own, the accepted rows are stored and each tenant's
 * receipts are appended to its log in the order of the items, all in one transaction. The log
 * methods are what the service's logs (src-main/operations/service-log.ts) read and write; the
 * signing itself (the log key) stays in the operations.
 *
 * On PostgreSQL (several nodes) a quota is consumed by one upsert (exact across nodes), a nonce
 * by an insert that does nothing on conflict, a tenant's appends are serialized per tenant (its
 * leaves stay contiguous whichever node appends), and a checkpoint is inserted so that two
 * nodes signing one size keep one (docs/deploy.md, "Issuance").
 */
import type { SerializedReport } from '../../../src-shared/verify/report';
import type { TlogCheckpointRecord, TlogCosignatureRecord } from '../tlog';

export type { TlogCheckpointRecord, TlogCosignatureRecord } from '../tlog';
export { MAX_TLOG_COSIGNATURES } from '../tlog';

/** A receipt the service signed and checked, as it is stored. */
export interface IssuedRow {
  /** Lowercase hex SHA-256 of the document's JCS form: its identity. */
  receipt_sha256: string;
  /** The JCS bytes as issued. */
  raw: Uint8Array;
  /** Its verification report at issuance. */
  report: SerializedReport;
  receipt_id: string | null;
  /** When the document says it was issued (ms since the epoch). */
  issued_at: number | null;
  issuer_key_id: string | null;
  /** Whose it is: `tenant:<id>` or `public`. */
  ref: string;
}

/** An issued receipt as the store keeps it (read back by its hash). */
export interface IssuedRecord {
  /** Lowercase hex SHA-256 of the document's JCS form. */
  receipt_sha256: string;
  /** The JCS bytes as issued. */
  raw: Uint8Array;
  format: string;
  /** The report's status at issuance. */
  status: string;
  /** The report at issuance (SerializedReport.json). */
  report_json: string;
}

/** A quota a receipt counts against: at most `limit` receipts for `subject` in `period`. */
export interface IssueQuota {
  subject: string;
  /** A UTC day (`YYYY-MM-DD`) or month (`YYYY-MM`). */
  period: string;
  limit: number;
}

/** A wearable receipt's observation nonce: used once per device commitment. */
export interface IssueNonce {
  device_id_commitment_sha256: string;
  observation_nonce: string;
  /** When it was used (ms). */
  at: number;
}

/** One receipt of a group commit. */
export interface IssueItem {
  row: IssuedRow;
  /** Counted against this quota; refused (nothing stored) when it is used up. */
  quota?: IssueQuota | undefined;
  /** Recorded as used; refused (nothing stored, no quota used) when it was used before. */
  nonce?: IssueNonce | undefined;
  /** Appended to this tenant's log with this leaf hash (SHA-256(0x00 || raw)). */
  leaf?: { tenant: string; hash: Uint8Array } | undefined;
}

/** Why an item of a group commit was not stored. */
export type IssueRefusal = 'quota_exceeded' | 'nonce_reused' | 'failed';

/** What became of one item of a group commit. */
export type IssueOutcome =
  | {
      stored: true;
      /** The stored row's id (the SQLite ledger's receipts row; issued_receipts on PostgreSQL). */
      id: number;
      /** Uses of the quota after this one, when the item had one. */
      quotaUsed?: number;
    }
  | {
      stored: false;
      reason: IssueRefusal;
      /** For `failed`: what the database said (for the service's log, never for the caller). */
      detail?: string;
    };

/** A log that grew past its newest checkpoint. */
export interface TlogToSign {
  tenant_id: string;
  size: number;
  /** The newest checkpoint's size; null when none was signed yet. */
  signed: number | null;
}

/** A tenant log's newest checkpoint and, when the log grew past it, what to sign next. */
export interface CheckpointDue {
  latest: TlogCheckpointRecord | undefined;
  /** The log's size and root now, when a checkpoint of them is due. */
  due: { size: number; root: Uint8Array } | undefined;
}

/** A new checkpoint (the signed note of `root` at `tree_size`). */
export interface NewCheckpoint {
  tenant_id: string;
  tree_size: number;
  root: Uint8Array;
  note: string;
  signed_at: number;
}

/** A witness's cosignature line of a checkpoint. */
export interface NewCosignature {
  tenant_id: string;
  tree_size: number;
  key_name: string;
  key_id: number;
  line: string;
  received_at: number;
}

/** The issuance domain: each method is one transaction. */
export interface IssuanceStore {
  /**
   * Stores a group of issued receipts in one transaction, in order: each item's quota and nonce
   * are checked on their own (a refused item stores nothing and uses no quota), the accepted
   * rows are stored, and each leaf is appended to its tenant's log in the order of the items. A
   * row the database refuses is refused alone (`failed`); the others are stored.
   *
   * @returns one outcome per item, in order
   * @throws StoreUnavailableError when the database cannot be reached (nothing stored)
   */
  commit(items: readonly IssueItem[]): Promise<IssueOutcome[]>;
  /** The issued receipt of this hash (lowercase hex), if the store holds it. */
  issued(receiptSha256: string): Promise<IssuedRecord | undefined>;
  /** The number of leaves of a tenant's log. */
  tlogSize(tenantId: string): Promise<number>;
  /** The logs (of every tenant) that grew past their newest checkpoint, by tenant id. */
  tlogsToSign(): Promise<TlogToSign[]>;
  /**
   * The newest checkpoint of a tenant's log and, when the log grew past it (or has none yet and
   * `emptyToo` or is not empty), its size and root now, read in one snapshot.
   */
  checkpointDue(tenantId: string, emptyToo: boolean): Promise<CheckpointDue>;
  /**
   * Keeps a signed checkpoint. A size is signed once: when one is already kept at this size
   * (signed by this node or another), it stays, and is returned; with another root it is refused.
   *
   * @returns the checkpoint kept at this size
   * @throws LedgerError `constraint` for another root at a signed size or an unknown tenant
   */
  insertCheckpoint(checkpoint: NewCheckpoint): Promise<TlogCheckpointRecord>;
  /** The checkpoint signed at `size`, if any. */
  getCheckpoint(tenantId: string, size: number): Promise<TlogCheckpointRecord | undefined>;
  /** The newest checkpoint of a tenant's log, if any. */
  latestCheckpoint(tenantId: string): Promise<TlogCheckpointRecord | undefined>;
  /**
   * The checkpoint signed last, of any tenant's log, if any: it bears the name the service signs
   * under now (a scan, for a log with no checkpoint of its own; never on a request's path).
   */
  lastSignedCheckpoint(): Promise<TlogCheckpointRecord | undefined>;
  /** Every checkpoint of a tenant's log, smallest first. */
  listCheckpoints(tenantId: string): Promise<TlogCheckpointRecord[]>;
  /**
   * RFC 9162 inclusion proof of leaf `index` in the tree of `size` (both within the log).
   *
   * @throws RangeError when index >= size or the log is shorter than size
   */
  inclusionProof(tenantId: string, index: number, size: number): Promise<Uint8Array[]>;
  /**
   * RFC 9162 consistency proof from `from` to `to` (within the log).
   *
   * @throws RangeError when from > to or the log is shorter than to
   */
  consistencyProof(tenantId: string, from: number, to: number): Promise<Uint8Array[]>;
  /**
   * Keeps a witness's cosignature line: one per key (a key that cosigns again replaces its
   * line), at most {@link MAX_TLOG_COSIGNATURES} keys per checkpoint, across nodes too.
   *
   * @returns `stored`, `replaced`, or `full` (a new key beyond the limit: nothing stored)
   * @throws LedgerError `constraint` when no checkpoint was signed at this size
   */
  addCosignature(cosignature: NewCosignature): Promise<'stored' | 'replaced' | 'full'>;
  /** The cosignature lines of a checkpoint, in the order they were first received. */
  listCosignatures(tenantId: string, size: number): Promise<TlogCosignatureRecord[]>;
}
