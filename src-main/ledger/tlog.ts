/**
 * Repository for the tenants' transparency logs (migration 11; docs/logs.md, "The service's log").
 *
 * A tenant's log is its leaves, numbered from 0 in the order they were appended, and the
 * complete nodes above them; the hashing is the shared core's (src-shared/crypto/tlog.ts). A
 * leaf is appended in the transaction that stores its receipt: the next index is read inside
 * that transaction, and the ledger has one writer, so two receipts never get one index and
 * indices have no gap. Checkpoints are kept, every one, one per size; cosignatures at most
 * {@link MAX_TLOG_COSIGNATURES} per checkpoint, one per key.
 */
import { createHash } from 'node:crypto';
import type { HashFunction } from '../../src-shared/crypto/merkle';
import { tlogCompletedNodes, tlogLeafHash, type TlogNodeSource } from '../../src-shared/crypto/tlog';
import { checkHash32, checkInstant, checkInteger, checkTenantId, checkText, plainBytes } from './checks';
import { execute, queryAll, queryOne, type ReadableDB, type WritableDB } from './database';
import { LedgerError } from './errors';
import { sql, type SqlQuery } from './sql';

/** Cosignatures a checkpoint keeps at most. */
export const MAX_TLOG_COSIGNATURES = 16;
/** The longest checkpoint note the ledger keeps (a checkpoint and one signature line is far shorter). */
export const MAX_TLOG_NOTE_LENGTH = 4096;

/** A checkpoint the service signed. */
export interface TlogCheckpointRecord {
  tenant_id: string;
  tree_size: number;
  root: Uint8Array;
  /** The signed note: the checkpoint text, a blank line, the log's signature line, "\n". */
  note: string;
  signed_at: number;
}

/** A cosignature line a witness gave a checkpoint. */
export interface TlogCosignatureRecord {
  key_name: string;
  key_id: number;
  line: string;
  received_at: number;
}

/** A leaf with its receipt. */
export interface TlogLeafRecord {
  leaf_index: number;
  leaf_hash: Uint8Array;
  /** The receipt's ledger row. */
  receipt: number;
  receipt_sha256: string;
  issued_at: number | null;
}

/**
 * The statements the log's hot paths run (appending a leaf, reading nodes, a period's edges),
 * as builders: the functions below run them, and the plan tests (tlog-plans.test.ts) check
 * with EXPLAIN QUERY PLAN that each is an indexed search, never a scan of a log.
 */
