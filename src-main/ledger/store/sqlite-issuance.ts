/**
 * The SQLite adapter of issuance.ts: the data folder's ledger, as the service used it before the
 * store (one node, one writer).
 *
 * A group commit is one IMMEDIATE transaction: each item's checks (its quota, its nonce) run in a
 * savepoint of their own, so one refused item leaves the others; then the accepted rows are
 * stored with one insert call (the ledger's counts and search index updated once per batch) and
 * each leaf appended in the order of the items. A row the ledger refuses undoes that, and each
 * item is then stored in a savepoint of its own, so only that one is refused. A receipt issued
 * here is an ordinary ledger receipt whose source is `service` with the item's ref.
 */
import { tlogConsistencyProof, tlogInclusionProof, tlogRoot } from '../../../src-shared/crypto/tlog';
import { getReceipt, insertReceipts, type NewReceipt } from '../receipts';
import { consumeQuota, recordWearableNonce } from '../service-state';
import {
  appendTlogLeaves,
  getTlogCheckpoint,
  insertTlogCheckpoint,
  insertTlogCosignature,
  lastSignedTlogCheckpoint,
  latestTlogCheckpoint,
  listTlogCheckpoints,
  listTlogCosignatures,
  tlogNodeSource,
  tlogSize,
  tlogsToSign,
} from '../tlog';
import { checkHex64 } from '../checks';
import type { WritableDB } from '../database';
import type { SqliteStoreDeps } from './deps';
import type { IssuanceStore, IssueItem, IssueOutcome, IssueRefusal } from './issuance';

/** An item's check refused it: thrown inside its savepoint so that what it wrote is undone. */
class Refused extends Error {
  constructor(readonly reason: IssueRefusal) {
    super(reason);
  }
}

type Outcome =
  { ok: true; id: number; quotaUsed: number | undefined } | { ok: false; reason: IssueRefusal; error?: unknown };

/** The promise of a synchronous ledger call: its value, or its throw as a rejection. */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

