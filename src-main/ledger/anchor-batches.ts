/**
 * Repository for the anchoring engine's batches and queue (migration 4; PROTOCOL section 8).
 *
 * A batch moves open -> closed -> signed -> posted -> resolved:
 * - open: takes hashes ({@link queueAnchorHash}); at most one batch is open;
 * - closed: takes no more hashes; its tree is fixed by its hashes;
 * - signed: its root's transaction (raw bytes, hash, nonce, sender) is recorded; nothing may be
 *   broadcast before this row is committed, so a crash never posts a batch the ledger forgot;
 * - posted: the chain accepted the bytes;
 * - resolved: the transaction has its confirmations and every hash has its resolved record.
 *
 * The per-hash records are the rows of `anchors` (./anchors.ts): a pending row is written in the
 * same transaction that queues the hash, and {@link resolveAnchorBatch} resolves them all with
 * the batch, in one transaction.
 */
import type { PendingAnchorRecord } from '../../src-shared/anchor/proof';
import { batchIdOf, parseAnchorUrn, pendingAnchorUrn } from '../../src-shared/anchor/urn';
import { getAnchor, insertAnchor, resolveAnchor } from './anchors';
import { checkHex64, checkInstant, checkInteger, checkOptionalText, checkText } from './checks';
import { execute, queryAll, queryOne, transaction, type ReadableDB, type WritableDB } from './database';
import { LedgerError } from './errors';
import { sql } from './sql';

/** The states of a batch, in order. */
export const ANCHOR_BATCH_STATES = ['open', 'closed', 'signed', 'posted', 'resolved'] as const;
export type AnchorBatchState = (typeof ANCHOR_BATCH_STATES)[number];

/** A stored batch. */
export interface AnchorBatchRecord {
  id: number;
  batch_id: string;
  state: AnchorBatchState;
  opened_at: number;
  /** When the batch is due to close (opened_at + the interval). */
  closes_at: number;
  closed_at: number | null;
  hash_count: number;
  /** Hex of the Merkle root, once signed. */
  merkle_root: string | null;
  network: string | null;
  raw_tx: string | null;
  tx_hash: string | null;
  nonce: number | null;
  sender: string | null;
  signed_at: number | null;
  broadcast_at: number | null;
  block_height: number | null;
  resolved_at: number | null;
  attempts: number;
  last_error: string | null;
  next_attempt_at: number | null;
}

/** A hash of a batch. */
export interface QueuedAnchorHash {
  batch: number;
  /** Hex of the digest (canonical_sha256's bytes). */
  digest: string;
  /** The pending URN the submitter was given. */
  svc_anchor: string;
  tenant_id: string | null;
  submitted_at: number;
}

/** What {@link queueAnchorHash} did. */
export type QueueOutcome =
  | { outcome: 'queued' | 'existing'; svc_anchor: string; batch: AnchorBatchRecord }
  /** Another digest with the same 16-hex suffix already holds this pending URN. */
  | { outcome: 'conflict'; svc_anchor: string; batch: AnchorBatchRecord };

/**
 * A batch by row id.
 */
export function getAnchorBatch(database: ReadableDB, id: number): AnchorBatchRecord | undefined {
  checkInteger(id, 'id', 1);
  return queryOne<AnchorBatchRecord>(database, sql`SELECT * FROM anchor_batches WHERE id = ${id}`);
}

/**
 * The open batch, if any.
 */
export function getOpenAnchorBatch(database: ReadableDB): AnchorBatchRecord | undefined {
  return queryOne<AnchorBatchRecord>(database, sql`SELECT * FROM anchor_batches WHERE state = 'open'`);
}

/**
 * Batches that are closed, signed or posted (not open, not resolved), oldest first.
 */
export function listUnfinishedAnchorBatches(database: ReadableDB): AnchorBatchRecord[] {
  return queryAll<AnchorBatchRecord>(
    database,
    sql`SELECT * FROM anchor_batches WHERE state IN ('closed', 'signed', 'posted') ORDER BY id`,
  );
}

/**
 * The hashes of a batch, in submission order.
 */
export function listBatchHashes(database: ReadableDB, batch: number): QueuedAnchorHash[] {
  checkInteger(batch, 'batch', 1);
  return queryAll<QueuedAnchorHash>(
    database,
    sql`SELECT * FROM anchor_queue WHERE batch = ${batch} ORDER BY submitted_at, digest`,
  );
}

