/**
 * PostgreSQL migration 2: the service's identity (store/identity.ts), mirroring the SQLite
 * ledger's tables of the same names and columns (migrations 1, 3 and 9):
 *
 * - tenants: who the service issues receipts for, with their tier (and `paid_until`, the end of a
 *   term bought on chain: payments' column, kept here with its table).
 * - api_keys: keys stored only as their SHA-256, each bound to one tenant, tier and scopes (JSON
 *   text); `payment_tx` and `expires_at` for keys bought on chain (payments).
 * - quota_usage: uses counted per subject and period (issuance increments it).
 * - audit_log: the service's append-only, hash-chained audit rows (audit-log.ts gives the
 *   formula); triggers refuse UPDATE and DELETE and an INSERT that does not extend the chain.
 *   Appends serialize on the table's lock, so ids run without gaps across nodes.
 */
import type { PgMigration } from './index';

const SQL = `
CREATE TABLE tenants (
  id TEXT PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9._-]{1,64}$'),
  tier TEXT NOT NULL CHECK (tier IN ('free', 'pro', 'scale', 'enterprise')),
  created_at BIGINT NOT NULL CHECK (created_at >= 0),
  paid_until BIGINT CHECK (paid_until >= 0)
);

CREATE TABLE api_keys (
  id BIGSERIAL PRIMARY KEY,
  key_sha256 TEXT NOT NULL UNIQUE CHECK (key_sha256 ~ '^[0-9a-f]{64}$'),
  prefix TEXT NOT NULL UNIQUE CHECK (length(prefix) BETWEEN 9 AND 32),
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  tier TEXT NOT NULL CHECK (tier IN ('free', 'pro', 'scale', 'enterprise')),
  scopes TEXT NOT NULL CHECK (json_typeof(scopes::json) = 'array'),
  created_at BIGINT NOT NULL CHECK (created_at >= 0),
  revoked_at BIGINT CHECK (revoked_at IS NULL OR revoked_at >= created_at),
  payment_tx TEXT CHECK (length(payment_tx) BETWEEN 1 AND 140),
  expires_at BIGINT CHECK (expires_at >= 0)
);
CREATE INDEX idx_api_keys_tenant ON api_keys (tenant_id, id);
CREATE UNIQUE INDEX idx_api_keys_payment_tx ON api_keys (payment_tx) WHERE payment_tx IS NOT NULL;
CREATE INDEX idx_api_keys_tenant_payment ON api_keys (tenant_id) WHERE payment_tx IS NOT NULL;

CREATE TABLE quota_usage (
  subject TEXT NOT NULL CHECK (length(subject) BETWEEN 1 AND 256),
  period TEXT NOT NULL CHECK (length(period) BETWEEN 7 AND 10),
  used BIGINT NOT NULL CHECK (used >= 0),
  PRIMARY KEY (subject, period)
);

CREATE TABLE audit_log (
  id BIGINT PRIMARY KEY,
  at BIGINT NOT NULL,
  action TEXT NOT NULL,
  subject TEXT NOT NULL,
  details TEXT NOT NULL CHECK (details::json IS NOT NULL),
  prev_sha256 TEXT NOT NULL CHECK (prev_sha256 ~ '^[0-9a-f]{64}$'),
  row_sha256 TEXT NOT NULL CHECK (row_sha256 ~ '^[0-9a-f]{64}$')
);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

CREATE FUNCTION audit_log_extends_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last_id BIGINT;
  last_sha TEXT;
BEGIN
  SELECT id, row_sha256 INTO last_id, last_sha FROM audit_log ORDER BY id DESC LIMIT 1;
  IF NEW.id IS DISTINCT FROM coalesce(last_id, 0) + 1
     OR NEW.prev_sha256 IS DISTINCT FROM coalesce(last_sha, repeat('0', 64)) THEN
    RAISE EXCEPTION 'audit_log rows must extend the hash chain';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER audit_log_extends_chain BEFORE INSERT ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_extends_chain();
`;

/** Migration 2: tenants, API keys, quota use, the audit log. */
export const migration0002: PgMigration = { version: 2, name: 'identity', sql: SQL };
