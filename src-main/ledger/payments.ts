/**
 * Repository for API keys bought on chain (migration 9): payments, the watcher's cursors, the
 * tenants' paid terms and the bought keys' expiry.
 *
 * A payment row is written once per (network, transaction) with {@link recordPayment}, which
 * never replaces a row: a transaction seen again changes nothing. A row moves on only from
 * `pending_confirmations` ({@link settlePayment}, {@link markPaymentIssued}), so a final state
 * stays final. The key itself is never here: only its prefix, and its delivery's progress.
 */
import {
  DELIVERY_CHANNELS,
  MEMO_TIERS,
  PAYMENT_STATES,
  PAYMENT_TERMS,
  type DeliveryChannel,
  type DeliveryState,
  type MemoTier,
  type PaymentState,
  type PaymentTerm,
} from '../../src-shared/api/payments';
import { checkInstant, checkInteger, checkObject, checkOneOf, checkText, toJsonText } from './checks';
import { execute, queryAll, queryOne, type ReadableDB, type WritableDB } from './database';
import { sql, sqlFragment, type SqlFragment, type SqlQuery } from './sql';

/** The states a payment ends in without a key, once recorded. */
export const FINAL_NO_KEY_STATES = [
  'underpaid',
  'memo_invalid',
  'wrong_token',
  'contact_sales',
  'reverted',
  'dropped',
] as const satisfies readonly PaymentState[];

/** The most payments one list returns. */
export const MAX_PAYMENT_LIST = 1000;

const TX_HASH = /^0x[0-9a-f]{64}$/;
const ADDRESS = /^0x[0-9a-f]{40}$/;
const AMOUNT = /^[0-9]{1,78}$/;

/** A payment as stored. */
export interface PaymentRecord {
  network: string;
  tx_hash: string;
  block_number: number | null;
  block_hash: string | null;
  from: string | null;
  token: string | null;
  amount: string | null;
  tier: MemoTier | null;
  term: PaymentTerm | null;
  contact: string | null;
  issuer_did: string | null;
  state: PaymentState;
  reason: string | null;
  tenant_id: string | null;
  key_prefix: string | null;
  expires_at: number | null;
  delivery_channel: DeliveryChannel | null;
  delivery_state: DeliveryState;
  delivery_to: string | null;
  delivery_attempts: number;
  delivery_last_error: string | null;
  delivery_next_at: number | null;
  delivered_at: number | null;
  /** Whether a sealed envelope is stored (read it with {@link getSealedEnvelope}). */
  sealed: boolean;
  seen_at: number;
  updated_at: number;
}

/** What is known of a transaction when it is first recorded. */
export interface NewPayment {
  network: string;
  tx_hash: string;
  block_number?: number | null;
  block_hash?: string | null;
  from?: string | null;
  token?: string | null;
  amount?: bigint | null;
  tier?: MemoTier | null;
  term?: PaymentTerm | null;
  contact?: string | null;
  issuer_did?: string | null;
  /** `pending_confirmations` or one of {@link FINAL_NO_KEY_STATES}. */
  state: PaymentState;
  reason?: string | null;
  at: number;
}

interface PaymentRow extends Omit<PaymentRecord, 'from' | 'sealed'> {
  from_address: string | null;
  sealed: number;
}

const COLUMNS = sqlFragment`network, tx_hash, block_number, block_hash, from_address, token, amount, tier, term,
  contact, issuer_did, state, reason, tenant_id, key_prefix, expires_at, delivery_channel, delivery_state, delivery_to,
  delivery_attempts, delivery_last_error, delivery_next_at, delivered_at, sealed_envelope IS NOT NULL AS sealed,
  seen_at, updated_at`;

function sqlSelect(rest: SqlFragment): SqlQuery {
  return sql`SELECT ${COLUMNS} FROM payments ${rest}`;
}

function toRecord(row: PaymentRow): PaymentRecord {
  const { from_address, sealed, ...rest } = row;
  return { ...rest, from: from_address, sealed: sealed === 1 };
}

/** A network name, checked (1 to 64 characters). */
export function checkNetwork(value: unknown): string {
  return checkText(value, 'network', 64);
}

