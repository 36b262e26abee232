/**
 * The PostgreSQL adapter of evidence.ts: a tenant's evidence read in one read-only
 * repeatable-read transaction (`pool.read`), whichever node issued the receipts.
 *
 * It reads the issuance domain's tables (`issued_receipts`, the `tlog_*` tables of SQLite
 * migration 11) and the anchoring domain's `anchors`, and adds none. The statements are the
 * SQLite repositories' (src-main/ledger/tlog.ts), with one difference: a period's receipts are
 * found through `issued_receipts (ref, issued_at, id)` with `ref = 'tenant:<id>'` (the receipts the
 * issuance domain appends to tenant T's log are the ones it issues with that ref), so making a
 * period's evidence costs the receipts of the period, not the log's size.
 */
import {
  checkEvidenceHashes,
  checkEvidenceRange,
  checkEvidenceTenant,
  MAX_EVIDENCE_ANCHOR_HASHES,
  MAX_EVIDENCE_HASH_PAGE,
  MAX_EVIDENCE_PAGE,
  type EvidenceAnchor,
  type EvidenceReader,
  type EvidenceReceipt,
  type EvidenceStore,
  type TlogCheckpointRecord,
  type TlogCosignatureRecord,
} from './evidence';
import { checkInteger } from '../checks';
import type { PgStoreDeps } from './deps';
import type { PgReader } from './pg-pool';

/** A BIGINT as node-postgres may hand it back (a decimal string), as a number. */
function int(value: unknown): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number))
    throw new RangeError(`a stored integer is out of range: ${String(value)}`);
  return number;
}

function intOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : int(value);
}

/** A BYTEA (a Buffer) as plain bytes of their own. */
function bytes(value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError('a stored blob is not bytes');
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice();
}

interface CheckpointRow {
  tenant_id: string;
  tree_size: unknown;
  root: unknown;
  note: string;
  signed_at: unknown;
}

function toCheckpoint(row: CheckpointRow | undefined): TlogCheckpointRecord | undefined {
  if (row === undefined) return undefined;
  return {
    tenant_id: row.tenant_id,
    tree_size: int(row.tree_size),
    root: bytes(row.root),
    note: row.note,
    signed_at: int(row.signed_at),
  };
}

const CHECKPOINT_COLUMNS = 'tenant_id, tree_size, root, note, signed_at';
// The receipts issued in [low, high) through issued_receipts_ref_time, each probed in the log.
const PERIOD_EDGES = `SELECT min(l.leaf_index) AS first, max(l.leaf_index) AS last
  FROM issued_receipts r JOIN tlog_leaves l ON l.receipt_id = r.id
  WHERE r.ref = $2 AND r.issued_at >= $3 AND r.issued_at < $4 AND l.tenant_id = $1 AND l.leaf_index < $5`;
const NEWEST_BEFORE = `SELECT l.leaf_index
  FROM issued_receipts r JOIN tlog_leaves l ON l.receipt_id = r.id
  WHERE r.ref = $2 AND r.issued_at >= 0 AND r.issued_at < $3 AND l.tenant_id = $1 AND l.leaf_index < $4
  ORDER BY r.issued_at DESC, r.id DESC LIMIT 1`;
const LAST_BEFORE_AFTER = `SELECT max(l.leaf_index) AS last
  FROM tlog_leaves l JOIN issued_receipts r ON r.id = l.receipt_id
  WHERE l.tenant_id = $1 AND l.leaf_index > $2 AND l.leaf_index < $3 AND r.issued_at < $4`;
// No later bound: the SQLite repository's (Number.MAX_SAFE_INTEGER).
const NO_LATER_BOUND = Number.MAX_SAFE_INTEGER;

