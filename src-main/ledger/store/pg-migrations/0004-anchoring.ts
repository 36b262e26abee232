/**
 * PostgreSQL migration 4: anchoring (PROTOCOL section 8), the tables of the SQLite ledger's
 * migration 4 (`anchor_batches`, `anchor_queue`) and the service's per-hash records
 * (`anchors`, as the ledger's migration 1 has it; the desktop app's check columns of its
 * migration 5 are not the service's and stay out).
 *
 * At most one batch is open (a partial unique index: the queueing nodes race to open one and
 * one wins), a transaction hash belongs to one batch, and one nonce of one sender on one network
 * belongs to one batch.
 */
import type { PgMigration } from './index';

const hex64 = (column: string): string => `${column} ~ '^[0-9a-f]{64}$'`;

const sql = `
CREATE TABLE anchor_batches (
  id BIGSERIAL PRIMARY KEY,
  batch_id TEXT NOT NULL CHECK (length(batch_id) = 17),
  state TEXT NOT NULL CHECK (state IN ('open', 'closed', 'signed', 'posted', 'resolved')),
  opened_at BIGINT NOT NULL CHECK (opened_at >= 0),
  closes_at BIGINT NOT NULL CHECK (closes_at >= opened_at),
  closed_at BIGINT CHECK (closed_at IS NULL OR closed_at >= opened_at),
  hash_count BIGINT NOT NULL DEFAULT 0 CHECK (hash_count >= 0),
  merkle_root TEXT CHECK (merkle_root IS NULL OR (${hex64('merkle_root')})),
  network TEXT CHECK (network IS NULL OR length(network) BETWEEN 1 AND 64),
  raw_tx TEXT CHECK (raw_tx IS NULL OR (raw_tx LIKE '0x%' AND length(raw_tx) BETWEEN 4 AND 4096)),
  tx_hash TEXT CHECK (tx_hash IS NULL OR (length(tx_hash) = 66 AND tx_hash LIKE '0x%')),
  nonce BIGINT CHECK (nonce IS NULL OR nonce >= 0),
  sender TEXT CHECK (sender IS NULL OR length(sender) = 42),
  signed_at BIGINT,
  broadcast_at BIGINT,
  block_height BIGINT CHECK (block_height IS NULL OR block_height >= 0),
  resolved_at BIGINT,
  attempts BIGINT NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  last_error TEXT CHECK (last_error IS NULL OR length(last_error) <= 1000),
  next_attempt_at BIGINT,
  CHECK ((state IN ('open', 'closed')) = (tx_hash IS NULL)),
  CHECK ((tx_hash IS NULL) = (raw_tx IS NULL) AND (tx_hash IS NULL) = (nonce IS NULL))
);
CREATE UNIQUE INDEX idx_anchor_batches_one_open ON anchor_batches (state) WHERE state = 'open';
CREATE UNIQUE INDEX idx_anchor_batches_tx ON anchor_batches (tx_hash) WHERE tx_hash IS NOT NULL;
CREATE UNIQUE INDEX idx_anchor_batches_nonce ON anchor_batches (network, sender, nonce) WHERE nonce IS NOT NULL;
CREATE INDEX idx_anchor_batches_state ON anchor_batches (state, id);

CREATE TABLE anchor_queue (
  batch BIGINT NOT NULL REFERENCES anchor_batches (id),
  digest TEXT NOT NULL CHECK (${hex64('digest')}),
  svc_anchor TEXT NOT NULL UNIQUE CHECK (svc_anchor LIKE 'urn:svc:anchor:pending:%'),
  tenant_id TEXT CHECK (tenant_id IS NULL OR length(tenant_id) BETWEEN 1 AND 64),
  submitted_at BIGINT NOT NULL CHECK (submitted_at >= 0),
  PRIMARY KEY (batch, digest)
);
CREATE INDEX idx_anchor_queue_order ON anchor_queue (batch, submitted_at, digest);

CREATE TABLE anchors (
  id BIGSERIAL PRIMARY KEY,
  svc_anchor TEXT NOT NULL UNIQUE,
  pending_svc_anchor TEXT UNIQUE,
  batch_id TEXT NOT NULL,
  receipt_sha256 TEXT CHECK (receipt_sha256 IS NULL OR (${hex64('receipt_sha256')})),
  record_json TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'resolved')),
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX idx_anchors_batch ON anchors (batch_id, id);
CREATE INDEX idx_anchors_status ON anchors (status, id);
CREATE INDEX idx_anchors_receipt ON anchors (receipt_sha256, id) WHERE receipt_sha256 IS NOT NULL;
`;

/** Anchor batches, their queued hashes, and the per-hash anchor records. */
export const anchoringMigration: PgMigration = { version: 4, name: 'anchoring', sql };
