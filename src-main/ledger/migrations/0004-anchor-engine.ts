/**
 * Migration 4: the anchoring engine's state (PROTOCOL section 8).
 *
 * - anchor_batches: one row per batch. `state` moves open -> closed -> signed -> posted ->
 *   resolved. A batch is `signed` once its transaction (raw bytes, hash, nonce, sender) is
 *   recorded, which happens BEFORE anything is broadcast; `posted` once the chain took the
 *   bytes; `resolved` once every hash of the batch has its resolved record. `attempts`,
 *   `last_error` and `next_attempt_at` carry the backoff after a chain error.
 * - anchor_queue: the hashes of each batch (hex digest = hex of canonical_sha256), with the
 *   pending URN the submitter was given. The per-hash records live in `anchors` (migration 1):
 *   a pending row at submit, resolved by the engine.
 *
 * At most one batch is open (a partial unique index), a transaction hash belongs to one batch,
 * and one nonce of one sender on one network belongs to one batch.
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

function hex64(column: string): string {
  return `length(${column}) = 64 AND ${column} NOT GLOB '*[^0-9a-f]*'`;
}

function up(database: WritableDB): void {
  database.exec(`
CREATE TABLE anchor_batches (
  id INTEGER PRIMARY KEY,
  batch_id TEXT NOT NULL CHECK (length(batch_id) = 17),
  state TEXT NOT NULL CHECK (state IN ('open', 'closed', 'signed', 'posted', 'resolved')),
  opened_at INTEGER NOT NULL CHECK (opened_at >= 0),
  closes_at INTEGER NOT NULL CHECK (closes_at >= opened_at),
  closed_at INTEGER CHECK (closed_at IS NULL OR closed_at >= opened_at),
  hash_count INTEGER NOT NULL DEFAULT 0 CHECK (hash_count >= 0),
  merkle_root TEXT CHECK (merkle_root IS NULL OR (${hex64('merkle_root')})),
  network TEXT CHECK (network IS NULL OR length(network) BETWEEN 1 AND 64),
  raw_tx TEXT CHECK (raw_tx IS NULL OR (raw_tx GLOB '0x*' AND length(raw_tx) BETWEEN 4 AND 4096)),
  tx_hash TEXT CHECK (tx_hash IS NULL OR (length(tx_hash) = 66 AND tx_hash GLOB '0x*')),
  nonce INTEGER CHECK (nonce IS NULL OR nonce >= 0),
  sender TEXT CHECK (sender IS NULL OR length(sender) = 42),
  signed_at INTEGER,
  broadcast_at INTEGER,
  block_height INTEGER CHECK (block_height IS NULL OR block_height >= 0),
  resolved_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  last_error TEXT CHECK (last_error IS NULL OR length(last_error) <= 1000),
  next_attempt_at INTEGER,
  CHECK ((state IN ('open', 'closed')) = (tx_hash IS NULL)),
  CHECK ((tx_hash IS NULL) = (raw_tx IS NULL) AND (tx_hash IS NULL) = (nonce IS NULL))
) STRICT;
CREATE UNIQUE INDEX idx_anchor_batches_one_open ON anchor_batches (state) WHERE state = 'open';
CREATE UNIQUE INDEX idx_anchor_batches_tx ON anchor_batches (tx_hash) WHERE tx_hash IS NOT NULL;
CREATE UNIQUE INDEX idx_anchor_batches_nonce ON anchor_batches (network, sender, nonce) WHERE nonce IS NOT NULL;
CREATE INDEX idx_anchor_batches_state ON anchor_batches (state, id);

CREATE TABLE anchor_queue (
  batch INTEGER NOT NULL REFERENCES anchor_batches (id),
  digest TEXT NOT NULL CHECK (${hex64('digest')}),
  svc_anchor TEXT NOT NULL UNIQUE CHECK (svc_anchor GLOB 'urn:svc:anchor:pending:*'),
  tenant_id TEXT CHECK (tenant_id IS NULL OR length(tenant_id) BETWEEN 1 AND 64),
  submitted_at INTEGER NOT NULL CHECK (submitted_at >= 0),
  PRIMARY KEY (batch, digest)
) STRICT, WITHOUT ROWID;
`);
}

export const anchorEngineMigration: Migration = { version: 4, name: 'anchor-engine', up };