export const tlogQueries = {
  size: (tenant: string): SqlQuery =>
    sql`SELECT leaf_index FROM tlog_leaves WHERE tenant_id = ${tenant} ORDER BY leaf_index DESC LIMIT 1`,
  leaf: (tenant: string, index: number): SqlQuery =>
    sql`SELECT leaf_hash AS hash FROM tlog_leaves WHERE tenant_id = ${tenant} AND leaf_index = ${index}`,
  node: (tenant: string, level: number, index: number): SqlQuery =>
    sql`SELECT hash FROM tlog_nodes WHERE tenant_id = ${tenant} AND level = ${level} AND node_index = ${index}`,
  leafOfReceipt: (tenant: string, receipt: number): SqlQuery =>
    sql`SELECT leaf_index FROM tlog_leaves WHERE tenant_id = ${tenant} AND receipt_id = ${receipt}`,
  insertLeaf: (tenant: string, index: number, hash: Uint8Array, receipt: number): SqlQuery =>
    sql`INSERT INTO tlog_leaves (tenant_id, leaf_index, leaf_hash, receipt_id)
        VALUES (${tenant}, ${index}, ${hash}, ${receipt})`,
  insertNode: (tenant: string, level: number, index: number, hash: Uint8Array): SqlQuery =>
    sql`INSERT INTO tlog_nodes (tenant_id, level, node_index, hash) VALUES (${tenant}, ${level}, ${index}, ${hash})`,
  leafRange: (tenant: string, from: number, to: number): SqlQuery =>
    sql`SELECT leaf_index AS "index", leaf_hash AS hash FROM tlog_leaves
        WHERE tenant_id = ${tenant} AND leaf_index >= ${from} AND leaf_index < ${to} ORDER BY leaf_index`,
  nodeRange: (tenant: string, level: number, from: number, to: number): SqlQuery =>
    sql`SELECT node_index AS "index", hash FROM tlog_nodes
        WHERE tenant_id = ${tenant} AND level = ${level} AND node_index >= ${from} AND node_index < ${to}
        ORDER BY node_index`,
  // The receipts issued in [low, high) through their issued-time index, each probed in the log.
  periodEdges: (tenant: string, size: number, low: number, high: number): SqlQuery =>
    sql`SELECT min(l.leaf_index) AS first, max(l.leaf_index) AS last
        FROM receipts r INDEXED BY idx_receipts_issued CROSS JOIN tlog_leaves l
        WHERE r.issued_order >= ${low} AND r.issued_order < ${high}
          AND l.tenant_id = ${tenant} AND l.receipt_id = r.id AND l.leaf_index < ${size}`,
  newestBefore: (tenant: string, size: number, before: number): SqlQuery =>
    sql`SELECT l.leaf_index
        FROM receipts r INDEXED BY idx_receipts_issued CROSS JOIN tlog_leaves l
        WHERE r.issued_order >= 0 AND r.issued_order < ${before}
          AND l.tenant_id = ${tenant} AND l.receipt_id = r.id AND l.leaf_index < ${size}
        ORDER BY r.issued_order DESC, r.id DESC LIMIT 1`,
  lastBeforeAfter: (tenant: string, size: number, before: number, after: number): SqlQuery =>
    sql`SELECT max(l.leaf_index) AS last
        FROM tlog_leaves l JOIN receipts r ON r.id = l.receipt_id
        WHERE l.tenant_id = ${tenant} AND l.leaf_index > ${after} AND l.leaf_index < ${size}
          AND r.issued_at < ${before}`,
};

/**
 * The number of leaves of a tenant's log.
 *
 * @throws TypeError / RangeError for a malformed tenant id
 */
export function tlogSize(database: ReadableDB, tenantId: string): number {
  const tenant = checkTenantId(tenantId);
  const row = queryOne<{ leaf_index: number }>(database, tlogQueries.size(tenant));
  return row === undefined ? 0 : row.leaf_index + 1;
}

/**
 * The complete nodes of a tenant's log as the shared core reads them: level 0 is the leaf hashes,
 * the levels above the stored nodes. An unknown node throws (a proof asked beyond the log).
 */
export function tlogNodeSource(database: ReadableDB, tenantId: string): TlogNodeSource {
  const tenant = checkTenantId(tenantId);
  return (level, index) => {
    const row =
      level === 0
        ? queryOne<{ hash: Uint8Array }>(database, tlogQueries.leaf(tenant, index))
        : queryOne<{ hash: Uint8Array }>(database, tlogQueries.node(tenant, level, index));
    if (row === undefined) throw new RangeError(`the log of ${tenant} has no node (${level}, ${index})`);
    return plainBytes(row.hash);
  };
}

/**
 * Appends leaves to a tenant's log, in order, with the complete nodes each one completes.
 *
 * Call it in the transaction that stores the receipts: the next index is read here. A receipt
 * already in this tenant's log is not appended again (its existing index is returned).
 *
 * @param sha256 - SHA-256.
 * @param leaves - The receipts' ledger rows and leaf hashes.
 * @returns Each leaf's index, in order.
 * @throws LedgerError `constraint` for an unknown tenant or receipt; TypeError / RangeError for bad input
 */