/**
 * The queue entry of a pending URN, with its batch.
 *
 * @returns undefined when no hash was queued under that URN (it may still be an anchors row
 *   made elsewhere, e.g. by an import)
 */
export function findQueuedAnchor(
  database: ReadableDB,
  pendingSvcAnchor: string,
): { hash: QueuedAnchorHash; batch: AnchorBatchRecord } | undefined {
  checkText(pendingSvcAnchor, 'pendingSvcAnchor', 512);
  const hash = queryOne<QueuedAnchorHash>(
    database,
    sql`SELECT * FROM anchor_queue WHERE svc_anchor = ${pendingSvcAnchor}`,
  );
  if (hash === undefined) return undefined;
  const batch = getAnchorBatch(database, hash.batch);
  return batch === undefined ? undefined : { hash, batch };
}

/**
 * A queue entry's fields, checked (shared with the PostgreSQL adapter, store/pg-anchoring.ts).
 *
 * @throws TypeError / RangeError for bad input
 */
export function checkQueueEntry(entry: {
  digest: string;
  tenant_id?: string | null;
  at?: number;
  interval_ms: number;
}): {
  digest: string;
  tenantId: string | null;
  at: number;
  intervalMs: number;
} {
  if (typeof entry !== 'object' || entry === null) throw new TypeError('entry must be an object');
  return {
    digest: checkHex64(entry.digest, 'entry.digest'),
    tenantId: checkOptionalText(entry.tenant_id, 'entry.tenant_id', 64),
    at: checkInstant(entry.at, 'entry.at'),
    intervalMs: checkInteger(entry.interval_ms, 'entry.interval_ms', 1, 365 * 86_400_000),
  };
}

/**
 * Queues a digest in the open batch (opening one at `at` when none is open) and writes its
 * pending anchor row, in one transaction. The same digest in the same open batch (or a pending
 * URN already queued for the same digest) gives the same URN and writes nothing.
 *
 * @param database - a writable handle
 * @param entry - `digest` (hex), `tenant_id` (optional), `at` (ms), `interval_ms` (how long a
 *   new batch stays open), `eta_seconds` for the stored pending record
 * @returns `queued`, `existing`, or `conflict` (another digest holds the URN; nothing written)
 * @throws TypeError / RangeError for bad input
 */
export function queueAnchorHash(
  database: WritableDB,
  entry: { digest: string; tenant_id?: string | null; at?: number; interval_ms: number },
): QueueOutcome {
  const { digest, tenantId, at, intervalMs } = checkQueueEntry(entry);
  return transaction(database, (db) => {
    let batch = getOpenAnchorBatch(db);
    if (batch === undefined) {
      const batchId = batchIdOf(new Date(at));
      const { lastInsertRowid } = execute(
        db,
        sql`INSERT INTO anchor_batches (batch_id, state, opened_at, closes_at) VALUES (${batchId}, 'open', ${at}, ${at + intervalMs})`,
      );
      batch = getAnchorBatch(db, lastInsertRowid) as AnchorBatchRecord;
    }
    const svcAnchor = pendingAnchorUrn(batch.batch_id, digest.slice(0, 16));
    const queued = queryOne<QueuedAnchorHash>(db, sql`SELECT * FROM anchor_queue WHERE svc_anchor = ${svcAnchor}`);
    if (queued !== undefined) {
      const holder = getAnchorBatch(db, queued.batch) as AnchorBatchRecord;
      return { outcome: queued.digest === digest ? 'existing' : 'conflict', svc_anchor: svcAnchor, batch: holder };
    }
    if (getAnchor(db, svcAnchor) !== undefined) return { outcome: 'conflict', svc_anchor: svcAnchor, batch };
    execute(
      db,
      sql`INSERT INTO anchor_queue (batch, digest, svc_anchor, tenant_id, submitted_at) VALUES (${batch.id}, ${digest}, ${svcAnchor}, ${tenantId}, ${at})`,
    );
    execute(db, sql`UPDATE anchor_batches SET hash_count = hash_count + 1 WHERE id = ${batch.id}`);
    const etaSeconds = batchEtaSeconds(batch, at);
    insertAnchor(
      db,
      {
        svc_anchor: svcAnchor,
        batch_id: batch.batch_id,
        receipt_sha256: digest,
        record: {
          svc_anchor: svcAnchor,
          batch_id: batch.batch_id,
          eta_seconds: etaSeconds,
        } satisfies PendingAnchorRecord,
        status: 'pending',
      },
      { at },
    );
    return { outcome: 'queued', svc_anchor: svcAnchor, batch: getAnchorBatch(db, batch.id) as AnchorBatchRecord };
  });
}

