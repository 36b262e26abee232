/**
 * PostgreSQL migration 5: API keys bought on chain (payments.ts; docs/payments.md), mirroring the
 * SQLite ledger's migration 9 (same tables, columns and checks):
 *
 * - payments: one row per transaction seen, keyed by (network, tx_hash), written before any key
 *   is issued for it; an `issued` row names its tenant, its key's prefix and the term's end, and
 *   carries its delivery (channel, state, where to, attempts, last error, next try, the sealed
 *   envelope of a key sealed to a did:key).
 * - payment_cursors: per (network, token, treasury), the first block the watcher has not yet
 *   scanned to the end with every block confirmed.
 * - api_keys.payment_tx (UNIQUE: one key per transaction, whatever node issues it),
 *   api_keys.expires_at and tenants.paid_until: migration 2 makes them with their tables; they
 *   are asserted here (IF NOT EXISTS), as exactly-once issuing rests on the unique index.
 */
import type { PgMigration } from './index';

const SQL = `
CREATE TABLE payments (
  id BIGSERIAL PRIMARY KEY,
  network TEXT NOT NULL CHECK (length(network) BETWEEN 1 AND 64),
  tx_hash TEXT NOT NULL CHECK (tx_hash ~ '^0x[0-9a-f]{64}$'),
  block_number BIGINT CHECK (block_number >= 0),
  block_hash TEXT CHECK (length(block_hash) = 66),
  from_address TEXT CHECK (length(from_address) = 42),
  token TEXT CHECK (length(token) = 42),
  amount TEXT CHECK (amount ~ '^[0-9]{1,78}$'),
  tier TEXT CHECK (tier IN ('pro', 'scale', 'enterprise')),
  term TEXT CHECK (term IN ('month', 'year')),
  contact TEXT CHECK (length(contact) BETWEEN 1 AND 512),
  issuer_did TEXT CHECK (length(issuer_did) BETWEEN 1 AND 512),
  state TEXT NOT NULL CHECK (state IN ('pending_confirmations', 'issued', 'underpaid', 'memo_invalid', 'wrong_token', 'contact_sales', 'reverted', 'dropped')),
  reason TEXT CHECK (length(reason) BETWEEN 1 AND 2048),
  tenant_id TEXT REFERENCES tenants (id),
  key_prefix TEXT CHECK (length(key_prefix) BETWEEN 9 AND 32),
  expires_at BIGINT CHECK (expires_at >= 0),
  delivery_channel TEXT CHECK (delivery_channel IN ('outbox', 'smtp', 'sealed')),
  delivery_state TEXT NOT NULL DEFAULT 'none' CHECK (delivery_state IN ('none', 'pending', 'delivered')),
  delivery_to TEXT CHECK (length(delivery_to) BETWEEN 1 AND 512),
  delivery_attempts BIGINT NOT NULL DEFAULT 0 CHECK (delivery_attempts >= 0),
  delivery_last_error TEXT CHECK (length(delivery_last_error) BETWEEN 1 AND 2048),
  delivery_next_at BIGINT CHECK (delivery_next_at >= 0),
  delivered_at BIGINT CHECK (delivered_at >= 0),
  sealed_envelope TEXT CHECK (json_typeof(sealed_envelope::json) = 'object'),
  seen_at BIGINT NOT NULL CHECK (seen_at >= 0),
  updated_at BIGINT NOT NULL CHECK (updated_at >= seen_at),
  UNIQUE (network, tx_hash),
  CHECK (state <> 'issued' OR (tenant_id IS NOT NULL AND key_prefix IS NOT NULL AND expires_at IS NOT NULL AND delivery_channel IS NOT NULL AND delivery_to IS NOT NULL)),
  CHECK (delivery_state = 'none' OR state = 'issued')
);
CREATE INDEX idx_payments_tx ON payments (tx_hash, seen_at);
CREATE INDEX idx_payments_seen ON payments (seen_at, id);
CREATE INDEX idx_payments_unconfirmed ON payments (network, id) WHERE state = 'pending_confirmations';
CREATE INDEX idx_payments_delivery ON payments (delivery_next_at, id) WHERE delivery_state = 'pending';
CREATE INDEX idx_payments_tenant ON payments (tenant_id, id) WHERE state = 'issued';

CREATE TABLE payment_cursors (
  network TEXT NOT NULL CHECK (length(network) BETWEEN 1 AND 64),
  token TEXT NOT NULL CHECK (length(token) = 42),
  treasury TEXT NOT NULL CHECK (length(treasury) = 42),
  next_block BIGINT NOT NULL CHECK (next_block >= 0),
  updated_at BIGINT NOT NULL CHECK (updated_at >= 0),
  PRIMARY KEY (network, token, treasury)
);

ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS payment_tx TEXT CHECK (length(payment_tx) BETWEEN 1 AND 140);
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS expires_at BIGINT CHECK (expires_at >= 0);
CREATE UNIQUE INDEX IF NOT EXISTS idx_api_keys_payment_tx ON api_keys (payment_tx) WHERE payment_tx IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_api_keys_tenant_payment ON api_keys (tenant_id) WHERE payment_tx IS NOT NULL;
ALTER TABLE tenants ADD COLUMN IF NOT EXISTS paid_until BIGINT CHECK (paid_until >= 0);
`;

/** Migration 5: payments, the watcher's cursors. */
export const paymentsMigration: PgMigration = { version: 5, name: 'payments', sql: SQL };
