/**
 * The PostgreSQL adapter of payments.ts (migration 0005): the same rows, checks and answers as
 * the SQLite ledger's payments.ts, for any number of nodes on one database.
 *
 * - A transaction is recorded with `INSERT … ON CONFLICT DO NOTHING`: seen by two nodes at once,
 *   one row, one audit row.
 * - Issuing locks the payment's row (`FOR UPDATE`) and re-reads its state: a second node issuing
 *   the same payment waits, then finds it issued and changes nothing; the UNIQUE
 *   `api_keys.payment_tx` stands behind it. The candidate tenants are locked (advisory, per id)
 *   before they are read, so two payments of one contact never make its tenant twice, and the
 *   term's end is read and extended under that lock.
 * - Writes under the `payments` lease check its fence first, in the same transaction.
 */
import {
  DELIVERY_CHANNELS,
  PAYMENT_TERMS,
  type DeliveryChannel,
  type PaymentTerm,
} from '../../../src-shared/api/payments';
import { isTenantId, TENANT_ID_RULE } from '../../../src-shared/api/vocabulary';
import { checkHex64, checkInstant, checkInteger, checkObject, checkOneOf, checkText, toJsonText } from '../checks';
import {
  checkAddress,
  checkNetwork,
  checkNewPayment,
  checkTxHash,
  FINAL_NO_KEY_STATES,
  MAX_PAYMENT_LIST,
  type PaymentRecord,
} from '../payments';
import type { Lease } from './cluster';
import type { PgStoreDeps } from './deps';
import { pgAppendAudit } from './pg-identity';
import { assertFence, type PgReader, type PgWriter } from './pg-pool';
import type { PaymentCursorKey, PaymentKeyIssueResult, PaymentStore } from './payments';

const COLUMNS = `network, tx_hash, block_number, block_hash, from_address, token, amount, tier, term,
  contact, issuer_did, state, reason, tenant_id, key_prefix, expires_at, delivery_channel, delivery_state, delivery_to,
  delivery_attempts, delivery_last_error, delivery_next_at, delivered_at, sealed_envelope IS NOT NULL AS sealed,
  seen_at, updated_at`;

type PaymentRow = Omit<PaymentRecord, 'from' | 'sealed'> & { from_address: string | null; sealed: boolean };