function requireState(
  database: ReadableDB,
  id: number,
  allowed: readonly AnchorBatchState[],
  doing: string,
): AnchorBatchRecord {
  const batch = getAnchorBatch(database, id);
  if (batch === undefined) throw new LedgerError('not_found', `No anchor batch ${id} in the ledger.`);
  if (!allowed.includes(batch.state))
    throw new RangeError(`${doing}: batch ${id} is ${batch.state}, not ${allowed.join(' or ')}`);
  return batch;
}

/**
 * Closes the open batch: it takes no more hashes.
 *
 * @returns the closed batch
 * @throws RangeError when the batch is not open; LedgerError not_found
 */
export function closeAnchorBatch(database: WritableDB, id: number, options: { at?: number } = {}): AnchorBatchRecord {
  const at = checkInstant(options.at, 'at');
  return transaction(database, (db) => {
    requireState(db, id, ['open'], 'closeAnchorBatch');
    execute(db, sql`UPDATE anchor_batches SET state = 'closed', closed_at = ${at} WHERE id = ${id}`);
    return getAnchorBatch(db, id) as AnchorBatchRecord;
  });
}

/**
 * A signed transaction's fields, checked (shared with store/pg-anchoring.ts).
 *
 * @throws RangeError / TypeError for bad input
 */
export function checkAnchorTransaction<
  T extends { merkle_root: string; network: string; raw_tx: string; tx_hash: string; nonce: number; sender: string },
>(tx: T): T {
  if (typeof tx !== 'object' || tx === null) throw new TypeError('tx must be an object');
  checkHex64(tx.merkle_root, 'tx.merkle_root');
  checkText(tx.network, 'tx.network', 64);
  if (typeof tx.raw_tx !== 'string' || !/^0x(?:[0-9a-f]{2}){1,2046}$/.test(tx.raw_tx))
    throw new RangeError('tx.raw_tx must be 0x and lowercase hex bytes');
  if (typeof tx.tx_hash !== 'string' || !/^0x[0-9a-f]{64}$/.test(tx.tx_hash))
    throw new RangeError('tx.tx_hash must be 0x and 64 lowercase hex characters');
  if (typeof tx.sender !== 'string' || !/^0x[0-9a-f]{40}$/.test(tx.sender))
    throw new RangeError('tx.sender must be 0x and 40 lowercase hex characters');
  checkInteger(tx.nonce, 'tx.nonce');
  return tx;
}

/**
 * Records a batch's signed transaction (before it is broadcast). A signed batch may be given a
 * new transaction only when its old one can never be mined (its nonce went to another
 * transaction); the engine decides that.
 *
 * @param tx - `merkle_root` (hex), `network`, `raw_tx` (0x hex), `tx_hash` (0x + 64 hex),
 *   `nonce`, `sender` (0x + 40 hex)
 * @returns the signed batch
 * @throws RangeError for bad input or a batch that is not closed or signed; LedgerError
 *   `constraint` when the nonce or hash is already another batch's
 */
export function recordAnchorTransaction(
  database: WritableDB,
  id: number,
  tx: { merkle_root: string; network: string; raw_tx: string; tx_hash: string; nonce: number; sender: string },
  options: { at?: number } = {},
): AnchorBatchRecord {
  const { merkle_root: root, network, nonce } = checkAnchorTransaction(tx);
  const at = checkInstant(options.at, 'at');
  return transaction(database, (db) => {
    requireState(db, id, ['closed', 'signed'], 'recordAnchorTransaction');
    execute(
      db,
      sql`UPDATE anchor_batches SET state = 'signed', merkle_root = ${root}, network = ${network}, raw_tx = ${tx.raw_tx},
                 tx_hash = ${tx.tx_hash}, nonce = ${nonce}, sender = ${tx.sender}, signed_at = ${at}, broadcast_at = NULL
          WHERE id = ${id}`,
    );
    return getAnchorBatch(db, id) as AnchorBatchRecord;
  });
}

