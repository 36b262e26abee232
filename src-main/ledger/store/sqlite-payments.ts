/**
 * The SQLite adapter of payments.ts: the ledger's payment functions (ledger/payments.ts), each
 * call one transaction. One node, so a lease passed is always current (no fence to check).
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
import type { SqliteStoreDeps } from './deps';
import type { PaymentKeyIssueResult, PaymentStore } from './payments';

/** The payments domain on SQLite. */
export function sqlitePayments(deps: SqliteStoreDeps): PaymentStore {
  const { ledger } = deps;
  const write = <T>(fn: Parameters<typeof ledger.runInTransaction<T>>[0]): Promise<T> => {
    try {
      return Promise.resolve(ledger.runInTransaction(fn));
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

    record: (payment) =>
      write((database) => {
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

    settle: (change) =>
      write((database) => {
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

    movePending: (change) => write((database) => movePendingPayment(database, change)),

    issueKey: (issue) =>
      write((database): PaymentKeyIssueResult => {
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

    deliveryFailed: (change) => write((database) => recordDeliveryFailure(database, change)),

    delivered: (change) =>
      write((database) => {
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

    advanceCursor: (change) => write((database) => advancePaymentCursor(database, change)),
  };
}
