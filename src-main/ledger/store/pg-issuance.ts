/**
 * The PostgreSQL adapter of issuance.ts: any number of service nodes on one database.
 *
 * A group commit is one read-committed transaction (pg-migrations/0003-issuance.ts):
 * - each item's quota is consumed by one upsert that adds 1 only while `used < limit`, so a quota
 *   is exact whichever node counts it (no row back: used up); the items of one quota in a batch
 *   are counted by one such upsert adding them all while the quota has room for all (else one by
 *   one); items are counted in the order of their quota subject (and, within one, of the batch),
 *   so two nodes' transactions lock quota rows in one order;
 * - its nonce is inserted with ON CONFLICT DO NOTHING (no row: used before, by any node; the
 *   quota it took is given back in the same transaction);
 * - the accepted rows go into issued_receipts in one statement;
 * - each tenant's leaves are appended under a transaction-scoped advisory lock of that tenant
 *   (taken in tenant order), the next index read after the lock, so leaves stay contiguous across
 *   nodes and a batch's leaves follow its order.
 * A row the database refuses fails the transaction; it is then run again with each item in a
 * savepoint of its own, so only that item is refused (`failed`).
 */
import {
  tlogCompletedNodes,
  tlogConsistencyProof,
  tlogInclusionProof,
  tlogRoot,
  type TlogNodeSource,
} from '../../../src-shared/crypto/tlog';
import { checkHash32, checkHex64, checkInteger, checkTenantId, checkText, plainBytes } from '../checks';
import { LedgerError } from '../errors';
import { MAX_TLOG_COSIGNATURES, MAX_TLOG_NOTE_LENGTH } from '../tlog';
import type { PgStoreDeps } from './deps';
import { StoreUnavailableError } from './errors';
import type {
  IssuanceStore,
  IssueItem,
  IssueOutcome,
  TlogCheckpointRecord,
  TlogCosignatureRecord,
  TlogToSign,
} from './issuance';
import type { PgReader, PgWriter } from './pg-pool';

type Outcome = IssueOutcome;

/** BYTEA parameters go as Buffers (node-postgres escapes those, in arrays too). */
function buffer(value: Uint8Array): Buffer {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** BIGINT comes back as a string (or a number, when the pool parses it): a safe integer. */
function int(value: unknown): number {
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(number)) throw new RangeError(`not a safe integer: ${String(value)}`);
  return number;
}

/** An integrity violation (class 23: unique, foreign key, check) as the SQLite adapter words it. */
function asLedgerError(error: unknown, doing: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('23'))
    return new LedgerError('constraint', `${doing}: ${(error as Error).message}`, { cause: error });
  return error;
}

