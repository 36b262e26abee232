/**
 * The SQLite adapter of anchoring.ts: the ledger's anchor-batches.ts, as the engine used it
 * before the store. One node: the anchoring lease is the process's (sqlite-cluster.ts), and each
 * write of the batch writer still checks its fence first, in its transaction.
 */
import {
  anchorBacklog,
  anchorRecordAt,
  closeAnchorBatch,
  getOpenAnchorBatch,
  highestRecordedNonce,
  listBatchHashes,
  listUnfinishedAnchorBatches,
  markAnchorBatchPosted,
  queueAnchorHash,
  recordAnchorBatchError,
  recordAnchorTransaction,
  resolveAnchorBatch,
} from '../anchor-batches';
import type { AnchoringStore } from './anchoring';
import type { Lease } from './cluster';
import type { SqliteStoreDeps } from './deps';
import { sqliteAssertFence } from './sqlite-cluster';
import type { WritableDB } from '../database';

/** The anchoring domain on SQLite. */
export function sqliteAnchoring(deps: SqliteStoreDeps): AnchoringStore {
  const { ledger } = deps;
  /** A write of the batch writer: the fence first, then `fn`, in one transaction. */
  const fenced = async <T>(lease: Lease, fn: (db: WritableDB) => T): Promise<T> =>
    ledger.runInTransaction((db) => {
      sqliteAssertFence(ledger, lease);
      return fn(db);
    });
  return {
    queue: async (entries) => {
      if (!Array.isArray(entries)) throw new TypeError('entries must be an array');
      return ledger.runInTransaction((db) => entries.map((entry) => queueAnchorHash(db, entry)));
    },
    recordAt: async (svcAnchor, now) => anchorRecordAt(ledger.readable, svcAnchor, now),
    backlog: async () => anchorBacklog(ledger.readable),
    openBatch: async () => getOpenAnchorBatch(ledger.readable),
    unfinishedBatches: async () => listUnfinishedAnchorBatches(ledger.readable),
    batchHashes: async (batch) => listBatchHashes(ledger.readable, batch),
    highestNonce: async (network, sender) => highestRecordedNonce(ledger.readable, network, sender),
    closeBatch: (lease, id, at) => fenced(lease, (db) => closeAnchorBatch(db, id, { at })),
    recordTransaction: (lease, id, tx, at) => fenced(lease, (db) => recordAnchorTransaction(db, id, tx, { at })),
    markPosted: (lease, id, at) => fenced(lease, (db) => markAnchorBatchPosted(db, id, { at })),
    recordError: (lease, id, failure) => fenced(lease, (db) => recordAnchorBatchError(db, id, failure)),
    resolveBatch: (lease, id, resolution, at) => fenced(lease, (db) => resolveAnchorBatch(db, id, resolution, { at })),
  };
}
