/**
 * Migration 5: what the last check of each anchor record found (the app's anchors view).
 *
 * - `check_state`: the verdict of the last check: `pending`, `verified_offline` (step 1 passed,
 *   steps 2-3 unchecked), `verified` (steps 1-3 passed) or `failed`; NULL when never checked.
 * - `check_steps_json`: the three steps as checked (`[{step, status, detail}, ...]`).
 * - `checked_at` (ms) and `check_rpc` (the chain RPC asked for steps 2-3; NULL offline).
 * - `state`: a virtual column, the state lists filter and count by: the last check's verdict,
 *   else `pending` for a pending record and `unchecked` for a resolved one nobody checked yet.
 *   Indexed with the id (the Anchors view pages by state) and with the batch (counts per batch).
 *
 * A check describes one record: when a row's URN or record changes (a pending anchor resolves,
 * a record is replaced), a trigger clears its check, so no verdict outlives what it judged.
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

function up(database: WritableDB): void {
  database.exec(`
ALTER TABLE anchors ADD COLUMN check_state TEXT
  CHECK (check_state IS NULL OR check_state IN ('pending', 'verified_offline', 'verified', 'failed'));
ALTER TABLE anchors ADD COLUMN check_steps_json TEXT
  CHECK (check_steps_json IS NULL OR (json_valid(check_steps_json) AND json_type(check_steps_json) = 'array'));
ALTER TABLE anchors ADD COLUMN checked_at INTEGER CHECK (checked_at IS NULL OR checked_at >= 0);
ALTER TABLE anchors ADD COLUMN check_rpc TEXT CHECK (check_rpc IS NULL OR length(check_rpc) BETWEEN 1 AND 2048);
ALTER TABLE anchors ADD COLUMN state TEXT GENERATED ALWAYS AS
  (coalesce(check_state, CASE status WHEN 'pending' THEN 'pending' ELSE 'unchecked' END)) VIRTUAL;
CREATE INDEX idx_anchors_state ON anchors (state, id);
CREATE INDEX idx_anchors_batch_state ON anchors (batch_id, state);
CREATE INDEX idx_anchors_unchecked ON anchors (id) WHERE check_state IS NULL AND status = 'resolved';
CREATE TRIGGER anchors_check_reset AFTER UPDATE OF svc_anchor, record_json ON anchors
  WHEN OLD.svc_anchor IS NOT NEW.svc_anchor OR OLD.record_json IS NOT NEW.record_json
BEGIN
  UPDATE anchors SET check_state = NULL, check_steps_json = NULL, checked_at = NULL, check_rpc = NULL WHERE id = NEW.id;
END;
`);
}

export const anchorChecksMigration: Migration = { version: 5, name: 'anchor checks', up };
