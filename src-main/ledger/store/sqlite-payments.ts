/**
 * The SQLite adapter of payments.ts: the ledger's payment functions (ledger/payments.ts), each
 * call one transaction. A write under a lease checks its fence first (sqliteAssertFence), so a
 * lost lease writes nothing.
 */
import { appendAudit } from '../audit-log';
import {
  advancePaymentCursor,
  dueDeliveries,
  findPaymentsByTx,
  getPayment,
  getPaymentCursor,
  getSealedEnvelope,
  listPaymentRecords,
  markDelivered,
  markPaymentIssued,
  movePendingPayment,
  recordDeliveryFailure,
  recordPayment,
  setTenantPaidUntil,
  settlePayment,
  tenantPaidUntil,
  tenantPaymentContact,
  unconfirmedPayments,
} from '../payments';
import { getTenant, insertApiKey, insertTenant } from '../service-state';
import type { WritableDB } from '../database';
import type { Lease } from './cluster';
import type { SqliteStoreDeps } from './deps';
import { sqliteAssertFence } from './sqlite-cluster';
import type { PaymentKeyIssueResult, PaymentStore } from './payments';

/** The payments domain on SQLite. */
export function sqlitePayments(deps: SqliteStoreDeps): PaymentStore {
  const { ledger } = deps;
  const write = <T>(lease: Lease | undefined, fn: (database: WritableDB) => T): Promise<T> => {
    try {
      return Promise.resolve(
        ledger.runInTransaction((database) => {
          if (lease !== undefined) sqliteAssertFence(ledger, lease);
          return fn(database);
        }),
      );
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
  const read = <T>(fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn());
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
  return {
    getPayment: (network, txHash) => read(() => getPayment(ledger.readable, network, txHash)),
    findByTx: (txHash) => read(() => findPaymentsByTx(ledger.readable, txHash)),
    list: (options = {}) => read(() => listPaymentRecords(ledger.readable, options)),
    unconfirmed: (network) => read(() => unconfirmedPayments(ledger.readable, network)),
    dueDeliveries: (now, limit) => read(() => dueDeliveries(ledger.readable, now, limit)),
    sealedEnvelope: (txHash) => read(() => getSealedEnvelope(ledger.readable, txHash)),
    cursor: (key) => read(() => getPaymentCursor(ledger.readable, key)),

    record: (payment, lease) =>
      write(lease, (database) => {
        const result = recordPayment(database, payment);
        if (result.created)
          appendAudit(
            database,
            'payment-record',
            result.record.tx_hash,
            { network: result.record.network, state: result.record.state, tier: result.record.tier },
            { at: payment.at },
          );
        return result;
      }),

    settle: (change, lease) =>
      write(lease, (database) => {
        const moved = settlePayment(database, change);
        if (moved)
          appendAudit(
            database,
            'payment-record',
            change.tx_hash,
            { network: change.network, state: change.state },
            { at: change.at },
          );
        return moved;
      }),

    movePending: (change, lease) => write(lease, (database) => movePendingPayment(database, change)),

    issueKey: (issue, lease) =>
      write(lease, (database): PaymentKeyIssueResult => {
        const current = getPayment(database, issue.network, issue.tx_hash);
        if (current?.state !== 'pending_confirmations') return { outcome: 'not_waiting', record: current };
        const { at, contact, tier } = issue;
        let tenantId: string | undefined;
        let exists = false;
        for (const candidate of issue.tenant_ids) {
          const tenant = getTenant(database, candidate);
          if (tenant === undefined || tenantPaymentContact(database, candidate) === contact) {
            tenantId = candidate;
            exists = tenant !== undefined;
            break;
          }
        }
        if (tenantId === undefined) return { outcome: 'tenant_taken', tenant_id: issue.tenant_ids.at(-1) ?? '' };
        if (!exists) {
          insertTenant(database, { id: tenantId, tier, at });
          appendAudit(database, 'tenant-create', tenantId, { tier, payment: issue.tx_hash }, { at });
        }
        const end = Math.max(at, tenantPaidUntil(database, tenantId) ?? 0) + issue.term_ms;
        insertApiKey(database, {
          key_sha256: issue.key_sha256,
          prefix: issue.key_prefix,
          tenant_id: tenantId,
          tier,
          scopes: [],
          at,
          payment_tx: issue.tx_hash,
          expires_at: end,
        });
        setTenantPaidUntil(database, tenantId, end);
        markPaymentIssued(database, {
          network: issue.network,
          tx_hash: issue.tx_hash,
          tenant_id: tenantId,
          key_prefix: issue.key_prefix,
          term: issue.term,
          expires_at: end,
          delivery_channel: issue.delivery_channel,
          delivery_to: issue.delivery_to,
          reason: issue.reason(tenantId, end),
          at,
        });
        appendAudit(
          database,
          'payment-issue',
          issue.tx_hash,
          { network: issue.network, tenant: tenantId, prefix: issue.key_prefix, term: issue.term, expires_at: end },
          { at },
        );
        const record = getPayment(database, issue.network, issue.tx_hash);
        if (record === undefined) throw new Error('issueKey: the payment is missing after its update');
        return { outcome: 'issued', record };
      }),

    deliveryFailed: (change, lease) => write(lease, (database) => recordDeliveryFailure(database, change)),

    delivered: (change, lease) =>
      write(lease, (database) => {
        const sealed = change.sealed === undefined ? {} : { sealed: change.sealed };
        const done = markDelivered(database, {
          network: change.network,
          tx_hash: change.tx_hash,
          channel: change.channel,
          ...sealed,
          at: change.at,
        });
        if (done)
          appendAudit(
            database,
            'payment-deliver',
            change.tx_hash,
            { network: change.network, channel: change.channel, to: change.to },
            { at: change.at },
          );
        return done;
      }),

    advanceCursor: (change, lease) => write(lease, (database) => advancePaymentCursor(database, change)),
  };
}
