/**
 * The PostgreSQL adapter of anchoring.ts (tables of pg-migrations/0004-anchoring.ts).
 *
 * What several nodes need of it:
 * - Queueing locks the open batch's row (`FOR UPDATE`) for the rest of its transaction, so the
 *   batch writer's close (an UPDATE of that row) waits for every queue transaction in flight,
 *   and a hash never lands in a batch once it is closed (its tree is fixed then). When no batch
 *   is open, the nodes race to open one; the partial unique index lets one win and the others
 *   queue in it.
 * - Every write of the batch writer checks the lease's fence first, in its transaction
 *   (assertFence): a node that lost the lease writes nothing.
 * BIGINT columns come back from node-postgres as strings; the rows are turned into the
 * ledger's record shapes (numbers), so both adapters answer the same objects.
 */
import type { PendingAnchorRecord } from '../../../src-shared/anchor/proof';
import { batchIdOf, parseAnchorUrn, pendingAnchorUrn } from '../../../src-shared/anchor/urn';
import {
  ANCHOR_BATCH_STATES,
  batchEtaSeconds,
  checkAnchorTransaction,
  checkQueueEntry,
  type AnchorBacklog,
  type AnchorBatchRecord,
  type AnchorBatchState,
  type QueuedAnchorHash,
  type QueueOutcome,
} from '../anchor-batches';
import { checkInteger, checkText, toJsonText } from '../checks';
import { LedgerError } from '../errors';
import type { AnchoringStore, AnchorResolution } from './anchoring';
import type { Lease } from './cluster';
import type { PgStoreDeps } from './deps';
import { assertFence, type PgReader, type PgWriter } from './pg-pool';

type Row = Record<string, unknown>;

const num = (value: unknown): number => (typeof value === 'number' ? value : Number(value));
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : num(value));
const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

function toBatch(row: Row): AnchorBatchRecord {
  return {
    id: num(row.id),
    batch_id: String(row.batch_id),
    state: row.state as AnchorBatchState,
    opened_at: num(row.opened_at),
    closes_at: num(row.closes_at),
    closed_at: numOrNull(row.closed_at),
    hash_count: num(row.hash_count),
    merkle_root: textOrNull(row.merkle_root),
    network: textOrNull(row.network),
    raw_tx: textOrNull(row.raw_tx),
    tx_hash: textOrNull(row.tx_hash),
    nonce: numOrNull(row.nonce),
    sender: textOrNull(row.sender),
    signed_at: numOrNull(row.signed_at),
    broadcast_at: numOrNull(row.broadcast_at),
    block_height: numOrNull(row.block_height),
    resolved_at: numOrNull(row.resolved_at),
    attempts: num(row.attempts),
    last_error: textOrNull(row.last_error),
    next_attempt_at: numOrNull(row.next_attempt_at),
  };
}

function toHash(row: Row): QueuedAnchorHash {
  return {
    batch: num(row.batch),
    digest: String(row.digest),
    svc_anchor: String(row.svc_anchor),
    tenant_id: textOrNull(row.tenant_id),
    submitted_at: num(row.submitted_at),
  };
}

/** A unique or check violation is the ledger's `constraint`, as on SQLite. */
function constraintError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '23505' || code === '23514' || code === '23503')
    return new LedgerError('constraint', `The anchoring tables refused the write: ${(error as Error).message}`, {
      cause: error,
    });
  return error;
}