function readerOver(reader: PgReader, tenant: string): EvidenceReader {
  const ref = `tenant:${tenant}`;
  const logSize = async (): Promise<number> => {
    const { rows } = await reader.query<{ leaf_index: unknown }>(
      'SELECT leaf_index FROM tlog_leaves WHERE tenant_id = $1 ORDER BY leaf_index DESC LIMIT 1',
      [tenant],
    );
    return rows[0] === undefined ? 0 : int(rows[0].leaf_index) + 1;
  };
  return {
    async checkpoint() {
      const { rows } = await reader.query<CheckpointRow>(
        `SELECT ${CHECKPOINT_COLUMNS} FROM tlog_checkpoints WHERE tenant_id = $1 ORDER BY tree_size DESC LIMIT 1`,
        [tenant],
      );
      return toCheckpoint(rows[0]);
    },
    async checkpointAt(size) {
      checkInteger(size, 'size');
      const { rows } = await reader.query<CheckpointRow>(
        `SELECT ${CHECKPOINT_COLUMNS} FROM tlog_checkpoints WHERE tenant_id = $1 AND tree_size = $2`,
        [tenant, size],
      );
      return toCheckpoint(rows[0]);
    },
    async cosignatures(size) {
      checkInteger(size, 'size');
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
    },
    async periodIndices(size, period) {
      checkInteger(size, 'size');
      const since = period.since === null ? null : checkInteger(period.since, 'since', Number.MIN_SAFE_INTEGER);
      const until = period.until === null ? null : checkInteger(period.until, 'until', Number.MIN_SAFE_INTEGER);
      if (since === null && until === null) {
        const logged = Math.min(size, await logSize());
        return logged === 0 ? null : { first: 0, last: logged - 1 };
      }
      // issued_at >= since (or >= 0: a bounded period never holds a receipt without a time).
      const low = Math.max(since ?? 0, 0);
      const high = until ?? NO_LATER_BOUND;
      if (high <= low) return null;
      const { rows } = await reader.query<{ first: unknown; last: unknown }>(PERIOD_EDGES, [
        tenant,
        ref,
        low,
        high,
        size,
      ]);
      const first = intOrNull(rows[0]?.first);
      const last = intOrNull(rows[0]?.last);
      return first === null || last === null ? null : { first, last };
    },
    async lastIndexBefore(size, before) {
      checkInteger(size, 'size');
      checkInteger(before, 'before', Number.MIN_SAFE_INTEGER);
      if (before <= 0) return null;
      const newest = await reader.query<{ leaf_index: unknown }>(NEWEST_BEFORE, [tenant, ref, before, size]);
      const row = newest.rows[0];
      if (row === undefined) return null;
      const newestIndex = int(row.leaf_index);
      const later = await reader.query<{ last: unknown }>(LAST_BEFORE_AFTER, [tenant, newestIndex, size, before]);
      return intOrNull(later.rows[0]?.last) ?? newestIndex;
    },
    async leafReceipts(from, to) {
      checkEvidenceRange(from, to, MAX_EVIDENCE_PAGE);
      const { rows } = await reader.query<{
        leaf_index: unknown;
        receipt_sha256: string;
        receipt_id: string | null;
        issuer_key_id: string | null;
        format: string;
        raw: unknown;
        issued_at: unknown;
      }>(
        `SELECT l.leaf_index, r.receipt_sha256, r.receipt_id, r.issuer_key_id, r.format, r.raw, r.issued_at
         FROM tlog_leaves l JOIN issued_receipts r ON r.id = l.receipt_id
         WHERE l.tenant_id = $1 AND l.leaf_index >= $2 AND l.leaf_index < $3
         ORDER BY l.leaf_index`,
        [tenant, from, to],
      );
      return rows.map((row): EvidenceReceipt => ({
        leaf_index: int(row.leaf_index),
        receipt_sha256: row.receipt_sha256,
        receipt_id: row.receipt_id,
        issuer_key_id: row.issuer_key_id,
        format: row.format,
        raw: bytes(row.raw),
        issued_at: intOrNull(row.issued_at),
      }));
    },
    async leafHashes(from, to) {
      checkEvidenceRange(from, to, MAX_EVIDENCE_HASH_PAGE);
      const { rows } = await reader.query<{ leaf_index: unknown; receipt_sha256: string }>(
        `SELECT l.leaf_index, r.receipt_sha256
         FROM tlog_leaves l JOIN issued_receipts r ON r.id = l.receipt_id
         WHERE l.tenant_id = $1 AND l.leaf_index >= $2 AND l.leaf_index < $3
         ORDER BY l.leaf_index`,
        [tenant, from, to],
      );
      return rows.map((row) => ({ leaf_index: int(row.leaf_index), receipt_sha256: row.receipt_sha256 }));
    },
    async nodes(level, from, to) {
      checkInteger(level, 'level', 0, 62);
      checkInteger(from, 'from');
      checkInteger(to, 'to');
      if (from > to) throw new RangeError('from must not be after to');
      const { rows } = await reader.query<{ index: unknown; hash: unknown }>(
        level === 0
          ? `SELECT leaf_index AS "index", leaf_hash AS hash FROM tlog_leaves
             WHERE tenant_id = $1 AND leaf_index >= $2 AND leaf_index < $3 ORDER BY leaf_index`
          : `SELECT node_index AS "index", hash FROM tlog_nodes
             WHERE tenant_id = $1 AND level = $4 AND node_index >= $2 AND node_index < $3 ORDER BY node_index`,
        level === 0 ? [tenant, from, to] : [tenant, from, to, level],
      );
      return rows.map((row) => ({ index: int(row.index), hash: bytes(row.hash) }));
    },
    async anchors(hashes) {
      const list = checkEvidenceHashes(hashes, MAX_EVIDENCE_ANCHOR_HASHES);
      if (list.length === 0) return [];
      const { rows } = await reader.query<{ batch_id: string; receipt_sha256: string; record_json: string }>(
        `SELECT batch_id, receipt_sha256, record_json FROM anchors
         WHERE receipt_sha256 = ANY($1::text[]) ORDER BY id`,
        [list],
      );
      // As the SQLite adapter answers: the hashes in the order given, each one's rows by id (at most 1000).
      const byHash = new Map<string, EvidenceAnchor[]>();
      for (const row of rows) {
        const own = byHash.get(row.receipt_sha256) ?? [];
        if (own.length < 1000)
          own.push({
            batch_id: row.batch_id,
            receipt_sha256: row.receipt_sha256,
            record: JSON.parse(row.record_json) as unknown,
          });
        byHash.set(row.receipt_sha256, own);
      }
      const out: EvidenceAnchor[] = [];
      for (const hash of list) out.push(...(byHash.get(hash) ?? []));
      return out;
    },
  };
}

/** The evidence domain on PostgreSQL. */
export function pgEvidence(deps: PgStoreDeps): EvidenceStore {
  const { pool } = deps;
  return {
    exportPath: 'snapshot',
    async hasTenant(tenantId) {
      const tenant = checkEvidenceTenant(tenantId);
      return pool.read(async (reader) => {
        const { rows } = await reader.query('SELECT 1 FROM tenants WHERE id = $1', [tenant]);
        return rows.length > 0;
      });
    },
    snapshot(tenantId, fn) {
      const tenant = checkEvidenceTenant(tenantId);
      return pool.read((reader) => fn(readerOver(reader, tenant)), { isolation: 'repeatable read' });
    },
  };
}
