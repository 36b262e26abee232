/**
 * Migration 13: the transparency-log checkpoints this workstation has seen (issue 28;
 * docs/logs.md, "Checking a log from a workstation").
 *
 * - `seen_checkpoints`: every signed checkpoint seen of every log, one row per (origin, log key,
 *   tree size, root): the note as it was seen (the copy with the most cosignature lines is kept),
 *   the note key name and the Ed25519 public key (`log_key`, hex) that verified it, how many
 *   cosignature lines it carried, where it was first seen (`bundle:<id>`, `api:<url>`,
 *   `context:<pack id>`) and when. Two rows of one origin and one key with the same size are a
 *   split view: the table allows them on purpose, so the evidence is kept. Rows of one origin
 *   under different keys are never compared (docs/logs.md: a bundle can advertise any key).
 * - `seen_consistency`: each consistency proof checked between two checkpoints of one origin and
 *   one log key (from size and root, to size and root), whether it held, where the proof came
 *   from and when. One row per pair: a pair found inconsistent stays so, whatever proof comes
 *   later.
 *
 * - an index of the imported bundles by the origin of their log evidence (`bundles.log_json`,
 *   migration 12), for the bundles of one log in the Logs view.
 *
 * Roots and log keys are lowercase hex, as everything of the logs contract is.
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

function up(database: WritableDB): void {
  database.exec(`
CREATE TABLE seen_checkpoints (
  id INTEGER PRIMARY KEY,
  origin TEXT NOT NULL CHECK (length(origin) BETWEEN 1 AND 512),
  key_name TEXT NOT NULL CHECK (length(key_name) BETWEEN 1 AND 512),
  log_key TEXT NOT NULL CHECK (length(log_key) = 64 AND log_key NOT GLOB '*[^0-9a-f]*'),
  tree_size INTEGER NOT NULL CHECK (tree_size >= 0),
  root TEXT NOT NULL CHECK (length(root) = 64 AND root NOT GLOB '*[^0-9a-f]*'),
  note TEXT NOT NULL CHECK (length(note) BETWEEN 1 AND 1048576),
  cosignatures INTEGER NOT NULL DEFAULT 0 CHECK (cosignatures >= 0),
  source TEXT NOT NULL CHECK (length(source) BETWEEN 1 AND 2048),
  first_seen_at INTEGER NOT NULL CHECK (first_seen_at >= 0),
  UNIQUE (origin, log_key, tree_size, root)
) STRICT;

CREATE TABLE seen_consistency (
  id INTEGER PRIMARY KEY,
  origin TEXT NOT NULL CHECK (length(origin) BETWEEN 1 AND 512),
  log_key TEXT NOT NULL CHECK (length(log_key) = 64 AND log_key NOT GLOB '*[^0-9a-f]*'),
  from_size INTEGER NOT NULL CHECK (from_size >= 0),
  from_root TEXT NOT NULL CHECK (length(from_root) = 64 AND from_root NOT GLOB '*[^0-9a-f]*'),
  to_size INTEGER NOT NULL CHECK (to_size >= from_size),
  to_root TEXT NOT NULL CHECK (length(to_root) = 64 AND to_root NOT GLOB '*[^0-9a-f]*'),
  result TEXT NOT NULL CHECK (result IN ('consistent', 'inconsistent')),
  source TEXT NOT NULL CHECK (length(source) BETWEEN 1 AND 2048),
  checked_at INTEGER NOT NULL CHECK (checked_at >= 0),
  UNIQUE (origin, log_key, from_size, from_root, to_size, to_root)
) STRICT;

CREATE INDEX idx_bundles_log_origin ON bundles (json_extract(log_json, '$.origin')) WHERE log_json IS NOT NULL;
`);
}

export const seenCheckpointsMigration: Migration = { version: 13, name: 'seen checkpoints', up };