/**
 * Records that the chain accepted a signed batch's bytes.
 */
export function markAnchorBatchPosted(
  database: WritableDB,
  id: number,
  options: { at?: number } = {},
): AnchorBatchRecord {
  const at = checkInstant(options.at, 'at');
  return transaction(database, (db) => {
    const batch = requireState(db, id, ['signed', 'posted'], 'markAnchorBatchPosted');
    if (batch.state === 'signed')
      execute(
        db,
        sql`UPDATE anchor_batches SET state = 'posted', broadcast_at = ${at}, attempts = 0, last_error = NULL, next_attempt_at = NULL WHERE id = ${id}`,
      );
    return getAnchorBatch(db, id) as AnchorBatchRecord;
  });
}

/**
 * Records a chain error on a batch and when to try again.
 *
 * @param failure - `message` (at most 1000 characters are kept; never a key), `next_attempt_at` (ms)
 */
export function recordAnchorBatchError(
  database: WritableDB,
  id: number,
  failure: { message: string; next_attempt_at: number },
): AnchorBatchRecord {
  if (typeof failure.message !== 'string') throw new TypeError('failure.message must be a string');
  const message = failure.message.slice(0, 1000);
  const next = checkInteger(failure.next_attempt_at, 'failure.next_attempt_at');
  return transaction(database, (db) => {
    requireState(db, id, ['closed', 'signed', 'posted'], 'recordAnchorBatchError');
    execute(
      db,
      sql`UPDATE anchor_batches SET attempts = attempts + 1, last_error = ${message}, next_attempt_at = ${next} WHERE id = ${id}`,
    );
    return getAnchorBatch(db, id) as AnchorBatchRecord;
  });
}

/** One hash of a batch resolved: its pending URN, its resolved URN and its record. */
export interface AnchorResolution {
  pending: string;
  svc_anchor: string;
  record: unknown;
}

/**
 * A batch's resolutions made one at a time as they are written, so that a large batch never
 * holds every record (and every Merkle path) at once.
 */
export interface AnchorResolutionSource {
  /** How many there are. */
  readonly count: number;
  /** The resolution at `index` (0 to count - 1), each asked for once. */
  record(index: number): AnchorResolution;
}

/**
 * Resolves a posted batch: each hash's anchors row gets its resolved URN and record, and the
 * batch its block height, in one transaction.
 *
 * @param resolution - `block_height`, and for each hash of the batch its pending URN, resolved
 *   URN and record: a list, or a source that makes each when it is written
 * @returns the resolved batch
 * @throws RangeError when the batch is not posted or the records do not cover its hashes (then
 *   nothing is written)
 */
export function resolveAnchorBatch(
  database: WritableDB,
  id: number,
  resolution: { block_height: number; records: readonly AnchorResolution[] | AnchorResolutionSource },
  options: { at?: number } = {},
): AnchorBatchRecord {
  const height = checkInteger(resolution.block_height, 'resolution.block_height');
  const at = checkInstant(options.at, 'at');
  const given = resolution.records;
  const source: AnchorResolutionSource | undefined = Array.isArray(given)
    ? { count: given.length, record: (index) => given[index] as AnchorResolution }
    : typeof given === 'object' &&
        given !== null &&
        Number.isSafeInteger((given as AnchorResolutionSource).count) &&
        typeof (given as AnchorResolutionSource).record === 'function'
      ? (given as AnchorResolutionSource)
      : undefined;
  if (source === undefined) throw new TypeError('resolution.records must be an array or a record source');
  return transaction(database, (db) => {
    const batch = requireState(db, id, ['posted'], 'resolveAnchorBatch');
    const hashes = listBatchHashes(db, id);
    const uncovered = (): RangeError =>
      new RangeError(
        `resolveAnchorBatch: the records must cover exactly the ${hashes.length} hashes of batch ${batch.id}`,
      );
    if (hashes.length !== source.count) throw uncovered();
    // As many records as hashes, each a hash of the batch and none twice: every hash is covered.
    // A record that breaks this throws, and the transaction writes nothing.
    const pending = new Set(hashes.map((hash) => hash.svc_anchor));
    for (let index = 0; index < source.count; index += 1) {
      const entry = source.record(index);
      if (!pending.delete(entry.pending)) throw uncovered();
      resolveAnchor(db, entry.pending, { svc_anchor: entry.svc_anchor, record: entry.record }, { at });
    }
    execute(
      db,
      sql`UPDATE anchor_batches SET state = 'resolved', block_height = ${height}, resolved_at = ${at}, last_error = NULL, next_attempt_at = NULL WHERE id = ${id}`,
    );
    return getAnchorBatch(db, id) as AnchorBatchRecord;
  });
}