async function batchById(db: PgReader, id: number, lock = false): Promise<AnchorBatchRecord | undefined> {
  const { rows } = await db.query<Row>(`SELECT * FROM anchor_batches WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] === undefined ? undefined : toBatch(rows[0]);
}

async function requireState(
  db: PgWriter,
  id: number,
  allowed: readonly AnchorBatchState[],
  doing: string,
): Promise<AnchorBatchRecord> {
  const batch = await batchById(db, id, true);
  if (batch === undefined) throw new LedgerError('not_found', `No anchor batch ${id} in the ledger.`);
  if (!allowed.includes(batch.state))
    throw new RangeError(`${doing}: batch ${id} is ${batch.state}, not ${allowed.join(' or ')}`);
  return batch;
}

async function updateBatch(db: PgWriter, text: string, params: readonly unknown[]): Promise<AnchorBatchRecord> {
  const { rows } = await db.query<Row>(`${text} RETURNING *`, params);
  return toBatch(rows[0] as Row);
}

async function listHashes(db: PgReader, batch: number): Promise<QueuedAnchorHash[]> {
  const { rows } = await db.query<Row>('SELECT * FROM anchor_queue WHERE batch = $1 ORDER BY submitted_at, digest', [
    batch,
  ]);
  return rows.map(toHash);
}

/** The open batch, locked for this transaction; opened at `at` when none is. */
async function lockOpenBatch(db: PgWriter, at: number, intervalMs: number): Promise<AnchorBatchRecord> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const open = await db.query<Row>("SELECT * FROM anchor_batches WHERE state = 'open' FOR UPDATE");
    if (open.rows[0] !== undefined) return toBatch(open.rows[0]);
    // Another node may open one at the same moment: the partial unique index keeps one, and
    // this statement waits for the other's commit before it does nothing.
    const made = await db.query<Row>(
      `INSERT INTO anchor_batches (batch_id, state, opened_at, closes_at) VALUES ($1, 'open', $2, $3)
       ON CONFLICT (state) WHERE state = 'open' DO NOTHING RETURNING *`,
      [batchIdOf(new Date(at)), at, at + intervalMs],
    );
    if (made.rows[0] !== undefined) return toBatch(made.rows[0]);
  }
  throw new Error('queue: no open anchor batch could be opened or locked');
}

async function getAnchorRow(db: PgReader, svcAnchor: string): Promise<Row | undefined> {
  const { rows } = await db.query<Row>(
    'SELECT * FROM anchors WHERE svc_anchor = $1 UNION ALL SELECT * FROM anchors WHERE pending_svc_anchor = $1 LIMIT 1',
    [svcAnchor],
  );
  return rows[0];
}

/** One hash's resolution, checked: its pending and resolved URNs agree, its record is JSON. */
function checkHashResolution(entry: { pending: string; svc_anchor: string; record: unknown }): {
  pending: string;
  svc_anchor: string;
  json: string;
} {
  const from = parseAnchorUrn(entry.pending);
  if (from?.status !== 'pending') throw new RangeError('pendingSvcAnchor must be a pending anchor URN');
  const to = parseAnchorUrn(entry.svc_anchor);
  if (to?.status !== 'resolved') throw new RangeError('resolved.svc_anchor must be a resolved anchor URN');
  if (to.suffix !== from.suffix)
    throw new RangeError(
      `resolved.svc_anchor ends with ${to.suffix}, another digest than the pending URN's ${from.suffix}`,
    );
  return { pending: entry.pending, svc_anchor: entry.svc_anchor, json: toJsonText(entry.record, 'resolved.record') };
}

/** The resolution's height, and its records one at a time (an array, or a source that makes each when asked). */
function checkResolution(resolution: AnchorResolution): {
  height: number;
  count: number;
  entry: (index: number) => { pending: string; svc_anchor: string; json: string };
} {
  if (typeof resolution !== 'object' || resolution === null) throw new TypeError('resolution must be an object');
  const height = checkInteger(resolution.block_height, 'resolution.block_height');
  const given = resolution.records;
  if (Array.isArray(given)) {
    const list = given as readonly { pending: string; svc_anchor: string; record: unknown }[];
    return { height, count: list.length, entry: (index) => checkHashResolution(list[index] as (typeof list)[number]) };
  }
  const source = given as { count?: unknown; record?: unknown };
  if (
    typeof source !== 'object' ||
    source === null ||
    !Number.isSafeInteger(source.count) ||
    typeof source.record !== 'function'
  )
    throw new TypeError('resolution.records must be an array or a record source');
  const { count, record } = given as {
    count: number;
    record: (index: number) => { pending: string; svc_anchor: string; record: unknown };
  };
  return { height, count, entry: (index) => checkHashResolution(record(index)) };
}

