/**
 * Migration 11: each tenant's transparency log (issue 28; docs/logs.md, "The service's log").
 *
 * - `tlog_leaves`: one row per leaf of a tenant's log, (tenant_id, leaf_index) from 0 with no
 *   gap, the leaf hash SHA-256(0x00 || JCS(receipt)) and the ledger row of the receipt (one leaf
 *   per receipt per tenant).
 * - `tlog_nodes`: the complete nodes above the leaves, (tenant_id, level >= 1, node_index); a
 *   node (level, index) covers leaves [index * 2^level, (index + 1) * 2^level).
 * - `tlog_checkpoints`: every checkpoint the service signed, one per (tenant_id, tree_size): the
 *   primary key is what makes two different roots for one size impossible.
 * - `tlog_cosignatures`: the cosignature lines witnesses gave a checkpoint, one per key (name and
 *   key id); the service keeps at most 16 per checkpoint (src-main/ledger/tlog.ts).
 *
 * Receipts the service stored for a tenant before this migration are appended to that tenant's
 * log here, in the order they were stored (their ledger rows' order), so a log covers every
 * receipt of its tenant whenever it was issued.
 */
import type { WritableDB } from '../database';
import { backfillTenantLogs } from '../tlog';
import type { Migration } from './types';

function up(database: WritableDB): void {
  database.exec(`
CREATE TABLE tlog_leaves (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  leaf_index INTEGER NOT NULL CHECK (leaf_index >= 0),
  leaf_hash BLOB NOT NULL CHECK (length(leaf_hash) = 32),
  receipt_id INTEGER NOT NULL REFERENCES receipts (id),
  PRIMARY KEY (tenant_id, leaf_index)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX idx_tlog_leaves_receipt ON tlog_leaves (tenant_id, receipt_id);

CREATE TABLE tlog_nodes (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 62),
  node_index INTEGER NOT NULL CHECK (node_index >= 0),
  hash BLOB NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (tenant_id, level, node_index)
) STRICT, WITHOUT ROWID;

CREATE TABLE tlog_checkpoints (
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  tree_size INTEGER NOT NULL CHECK (tree_size >= 0),
  root BLOB NOT NULL CHECK (length(root) = 32),
  note TEXT NOT NULL CHECK (length(note) BETWEEN 1 AND 4096),
  signed_at INTEGER NOT NULL CHECK (signed_at >= 0),
  PRIMARY KEY (tenant_id, tree_size)
) STRICT, WITHOUT ROWID;

CREATE TABLE tlog_cosignatures (
  tenant_id TEXT NOT NULL,
  tree_size INTEGER NOT NULL,
  key_name TEXT NOT NULL CHECK (length(key_name) BETWEEN 1 AND 1024),
  key_id INTEGER NOT NULL CHECK (key_id BETWEEN 0 AND 4294967295),
  line TEXT NOT NULL CHECK (length(line) BETWEEN 1 AND 2048),
  received_at INTEGER NOT NULL CHECK (received_at >= 0),
  PRIMARY KEY (tenant_id, tree_size, key_name, key_id),
  FOREIGN KEY (tenant_id, tree_size) REFERENCES tlog_checkpoints (tenant_id, tree_size)
) STRICT;
`);
  backfillTenantLogs(database);
}

export const tenantLogsMigration: Migration = { version: 11, name: 'tenant-logs', up };
