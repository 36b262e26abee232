/**
 * PostgreSQL migration 3: what the service issues (h-issue; src-main/ledger/store/issuance.ts).
 *
 * - `issued_receipts`: every receipt the service issued, as the interfaces of issue 27 fix it
 *   (the evidence domain reads it): its JCS bytes and SHA-256, its ref (`tenant:<id>` or
 *   `public`), its report at issuance, and the node's clock when it was committed.
 * - (`quota_usage` and `tenants` are migration 2's, the identity domain's; a group commit
 *   consumes quota there by one upsert, exact across nodes.)
 * - `wearable_nonces`: an observation nonce is used once per device commitment (SQLite
 *   migration 3); the primary key is what makes it once across nodes.
 * - `tlog_leaves`, `tlog_nodes`, `tlog_checkpoints`, `tlog_cosignatures`: the tenants' logs, as
 *   SQLite migration 11, the leaf's receipt being an issued_receipts row. The cosignatures have
 *   one more column, `position` (an identity), so that they are listed in the order they were
 *   first received, as SQLite's rowid orders them.
 */
import type { PgMigration } from './index';

const sql = `
CREATE TABLE issued_receipts (
  id BIGSERIAL PRIMARY KEY,
  receipt_sha256 TEXT NOT NULL UNIQUE,
  raw BYTEA NOT NULL,
  ref TEXT NOT NULL,
  format TEXT NOT NULL,
  status TEXT NOT NULL,
  report_json TEXT NOT NULL,
  receipt_id TEXT,
  issued_at BIGINT,
  issuer_key_id TEXT,
  stored_at BIGINT NOT NULL
);
CREATE INDEX issued_receipts_ref_time ON issued_receipts (ref, issued_at, id);

CREATE TABLE wearable_nonces (
  device_id_commitment_sha256 TEXT NOT NULL CHECK (length(device_id_commitment_sha256) = 64),
  observation_nonce TEXT NOT NULL CHECK (length(observation_nonce) BETWEEN 16 AND 256),
  receipt_sha256 TEXT NOT NULL CHECK (length(receipt_sha256) = 64),
  used_at BIGINT NOT NULL CHECK (used_at >= 0),
  PRIMARY KEY (device_id_commitment_sha256, observation_nonce)
);

CREATE TABLE tlog_leaves (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  leaf_index BIGINT NOT NULL CHECK (leaf_index >= 0),
  leaf_hash BYTEA NOT NULL CHECK (length(leaf_hash) = 32),
  receipt_id BIGINT NOT NULL REFERENCES issued_receipts (id),
  PRIMARY KEY (tenant_id, leaf_index)
);
CREATE UNIQUE INDEX idx_tlog_leaves_receipt ON tlog_leaves (tenant_id, receipt_id);

CREATE TABLE tlog_nodes (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  level BIGINT NOT NULL CHECK (level BETWEEN 1 AND 62),
  node_index BIGINT NOT NULL CHECK (node_index >= 0),
  hash BYTEA NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (tenant_id, level, node_index)
);

CREATE TABLE tlog_checkpoints (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  tree_size BIGINT NOT NULL CHECK (tree_size >= 0),
  root BYTEA NOT NULL CHECK (length(root) = 32),
  note TEXT NOT NULL CHECK (length(note) BETWEEN 1 AND 4096),
  signed_at BIGINT NOT NULL CHECK (signed_at >= 0),
  PRIMARY KEY (tenant_id, tree_size)
);

CREATE TABLE tlog_cosignatures (
  tenant_id TEXT NOT NULL,
  tree_size BIGINT NOT NULL,
  key_name TEXT NOT NULL CHECK (length(key_name) BETWEEN 1 AND 1024),
  key_id BIGINT NOT NULL CHECK (key_id BETWEEN 0 AND 4294967295),
  line TEXT NOT NULL CHECK (length(line) BETWEEN 1 AND 2048),
  received_at BIGINT NOT NULL CHECK (received_at >= 0),
  position BIGINT GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (tenant_id, tree_size, key_name, key_id),
  FOREIGN KEY (tenant_id, tree_size) REFERENCES tlog_checkpoints (tenant_id, tree_size)
);
`;

/** Issued receipts, quota use, wearable nonces and the tenants' logs. */
export const issuanceMigration: PgMigration = { version: 3, name: 'issuance', sql };