/** A transaction or block hash, checked (0x and 64 lowercase hex). */
export function checkTxHash(value: unknown, name = 'tx_hash'): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  if (!TX_HASH.test(value)) throw new RangeError(`${name} must be 0x and 64 lowercase hex digits`);
  return value;
}

/** An address, checked (0x and 40 lowercase hex). */
export function checkAddress(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  if (!ADDRESS.test(value)) throw new RangeError(`${name} must be 0x and 40 lowercase hex digits`);
  return value;
}

function optional<T>(value: T | null | undefined, check: (value: T) => T): T | null {
  return value === undefined || value === null ? null : check(value);
}

function selectPayment(database: ReadableDB, network: string, txHash: string): PaymentRecord | undefined {
  const row = queryOne<PaymentRow>(
    database,
    sqlSelect(sqlFragment`WHERE network = ${network} AND tx_hash = ${txHash}`),
  );
  return row === undefined ? undefined : toRecord(row);
}

/**
 * Records a transaction the first time it is seen.
 *
 * @returns the stored row and whether this call wrote it (false: it was recorded before, and is unchanged)
 * @throws TypeError/RangeError for bad input
 */
export function recordPayment(database: WritableDB, payment: NewPayment): { record: PaymentRecord; created: boolean } {
  const row = checkNewPayment(payment);
  const {
    network,
    txHash,
    blockNumber,
    blockHash,
    from,
    token,
    amount,
    tier,
    term,
    contact,
    issuerDid,
    state,
    reason,
    at,
  } = row;
  const result = execute(
    database,
    sql`INSERT INTO payments (network, tx_hash, block_number, block_hash, from_address, token, amount, tier, term,
          contact, issuer_did, state, reason, seen_at, updated_at)
        VALUES (${network}, ${txHash}, ${blockNumber}, ${blockHash}, ${from}, ${token}, ${amount}, ${tier}, ${term},
          ${contact}, ${issuerDid}, ${state}, ${reason}, ${at}, ${at})
        ON CONFLICT (network, tx_hash) DO NOTHING`,
  );
  const record = selectPayment(database, network, txHash);
  if (record === undefined) throw new Error('recordPayment: the row is missing after its insert');
  return { record, created: result.changes === 1 };
}

/**
 * A new payment's values, checked (recordPayment; the PostgreSQL store uses them too).
 *
 * @throws TypeError/RangeError for bad input
 */
export function checkNewPayment(payment: NewPayment): {
  network: string;
  txHash: string;
  blockNumber: number | null;
  blockHash: string | null;
  from: string | null;
  token: string | null;
  amount: string | null;
  tier: MemoTier | null;
  term: PaymentTerm | null;
  contact: string | null;
  issuerDid: string | null;
  state: PaymentState;
  reason: string | null;
  at: number;
} {
  checkObject(payment, 'payment');
  const network = checkNetwork(payment.network);
  const txHash = checkTxHash(payment.tx_hash);
  const state = checkOneOf(payment.state, PAYMENT_STATES, 'payment.state');
  if (state === 'issued')
    throw new RangeError('payment.state: a payment is recorded before any key (markPaymentIssued issues)');
  const at = checkInstant(payment.at, 'payment.at');
  const blockNumber = optional(payment.block_number, (value) => checkInteger(value, 'payment.block_number'));
  const blockHash = optional(payment.block_hash, (value) => checkTxHash(value, 'payment.block_hash'));
  const from = optional(payment.from, (value) => checkAddress(value, 'payment.from'));
  const token = optional(payment.token, (value) => checkAddress(value, 'payment.token'));
  let amount: string | null = null;
  if (payment.amount !== undefined && payment.amount !== null) {
    if (typeof payment.amount !== 'bigint') throw new TypeError('payment.amount must be a bigint');
    amount = payment.amount.toString();
    if (!AMOUNT.test(amount)) throw new RangeError('payment.amount must be a uint256');
  }
  const tier = optional(payment.tier, (value) => checkOneOf(value, MEMO_TIERS, 'payment.tier'));
  const term = optional(payment.term, (value) => checkOneOf(value, PAYMENT_TERMS, 'payment.term'));
  const contact = optional(payment.contact, (value) => checkText(value, 'payment.contact', 512));
  const issuerDid = optional(payment.issuer_did, (value) => checkText(value, 'payment.issuer_did', 512));
  const reason = optional(payment.reason, (value) => checkText(value, 'payment.reason', 2048));
  return {
    network,
    txHash,
    blockNumber,
    blockHash,
    from,
    token,
    amount,
    tier,
    term,
    contact,
    issuerDid,
    state,
    reason,
    at,
  };
}

