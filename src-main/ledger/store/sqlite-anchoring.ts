/**
 * The SQLite adapter of anchoring.ts: the ledger's anchor-batches.ts, as the engine used it
 * before the store (one node: the anchoring lease is always this node's, so its fence is not
 * checked here).
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
import type { SqliteStoreDeps } from './deps';

/** The anchoring domain on SQLite. */
export function sqliteAnchoring(deps: SqliteStoreDeps): AnchoringStore {
  const { ledger } = deps;
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
    closeBatch: async (_lease, id, at) => closeAnchorBatch(ledger.writable, id, { at }),
    recordTransaction: async (_lease, id, tx, at) => recordAnchorTransaction(ledger.writable, id, tx, { at }),
    markPosted: async (_lease, id, at) => markAnchorBatchPosted(ledger.writable, id, { at }),
    recordError: async (_lease, id, failure) => recordAnchorBatchError(ledger.writable, id, failure),
    resolveBatch: async (_lease, id, resolution, at) => resolveAnchorBatch(ledger.writable, id, resolution, { at }),
  };
}
