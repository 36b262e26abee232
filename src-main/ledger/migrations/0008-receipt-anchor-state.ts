/**
 * Migration 8: each receipt's anchor state, kept in its row, so the receipts list filters,
 * sorts and counts by it at a million rows (docs/anchoring.md, "A receipt's anchor state").
 *
 * - `receipts.anchor_state`: `none` (no anchor record names the receipt), `verified` (a record
 *   of it verified on chain at its last check), `failed` (every record of it failed its last
 *   check), else `pending` (a record is pending, resolved but unchecked, or verified offline
 *   only: not yet checked on chain). It follows `anchors.state` (migration 5) through triggers
 *   on `anchors`: a record inserted, linked, resolved, checked or deleted recomputes the state
 *   of the receipt it names (an index lookup, `idx_anchors_receipt`). A receipt stored after
 *   its anchor records gets its state from insertReceipts, once per batch.
 * - Two indexes, as every equality filter of the list has (migration 1): (anchor_state,
 *   issued_order, id, ...) and (anchor_state, id, ...), so a filtered page reads about as many
 *   index entries as it shows.
 * - `receipt_anchor_counts`: the exact number of receipts in each state, kept by triggers on
 *   `receipts` (an update of anchor_state, a delete) and by insertReceipts for new rows (as
 *   receipt_counts, migration 2). The Overview's counts and the list's choice of index read it.
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

/**
 * The state of the receipt whose digest is `digest` (an SQL expression), from its anchors.
 * `+state` keeps SQLite from walking idx_anchors_state (every anchor in that state) instead of
 * idx_anchors_receipt (the receipt's few records): without it, each trigger run read every
 * verified anchor (measured: 3 ms an anchor at 30,000 anchors, growing with the ledger).
 */
export function receiptAnchorStateSql(digest: string): string {
  return `CASE
    WHEN NOT EXISTS (SELECT 1 FROM anchors WHERE receipt_sha256 = ${digest}) THEN 'none'
    WHEN EXISTS (SELECT 1 FROM anchors WHERE receipt_sha256 = ${digest} AND +state = 'verified') THEN 'verified'
    WHEN EXISTS (SELECT 1 FROM anchors WHERE receipt_sha256 = ${digest} AND +state <> 'failed') THEN 'pending'
    ELSE 'failed' END`;
}

function refresh(digest: string): string {
  return `UPDATE receipts SET anchor_state = ${receiptAnchorStateSql(digest)} WHERE receipt_sha256 = ${digest};`;
}

function up(database: WritableDB): void {
  database.exec(`
ALTER TABLE receipts ADD COLUMN anchor_state TEXT NOT NULL DEFAULT 'none'
  CHECK (anchor_state IN ('none', 'pending', 'verified', 'failed'));
UPDATE receipts SET anchor_state = ${receiptAnchorStateSql('receipts.receipt_sha256')}
  WHERE receipt_sha256 IN (SELECT receipt_sha256 FROM anchors WHERE receipt_sha256 IS NOT NULL);
CREATE INDEX idx_receipts_anchor_issued ON receipts (anchor_state, issued_order, id, status, trust, format);
CREATE INDEX idx_receipts_anchor_id ON receipts (anchor_state, id, status, trust, format);

CREATE TABLE receipt_anchor_counts (
  state TEXT PRIMARY KEY CHECK (state IN ('none', 'pending', 'verified', 'failed')),
  n INTEGER NOT NULL CHECK (n >= 0)
) STRICT, WITHOUT ROWID;
INSERT INTO receipt_anchor_counts (state, n) VALUES ('none', 0), ('pending', 0), ('verified', 0), ('failed', 0);
UPDATE receipt_anchor_counts SET n = (SELECT count(*) FROM receipts WHERE anchor_state = receipt_anchor_counts.state);

CREATE TRIGGER receipt_anchor_counts_after_update AFTER UPDATE OF anchor_state ON receipts
  WHEN old.anchor_state IS NOT new.anchor_state
BEGIN
  UPDATE receipt_anchor_counts SET n = n - 1 WHERE state = old.anchor_state;
  UPDATE receipt_anchor_counts SET n = n + 1 WHERE state = new.anchor_state;
END;
CREATE TRIGGER receipt_anchor_counts_after_delete AFTER DELETE ON receipts BEGIN
  UPDATE receipt_anchor_counts SET n = n - 1 WHERE state = old.anchor_state;
END;

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

export const receiptAnchorStateMigration: Migration = { version: 8, name: 'receipt anchor state', up };
