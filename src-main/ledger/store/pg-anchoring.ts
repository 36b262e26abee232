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
  type AnchorResolution,
  type AnchorResolutionSource,
  type QueuedAnchorHash,
  type QueueOutcome,
} from '../anchor-batches';
import { checkInteger, checkText, toJsonText } from '../checks';
import { LedgerError } from '../errors';
import type { AnchoringStore } from './anchoring';
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

/** The resolutions given, as a source (a list or a source already), or undefined when neither. */
function resolutionSource(given: unknown): AnchorResolutionSource | undefined {
  if (Array.isArray(given)) {
    const list = given as readonly AnchorResolution[];
    return { count: list.length, record: (index) => list[index] as AnchorResolution };
  }
  return typeof given === 'object' &&
    given !== null &&
    Number.isSafeInteger((given as AnchorResolutionSource).count) &&
    typeof (given as AnchorResolutionSource).record === 'function'
    ? (given as AnchorResolutionSource)
    : undefined;
}

/** One resolution checked as the ledger's resolveAnchor checks it: its URNs' forms and suffixes, its record as JSON. */
function checkResolved(entry: AnchorResolution): { pending: string; svc_anchor: string; json: string } {
  const from = parseAnchorUrn(entry?.pending);
  if (from?.status !== 'pending') throw new RangeError('pendingSvcAnchor must be a pending anchor URN');
  const to = parseAnchorUrn(entry.svc_anchor);
  if (to?.status !== 'resolved') throw new RangeError('resolved.svc_anchor must be a resolved anchor URN');
  if (to.suffix !== from.suffix)
    throw new RangeError(
      `resolved.svc_anchor ends with ${to.suffix}, another digest than the pending URN's ${from.suffix}`,
    );
  return { pending: entry.pending, svc_anchor: entry.svc_anchor, json: toJsonText(entry.record, 'resolved.record') };
}

/** How many anchors rows one statement resolves. */
const RESOLVE_CHUNK = 500;

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
        // The open batch stays locked by this transaction from its first entry on (the batch
        // writer's close waits for it), so the entries after the first go in the same batch and
        // its hash count is written once, at the end.
        let open: AnchorBatchRecord | undefined;
        let added = 0;
        const current = (): AnchorBatchRecord => ({
          ...(open as AnchorBatchRecord),
          hash_count: (open as AnchorBatchRecord).hash_count + added,
        });
        for (const { digest, tenantId, at, intervalMs } of checked) {
          open ??= await lockOpenBatch(db, at, intervalMs);
          const batch = open;
          const svcAnchor = pendingAnchorUrn(batch.batch_id, digest.slice(0, 16));
          const record: PendingAnchorRecord = {
            svc_anchor: svcAnchor,
            batch_id: batch.batch_id,
            eta_seconds: batchEtaSeconds(batch, at),
          };
          // The pending row first: a URN already taken (queued before, in this batch or an
          // earlier one of the same minute, or an anchor stored otherwise) inserts nothing.
          const inserted = await db.query(
            `INSERT INTO anchors (svc_anchor, pending_svc_anchor, batch_id, receipt_sha256, record_json, status, created_at, updated_at)
             VALUES ($1, $1, $2, $3, $4, 'pending', $5, $5) ON CONFLICT DO NOTHING`,
            [svcAnchor, batch.batch_id, digest, JSON.stringify(record), at],
          );
          if (inserted.rowCount === 0) {
            const queued = await db.query<Row>('SELECT * FROM anchor_queue WHERE svc_anchor = $1', [svcAnchor]);
            if (queued.rows[0] === undefined) {
              outcomes.push({ outcome: 'conflict', svc_anchor: svcAnchor, batch: current() });
              continue;
            }
            const hash = toHash(queued.rows[0]);
            const holder =
              hash.batch === batch.id ? current() : ((await batchById(db, hash.batch)) as AnchorBatchRecord);
            outcomes.push({
              outcome: hash.digest === digest ? 'existing' : 'conflict',
              svc_anchor: svcAnchor,
              batch: holder,
            });
            continue;
          }
          await db.query(
            'INSERT INTO anchor_queue (batch, digest, svc_anchor, tenant_id, submitted_at) VALUES ($1, $2, $3, $4, $5)',
            [batch.id, digest, svcAnchor, tenantId, at],
          );
          added += 1;
          outcomes.push({ outcome: 'queued', svc_anchor: svcAnchor, batch: current() });
        }
        if (open !== undefined && added > 0)
          await db.query('UPDATE anchor_batches SET hash_count = hash_count + $2 WHERE id = $1', [open.id, added]);
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
      if (typeof resolution !== 'object' || resolution === null) throw new TypeError('resolution must be an object');
      const height = checkInteger(resolution.block_height, 'resolution.block_height');
      const source = resolutionSource(resolution.records);
      if (source === undefined) throw new TypeError('resolution.records must be an array or a record source');
      checkInteger(at, 'at');
      return fenced(lease, async (db) => {
        const batch = await requireState(db, id, ['posted'], 'resolveAnchorBatch');
        const hashes = await listHashes(db, id);
        const uncovered = (): RangeError =>
          new RangeError(
            `resolveAnchorBatch: the records must cover exactly the ${hashes.length} hashes of batch ${batch.id}`,
          );
        if (hashes.length !== source.count) throw uncovered();
        // As many records as hashes, each a hash of the batch and none twice: every hash is
        // covered. A record that breaks this throws, and the transaction writes nothing. The
        // records are made and written a chunk at a time.
        const pending = new Set(hashes.map((hash) => hash.svc_anchor));
        for (let from = 0; from < source.count; from += RESOLVE_CHUNK) {
          const chunk: { pending: string; svc_anchor: string; json: string }[] = [];
          for (let index = from; index < Math.min(source.count, from + RESOLVE_CHUNK); index += 1) {
            const entry = checkResolved(source.record(index));
            if (!pending.delete(entry.pending)) throw uncovered();
            chunk.push(entry);
          }
          const updated = await db.query(
            `UPDATE anchors AS a SET svc_anchor = u.resolved, record_json = u.json, status = 'resolved', updated_at = $4
             FROM unnest($1::text[], $2::text[], $3::text[]) AS u(pending, resolved, json)
             WHERE a.pending_svc_anchor = u.pending`,
            [
              chunk.map((entry) => entry.pending),
              chunk.map((entry) => entry.svc_anchor),
              chunk.map((entry) => entry.json),
              at,
            ],
          );
          if (updated.rowCount !== chunk.length)
            throw new LedgerError('not_found', `Batch ${batch.id}: an anchor of its hashes is not in the ledger.`);
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