/** One payment of a network, if recorded. */
export function getPayment(database: ReadableDB, network: string, txHash: string): PaymentRecord | undefined {
  return selectPayment(database, checkNetwork(network), checkTxHash(txHash));
}

/** The payments recorded for a transaction hash, on any network, the latest first. */
export function findPaymentsByTx(database: ReadableDB, txHash: string): PaymentRecord[] {
  const hash = checkTxHash(txHash);
  return queryAll<PaymentRow>(
    database,
    sqlSelect(sqlFragment`WHERE tx_hash = ${hash} ORDER BY seen_at DESC, id DESC`),
  ).map(toRecord);
}

/** Payments, the most recently seen first. */
export function listPaymentRecords(database: ReadableDB, options: { limit?: number } = {}): PaymentRecord[] {
  const limit = checkInteger(options.limit ?? 100, 'limit', 1, MAX_PAYMENT_LIST);
  return queryAll<PaymentRow>(database, sqlSelect(sqlFragment`ORDER BY seen_at DESC, id DESC LIMIT ${limit}`)).map(
    toRecord,
  );
}

/** A network's payments still waiting for their confirmations, oldest first. */
export function unconfirmedPayments(database: ReadableDB, network: string): PaymentRecord[] {
  const name = checkNetwork(network);
  return queryAll<PaymentRow>(
    database,
    sqlSelect(sqlFragment`WHERE network = ${name} AND state = 'pending_confirmations' ORDER BY id`),
  ).map(toRecord);
}

/**
 * Moves a payment waiting for confirmations to a final state without a key (`dropped` after a
 * reorganisation, or what the transaction turned out to be once confirmed).
 *
 * @returns true when it moved; false when it was not waiting (nothing changes)
 */
export function settlePayment(
  database: WritableDB,
  change: { network: string; tx_hash: string; state: PaymentState; reason: string; at: number },
): boolean {
  const state = checkOneOf(change.state, FINAL_NO_KEY_STATES, 'change.state');
  const reason = checkText(change.reason, 'change.reason', 2048);
  const at = checkInstant(change.at, 'change.at');
  const result = execute(
    database,
    sql`UPDATE payments SET state = ${state}, reason = ${reason}, updated_at = max(seen_at, ${at})
        WHERE network = ${checkNetwork(change.network)} AND tx_hash = ${checkTxHash(change.tx_hash)}
          AND state = 'pending_confirmations'`,
  );
  return result.changes === 1;
}

/**
 * Marks a confirmed payment issued, with its key's prefix, tenant, term end and delivery (pending).
 * Call it in the transaction that stores the key.
 *
 * @returns true when it moved; false when it was not waiting (nothing changes)
 */
export function markPaymentIssued(
  database: WritableDB,
  change: {
    network: string;
    tx_hash: string;
    tenant_id: string;
    key_prefix: string;
    term: PaymentTerm;
    expires_at: number;
    delivery_channel: DeliveryChannel;
    delivery_to: string;
    reason: string;
    at: number;
  },
): boolean {
  const at = checkInstant(change.at, 'change.at');
  const result = execute(
    database,
    sql`UPDATE payments SET state = 'issued', tenant_id = ${checkText(change.tenant_id, 'change.tenant_id', 64)},
          key_prefix = ${checkText(change.key_prefix, 'change.key_prefix', 32)},
          term = ${checkOneOf(change.term, PAYMENT_TERMS, 'change.term')},
          expires_at = ${checkInteger(change.expires_at, 'change.expires_at')},
          delivery_channel = ${checkOneOf(change.delivery_channel, DELIVERY_CHANNELS, 'change.delivery_channel')},
          delivery_state = 'pending', delivery_to = ${checkText(change.delivery_to, 'change.delivery_to', 512)},
          delivery_next_at = ${at}, reason = ${checkText(change.reason, 'change.reason', 2048)},
          updated_at = max(seen_at, ${at})
        WHERE network = ${checkNetwork(change.network)} AND tx_hash = ${checkTxHash(change.tx_hash)}
          AND state = 'pending_confirmations'`,
  );
  return result.changes === 1;
}