/**
 * The highest nonce recorded for a sender on a network.
 *
 * @returns it, or undefined when none is recorded
 */
export function highestRecordedNonce(database: ReadableDB, network: string, sender: string): number | undefined {
  const row = queryOne<{ nonce: number | null }>(
    database,
    sql`SELECT max(nonce) AS nonce FROM anchor_batches WHERE network = ${network} AND sender = ${sender}`,
  );
  return row?.nonce ?? undefined;
}

/** The engine's backlog as /status and the app show it. */
export interface AnchorBacklog {
  /** Hashes whose anchors are not yet resolved. */
  pending_hashes: number;
  batches: { open: number; closed: number; signed: number; posted: number; resolved: number };
  /** The newest chain error still standing on an unfinished batch. */
  last_error: string | null;
  /** The earliest retry after an error (ms), if any. */
  next_attempt_at: number | null;
}

/**
 * Counts of batches by state and of hashes not yet resolved.
 */
export function anchorBacklog(database: ReadableDB): AnchorBacklog {
  const counts = { open: 0, closed: 0, signed: 0, posted: 0, resolved: 0 };
  for (const row of queryAll<{ state: AnchorBatchState; n: number }>(
    database,
    sql`SELECT state, count(*) AS n FROM anchor_batches GROUP BY state`,
  ))
    counts[row.state] = row.n;
  const pending = queryOne<{ n: number | null }>(
    database,
    sql`SELECT sum(hash_count) AS n FROM anchor_batches WHERE state <> 'resolved'`,
  );
  const failing = queryOne<{ last_error: string; next_attempt_at: number | null }>(
    database,
    sql`SELECT last_error, next_attempt_at FROM anchor_batches WHERE state IN ('closed', 'signed', 'posted') AND last_error IS NOT NULL ORDER BY next_attempt_at DESC LIMIT 1`,
  );
  return {
    pending_hashes: pending?.n ?? 0,
    batches: counts,
    last_error: failing?.last_error ?? null,
    next_attempt_at: failing?.next_attempt_at ?? null,
  };
}

/**
 * Seconds until a batch is expected to post: until it closes, or until its next retry after a
 * chain error; 0 once it is due.
 */
export function batchEtaSeconds(batch: AnchorBatchRecord, now: number): number {
  return Math.max(0, Math.ceil((Math.max(batch.closes_at, batch.next_attempt_at ?? 0) - now) / 1000));
}

/**
 * The record of an anchor URN as `GET /v1/anchor/<urn>` answers it: the resolved record of spec
 * 2.6 as stored, or the pending record `{svc_anchor, batch_id, eta_seconds}` with the eta of
 * its batch now. Works from the ledger alone, so a service without anchoring still answers for
 * the anchors it holds.
 *
 * @param database - any handle
 * @param svcAnchor - a pending or resolved URN
 * @param now - ms
 * @returns the record, or undefined when the ledger has no such anchor
 * @throws RangeError when `svcAnchor` is not an anchor URN
 */
export function anchorRecordAt(
  database: ReadableDB,
  svcAnchor: string,
  now: number,
): Record<string, unknown> | undefined {
  if (parseAnchorUrn(svcAnchor) === undefined) throw new RangeError('anchorRecordAt: not an anchor URN');
  const row = getAnchor(database, svcAnchor);
  if (row === undefined) return undefined;
  if (row.status === 'resolved') return row.record as Record<string, unknown>;
  const queued = findQueuedAnchor(database, row.svc_anchor);
  const stored = row.record as { eta_seconds?: unknown };
  const eta =
    queued !== undefined
      ? batchEtaSeconds(queued.batch, now)
      : typeof stored.eta_seconds === 'number'
        ? stored.eta_seconds
        : 0;
  return { svc_anchor: row.svc_anchor, batch_id: row.batch_id, eta_seconds: eta } satisfies PendingAnchorRecord;
}