function toRow(item: IssueItem): NewReceipt {
  const { row } = item;
  return {
    receipt_sha256: row.receipt_sha256,
    raw: row.raw,
    report: row.report,
    receipt_id: row.receipt_id,
    issued_at: row.issued_at,
    issuer_key_id: row.issuer_key_id,
    source: { kind: 'service', ref: row.ref },
  };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The issuance domain on SQLite. */
export function sqliteIssuance(deps: SqliteStoreDeps): IssuanceStore {
  const { ledger, sha256 } = deps;

  /** An item's checks, in a savepoint of their own: its quota use, or its refusal. */
  const checked = (database: WritableDB, item: IssueItem): Outcome => {
    if (item.quota === undefined && item.nonce === undefined) return { ok: true, id: 0, quotaUsed: undefined };
    try {
      const quotaUsed = ledger.runInTransaction(() => {
        let used: number | undefined;
        const quota = item.quota;
        if (quota !== undefined) {
          const counted = consumeQuota(database, quota.subject, quota.period, quota.limit);
          if (!counted.allowed) throw new Refused('quota_exceeded');
          used = counted.used;
        }
        const nonce = item.nonce;
        if (nonce !== undefined) {
          const fresh = recordWearableNonce(database, {
            device_id_commitment_sha256: nonce.device_id_commitment_sha256,
            observation_nonce: nonce.observation_nonce,
            receipt_sha256: item.row.receipt_sha256,
            at: nonce.at,
          });
          if (!fresh) throw new Refused('nonce_reused');
        }
        return used;
      });
      return { ok: true, id: 0, quotaUsed };
    } catch (error) {
      return error instanceof Refused ? { ok: false, reason: error.reason } : { ok: false, reason: 'failed', error };
    }
  };

  const appendLeaf = (database: WritableDB, item: IssueItem, receipt: number): void => {
    if (item.leaf === undefined) return;
    appendTlogLeaves(database, sha256, item.leaf.tenant, [{ receipt, leaf_hash: item.leaf.hash }]);
  };

  const commitNow = (items: readonly IssueItem[]): Outcome[] =>
    ledger.runInTransaction((database) => {
      try {
        // Every check, then one insert of the accepted rows and their leaves, all in a savepoint.
        return ledger.runInTransaction(() => {
          const batch = items.map((item) => checked(database, item));
          const accepted = items.filter((_, index) => batch[index]?.ok === true);
          const rows = insertReceipts(database, accepted.map(toRow));
          let position = 0;
          batch.forEach((outcome, index) => {
            if (!outcome.ok) return;
            const row = rows[position];
            position += 1;
            if (row === undefined) throw new Error('the receipt was not stored');
            outcome.id = row.id;
            appendLeaf(database, items[index] as IssueItem, row.id);
          });
          return batch;
        });
      } catch {
        // A row the ledger refused (a defect): undo the batch and store each item in a
        // savepoint of its own, so only the one that fails is refused.
        return items.map((item): Outcome => {
          try {
            return ledger.runInTransaction((): Outcome => {
              const outcome = checked(database, item);
              if (!outcome.ok) return outcome;
              const [row] = insertReceipts(database, [toRow(item)]);
              if (row === undefined) throw new Error('the receipt was not stored');
              appendLeaf(database, item, row.id);
              return { ...outcome, id: row.id };
            });
          } catch (error) {
            return { ok: false, reason: 'failed', error };
          }
        });
      }
    });

  return {
    commit: (items) =>
      settle(() =>
        commitNow(items).map((outcome): IssueOutcome => {
          if (outcome.ok)
            return {
              stored: true,
              id: outcome.id,
              ...(outcome.quotaUsed === undefined ? {} : { quotaUsed: outcome.quotaUsed }),
            };
          return {
            stored: false,
            reason: outcome.reason,
            ...(outcome.error === undefined ? {} : { detail: message(outcome.error) }),
          };
        }),
      ),
    issued: (receiptSha256) =>
      settle(() => {
        const found = getReceipt(ledger.readable, checkHex64(receiptSha256, 'receiptSha256'));
        if (found === undefined) return undefined;
        const { receipt_sha256, raw, format, status, report } = found;
        return { receipt_sha256, raw, format, status, report_json: JSON.stringify(report) };
      }),
    tlogSize: (tenantId) => settle(() => tlogSize(ledger.readable, tenantId)),
    tlogsToSign: () => settle(() => tlogsToSign(ledger.readable)),
    checkpointDue: (tenantId, emptyToo) =>
      settle(() =>
        ledger.runInTransaction((database) => {
          const size = tlogSize(database, tenantId);
          const latest = latestTlogCheckpoint(database, tenantId);
          if (latest !== undefined ? latest.tree_size >= size : !emptyToo && size === 0)
            return { latest, due: undefined };
          return { latest, due: { size, root: tlogRoot(sha256, size, tlogNodeSource(database, tenantId)) } };
        }),
      ),
    insertCheckpoint: (checkpoint) =>
      settle(() => ledger.runInTransaction((database) => insertTlogCheckpoint(database, checkpoint))),
    getCheckpoint: (tenantId, size) => settle(() => getTlogCheckpoint(ledger.readable, tenantId, size)),
    latestCheckpoint: (tenantId) => settle(() => latestTlogCheckpoint(ledger.readable, tenantId)),
    lastSignedCheckpoint: () => settle(() => lastSignedTlogCheckpoint(ledger.readable)),
    listCheckpoints: (tenantId) => settle(() => listTlogCheckpoints(ledger.readable, tenantId)),
    inclusionProof: (tenantId, index, size) =>
      settle(() => tlogInclusionProof(sha256, index, size, tlogNodeSource(ledger.readable, tenantId))),
    consistencyProof: (tenantId, from, to) =>
      settle(() => tlogConsistencyProof(sha256, from, to, tlogNodeSource(ledger.readable, tenantId))),
    addCosignature: (cosignature) =>
      settle(() => ledger.runInTransaction((database) => insertTlogCosignature(database, cosignature))),
    listCosignatures: (tenantId, size) => settle(() => listTlogCosignatures(ledger.readable, tenantId, size)),
  };
}