/** The anchoring domain on PostgreSQL. */
export function pgAnchoring(deps: PgStoreDeps): AnchoringStore {
  const { pool } = deps;

  /** A write of the batch writer: the fence first, then `fn`, in one transaction. */
  const fenced = <T>(lease: Lease, fn: (db: PgWriter) => Promise<T>): Promise<T> =>
    pool.write(async (db) => {
      await assertFence(db, lease);
      try {
        return await fn(db);
      } catch (error) {
        throw constraintError(error);
      }
    });

  return {
    async queue(entries) {
      if (!Array.isArray(entries)) throw new TypeError('entries must be an array');
      const checked = entries.map((entry) => checkQueueEntry(entry));
      if (checked.length === 0) return [];
      return pool.write(async (db) => {
        const outcomes: QueueOutcome[] = [];
        for (const { digest, tenantId, at, intervalMs } of checked) {
          const batch = await lockOpenBatch(db, at, intervalMs);
          const svcAnchor = pendingAnchorUrn(batch.batch_id, digest.slice(0, 16));
          const queued = await db.query<Row>('SELECT * FROM anchor_queue WHERE svc_anchor = $1', [svcAnchor]);
          if (queued.rows[0] !== undefined) {
            const hash = toHash(queued.rows[0]);
            const holder = (await batchById(db, hash.batch)) as AnchorBatchRecord;
            outcomes.push({
              outcome: hash.digest === digest ? 'existing' : 'conflict',
              svc_anchor: svcAnchor,
              batch: holder,
            });
            continue;
          }
          if ((await getAnchorRow(db, svcAnchor)) !== undefined) {
            outcomes.push({ outcome: 'conflict', svc_anchor: svcAnchor, batch });
            continue;
          }
          await db.query(
            'INSERT INTO anchor_queue (batch, digest, svc_anchor, tenant_id, submitted_at) VALUES ($1, $2, $3, $4, $5)',
            [batch.id, digest, svcAnchor, tenantId, at],
          );
          const counted = await updateBatch(db, 'UPDATE anchor_batches SET hash_count = hash_count + 1 WHERE id = $1', [
            batch.id,
          ]);
          const record: PendingAnchorRecord = {
            svc_anchor: svcAnchor,
            batch_id: batch.batch_id,
            eta_seconds: batchEtaSeconds(batch, at),
          };
          await db.query(
            `INSERT INTO anchors (svc_anchor, pending_svc_anchor, batch_id, receipt_sha256, record_json, status, created_at, updated_at)
             VALUES ($1, $1, $2, $3, $4, 'pending', $5, $5)`,
            [svcAnchor, batch.batch_id, digest, JSON.stringify(record), at],
          );
          outcomes.push({ outcome: 'queued', svc_anchor: svcAnchor, batch: counted });
        }
        return outcomes;
      });
    },

    async recordAt(svcAnchor, now) {
      if (parseAnchorUrn(svcAnchor) === undefined) throw new RangeError('anchorRecordAt: not an anchor URN');
      return pool.read(async (db) => {
        const row = await getAnchorRow(db, svcAnchor);
        if (row === undefined) return undefined;
        if (row.status === 'resolved') return JSON.parse(String(row.record_json)) as Record<string, unknown>;
        const current = String(row.svc_anchor);
        const queued = await db.query<Row>(
          'SELECT b.* FROM anchor_queue q JOIN anchor_batches b ON b.id = q.batch WHERE q.svc_anchor = $1',
          [current],
        );
        const stored = JSON.parse(String(row.record_json)) as { eta_seconds?: unknown };
        const eta =
          queued.rows[0] !== undefined
            ? batchEtaSeconds(toBatch(queued.rows[0]), now)
            : typeof stored.eta_seconds === 'number'
              ? stored.eta_seconds
              : 0;
        return {
          svc_anchor: current,
          batch_id: String(row.batch_id),
          eta_seconds: eta,
        } satisfies PendingAnchorRecord;
      });
    },

    backlog: () =>
      pool.read(async (db): Promise<AnchorBacklog> => {
        const counts = Object.fromEntries(ANCHOR_BATCH_STATES.map((state) => [state, 0])) as AnchorBacklog['batches'];
        const grouped = await db.query<Row>('SELECT state, count(*) AS n FROM anchor_batches GROUP BY state');
        for (const row of grouped.rows) counts[row.state as AnchorBatchState] = num(row.n);
        const pending = await db.query<Row>(
          "SELECT sum(hash_count) AS n FROM anchor_batches WHERE state <> 'resolved'",
        );
        const failing = await db.query<Row>(
          `SELECT last_error, next_attempt_at FROM anchor_batches
           WHERE state IN ('closed', 'signed', 'posted') AND last_error IS NOT NULL
           ORDER BY next_attempt_at DESC NULLS LAST LIMIT 1`,
        );
        return {
          pending_hashes: numOrNull(pending.rows[0]?.n) ?? 0,
          batches: counts,
          last_error: textOrNull(failing.rows[0]?.last_error),
          next_attempt_at: numOrNull(failing.rows[0]?.next_attempt_at),
        };
      }),

    openBatch: () =>
      pool.read(async (db) => {
        const { rows } = await db.query<Row>("SELECT * FROM anchor_batches WHERE state = 'open'");
        return rows[0] === undefined ? undefined : toBatch(rows[0]);
      }),

    unfinishedBatches: () =>
      pool.read(async (db) => {
        const { rows } = await db.query<Row>(
          "SELECT * FROM anchor_batches WHERE state IN ('closed', 'signed', 'posted') ORDER BY id",
        );
        return rows.map(toBatch);
      }),

    async batchHashes(batch) {
      checkInteger(batch, 'batch', 1);
      return pool.read((db) => listHashes(db, batch));
    },

    async highestNonce(network, sender) {
      checkText(network, 'network', 64);
      checkText(sender, 'sender', 42);
      return pool.read(async (db) => {
        const { rows } = await db.query<Row>(
          'SELECT max(nonce) AS nonce FROM anchor_batches WHERE network = $1 AND sender = $2',
          [network, sender],
        );
        return numOrNull(rows[0]?.nonce) ?? undefined;
      });
    },

    async closeBatch(lease, id, at) {
      checkInteger(id, 'id', 1);
      checkInteger(at, 'at');
      return fenced(lease, async (db) => {
        await requireState(db, id, ['open'], 'closeAnchorBatch');
        return updateBatch(db, "UPDATE anchor_batches SET state = 'closed', closed_at = $2 WHERE id = $1", [id, at]);
      });
    },

    async recordTransaction(lease, id, tx, at) {
      checkInteger(id, 'id', 1);
      checkAnchorTransaction(tx);
      checkInteger(at, 'at');
      return fenced(lease, async (db) => {
        await requireState(db, id, ['closed', 'signed'], 'recordAnchorTransaction');
        return updateBatch(
          db,
          `UPDATE anchor_batches SET state = 'signed', merkle_root = $2, network = $3, raw_tx = $4, tx_hash = $5,
                  nonce = $6, sender = $7, signed_at = $8, broadcast_at = NULL
           WHERE id = $1`,
          [id, tx.merkle_root, tx.network, tx.raw_tx, tx.tx_hash, tx.nonce, tx.sender, at],
        );
      });
    },

    async markPosted(lease, id, at) {
      checkInteger(id, 'id', 1);
      checkInteger(at, 'at');
      return fenced(lease, async (db) => {
        const batch = await requireState(db, id, ['signed', 'posted'], 'markAnchorBatchPosted');
        if (batch.state !== 'signed') return batch;
        return updateBatch(
          db,
          `UPDATE anchor_batches SET state = 'posted', broadcast_at = $2, attempts = 0, last_error = NULL,
                  next_attempt_at = NULL
           WHERE id = $1`,
          [id, at],
        );
      });
    },

    async recordError(lease, id, failure) {
      checkInteger(id, 'id', 1);
      if (typeof failure?.message !== 'string') throw new TypeError('failure.message must be a string');
      const message = failure.message.slice(0, 1000);
      const next = checkInteger(failure.next_attempt_at, 'failure.next_attempt_at');
      return fenced(lease, async (db) => {
        await requireState(db, id, ['closed', 'signed', 'posted'], 'recordAnchorBatchError');
        return updateBatch(
          db,
          'UPDATE anchor_batches SET attempts = attempts + 1, last_error = $2, next_attempt_at = $3 WHERE id = $1',
          [id, message, next],
        );
      });
    },

    async resolveBatch(lease, id, resolution, at) {
      checkInteger(id, 'id', 1);
      const { height, count, entry } = checkResolution(resolution);
      checkInteger(at, 'at');
      return fenced(lease, async (db) => {
        const batch = await requireState(db, id, ['posted'], 'resolveAnchorBatch');
        const hashes = await listHashes(db, id);
        const uncovered = (): RangeError =>
          new RangeError(
            `resolveAnchorBatch: the records must cover exactly the ${hashes.length} hashes of batch ${batch.id}`,
          );
        if (hashes.length !== count) throw uncovered();
        const expected = new Set(hashes.map((hash) => hash.svc_anchor));
        // Each record is made, written and dropped in turn; a record for a hash not in the batch
        // (or one given twice) undoes the whole transaction.
        for (let index = 0; index < count; index += 1) {
          const resolved = entry(index);
          if (!expected.delete(resolved.pending)) throw uncovered();
          const updated = await db.query(
            `UPDATE anchors SET svc_anchor = $2, pending_svc_anchor = coalesce(pending_svc_anchor, $1),
                    record_json = $3, status = 'resolved', updated_at = $4
             WHERE id = (SELECT id FROM anchors WHERE svc_anchor = $1 OR pending_svc_anchor = $1 LIMIT 1)`,
            [resolved.pending, resolved.svc_anchor, resolved.json, at],
          );
          if (updated.rowCount !== 1)
            throw new LedgerError('not_found', `No anchor ${resolved.pending} in the ledger.`);
        }
        return updateBatch(
          db,
          `UPDATE anchor_batches SET state = 'resolved', block_height = $2, resolved_at = $3, last_error = NULL,
                  next_attempt_at = NULL
           WHERE id = $1`,
          [id, height, at],
        );
      });
    },
  };
}
