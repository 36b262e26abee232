/**
 * Migration 3: the HTTP service's state (PROTOCOL sections 9 and 10).
 *
 * - tenants: who the service issues receipts for, with their tier.
 * - api_keys: keys stored only as their SHA-256, each bound to one tenant, tier and scopes; the
 *   `prefix` (the tier prefix and the first 8 random characters) names a key in lists and
 *   revocations without being enough to use it.
 * - quota_usage: receipts counted per subject (a tenant, or a client address on the free route)
 *   and period (a UTC day or month), incremented in the same transaction that stores the receipt.
 * - wearable_nonces: an observation nonce is used once per device commitment (409 on reuse).
 *
 * The receipts the service issues are ordinary ledger receipts whose source is `service` with
 * the tenant in its ref, so the app browses them like any other.
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

function up(database: WritableDB): void {
  database.exec(`
CREATE TABLE tenants (
  id TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64 AND id NOT GLOB '*[^A-Za-z0-9._-]*'),
  tier TEXT NOT NULL CHECK (tier IN ('free', 'pro', 'scale', 'enterprise')),
  created_at INTEGER NOT NULL CHECK (created_at >= 0)
) STRICT;

CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  key_sha256 TEXT NOT NULL UNIQUE CHECK (length(key_sha256) = 64 AND key_sha256 NOT GLOB '*[^0-9a-f]*'),
  prefix TEXT NOT NULL UNIQUE CHECK (length(prefix) BETWEEN 9 AND 32),
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  tier TEXT NOT NULL CHECK (tier IN ('free', 'pro', 'scale', 'enterprise')),
  scopes TEXT NOT NULL CHECK (json_valid(scopes) AND json_type(scopes) = 'array'),
  created_at INTEGER NOT NULL CHECK (created_at >= 0),
  revoked_at INTEGER CHECK (revoked_at IS NULL OR revoked_at >= created_at)
) STRICT;
CREATE INDEX idx_api_keys_tenant ON api_keys (tenant_id);

CREATE TABLE quota_usage (
  subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 256),
  period TEXT NOT NULL CHECK (length(period) BETWEEN 7 AND 10),
  used INTEGER NOT NULL CHECK (used >= 0),
  PRIMARY KEY (subject, period)
) STRICT, WITHOUT ROWID;

CREATE TABLE wearable_nonces (
  device_id_commitment_sha256 TEXT NOT NULL CHECK (length(device_id_commitment_sha256) = 64),
  observation_nonce TEXT NOT NULL CHECK (length(observation_nonce) BETWEEN 16 AND 256),
  receipt_sha256 TEXT NOT NULL CHECK (length(receipt_sha256) = 64),
  used_at INTEGER NOT NULL CHECK (used_at >= 0),
  PRIMARY KEY (device_id_commitment_sha256, observation_nonce)
) STRICT, WITHOUT ROWID;
`);
}

export const serviceMigration: Migration = { version: 3, name: 'service', up };