/**
 * Moves a payment waiting for confirmations to the block it is in now (mined again elsewhere after
 * a reorganisation).
 *
 * @returns true when it changed
 */
export function movePendingPayment(
  database: WritableDB,
  change: { network: string; tx_hash: string; block_number: number; block_hash: string; at: number },
): boolean {
  const blockNumber = checkInteger(change.block_number, 'change.block_number');
  const blockHash = checkTxHash(change.block_hash, 'change.block_hash');
  const at = checkInstant(change.at, 'change.at');
  const result = execute(
    database,
    sql`UPDATE payments SET block_number = ${blockNumber}, block_hash = ${blockHash}, updated_at = max(seen_at, ${at})
        WHERE network = ${checkNetwork(change.network)} AND tx_hash = ${checkTxHash(change.tx_hash)}
          AND state = 'pending_confirmations' AND (block_hash IS NOT ${blockHash} OR block_number IS NOT ${blockNumber})`,
  );
  return result.changes === 1;
}

/** Issued payments whose delivery is pending and due at `now`, the oldest due first. */
export function dueDeliveries(database: ReadableDB, now: number, limit = 100): PaymentRecord[] {
  const at = checkInteger(now, 'now');
  const max = checkInteger(limit, 'limit', 1, MAX_PAYMENT_LIST);
  return queryAll<PaymentRow>(
    database,
    sqlSelect(
      sqlFragment`WHERE delivery_state = 'pending' AND delivery_next_at <= ${at} ORDER BY delivery_next_at, id LIMIT ${max}`,
    ),
  ).map(toRecord);
}

/**
 * Records a failed delivery attempt: one more attempt, the error (never the key) and when to try again.
 *
 * @returns true when a pending delivery was updated
 */
export function recordDeliveryFailure(
  database: WritableDB,
  change: { network: string; tx_hash: string; error: string; next_at: number; at: number },
): boolean {
  const error = checkText(change.error, 'change.error', 2048);
  const at = checkInstant(change.at, 'change.at');
  const result = execute(
    database,
    sql`UPDATE payments SET delivery_attempts = delivery_attempts + 1, delivery_last_error = ${error},
          delivery_next_at = ${checkInteger(change.next_at, 'change.next_at')}, updated_at = max(seen_at, ${at})
        WHERE network = ${checkNetwork(change.network)} AND tx_hash = ${checkTxHash(change.tx_hash)}
          AND delivery_state = 'pending'`,
  );
  return result.changes === 1;
}

/**
 * Records a delivery done: the channel it went by, the sealed envelope for a did:key (served by
 * the pickup route), one more attempt.
 *
 * @returns true when a pending delivery was marked delivered; false when it was delivered already
 */
export function markDelivered(
  database: WritableDB,
  change: { network: string; tx_hash: string; channel: DeliveryChannel; sealed?: unknown; at: number },
): boolean {
  const at = checkInstant(change.at, 'change.at');
  const channel = checkOneOf(change.channel, DELIVERY_CHANNELS, 'change.channel');
  const sealed = change.sealed === undefined ? null : toJsonText(checkObject(change.sealed, 'change.sealed'), 'sealed');
  if (channel === 'sealed' && sealed === null)
    throw new RangeError('change.sealed: a sealed delivery stores its envelope');
  const result = execute(
    database,
    sql`UPDATE payments SET delivery_state = 'delivered', delivery_channel = ${channel},
          delivery_attempts = delivery_attempts + 1, delivery_last_error = NULL, delivery_next_at = NULL,
          delivered_at = ${at}, sealed_envelope = ${sealed}, updated_at = max(seen_at, ${at})
        WHERE network = ${checkNetwork(change.network)} AND tx_hash = ${checkTxHash(change.tx_hash)}
          AND delivery_state = 'pending'`,
  );
  return result.changes === 1;
}

