/**
 * Migration 10: `verified_with_context` (issue 29; docs/anchoring.md, "Air-gapped verification").
 *
 * A check whose steps 2-3 were answered from an imported context pack, not a live chain, is
 * recorded as `verified_with_context`: a distinct state, never counted as `verified`. This
 * migration
 * - lets `anchors.check_state` hold it (so the virtual `anchors.state` does too);
 * - lets `receipts.anchor_state` and `receipt_anchor_counts.state` hold it, and adds its count
 *   row (zero: no check could record it before);
 * - replaces the three triggers of migration 8 so a receipt's state is `verified` when a record
 *   of it verified on a live chain, else `verified_with_context` when one verified from a pack,
 *   else `pending` / `failed` as before.
 * Only CHECK lists of values grow, which changes nothing stored on disk, so each table's recorded
 * SQL is edited in place as migration 7 does (SQLite's documented procedure for loosening a
 * CHECK); the schema version is bumped and the file's integrity checked before the step commits.
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

const EDITS: readonly { table: string; from: string; to: string }[] = [
  {
    table: 'anchors',
    from: `check_state IN ('pending', 'verified_offline', 'verified', 'failed')`,
    to: `check_state IN ('pending', 'verified_offline', 'verified', 'verified_with_context', 'failed')`,
  },
  {
    table: 'receipts',
    from: `anchor_state IN ('none', 'pending', 'verified', 'failed')`,
    to: `anchor_state IN ('none', 'pending', 'verified', 'verified_with_context', 'failed')`,
  },
  {
    table: 'receipt_anchor_counts',
    from: `state IN ('none', 'pending', 'verified', 'failed')`,
    to: `state IN ('none', 'pending', 'verified', 'verified_with_context', 'failed')`,
  },
];

/**
 * The state of the receipt whose digest is `digest` (an SQL expression), from its anchors
 * (migration 8's rule with `verified_with_context` between `verified` and `pending`).
 */
export function receiptAnchorStateWithContextSql(digest: string): string {
  return `CASE
    WHEN NOT EXISTS (SELECT 1 FROM anchors WHERE receipt_sha256 = ${digest}) THEN 'none'
    WHEN EXISTS (SELECT 1 FROM anchors WHERE receipt_sha256 = ${digest} AND +state = 'verified') THEN 'verified'
    WHEN EXISTS (SELECT 1 FROM anchors WHERE receipt_sha256 = ${digest} AND +state = 'verified_with_context') THEN 'verified_with_context'
    WHEN EXISTS (SELECT 1 FROM anchors WHERE receipt_sha256 = ${digest} AND +state <> 'failed') THEN 'pending'
    ELSE 'failed' END`;
}

function refresh(digest: string): string {
  return `UPDATE receipts SET anchor_state = ${receiptAnchorStateWithContextSql(digest)} WHERE receipt_sha256 = ${digest};`;
}

function up(database: WritableDB): void {
  const read = database.prepare(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`);
  for (const edit of EDITS) {
    const table = read.get(edit.table) as { sql: string } | undefined;
    if (table === undefined || !table.sql.includes(edit.from))
      throw new Error(`The ${edit.table} table does not carry the CHECK this migration expects.`);
  }
  const version = database.pragma('schema_version', { simple: true }) as number;
  database.unsafeMode(true);
  try {
    database.pragma('writable_schema = ON');
    const write = database.prepare(
      `UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?`,
    );
    for (const edit of EDITS) write.run(edit.from, edit.to, edit.table);
    database.pragma(`schema_version = ${version + 1}`);
  } finally {
    database.pragma('writable_schema = OFF');
    database.unsafeMode(false);
  }
  const integrity = database.pragma('integrity_check', { simple: true });
  if (integrity !== 'ok') throw new Error(`The ledger failed its integrity check: ${String(integrity)}`);
  database.exec(`
INSERT INTO receipt_anchor_counts (state, n) VALUES ('verified_with_context', 0);
DROP TRIGGER anchors_receipt_state_after_insert;
DROP TRIGGER anchors_receipt_state_after_update;
DROP TRIGGER anchors_receipt_state_after_delete;
CREATE TRIGGER anchors_receipt_state_after_insert AFTER INSERT ON anchors
  WHEN new.receipt_sha256 IS NOT NULL
BEGIN
  ${refresh('new.receipt_sha256')}
END;
CREATE TRIGGER anchors_receipt_state_after_update AFTER UPDATE OF receipt_sha256, status, check_state ON anchors
BEGIN
  ${refresh('old.receipt_sha256')}
  ${refresh('new.receipt_sha256')}
END;
CREATE TRIGGER anchors_receipt_state_after_delete AFTER DELETE ON anchors
  WHEN old.receipt_sha256 IS NOT NULL
BEGIN
  ${refresh('old.receipt_sha256')}
END;
`);
}

export const verifiedWithContextMigration: Migration = { version: 10, name: 'verified with context', up };
