/**
 * Anchor batches and their hashes (PROTOCOL section 8); writes under the anchoring lease carry its fence.
 *
 * Queueing a hash is any node's write: every node of a service takes `POST /v1/anchor` and the
 * receipts it issues. Everything else is the batch writer's, the one node holding the
 * `anchoring` lease (cluster.ts): closing the open batch, recording its signed transaction,
 * marking it posted, recording a chain error, resolving it. Each of those takes the
 * {@link Lease} and checks its fence in its own transaction, so a node that lost the lease
 * writes nothing (LeaseLostError). On SQLite (one node) the lease is always the node's.
 *
 * Owned by h-anchor; the adapters are sqlite-anchoring.ts (the ledger's anchor-batches.ts, as
 * before) and pg-anchoring.ts (pg-migrations/0004-anchoring.ts).
 */
import type {
  AnchorBacklog,
  AnchorBatchRecord,
  AnchorResolution as HashResolution,
  AnchorResolutionSource,
  QueuedAnchorHash,
  QueueOutcome,
} from '../anchor-batches';
import type { Lease } from './cluster';

export type {
  AnchorBacklog,
  AnchorBatchRecord,
  AnchorBatchState,
  QueuedAnchorHash,
  QueueOutcome,
} from '../anchor-batches';

/** The name of the batch writer's lease. */
export const ANCHORING_LEASE = 'anchoring';

/** A digest to queue. */
export interface AnchorQueueEntry {
  /** Hex of the 32-byte digest (canonical_sha256's bytes). */
  digest: string;
  /** The submitting tenant, if any. */
  tenant_id?: string | null;
  /** When (ms). */
  at: number;
  /** How long a batch opened by this entry stays open (ms). */
  interval_ms: number;
}

/** A batch's signed transaction, recorded before it is broadcast. */
export interface AnchorTransactionRecord {
  /** Hex of the Merkle root. */
  merkle_root: string;
  network: string;
  /** `0x` + lowercase hex of the signed bytes. */
  raw_tx: string;
  /** `0x` + 64 lowercase hex. */
  tx_hash: string;
  nonce: number;
  /** `0x` + 40 lowercase hex. */
  sender: string;
}

/** What resolving a posted batch writes. */
export interface AnchorResolution {
  block_height: number;
  /**
   * For each hash of the batch: its pending URN, its resolved URN and its resolved record (spec
   * 2.6); or a source that makes each when it is written, so a large batch never holds every
   * record and Merkle path at once.
   */
  records: readonly HashResolution[] | AnchorResolutionSource;
}

/** The anchoring domain of the service store. Every method is one transaction. */
export interface AnchoringStore {
  /**
   * Any node: queues each digest in the open batch (opening one at its `at` when none is open)
   * and writes its pending anchor row; all entries in one transaction, in order.
   *
   * @returns each entry's outcome (`queued`, `existing` for the same digest in the same batch,
   *   `conflict` when another digest holds the pending URN: nothing written for that entry)
   * @throws TypeError / RangeError for a bad entry (nothing written)
   */
  queue(entries: readonly AnchorQueueEntry[]): Promise<QueueOutcome[]>;

  /**
   * The record `GET /v1/anchor/<urn>` answers: the resolved record as stored, or the pending
   * record with its batch's eta at `now`.
   *
   * @returns undefined when no such anchor is stored
   * @throws RangeError when `svcAnchor` is not an anchor URN
   */
  recordAt(svcAnchor: string, now: number): Promise<Record<string, unknown> | undefined>;

  /** Batches by state and hashes not yet resolved (/status). */
  backlog(): Promise<AnchorBacklog>;

  /** The open batch, if any. */
  openBatch(): Promise<AnchorBatchRecord | undefined>;

  /** Batches closed, signed or posted (not open, not resolved), oldest first. */
  unfinishedBatches(): Promise<AnchorBatchRecord[]>;

  /** The hashes of a batch, in submission order. */
  batchHashes(batch: number): Promise<QueuedAnchorHash[]>;

  /** The highest nonce recorded for a sender on a network, or undefined. */
  highestNonce(network: string, sender: string): Promise<number | undefined>;

  /**
   * The batch writer: closes the open batch `id` (it takes no more hashes).
   *
   * @throws LeaseLostError; RangeError when the batch is not open
   */
  closeBatch(lease: Lease, id: number, at: number): Promise<AnchorBatchRecord>;

  /**
   * The batch writer: records a closed (or, to replace bytes that can never be mined, signed)
   * batch's signed transaction, before anything is broadcast.
   *
   * @throws LeaseLostError; RangeError for bad input or state; LedgerError `constraint` when the
   *   nonce or hash is already another batch's
   */
  recordTransaction(lease: Lease, id: number, tx: AnchorTransactionRecord, at: number): Promise<AnchorBatchRecord>;

  /**
   * The batch writer: the chain took a signed batch's bytes.
   *
   * @throws LeaseLostError; RangeError when the batch is not signed or posted
   */
  markPosted(lease: Lease, id: number, at: number): Promise<AnchorBatchRecord>;

  /**
   * The batch writer: a chain error on an unfinished batch and when to try again.
   *
   * @throws LeaseLostError; RangeError when the batch is not unfinished
   */
  recordError(
    lease: Lease,
    id: number,
    failure: { message: string; next_attempt_at: number },
  ): Promise<AnchorBatchRecord>;

  /**
   * The batch writer: resolves a posted batch and each of its hashes' anchor rows.
   *
   * @throws LeaseLostError; RangeError when the batch is not posted or the records do not cover its hashes
   */
  resolveBatch(lease: Lease, id: number, resolution: AnchorResolution, at: number): Promise<AnchorBatchRecord>;
}
