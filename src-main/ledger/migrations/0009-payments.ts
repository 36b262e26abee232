/**
 * Migration 9: API keys bought on chain (PROTOCOL section 13; docs/payments.md).
 *
 * - `payments`: one row per transaction seen, keyed by (network, tx_hash), written before any
 *   key is issued for it. `state` is one of the shared PAYMENT_STATES; an `issued` row names its
 *   tenant, its key's prefix and the term's end, and carries its delivery: the channel, the
 *   state, where it goes, the attempts and last error (never the key), when to try again, and,
 *   for a key sealed to a did:key, the sealed envelope the pickup route serves.
 * - `payment_cursors`: per (network, token, treasury), the first block the watcher has not yet
 *   scanned to the end with every block confirmed.
 * - `api_keys.payment_tx`: the transaction a key was issued for, UNIQUE, so a second key for
 *   one transaction cannot be stored whatever crashes or restarts happen; `api_keys.expires_at`:
 *   when a bought key stops working (null: an operator's key, which does not expire).
 * - `tenants.paid_until`: the end of a tenant's bought term (null: not bought on chain).
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

function up(database: WritableDB): void {
  database.exec(`
CREATE TABLE payments (
  id INTEGER PRIMARY KEY,
  network TEXT NOT NULL CHECK (length(network) BETWEEN 1 AND 64),
  tx_hash TEXT NOT NULL CHECK (length(tx_hash) = 66 AND substr(tx_hash, 1, 2) = '0x' AND substr(tx_hash, 3) NOT GLOB '*[^0-9a-f]*'),
  block_number INTEGER CHECK (block_number >= 0),
  block_hash TEXT CHECK (length(block_hash) = 66),
  from_address TEXT CHECK (length(from_address) = 42),
  token TEXT CHECK (length(token) = 42),
  amount TEXT CHECK (length(amount) BETWEEN 1 AND 78 AND amount NOT GLOB '*[^0-9]*'),
  tier TEXT CHECK (tier IN ('pro', 'scale', 'enterprise')),
  term TEXT CHECK (term IN ('month', 'year')),
  contact TEXT CHECK (length(contact) BETWEEN 1 AND 512),
  issuer_did TEXT CHECK (length(issuer_did) BETWEEN 1 AND 512),
  state TEXT NOT NULL CHECK (state IN ('pending_confirmations', 'issued', 'underpaid', 'memo_invalid', 'wrong_token', 'contact_sales', 'reverted', 'dropped')),
  reason TEXT CHECK (length(reason) BETWEEN 1 AND 2048),
  tenant_id TEXT REFERENCES tenants (id),
  key_prefix TEXT CHECK (length(key_prefix) BETWEEN 9 AND 32),
  expires_at INTEGER CHECK (expires_at >= 0),
  delivery_channel TEXT CHECK (delivery_channel IN ('outbox', 'smtp', 'sealed')),
  delivery_state TEXT NOT NULL DEFAULT 'none' CHECK (delivery_state IN ('none', 'pending', 'delivered')),
  delivery_to TEXT CHECK (length(delivery_to) BETWEEN 1 AND 512),
  delivery_attempts INTEGER NOT NULL DEFAULT 0 CHECK (delivery_attempts >= 0),
  delivery_last_error TEXT CHECK (length(delivery_last_error) BETWEEN 1 AND 2048),
  delivery_next_at INTEGER CHECK (delivery_next_at >= 0),
  delivered_at INTEGER CHECK (delivered_at >= 0),
  sealed_envelope TEXT CHECK (json_valid(sealed_envelope) AND json_type(sealed_envelope) = 'object'),
  seen_at INTEGER NOT NULL CHECK (seen_at >= 0),
  updated_at INTEGER NOT NULL CHECK (updated_at >= seen_at),
  UNIQUE (network, tx_hash),
  CHECK (state <> 'issued' OR (tenant_id IS NOT NULL AND key_prefix IS NOT NULL AND expires_at IS NOT NULL AND delivery_channel IS NOT NULL AND delivery_to IS NOT NULL)),
  CHECK (delivery_state = 'none' OR state = 'issued')
) STRICT;
CREATE INDEX idx_payments_tx ON payments (tx_hash);
CREATE INDEX idx_payments_unconfirmed ON payments (network) WHERE state = 'pending_confirmations';
CREATE INDEX idx_payments_delivery ON payments (delivery_next_at) WHERE delivery_state = 'pending';

CREATE TABLE payment_cursors (
  network TEXT NOT NULL CHECK (length(network) BETWEEN 1 AND 64),
  token TEXT NOT NULL CHECK (length(token) = 42),
  treasury TEXT NOT NULL CHECK (length(treasury) = 42),
  next_block INTEGER NOT NULL CHECK (next_block >= 0),
  updated_at INTEGER NOT NULL CHECK (updated_at >= 0),
  PRIMARY KEY (network, token, treasury)
) STRICT, WITHOUT ROWID;

ALTER TABLE api_keys ADD COLUMN payment_tx TEXT CHECK (length(payment_tx) BETWEEN 1 AND 140);
ALTER TABLE api_keys ADD COLUMN expires_at INTEGER CHECK (expires_at >= 0);
CREATE UNIQUE INDEX idx_api_keys_payment_tx ON api_keys (payment_tx) WHERE payment_tx IS NOT NULL;
CREATE INDEX idx_api_keys_tenant_payment ON api_keys (tenant_id) WHERE payment_tx IS NOT NULL;

ALTER TABLE tenants ADD COLUMN paid_until INTEGER CHECK (paid_until >= 0);
`);
}

export const paymentsMigration: Migration = { version: 9, name: 'payments', up };