export function appendTlogLeaves(
  database: WritableDB,
  sha256: HashFunction,
  tenantId: string,
  leaves: readonly { receipt: number; leaf_hash: Uint8Array }[],
): number[] {
  const tenant = checkTenantId(tenantId);
  if (typeof sha256 !== 'function') throw new TypeError('sha256 must be a function');
  if (!Array.isArray(leaves)) throw new TypeError('leaves must be an array');
  const checked = leaves.map((leaf, position) => ({
    receipt: checkInteger(leaf.receipt, `leaves[${position}].receipt`, 1),
    leaf_hash: checkHash32(leaf.leaf_hash, `leaves[${position}].leaf_hash`),
  }));
  if (checked.length === 0) return [];
  const node = tlogNodeSource(database, tenant);
  let size = tlogSize(database, tenant);
  return checked.map((leaf) => {
    const logged = queryOne<{ leaf_index: number }>(database, tlogQueries.leafOfReceipt(tenant, leaf.receipt));
    if (logged !== undefined) return logged.leaf_index;
    const index = size;
    execute(database, tlogQueries.insertLeaf(tenant, index, leaf.leaf_hash, leaf.receipt));
    for (const completed of tlogCompletedNodes(sha256, index, leaf.leaf_hash, node)) {
      execute(database, tlogQueries.insertNode(tenant, completed.level, completed.index, completed.hash));
    }
    size += 1;
    return index;
  });
}

function nodeSha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

/**
 * Appends to each tenant's log the receipts stored for it (source `service`, ref `tenant:<id>`)
 * that it does not hold yet, in the order of their ledger rows (migration 11).
 *
 * @returns leaves appended
 */
export function backfillTenantLogs(database: WritableDB): number {
  const rows = queryAll<{ tenant: string; receipt: number; raw: Uint8Array }>(
    database,
    sql`SELECT t.id AS tenant, r.id AS receipt, r.raw AS raw
        FROM receipt_sources s
        JOIN tenants t ON s.ref = 'tenant:' || t.id
        JOIN receipts r ON r.id = s.receipt
        WHERE s.kind = 'service'
          AND NOT EXISTS (SELECT 1 FROM tlog_leaves l WHERE l.tenant_id = t.id AND l.receipt_id = r.id)
        ORDER BY r.id`,
  );
  for (const row of rows) {
    appendTlogLeaves(database, nodeSha256, row.tenant, [
      { receipt: row.receipt, leaf_hash: tlogLeafHash(nodeSha256, plainBytes(row.raw)) },
    ]);
  }
  return rows.length;
}

/**
 * Leaves [from, to) of a tenant's log with their receipts, in index order.
 *
 * @throws RangeError when from > to
 */
export function listTlogLeaves(database: ReadableDB, tenantId: string, from: number, to: number): TlogLeafRecord[] {
  const tenant = checkTenantId(tenantId);
  checkInteger(from, 'from');
  checkInteger(to, 'to');
  if (from > to) throw new RangeError('from must not be after to');
  return queryAll<TlogLeafRecord>(
    database,
    sql`SELECT l.leaf_index, l.leaf_hash, l.receipt_id AS receipt, r.receipt_sha256, r.issued_at
        FROM tlog_leaves l JOIN receipts r ON r.id = l.receipt_id
        WHERE l.tenant_id = ${tenant} AND l.leaf_index >= ${from} AND l.leaf_index < ${to}
        ORDER BY l.leaf_index`,
  ).map((row) => ({ ...row, leaf_hash: plainBytes(row.leaf_hash) }));
}

// The receipts' issued time as idx_receipts_issued orders it: coalesce(issued_at, -1).
const NO_LATER_BOUND = Number.MAX_SAFE_INTEGER;

/**
 * The receipts' ledger rows of leaves [from, to) of a tenant's log, in index order (leaner than
 * {@link listTlogLeaves}: one read of the log's rows, no join).
 *
 * @throws RangeError when from > to
 */
export function listTlogReceiptRows(database: ReadableDB, tenantId: string, from: number, to: number): number[] {
  const tenant = checkTenantId(tenantId);
  checkInteger(from, 'from');
  checkInteger(to, 'to');
  if (from > to) throw new RangeError('from must not be after to');
  return queryAll<{ receipt: number }>(
    database,
    sql`SELECT receipt_id AS receipt FROM tlog_leaves
        WHERE tenant_id = ${tenant} AND leaf_index >= ${from} AND leaf_index < ${to} ORDER BY leaf_index`,
  ).map((row) => row.receipt);
}

/**
 * The receipts' JCS SHA-256 (hex) of leaves [from, to) of a tenant's log, by leaf index.
 *
 * @throws RangeError when from > to
 */