/** The sealed envelope stored for a transaction (the latest network's), as its JSON text. */
export function getSealedEnvelope(database: ReadableDB, txHash: string): string | undefined {
  return (
    queryOne<{ sealed_envelope: string }>(
      database,
      sql`SELECT sealed_envelope FROM payments WHERE tx_hash = ${checkTxHash(txHash)} AND sealed_envelope IS NOT NULL
          ORDER BY seen_at DESC, id DESC LIMIT 1`,
    )?.sealed_envelope ?? undefined
  );
}

/** The first block the watcher has not finished for (network, token, treasury); undefined before its first pass. */
export function getPaymentCursor(
  database: ReadableDB,
  where: { network: string; token: string; treasury: string },
): number | undefined {
  return queryOne<{ next_block: number }>(
    database,
    sql`SELECT next_block FROM payment_cursors WHERE network = ${checkNetwork(where.network)}
          AND token = ${checkAddress(where.token, 'token')} AND treasury = ${checkAddress(where.treasury, 'treasury')}`,
  )?.next_block;
}

/**
 * Moves the watcher's cursor forward (never back).
 *
 * @returns the cursor as it now stands
 */
export function advancePaymentCursor(
  database: WritableDB,
  where: { network: string; token: string; treasury: string; next_block: number; at: number },
): number {
  const network = checkNetwork(where.network);
  const token = checkAddress(where.token, 'token');
  const treasury = checkAddress(where.treasury, 'treasury');
  const next = checkInteger(where.next_block, 'next_block');
  const at = checkInstant(where.at, 'at');
  execute(
    database,
    sql`INSERT INTO payment_cursors (network, token, treasury, next_block, updated_at)
        VALUES (${network}, ${token}, ${treasury}, ${next}, ${at})
        ON CONFLICT (network, token, treasury) DO UPDATE SET next_block = excluded.next_block, updated_at = excluded.updated_at
        WHERE excluded.next_block > payment_cursors.next_block`,
  );
  return getPaymentCursor(database, { network, token, treasury }) ?? next;
}

/** When a tenant's bought term ends (null: never bought on chain, or the tenant does not exist). */
export function tenantPaidUntil(database: ReadableDB, tenantId: string): number | null {
  return (
    queryOne<{ paid_until: number | null }>(
      database,
      sql`SELECT paid_until FROM tenants WHERE id = ${checkText(tenantId, 'tenantId', 64)}`,
    )?.paid_until ?? null
  );
}

/**
 * Sets a tenant's bought term's end, and the expiry of every key bought for it (an operator's
 * keys of the tenant keep none).
 *
 * @returns the number of bought keys updated
 */
export function setTenantPaidUntil(database: WritableDB, tenantId: string, until: number): number {
  const id = checkText(tenantId, 'tenantId', 64);
  const end = checkInteger(until, 'until');
  execute(database, sql`UPDATE tenants SET paid_until = ${end} WHERE id = ${id}`);
  return execute(
    database,
    sql`UPDATE api_keys SET expires_at = ${end} WHERE tenant_id = ${id} AND payment_tx IS NOT NULL`,
  ).changes;
}

/** Whether a key was stored for this transaction already (the UNIQUE payment_tx). */
export function hasPaymentKey(database: ReadableDB, txHash: string): boolean {
  return (
    queryOne<{ one: number }>(
      database,
      sql`SELECT 1 AS one FROM api_keys WHERE payment_tx = ${checkTxHash(txHash)}`,
    ) !== undefined
  );
}

/** The contact whose payment made a tenant (its first issued payment), if a payment made it. */
export function tenantPaymentContact(database: ReadableDB, tenantId: string): string | undefined {
  return (
    queryOne<{ contact: string }>(
      database,
      sql`SELECT contact FROM payments WHERE tenant_id = ${checkText(tenantId, 'tenantId', 64)} AND state = 'issued'
          ORDER BY id LIMIT 1`,
    )?.contact ?? undefined
  );
}