/** BIGINT columns as numbers (the pool parses them; a string would be a driver's default). */
function num(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

function toRecord(row: PaymentRow): PaymentRecord {
  const { from_address, sealed, ...rest } = row;
  return {
    ...rest,
    block_number: num(rest.block_number),
    expires_at: num(rest.expires_at),
    delivery_attempts: Number(rest.delivery_attempts),
    delivery_next_at: num(rest.delivery_next_at),
    delivered_at: num(rest.delivered_at),
    seen_at: Number(rest.seen_at),
    updated_at: Number(rest.updated_at),
    from: from_address,
    sealed: sealed === true,
  };
}

async function selectPayments(database: PgReader, rest: string, params: readonly unknown[]): Promise<PaymentRecord[]> {
  const { rows } = await database.query<PaymentRow>(`SELECT ${COLUMNS} FROM payments ${rest}`, params);
  return rows.map(toRecord);
}

async function selectPayment(
  database: PgReader,
  network: string,
  txHash: string,
  lock = false,
): Promise<PaymentRecord | undefined> {
  const [record] = await selectPayments(database, `WHERE network = $1 AND tx_hash = $2${lock ? ' FOR UPDATE' : ''}`, [
    network,
    txHash,
  ]);
  return record;
}

async function fence(writer: PgWriter, lease: Lease | undefined): Promise<void> {
  if (lease !== undefined) await assertFence(writer, lease);
}

/** Appends an audit row in the writer's transaction (the identity adapter's chain, under its table lock). */
function appendAudit(
  writer: PgWriter,
  action: string,
  subject: string,
  details: unknown,
  at: number,
): Promise<unknown> {
  return pgAppendAudit(writer, { action, subject, details, at });
}

/** The payments domain on PostgreSQL. */
export function pgPayments(deps: PgStoreDeps): PaymentStore {
  const { pool } = deps;
  const read = <T>(fn: (reader: PgReader) => Promise<T>): Promise<T> => pool.read(fn);
  const write = <T>(fn: (writer: PgWriter) => Promise<T>): Promise<T> => pool.write(fn);

  return {
    getPayment: async (network, txHash) => {
      const name = checkNetwork(network);
      const hash = checkTxHash(txHash);
      return read((reader) => selectPayment(reader, name, hash));
    },
    findByTx: async (txHash) => {
      const hash = checkTxHash(txHash);
      return read((reader) => selectPayments(reader, 'WHERE tx_hash = $1 ORDER BY seen_at DESC, id DESC', [hash]));
    },
    list: async (options = {}) => {
      const limit = checkInteger(options.limit ?? 100, 'limit', 1, MAX_PAYMENT_LIST);
      return read((reader) => selectPayments(reader, 'ORDER BY seen_at DESC, id DESC LIMIT $1', [limit]));
    },
    unconfirmed: async (network) => {
      const name = checkNetwork(network);
      return read((reader) =>
        selectPayments(reader, `WHERE network = $1 AND state = 'pending_confirmations' ORDER BY id`, [name]),
      );
    },
    dueDeliveries: async (now, limit = 100) => {
      const at = checkInteger(now, 'now');
      const max = checkInteger(limit, 'limit', 1, MAX_PAYMENT_LIST);
      return read((reader) =>
        selectPayments(
          reader,
          `WHERE delivery_state = 'pending' AND delivery_next_at <= $1 ORDER BY delivery_next_at, id LIMIT $2`,
          [at, max],
        ),
      );
    },
    sealedEnvelope: async (txHash) => {
      const hash = checkTxHash(txHash);
      return read(async (reader) => {
        const { rows } = await reader.query<{ sealed_envelope: string }>(
          `SELECT sealed_envelope FROM payments WHERE tx_hash = $1 AND sealed_envelope IS NOT NULL
           ORDER BY seen_at DESC, id DESC LIMIT 1`,
          [hash],
        );
        return rows[0]?.sealed_envelope;
      });
    },
    cursor: async (key) => {
      const where = checkCursorKey(key);
      return read(async (reader) => cursorOf(reader, where));
    },

    record: async (payment, lease) => {
      const row = checkNewPayment(payment);
      return write(async (writer) => {
        await fence(writer, lease);
        const inserted = await writer.query(
          `INSERT INTO payments (network, tx_hash, block_number, block_hash, from_address, token, amount, tier, term,
             contact, issuer_did, state, reason, seen_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)
           ON CONFLICT (network, tx_hash) DO NOTHING`,
          [
            row.network,
            row.txHash,
            row.blockNumber,
            row.blockHash,
            row.from,
            row.token,
            row.amount,
            row.tier,
            row.term,
            row.contact,
            row.issuerDid,
            row.state,
            row.reason,
            row.at,
          ],
        );
        const created = inserted.rowCount === 1;
        if (created)
          await appendAudit(
            writer,
            'payment-record',
            row.txHash,
            { network: row.network, state: row.state, tier: row.tier },
            row.at,
          );
        const record = await selectPayment(writer, row.network, row.txHash);
        if (record === undefined) throw new Error('recordPayment: the row is missing after its insert');
        return { record, created };
      });
    },

    settle: async (change, lease) => {
      const state = checkOneOf(change.state, FINAL_NO_KEY_STATES, 'change.state');
      const reason = checkText(change.reason, 'change.reason', 2048);
      const at = checkInstant(change.at, 'change.at');
      const network = checkNetwork(change.network);
      const hash = checkTxHash(change.tx_hash);
      return write(async (writer) => {
        await fence(writer, lease);
        const result = await writer.query(
          `UPDATE payments SET state = $1, reason = $2, updated_at = GREATEST(seen_at, $3)
           WHERE network = $4 AND tx_hash = $5 AND state = 'pending_confirmations'`,
          [state, reason, at, network, hash],
        );
        const moved = result.rowCount === 1;
        if (moved) await appendAudit(writer, 'payment-record', hash, { network, state }, at);
        return moved;
      });
    },

    movePending: async (change, lease) => {
      const blockNumber = checkInteger(change.block_number, 'change.block_number');
      const blockHash = checkTxHash(change.block_hash, 'change.block_hash');
      const at = checkInstant(change.at, 'change.at');
      const network = checkNetwork(change.network);
      const hash = checkTxHash(change.tx_hash);
      return write(async (writer) => {
        await fence(writer, lease);
        const result = await writer.query(
          `UPDATE payments SET block_number = $1, block_hash = $2, updated_at = GREATEST(seen_at, $3)
           WHERE network = $4 AND tx_hash = $5 AND state = 'pending_confirmations'
             AND (block_hash IS DISTINCT FROM $2 OR block_number IS DISTINCT FROM $1)`,
          [blockNumber, blockHash, at, network, hash],
        );
        return result.rowCount === 1;
      });
    },

    issueKey: async (issue, lease) => {
      checkObject(issue, 'issue');
      const network = checkNetwork(issue.network);
      const hash = checkTxHash(issue.tx_hash);
      const tier = checkOneOf(issue.tier, ['pro', 'scale'] as const, 'issue.tier');
      const term: PaymentTerm = checkOneOf(issue.term, PAYMENT_TERMS, 'issue.term');
      const contact = checkText(issue.contact, 'issue.contact', 512);
      if (!Array.isArray(issue.tenant_ids) || issue.tenant_ids.length === 0)
        throw new TypeError('issue.tenant_ids must be a non-empty array');
      for (const id of issue.tenant_ids)
        if (!isTenantId(id)) throw new RangeError(`issue.tenant_ids: each must be ${TENANT_ID_RULE}`);
      const keySha256 = checkHex64(issue.key_sha256, 'issue.key_sha256');
      const prefix = checkText(issue.key_prefix, 'issue.key_prefix', 32);
      const termMs = checkInteger(issue.term_ms, 'issue.term_ms', 1);
      const channel: DeliveryChannel = checkOneOf(issue.delivery_channel, DELIVERY_CHANNELS, 'issue.delivery_channel');
      const deliveryTo = checkText(issue.delivery_to, 'issue.delivery_to', 512);
      const at = checkInstant(issue.at, 'issue.at');
      if (typeof issue.reason !== 'function') throw new TypeError('issue.reason must be a function');
      return write(async (writer): Promise<PaymentKeyIssueResult> => {
        await fence(writer, lease);
        const current = await selectPayment(writer, network, hash, true);
        if (current?.state !== 'pending_confirmations') return { outcome: 'not_waiting', record: current };
        // The candidate tenants, locked in their given order before they are read.
        for (const id of issue.tenant_ids)
          await writer.query(`SELECT pg_advisory_xact_lock(hashtext('payments-tenant:' || $1))`, [id]);
        let tenantId: string | undefined;
        let exists = false;
        for (const candidate of issue.tenant_ids) {
          const tenant = await writer.query('SELECT 1 FROM tenants WHERE id = $1', [candidate]);
          const owner = await writer.query<{ contact: string | null }>(
            `SELECT contact FROM payments WHERE tenant_id = $1 AND state = 'issued' ORDER BY id LIMIT 1`,
            [candidate],
          );
          if (tenant.rowCount === 0 || owner.rows[0]?.contact === contact) {
            tenantId = candidate;
            exists = tenant.rowCount !== 0;
            break;
          }
        }
        if (tenantId === undefined) return { outcome: 'tenant_taken', tenant_id: issue.tenant_ids.at(-1) ?? '' };
        if (!exists) {
          await writer.query('INSERT INTO tenants (id, tier, created_at) VALUES ($1, $2, $3)', [tenantId, tier, at]);
          await appendAudit(writer, 'tenant-create', tenantId, { tier, payment: hash }, at);
        }
        const paid = await writer.query<{ paid_until: number | string | null }>(
          'SELECT paid_until FROM tenants WHERE id = $1',
          [tenantId],
        );
        const end = Math.max(at, num(paid.rows[0]?.paid_until ?? null) ?? 0) + termMs;
        await writer.query(
          `INSERT INTO api_keys (key_sha256, prefix, tenant_id, tier, scopes, created_at, payment_tx, expires_at)
           VALUES ($1, $2, $3, $4, '[]', $5, $6, $7)`,
          [keySha256, prefix, tenantId, tier, at, hash, end],
        );
        await writer.query('UPDATE tenants SET paid_until = $1 WHERE id = $2', [end, tenantId]);
        await writer.query('UPDATE api_keys SET expires_at = $1 WHERE tenant_id = $2 AND payment_tx IS NOT NULL', [
          end,
          tenantId,
        ]);
        const reason = checkText(issue.reason(tenantId, end), 'issue.reason', 2048);
        await writer.query(
          `UPDATE payments SET state = 'issued', tenant_id = $1, key_prefix = $2, term = $3, expires_at = $4,
             delivery_channel = $5, delivery_state = 'pending', delivery_to = $6, delivery_next_at = $7, reason = $8,
             updated_at = GREATEST(seen_at, $7)
           WHERE network = $9 AND tx_hash = $10 AND state = 'pending_confirmations'`,
          [tenantId, prefix, term, end, channel, deliveryTo, at, reason, network, hash],
        );
        await appendAudit(
          writer,
          'payment-issue',
          hash,
          { network, tenant: tenantId, prefix, term, expires_at: end },
          at,
        );
        const record = await selectPayment(writer, network, hash);
        if (record === undefined) throw new Error('issueKey: the payment is missing after its update');
        return { outcome: 'issued', record };
      });
    },

    deliveryFailed: async (change, lease) => {
      const error = checkText(change.error, 'change.error', 2048);
      const at = checkInstant(change.at, 'change.at');
      const next = checkInteger(change.next_at, 'change.next_at');
      const network = checkNetwork(change.network);
      const hash = checkTxHash(change.tx_hash);
      return write(async (writer) => {
        await fence(writer, lease);
        const result = await writer.query(
          `UPDATE payments SET delivery_attempts = delivery_attempts + 1, delivery_last_error = $1,
             delivery_next_at = $2, updated_at = GREATEST(seen_at, $3)
           WHERE network = $4 AND tx_hash = $5 AND delivery_state = 'pending'`,
          [error, next, at, network, hash],
        );
        return result.rowCount === 1;
      });
    },

    delivered: async (change, lease) => {
      const at = checkInstant(change.at, 'change.at');
      const channel = checkOneOf(change.channel, DELIVERY_CHANNELS, 'change.channel');
      const sealed =
        change.sealed === undefined ? null : toJsonText(checkObject(change.sealed, 'change.sealed'), 'sealed');
      if (channel === 'sealed' && sealed === null)
        throw new RangeError('change.sealed: a sealed delivery stores its envelope');
      const network = checkNetwork(change.network);
      const hash = checkTxHash(change.tx_hash);
      const to = checkText(change.to, 'change.to', 512);
      return write(async (writer) => {
        await fence(writer, lease);
        const result = await writer.query(
          `UPDATE payments SET delivery_state = 'delivered', delivery_channel = $1,
             delivery_attempts = delivery_attempts + 1, delivery_last_error = NULL, delivery_next_at = NULL,
             delivered_at = $2, sealed_envelope = $3, updated_at = GREATEST(seen_at, $2)
           WHERE network = $4 AND tx_hash = $5 AND delivery_state = 'pending'`,
          [channel, at, sealed, network, hash],
        );
        const done = result.rowCount === 1;
        if (done) await appendAudit(writer, 'payment-deliver', hash, { network, channel, to }, at);
        return done;
      });
    },

    advanceCursor: async (change, lease) => {
      const where = checkCursorKey(change);
      const next = checkInteger(change.next_block, 'next_block');
      const at = checkInstant(change.at, 'at');
      return write(async (writer) => {
        await fence(writer, lease);
        await writer.query(
          `INSERT INTO payment_cursors (network, token, treasury, next_block, updated_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (network, token, treasury) DO UPDATE SET next_block = EXCLUDED.next_block,
             updated_at = EXCLUDED.updated_at
           WHERE EXCLUDED.next_block > payment_cursors.next_block`,
          [where.network, where.token, where.treasury, next, at],
        );
        return (await cursorOf(writer, where)) ?? next;
      });
    },
  };
}

function checkCursorKey(key: PaymentCursorKey): PaymentCursorKey {
  return {
    network: checkNetwork(key.network),
    token: checkAddress(key.token, 'token'),
    treasury: checkAddress(key.treasury, 'treasury'),
  };
}

async function cursorOf(database: PgReader, where: PaymentCursorKey): Promise<number | undefined> {
  const { rows } = await database.query<{ next_block: number | string }>(
    'SELECT next_block FROM payment_cursors WHERE network = $1 AND token = $2 AND treasury = $3',
    [where.network, where.token, where.treasury],
  );
  return rows[0] === undefined ? undefined : Number(rows[0].next_block);
}