export function listTlogReceiptSha256(
  database: ReadableDB,
  tenantId: string,
  from: number,
  to: number,
): { leaf_index: number; receipt_sha256: string }[] {
  const tenant = checkTenantId(tenantId);
  checkInteger(from, 'from');
  checkInteger(to, 'to');
  if (from > to) throw new RangeError('from must not be after to');
  return queryAll<{ leaf_index: number; receipt_sha256: string }>(
    database,
    sql`SELECT l.leaf_index, r.receipt_sha256
        FROM tlog_leaves l JOIN receipts r ON r.id = l.receipt_id
        WHERE l.tenant_id = ${tenant} AND l.leaf_index >= ${from} AND l.leaf_index < ${to}
        ORDER BY l.leaf_index`,
  );
}

/**
 * The first and last index, below `size`, of the leaves whose receipts were issued in
 * [since, until) (either bound absent: open; a receipt without an issued time is in the period
 * only when both are); null when none was.
 *
 * Exact whatever the order of the issued times along the log: the period's receipts are read
 * through the receipts' issued-time index (idx_receipts_issued) and each probed in the log
 * (idx_tlog_leaves_receipt), so the cost is the receipts issued in the period (of every
 * source), not the log's size; with both bounds open the answer is the whole log.
 */
export function tlogPeriodIndices(
  database: ReadableDB,
  tenantId: string,
  size: number,
  period: { since: number | null; until: number | null },
): { first: number; last: number } | null {
  const tenant = checkTenantId(tenantId);
  checkInteger(size, 'size');
  const since = period.since === null ? null : checkInteger(period.since, 'since', Number.MIN_SAFE_INTEGER);
  const until = period.until === null ? null : checkInteger(period.until, 'until', Number.MIN_SAFE_INTEGER);
  if (since === null && until === null) {
    const logged = Math.min(size, tlogSize(database, tenant));
    return logged === 0 ? null : { first: 0, last: logged - 1 };
  }
  // issued_at >= since (or >= 0: a bounded period never holds a receipt without a time).
  const low = Math.max(since ?? 0, 0);
  const high = until ?? NO_LATER_BOUND;
  if (high <= low) return null;
  const row = queryOne<{ first: number | null; last: number | null }>(
    database,
    tlogQueries.periodEdges(tenant, size, low, high),
  );
  if (row === undefined || row.first === null || row.last === null) return null;
  return { first: row.first, last: row.last };
}

/**
 * The last index, below `size`, of a leaf whose receipt was issued before `before`; null when none
 * was (the boundary before an empty period).
 *
 * Read backwards through the issued-time index to the newest such receipt of the log, then
 * checked forward from its leaf: exact for any order of issued times, and in a log whose
 * times follow its order the check reads only the leaves after the answer.
 */
export function tlogLastIndexBefore(
  database: ReadableDB,
  tenantId: string,
  size: number,
  before: number,
): number | null {
  const tenant = checkTenantId(tenantId);
  checkInteger(size, 'size');
  checkInteger(before, 'before', Number.MIN_SAFE_INTEGER);
  if (before <= 0) return null;
  const newest = queryOne<{ leaf_index: number }>(database, tlogQueries.newestBefore(tenant, size, before));
  if (newest === undefined) return null;
  const later = queryOne<{ last: number | null }>(
    database,
    tlogQueries.lastBeforeAfter(tenant, size, before, newest.leaf_index),
  );
  return later?.last ?? newest.leaf_index;
}

/**
 * The complete nodes [from, to) of one level of a tenant's log (level 0: the leaf hashes), in
 * index order, read in one range query; shorter when the log has fewer.
 *
 * @throws RangeError for a level outside 0..62 or from > to
 */