/** A deadlock or serialization failure: the pool runs the transaction again. */
function isRetried(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

function key(level: number, index: number): string {
  return `${level}/${index}`;
}

/** The complete nodes a computation over a log reads (they depend on sizes, never on hashes). */
function nodesRead(run: (node: TlogNodeSource) => unknown): { level: number; index: number }[] {
  const wanted = new Map<string, { level: number; index: number }>();
  const zero = new Uint8Array(32);
  run((level, index) => {
    wanted.set(key(level, index), { level, index });
    return zero;
  });
  return [...wanted.values()];
}

/** Reads the given complete nodes of a tenant's log (level 0: the leaves) in one query. */
async function readNodes(
  reader: PgReader,
  tenant: string,
  wanted: readonly { level: number; index: number }[],
): Promise<Map<string, Uint8Array>> {
  const found = new Map<string, Uint8Array>();
  if (wanted.length === 0) return found;
  const leaves = wanted.filter((node) => node.level === 0).map((node) => node.index);
  const inner = wanted.filter((node) => node.level > 0);
  const { rows } = await reader.query<{ level: unknown; node_index: unknown; hash: Uint8Array }>(
    `SELECT 0 AS level, leaf_index AS node_index, leaf_hash AS hash FROM tlog_leaves
     WHERE tenant_id = $1 AND leaf_index = ANY($2::bigint[])
     UNION ALL
     SELECT n.level, n.node_index, n.hash FROM tlog_nodes n
     JOIN unnest($3::bigint[], $4::bigint[]) AS w (level, node_index)
       ON n.level = w.level AND n.node_index = w.node_index
     WHERE n.tenant_id = $1`,
    [tenant, leaves, inner.map((node) => node.level), inner.map((node) => node.index)],
  );
  for (const row of rows) found.set(key(int(row.level), int(row.node_index)), plainBytes(row.hash));
  return found;
}

/** A node source over nodes read beforehand; an unknown node throws (a proof asked beyond the log). */
function sourceOf(tenant: string, nodes: Map<string, Uint8Array>): TlogNodeSource {
  return (level, index) => {
    const hash = nodes.get(key(level, index));
    if (hash === undefined) throw new RangeError(`the log of ${tenant} has no node (${level}, ${index})`);
    return hash;
  };
}

/** Runs a computation over a tenant's log: the nodes it reads are read first, in one go. */
async function overLog<T>(reader: PgReader, tenant: string, run: (node: TlogNodeSource) => T): Promise<T> {
  const nodes = await readNodes(reader, tenant, nodesRead(run));
  return run(sourceOf(tenant, nodes));
}

async function logSize(reader: PgReader, tenant: string): Promise<number> {
  const { rows } = await reader.query<{ leaf_index: unknown }>(
    'SELECT leaf_index FROM tlog_leaves WHERE tenant_id = $1 ORDER BY leaf_index DESC LIMIT 1',
    [tenant],
  );
  const row = rows[0];
  return row === undefined ? 0 : int(row.leaf_index) + 1;
}

interface CheckpointRow {
  tenant_id: string;
  tree_size: unknown;
  root: Uint8Array;
  note: string;
  signed_at: unknown;
}

const CHECKPOINT_COLUMNS = 'tenant_id, tree_size, root, note, signed_at';

function toCheckpoint(row: CheckpointRow): TlogCheckpointRecord {
  return {
    tenant_id: row.tenant_id,
    tree_size: int(row.tree_size),
    root: plainBytes(row.root),
    note: row.note,
    signed_at: int(row.signed_at),
  };
}

async function checkpointAt(reader: PgReader, tenant: string, size: number): Promise<TlogCheckpointRecord | undefined> {
  const { rows } = await reader.query<CheckpointRow>(
    `SELECT ${CHECKPOINT_COLUMNS} FROM tlog_checkpoints WHERE tenant_id = $1 AND tree_size = $2`,
    [tenant, size],
  );
  return rows[0] === undefined ? undefined : toCheckpoint(rows[0]);
}

async function newestCheckpoint(reader: PgReader, tenant: string): Promise<TlogCheckpointRecord | undefined> {
  const { rows } = await reader.query<CheckpointRow>(
    `SELECT ${CHECKPOINT_COLUMNS} FROM tlog_checkpoints WHERE tenant_id = $1 ORDER BY tree_size DESC LIMIT 1`,
    [tenant],
  );
  return rows[0] === undefined ? undefined : toCheckpoint(rows[0]);
}

/** Checks what the SQLite ledger checks of an item, so that both refuse the same input. */
function checkItem(item: IssueItem): void {
  const { row } = item;
  checkHex64(row.receipt_sha256, 'receipt_sha256');
  if (!(row.raw instanceof Uint8Array)) throw new TypeError('raw must be a Uint8Array');
  checkText(row.ref, 'ref', 1024);
  if (row.issued_at !== null) checkInteger(row.issued_at, 'issued_at', Number.MIN_SAFE_INTEGER);
  if (item.quota !== undefined) {
    checkText(item.quota.subject, 'subject', 256);
    checkText(item.quota.period, 'period', 10);
    checkInteger(item.quota.limit, 'limit', 0);
  }
  if (item.nonce !== undefined) {
    checkHex64(item.nonce.device_id_commitment_sha256, 'device_id_commitment_sha256');
    checkText(item.nonce.observation_nonce, 'observation_nonce', 256);
    checkInteger(item.nonce.at, 'at');
  }
  if (item.leaf !== undefined) {
    checkTenantId(item.leaf.tenant);
    checkHash32(item.leaf.hash, 'leaf hash');
  }
}

/** Consumes one use of a quota: the uses after it, or undefined when it is used up. */
async function consumeQuota(writer: PgWriter, quota: NonNullable<IssueItem['quota']>): Promise<number | undefined> {
  const { rows } = await writer.query<{ used: unknown }>(
    `INSERT INTO quota_usage (subject, period, used) SELECT $1, $2, 1 WHERE $3::bigint >= 1
     ON CONFLICT (subject, period) DO UPDATE SET used = quota_usage.used + 1 WHERE quota_usage.used < $3::bigint
     RETURNING used`,
    [quota.subject, quota.period, quota.limit],
  );
  return rows[0] === undefined ? undefined : int(rows[0].used);
}

async function giveBackQuota(writer: PgWriter, quota: NonNullable<IssueItem['quota']>): Promise<void> {
  await writer.query('UPDATE quota_usage SET used = used - 1 WHERE subject = $1 AND period = $2 AND used > 0', [
    quota.subject,
    quota.period,
  ]);
}

/** Records a nonce as used: false when it was used before (nothing recorded). */
async function useNonce(writer: PgWriter, item: IssueItem): Promise<boolean> {
  const nonce = item.nonce;
  if (nonce === undefined) return true;
  const result = await writer.query(
    `INSERT INTO wearable_nonces (device_id_commitment_sha256, observation_nonce, receipt_sha256, used_at)
     VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [nonce.device_id_commitment_sha256, nonce.observation_nonce, item.row.receipt_sha256, nonce.at],
  );
  return result.rowCount === 1;
}

/** An item's checks: its quota use, or its refusal (having written nothing). */
async function checkUse(
  writer: PgWriter,
  item: IssueItem,
): Promise<{ ok: true; quotaUsed: number | undefined } | { ok: false; reason: 'quota_exceeded' | 'nonce_reused' }> {
  let quotaUsed: number | undefined;
  if (item.quota !== undefined) {
    quotaUsed = await consumeQuota(writer, item.quota);
    if (quotaUsed === undefined) return { ok: false, reason: 'quota_exceeded' };
  }
  if (!(await useNonce(writer, item))) {
    if (item.quota !== undefined) await giveBackQuota(writer, item.quota);
    return { ok: false, reason: 'nonce_reused' };
  }
  return { ok: true, quotaUsed };
}

/**
 * Stores the rows (one statement): each one's id, the existing row's for a receipt stored before
 * (then `created` is false).
 */
async function insertRows(
  writer: PgWriter,
  items: readonly IssueItem[],
  at: number,
): Promise<{ id: number; created: boolean }[]> {
  if (items.length === 0) return [];
  const rows = items.map((item) => item.row);
  const inserted = await writer.query<{ id: unknown; receipt_sha256: string }>(
    `INSERT INTO issued_receipts (receipt_sha256, raw, ref, format, status, report_json, receipt_id, issued_at,
                                  issuer_key_id, stored_at)
     SELECT r.*, $10::bigint FROM unnest($1::text[], $2::bytea[], $3::text[], $4::text[], $5::text[], $6::text[],
                                         $7::text[], $8::bigint[], $9::text[])
       AS r (receipt_sha256, raw, ref, format, status, report_json, receipt_id, issued_at, issuer_key_id)
     ON CONFLICT (receipt_sha256) DO NOTHING
     RETURNING id, receipt_sha256`,
    [
      rows.map((row) => row.receipt_sha256),
      rows.map((row) => buffer(row.raw)),
      rows.map((row) => row.ref),
      rows.map((row) => row.report.format),
      rows.map((row) => row.report.status),
      rows.map((row) => row.report.json),
      rows.map((row) => row.receipt_id),
      rows.map((row) => row.issued_at),
      rows.map((row) => row.issuer_key_id),
      at,
    ],
  );
  const ids = new Map(inserted.rows.map((row) => [row.receipt_sha256, int(row.id)]));
  const created = new Set(ids.keys());
  const missing = rows.filter((row) => !ids.has(row.receipt_sha256)).map((row) => row.receipt_sha256);
  if (missing.length > 0) {
    const existing = await writer.query<{ id: unknown; receipt_sha256: string }>(
      'SELECT id, receipt_sha256 FROM issued_receipts WHERE receipt_sha256 = ANY($1::text[])',
      [missing],
    );
    for (const row of existing.rows) ids.set(row.receipt_sha256, int(row.id));
  }
  return rows.map((row) => {
    const id = ids.get(row.receipt_sha256);
    if (id === undefined) throw new Error('the receipt was not stored');
    // A second copy in one batch is not created again.
    const fresh = created.delete(row.receipt_sha256);
    return { id, created: fresh };
  });
}

/**
 * Appends leaves to a tenant's log, in order, with the complete nodes they complete, under the
 * tenant's lock (held to the end of the transaction): the size is read after the lock, so two
 * nodes' appends never share an index nor leave a gap. A receipt already in the log is skipped.
 */
async function appendLeaves(
  writer: PgWriter,
  sha256: (bytes: Uint8Array) => Uint8Array,
  tenant: string,
  leaves: readonly { receipt: number; hash: Uint8Array; created: boolean }[],
): Promise<void> {
  if (leaves.length === 0) return;
  await writer.query("SELECT pg_advisory_xact_lock(hashtext('tlog:' || $1))", [tenant]);
  const size = await logSize(writer, tenant);
  // Only a receipt stored before may be in the log already.
  const old = leaves.filter((leaf) => !leaf.created).map((leaf) => leaf.receipt);
  const logged =
    old.length === 0
      ? []
      : (
          await writer.query<{ receipt_id: unknown }>(
            'SELECT receipt_id FROM tlog_leaves WHERE tenant_id = $1 AND receipt_id = ANY($2::bigint[])',
            [tenant, old],
          )
        ).rows;
  const skip = new Set(logged.map((row) => int(row.receipt_id)));
  // The right edge of the tree at `size`: the only old nodes an append reads.
  const nodes =
    size === 0
      ? new Map<string, Uint8Array>()
      : await readNodes(
          writer,
          tenant,
          nodesRead((node) => tlogRoot(sha256, size, node)),
        );
  const node = sourceOf(tenant, nodes);
  const newLeaves: { index: number; hash: Uint8Array; receipt: number }[] = [];
  const newNodes: { level: number; index: number; hash: Uint8Array }[] = [];
  let next = size;
  for (const leaf of leaves) {
    if (skip.has(leaf.receipt)) continue;
    skip.add(leaf.receipt);
    for (const completed of tlogCompletedNodes(sha256, next, leaf.hash, node)) {
      newNodes.push(completed);
      nodes.set(key(completed.level, completed.index), completed.hash);
    }
    nodes.set(key(0, next), leaf.hash);
    newLeaves.push({ index: next, hash: leaf.hash, receipt: leaf.receipt });
    next += 1;
  }
  if (newLeaves.length === 0) return;
  await writer.query(
    `INSERT INTO tlog_leaves (tenant_id, leaf_index, leaf_hash, receipt_id)
     SELECT $1, l.leaf_index, l.leaf_hash, l.receipt_id
     FROM unnest($2::bigint[], $3::bytea[], $4::bigint[]) AS l (leaf_index, leaf_hash, receipt_id)`,
    [
      tenant,
      newLeaves.map((leaf) => leaf.index),
      newLeaves.map((leaf) => buffer(leaf.hash)),
      newLeaves.map((leaf) => leaf.receipt),
    ],
  );
  if (newNodes.length > 0)
    await writer.query(
      `INSERT INTO tlog_nodes (tenant_id, level, node_index, hash)
       SELECT $1, n.level, n.node_index, n.hash FROM unnest($2::bigint[], $3::bigint[], $4::bytea[]) AS n (level, node_index, hash)`,
      [
        tenant,
        newNodes.map((entry) => entry.level),
        newNodes.map((entry) => entry.index),
        newNodes.map((entry) => buffer(entry.hash)),
      ],
    );
}

/**
 * The items in the order they are counted: by quota subject and period (one lock order for every
 * node), else as given; in runs that one statement may count together (one quota, no nonces).
 */
function countingRuns(items: readonly IssueItem[]): number[][] {
  const quotaKey = (item: IssueItem): string =>
    item.quota === undefined ? '\uffff' : `${item.quota.subject}\u0000${item.quota.period}\u0000${item.quota.limit}`;
  const order = items
    .map((_, index) => index)
    .sort((a, b) => {
      const left = quotaKey(items[a] as IssueItem);
      const right = quotaKey(items[b] as IssueItem);
      return left < right ? -1 : left > right ? 1 : a - b;
    });
  const runs: number[][] = [];
  let run: number[] = [];
  let runKey: string | undefined;
  for (const index of order) {
    const item = items[index] as IssueItem;
    const together = item.quota !== undefined && item.nonce === undefined;
    const itemKey = together ? quotaKey(item) : undefined;
    if (itemKey === undefined || itemKey !== runKey) {
      if (run.length > 0) runs.push(run);
      run = [];
    }
    run.push(index);
    runKey = itemKey;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * Consumes `count` uses of a quota at once, all or none, in one upsert (exact across nodes): the
 * uses after them, or undefined when fewer than `count` are left.
 */
async function consumeQuotaRun(
  writer: PgWriter,
  quota: NonNullable<IssueItem['quota']>,
  count: number,
): Promise<number | undefined> {
  const { rows } = await writer.query<{ used: unknown }>(
    `INSERT INTO quota_usage (subject, period, used) SELECT $1, $2, $4::bigint WHERE $4::bigint <= $3::bigint
     ON CONFLICT (subject, period) DO UPDATE SET used = quota_usage.used + $4::bigint
       WHERE quota_usage.used + $4::bigint <= $3::bigint
     RETURNING used`,
    [quota.subject, quota.period, quota.limit, count],
  );
  return rows[0] === undefined ? undefined : int(rows[0].used);
}

/** The issuance domain on PostgreSQL. */
export function pgIssuance(deps: PgStoreDeps): IssuanceStore {
  const { pool, sha256 } = deps;

  /** The whole batch in one transaction, no savepoints: throws when the database refuses a row. */
  const commitTogether = (items: readonly IssueItem[]): Promise<Outcome[]> =>
    pool.write(async (writer) => {
      const outcomes: Outcome[] = items.map(() => ({ stored: true, id: 0 }));
      for (const run of countingRuns(items)) {
        // A run of one quota's items is counted by one statement while the quota has room for
        // all of them; else (at its edge) one by one, as a run of one.
        const quota = (items[run[0] as number] as IssueItem).quota;
        const used =
          run.length > 1 && quota !== undefined ? await consumeQuotaRun(writer, quota, run.length) : undefined;
        if (used !== undefined) {
          run.forEach((index, position) => {
            outcomes[index] = { stored: true, id: 0, quotaUsed: used - run.length + position + 1 };
          });
          continue;
        }
        for (const index of run) {
          const checked = await checkUse(writer, items[index] as IssueItem);
          outcomes[index] = checked.ok
            ? { stored: true, id: 0, ...(checked.quotaUsed === undefined ? {} : { quotaUsed: checked.quotaUsed }) }
            : { stored: false, reason: checked.reason };
        }
      }
      const accepted = items.flatMap((item, index) => (outcomes[index]?.stored === true ? [index] : []));
      const ids = await insertRows(
        writer,
        accepted.map((index) => items[index] as IssueItem),
        Date.now(),
      );
      const byTenant = new Map<string, { receipt: number; hash: Uint8Array; created: boolean }[]>();
      accepted.forEach((index, position) => {
        const outcome = outcomes[index];
        const row = ids[position];
        if (row === undefined) throw new Error('the receipt was not stored');
        if (outcome?.stored === true) outcome.id = row.id;
        const leaf = (items[index] as IssueItem).leaf;
        if (leaf === undefined) return;
        const list = byTenant.get(leaf.tenant) ?? [];
        list.push({ receipt: row.id, hash: leaf.hash, created: row.created });
        byTenant.set(leaf.tenant, list);
      });
      // Tenants in one order on every node, so two batches never wait on each other's locks.
      for (const tenant of [...byTenant.keys()].sort()) {
        await appendLeaves(writer, sha256, tenant, byTenant.get(tenant) ?? []);
      }
      return outcomes;
    });

  /** Each item in a savepoint of its own: only the one the database refuses fails. */
  const commitOneByOne = (items: readonly IssueItem[]): Promise<Outcome[]> =>
    pool.write(async (writer) => {
      const outcomes: Outcome[] = [];
      for (const item of items) {
        await writer.query('SAVEPOINT issue_item');
        try {
          checkItem(item);
          const checked = await checkUse(writer, item);
          if (!checked.ok) {
            outcomes.push({ stored: false, reason: checked.reason });
          } else {
            const [row] = await insertRows(writer, [item], Date.now());
            if (row === undefined) throw new Error('the receipt was not stored');
            if (item.leaf !== undefined)
              await appendLeaves(writer, sha256, item.leaf.tenant, [
                { receipt: row.id, hash: item.leaf.hash, created: row.created },
              ]);
            outcomes.push({
              stored: true,
              id: row.id,
              ...(checked.quotaUsed === undefined ? {} : { quotaUsed: checked.quotaUsed }),
            });
          }
          await writer.query('RELEASE SAVEPOINT issue_item');
        } catch (error) {
          // The database down, a deadlock, a serialization failure: the whole transaction goes
          // (and the pool runs it again, or refuses the batch); anything else refuses this item.
          if (error instanceof StoreUnavailableError || isRetried(error)) throw error;
          await writer.query('ROLLBACK TO SAVEPOINT issue_item');
          await writer.query('RELEASE SAVEPOINT issue_item');
          outcomes.push({
            stored: false,
            reason: 'failed',
            detail: error instanceof Error ? error.message : String(error),
          });
        }
      }
      return outcomes;
    });

  return {
    async commit(items) {
      if (items.length === 0) return [];
      try {
        for (const item of items) checkItem(item);
        return await commitTogether(items);
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        return commitOneByOne(items);
      }
    },
    issued: async (receiptSha256) => {
      const hash = checkHex64(receiptSha256, 'receiptSha256');
      return pool.read(async (reader) => {
        const { rows } = await reader.query<{
          receipt_sha256: string;
          raw: Uint8Array;
          format: string;
          status: string;
          report_json: string;
        }>('SELECT receipt_sha256, raw, format, status, report_json FROM issued_receipts WHERE receipt_sha256 = $1', [
          hash,
        ]);
        const row = rows[0];
        return row === undefined ? undefined : { ...row, raw: plainBytes(row.raw) };
      });
    },
    tlogSize: async (tenantId) => {
      const tenant = checkTenantId(tenantId);
      return pool.read((reader) => logSize(reader, tenant));
    },
    tlogsToSign: () =>
      pool.read(async (reader) => {
        const { rows } = await reader.query<{ tenant_id: string; size: unknown; signed: unknown }>(
          `SELECT t.id AS tenant_id,
             (SELECT l.leaf_index + 1 FROM tlog_leaves l WHERE l.tenant_id = t.id ORDER BY l.leaf_index DESC LIMIT 1) AS size,
             (SELECT c.tree_size FROM tlog_checkpoints c WHERE c.tenant_id = t.id ORDER BY c.tree_size DESC LIMIT 1) AS signed
           FROM tenants t ORDER BY t.id COLLATE "C"`,
        );
        return rows
          .map((row): TlogToSign => ({
            tenant_id: row.tenant_id,
            size: row.size === null ? 0 : int(row.size),
            signed: row.signed === null ? null : int(row.signed),
          }))
          .filter((row) => (row.signed === null ? row.size > 0 : row.size > row.signed));
      }),
    checkpointDue: async (tenantId, emptyToo) => {
      const tenant = checkTenantId(tenantId);
      return pool.read(async (reader) => {
        const size = await logSize(reader, tenant);
        const latest = await newestCheckpoint(reader, tenant);
        if (latest !== undefined ? latest.tree_size >= size : !emptyToo && size === 0)
          return { latest, due: undefined };
        const root = await overLog(reader, tenant, (node) => tlogRoot(sha256, size, node));
        return { latest, due: { size, root } };
      });
    },
    insertCheckpoint: async (checkpoint) => {
      const tenant = checkTenantId(checkpoint.tenant_id);
      const size = checkInteger(checkpoint.tree_size, 'tree_size');
      const root = checkHash32(checkpoint.root, 'root');
      const note = checkText(checkpoint.note, 'note', MAX_TLOG_NOTE_LENGTH);
      const at = checkInteger(checkpoint.signed_at, 'signed_at');
      return pool.write(async (writer) => {
        // Two nodes may sign one size at once: the first row stays, the second inserts nothing.
        let inserted;
        try {
          inserted = await writer.query(
            `INSERT INTO tlog_checkpoints (tenant_id, tree_size, root, note, signed_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (tenant_id, tree_size) DO NOTHING`,
            [tenant, size, buffer(root), note, at],
          );
        } catch (error) {
          throw asLedgerError(error, `keeping the checkpoint of ${tenant} at size ${size}`);
        }
        if (inserted.rowCount === 1)
          return { tenant_id: tenant, tree_size: size, root: root.slice(), note, signed_at: at };
        const existing = await checkpointAt(writer, tenant, size);
        if (existing === undefined) throw new Error('the checkpoint kept at this size disappeared');
        if (Buffer.compare(buffer(existing.root), buffer(root)) !== 0)
          throw new LedgerError(
            'constraint',
            `The log of ${tenant} has a checkpoint at size ${size} with another root; a size is signed once.`,
          );
        return existing;
      });
    },
    getCheckpoint: async (tenantId, size) => {
      const tenant = checkTenantId(tenantId);
      checkInteger(size, 'size');
      return pool.read((reader) => checkpointAt(reader, tenant, size));
    },
    latestCheckpoint: async (tenantId) => {
      const tenant = checkTenantId(tenantId);
      return pool.read((reader) => newestCheckpoint(reader, tenant));
    },
    lastSignedCheckpoint: async () =>
      pool.read(async (reader) => {
        const { rows } = await reader.query<CheckpointRow>(
          `SELECT ${CHECKPOINT_COLUMNS} FROM tlog_checkpoints ORDER BY signed_at DESC, tenant_id, tree_size DESC LIMIT 1`,
        );
        return rows[0] === undefined ? undefined : toCheckpoint(rows[0]);
      }),
    listCheckpoints: async (tenantId) => {
      const tenant = checkTenantId(tenantId);
      return pool.read(async (reader) => {
        const { rows } = await reader.query<CheckpointRow>(
          `SELECT ${CHECKPOINT_COLUMNS} FROM tlog_checkpoints WHERE tenant_id = $1 ORDER BY tree_size`,
          [tenant],
        );
        return rows.map(toCheckpoint);
      });
    },
    inclusionProof: async (tenantId, index, size) => {
      const tenant = checkTenantId(tenantId);
      return pool.read((reader) => overLog(reader, tenant, (node) => tlogInclusionProof(sha256, index, size, node)));
    },
    consistencyProof: async (tenantId, from, to) => {
      const tenant = checkTenantId(tenantId);
      return pool.read((reader) => overLog(reader, tenant, (node) => tlogConsistencyProof(sha256, from, to, node)));
    },
    addCosignature: async (cosignature) => {
      const tenant = checkTenantId(cosignature.tenant_id);
      const size = checkInteger(cosignature.tree_size, 'tree_size');
      const name = checkText(cosignature.key_name, 'key_name', 1024);
      const keyId = checkInteger(cosignature.key_id, 'key_id', 0, 0xffff_ffff);
      const line = checkText(cosignature.line, 'line', 2048);
      const at = checkInteger(cosignature.received_at, 'received_at');
      return pool.write(async (writer) => {
        // The checkpoint's row, locked: cosignatures of one checkpoint are counted one at a time,
        // whichever node receives them, so it never keeps more than the limit.
        const checkpoint = await writer.query(
          'SELECT 1 FROM tlog_checkpoints WHERE tenant_id = $1 AND tree_size = $2 FOR NO KEY UPDATE',
          [tenant, size],
        );
        if (checkpoint.rowCount === 0)
          throw new LedgerError('constraint', `The log of ${tenant} has no checkpoint at size ${size} to cosign.`);
        const replaced = await writer.query(
          `UPDATE tlog_cosignatures SET line = $5, received_at = $6
           WHERE tenant_id = $1 AND tree_size = $2 AND key_name = $3 AND key_id = $4`,
          [tenant, size, name, keyId, line, at],
        );
        if (replaced.rowCount === 1) return 'replaced';
        const { rows } = await writer.query<{ n: unknown }>(
          'SELECT count(*) AS n FROM tlog_cosignatures WHERE tenant_id = $1 AND tree_size = $2',
          [tenant, size],
        );
        if (int(rows[0]?.n ?? 0) >= MAX_TLOG_COSIGNATURES) return 'full';
        await writer.query(
          `INSERT INTO tlog_cosignatures (tenant_id, tree_size, key_name, key_id, line, received_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [tenant, size, name, keyId, line, at],
        );
        return 'stored';
      });
    },
    listCosignatures: async (tenantId, size) => {
      const tenant = checkTenantId(tenantId);
      checkInteger(size, 'size');
      return pool.read(async (reader) => {
        const { rows } = await reader.query<{ key_name: string; key_id: unknown; line: string; received_at: unknown }>(
          `SELECT key_name, key_id, line, received_at FROM tlog_cosignatures
           WHERE tenant_id = $1 AND tree_size = $2 ORDER BY position`,
          [tenant, size],
        );
        return rows.map((row): TlogCosignatureRecord => ({
          key_name: row.key_name,
          key_id: int(row.key_id),
          line: row.line,
          received_at: int(row.received_at),
        }));
      });
    },
  };
}