export function readTlogNodes(
  database: ReadableDB,
  tenantId: string,
  level: number,
  from: number,
  to: number,
): { index: number; hash: Uint8Array }[] {
  const tenant = checkTenantId(tenantId);
  checkInteger(level, 'level', 0, 62);
  checkInteger(from, 'from');
  checkInteger(to, 'to');
  if (from > to) throw new RangeError('from must not be after to');
  const rows =
    level === 0
      ? queryAll<{ index: number; hash: Uint8Array }>(database, tlogQueries.leafRange(tenant, from, to))
      : queryAll<{ index: number; hash: Uint8Array }>(database, tlogQueries.nodeRange(tenant, level, from, to));
  return rows;
}

interface CheckpointRow {
  tenant_id: string;
  tree_size: number;
  root: Uint8Array;
  note: string;
  signed_at: number;
}

function toCheckpoint(row: CheckpointRow): TlogCheckpointRecord {
  return { ...row, root: plainBytes(row.root) };
}

/**
 * Stores a signed checkpoint. A size is signed once: the same size again with the same root
 * stores nothing and returns the stored one; with another root it is refused.
 *
 * @returns The checkpoint stored at this size.
 * @throws LedgerError `constraint` for a second root at one size or an unknown tenant
 */
export function insertTlogCheckpoint(
  database: WritableDB,
  checkpoint: { tenant_id: string; tree_size: number; root: Uint8Array; note: string; signed_at?: number },
): TlogCheckpointRecord {
  const tenant = checkTenantId(checkpoint.tenant_id);
  const size = checkInteger(checkpoint.tree_size, 'tree_size');
  const root = checkHash32(checkpoint.root, 'root');
  const note = checkText(checkpoint.note, 'note', MAX_TLOG_NOTE_LENGTH);
  const at = checkInstant(checkpoint.signed_at, 'signed_at');
  const existing = getTlogCheckpoint(database, tenant, size);
  if (existing !== undefined) {
    if (Buffer.compare(Buffer.from(existing.root), Buffer.from(root)) !== 0) {
      throw new LedgerError(
        'constraint',
        `The log of ${tenant} has a checkpoint at size ${size} with another root; a size is signed once.`,
      );
    }
    return existing;
  }
  execute(
    database,
    sql`INSERT INTO tlog_checkpoints (tenant_id, tree_size, root, note, signed_at)
        VALUES (${tenant}, ${size}, ${root}, ${note}, ${at})`,
  );
  return { tenant_id: tenant, tree_size: size, root: root.slice(), note, signed_at: at };
}

/** The checkpoint of a tenant's log at `size`, if one was signed. */
export function getTlogCheckpoint(
  database: ReadableDB,
  tenantId: string,
  size: number,
): TlogCheckpointRecord | undefined {
  const tenant = checkTenantId(tenantId);
  checkInteger(size, 'size');
  const row = queryOne<CheckpointRow>(
    database,
    sql`SELECT tenant_id, tree_size, root, note, signed_at FROM tlog_checkpoints
        WHERE tenant_id = ${tenant} AND tree_size = ${size}`,
  );
  return row === undefined ? undefined : toCheckpoint(row);
}

/** The newest (largest) checkpoint of a tenant's log, if any. */
export function latestTlogCheckpoint(database: ReadableDB, tenantId: string): TlogCheckpointRecord | undefined {
  const tenant = checkTenantId(tenantId);
  const row = queryOne<CheckpointRow>(
    database,
    sql`SELECT tenant_id, tree_size, root, note, signed_at FROM tlog_checkpoints
        WHERE tenant_id = ${tenant} ORDER BY tree_size DESC LIMIT 1`,
  );
  return row === undefined ? undefined : toCheckpoint(row);
}

/**
 * The checkpoint signed last, of any tenant's log (the latest `signed_at`), if any: it bears the
 * name the service signs under now. A scan of the checkpoints, for the rare caller that needs
 * that name for a log with no checkpoint of its own; never on a request's path.
 */
export function lastSignedTlogCheckpoint(database: ReadableDB): TlogCheckpointRecord | undefined {
  const row = queryOne<CheckpointRow>(
    database,
    sql`SELECT tenant_id, tree_size, root, note, signed_at FROM tlog_checkpoints
        ORDER BY signed_at DESC, tenant_id, tree_size DESC LIMIT 1`,
  );
  return row === undefined ? undefined : toCheckpoint(row);
}

/** Every checkpoint of a tenant's log, smallest first. */
export function listTlogCheckpoints(database: ReadableDB, tenantId: string): TlogCheckpointRecord[] {
  const tenant = checkTenantId(tenantId);
  return queryAll<CheckpointRow>(
    database,
    sql`SELECT tenant_id, tree_size, root, note, signed_at FROM tlog_checkpoints
        WHERE tenant_id = ${tenant} ORDER BY tree_size`,
  ).map(toCheckpoint);
}

/**
 * The tenants whose log has grown past its newest checkpoint (or has none yet, when
 * `unsigned` is true), with their sizes.
 */
export function tlogsToSign(
  database: ReadableDB,
  options: { unsigned?: boolean } = {},
): { tenant_id: string; size: number; signed: number | null }[] {
  const rows = queryAll<{ tenant_id: string; size: number | null; signed: number | null }>(
    database,
    sql`SELECT t.id AS tenant_id,
          (SELECT l.leaf_index + 1 FROM tlog_leaves l WHERE l.tenant_id = t.id ORDER BY l.leaf_index DESC LIMIT 1) AS size,
          (SELECT c.tree_size FROM tlog_checkpoints c WHERE c.tenant_id = t.id ORDER BY c.tree_size DESC LIMIT 1) AS signed
        FROM tenants t ORDER BY t.id`,
  );
  return rows
    .map((row) => ({ tenant_id: row.tenant_id, size: row.size ?? 0, signed: row.signed }))
    .filter((row) => (row.signed === null ? row.size > 0 || options.unsigned === true : row.size > row.signed));
}

/**
 * Stores a witness's cosignature line for a checkpoint: one per key (a key that cosigns again
 * replaces its line), at most {@link MAX_TLOG_COSIGNATURES} keys per checkpoint.
 *
 * @returns `stored`, `replaced`, or `full` (a new key beyond the limit: nothing stored)
 * @throws LedgerError `constraint` when no checkpoint was signed at this size
 */
export function insertTlogCosignature(
  database: WritableDB,
  cosignature: {
    tenant_id: string;
    tree_size: number;
    key_name: string;
    key_id: number;
    line: string;
    received_at?: number;
  },
): 'stored' | 'replaced' | 'full' {
  const tenant = checkTenantId(cosignature.tenant_id);
  const size = checkInteger(cosignature.tree_size, 'tree_size');
  const name = checkText(cosignature.key_name, 'key_name', 1024);
  const keyId = checkInteger(cosignature.key_id, 'key_id', 0, 0xffff_ffff);
  const line = checkText(cosignature.line, 'line', 2048);
  const at = checkInstant(cosignature.received_at, 'received_at');
  const replaced = execute(
    database,
    sql`UPDATE tlog_cosignatures SET line = ${line}, received_at = ${at}
        WHERE tenant_id = ${tenant} AND tree_size = ${size} AND key_name = ${name} AND key_id = ${keyId}`,
  );
  if (replaced.changes === 1) return 'replaced';
  const count =
    queryOne<{ n: number }>(
      database,
      sql`SELECT count(*) AS n FROM tlog_cosignatures WHERE tenant_id = ${tenant} AND tree_size = ${size}`,
    )?.n ?? 0;
  if (count >= MAX_TLOG_COSIGNATURES) return 'full';
  execute(
    database,
    sql`INSERT INTO tlog_cosignatures (tenant_id, tree_size, key_name, key_id, line, received_at)
        VALUES (${tenant}, ${size}, ${name}, ${keyId}, ${line}, ${at})`,
  );
  return 'stored';
}

/** The cosignature lines of a checkpoint, in the order they were first received. */
export function listTlogCosignatures(database: ReadableDB, tenantId: string, size: number): TlogCosignatureRecord[] {
  const tenant = checkTenantId(tenantId);
  checkInteger(size, 'size');
  return queryAll<TlogCosignatureRecord>(
    database,
    sql`SELECT key_name, key_id, line, received_at FROM tlog_cosignatures
        WHERE tenant_id = ${tenant} AND tree_size = ${size} ORDER BY rowid`,
  );
}
