/**
 * Payments for API keys bought on chain (docs/payments.md), their states and deliveries, and the
 * watcher's cursors; owned by h-pay, with its two adapters (sqlite-payments.ts, pg-payments.ts).
 *
 * Each method is one transaction. A payment is recorded before anything is issued for it, and
 * {@link PaymentStore.issueKey} stores the tenant (made or extended), the key (bound to its
 * transaction by the UNIQUE `api_keys.payment_tx`), the payment `issued` and the audit rows in
 * ONE transaction, only while the payment still waits: one key per transaction whatever crashes
 * or nodes there are. The writes the payment watcher makes pass the `payments` lease
 * (cluster.ts); on PostgreSQL the adapter checks its fence in the same transaction and throws
 * LeaseLostError (nothing written) when another node holds it now. `evroom apikeys redeem` writes
 * without a lease: the payment's own state decides, under a row lock, whether to issue.
 */
import type { DeliveryChannel, PaymentState, PaymentTerm } from '../../../src-shared/api/payments';
import type { NewPayment, PaymentRecord } from '../payments';
import type { Lease } from './cluster';

export type { NewPayment, PaymentRecord } from '../payments';
export { FINAL_NO_KEY_STATES, MAX_PAYMENT_LIST } from '../payments';

/** The name of the payment watcher's lease. */
export const PAYMENTS_LEASE = 'payments';

/** Which watcher cursor: a token's transfers to a treasury on a network (addresses lowercase). */
export interface PaymentCursorKey {
  network: string;
  token: string;
  treasury: string;
}

/** A confirmed payment's key, to be issued in one transaction (the key itself is never stored). */
export interface PaymentKeyIssue {
  network: string;
  tx_hash: string;
  tier: 'pro' | 'scale';
  term: PaymentTerm;
  /** The normalized contact that paid. */
  contact: string;
  /**
   * The tenants the contact's payments for this tier may go to, in order: the first that does
   * not exist yet or was made by this contact's payment is used.
   */
  tenant_ids: readonly string[];
  /** Lowercase hex SHA-256 of the key, and its listed prefix. */
  key_sha256: string;
  key_prefix: string;
  /** How long the term bought lasts (ms), added to the tenant's current end or `at`, whichever is later. */
  term_ms: number;
  delivery_channel: DeliveryChannel;
  delivery_to: string;
  /** The payment's reason once issued, from the tenant and the term's end (pure: no I/O). */
  reason: (tenantId: string, expiresAt: number) => string;
  at: number;
}

/** What {@link PaymentStore.issueKey} did. */
export type PaymentKeyIssueResult =
  /** The key, the tenant and the payment `issued` were stored. */
  | { outcome: 'issued'; record: PaymentRecord }
  /** The payment no longer waits for confirmations (issued or settled before): nothing changed. */
  | { outcome: 'not_waiting'; record: PaymentRecord | undefined }
  /** Every candidate tenant belongs to another contact: nothing changed. */
  | { outcome: 'tenant_taken'; tenant_id: string };

export interface PaymentStore {
  /** One payment of a network, if recorded. */
  getPayment(network: string, txHash: string): Promise<PaymentRecord | undefined>;
  /** The payments recorded for a transaction hash on any network, the latest seen first. */
  findByTx(txHash: string): Promise<PaymentRecord[]>;
  /** Payments, the most recently seen first (`limit` 1 to {@link MAX_PAYMENT_LIST}, default 100). */
  list(options?: { limit?: number }): Promise<PaymentRecord[]>;
  /** A network's payments still waiting for their confirmations, oldest recorded first. */
  unconfirmed(network: string): Promise<PaymentRecord[]>;
  /** Issued payments whose delivery is pending and due at `now`, the oldest due first. */
  dueDeliveries(now: number, limit?: number): Promise<PaymentRecord[]>;
  /** The sealed envelope stored for a transaction (the latest seen network's), as its JSON text. */
  sealedEnvelope(txHash: string): Promise<string | undefined>;
  /** The first block the watcher has not finished for this cursor; undefined before its first pass. */
  cursor(key: PaymentCursorKey): Promise<number | undefined>;

  /**
   * Records a transaction the first time it is seen, with its `payment-record` audit row; a
   * transaction recorded before is left as it is.
   *
   * @returns the stored row and whether this call wrote it
   * @throws TypeError/RangeError for bad input; LeaseLostError
   */
  record(payment: NewPayment, lease?: Lease): Promise<{ record: PaymentRecord; created: boolean }>;
  /**
   * Moves a payment waiting for confirmations to a final state without a key (with its audit row).
   *
   * @returns true when it moved; false when it was not waiting (nothing changes)
   */
  settle(
    change: { network: string; tx_hash: string; state: PaymentState; reason: string; at: number },
    lease?: Lease,
  ): Promise<boolean>;
  /** Moves a waiting payment to the block it is in now (mined again after a reorganisation); true when it changed. */
  movePending(
    change: { network: string; tx_hash: string; block_number: number; block_hash: string; at: number },
    lease?: Lease,
  ): Promise<boolean>;
  /**
   * Issues a confirmed payment's key in one transaction: the tenant (made, with its
   * `tenant-create` audit row, or its term extended, with every key bought for it), the key
   * bound to the transaction, the payment `issued` with its delivery pending, the
   * `payment-issue` audit row. Nothing when the payment no longer waits.
   *
   * @throws LeaseLostError; TypeError/RangeError for bad input
   */
  issueKey(issue: PaymentKeyIssue, lease?: Lease): Promise<PaymentKeyIssueResult>;
  /** Records a failed delivery attempt (the error, never the key); true when a pending delivery was updated. */
  deliveryFailed(
    change: { network: string; tx_hash: string; error: string; next_at: number; at: number },
    lease?: Lease,
  ): Promise<boolean>;
  /**
   * Records a delivery done (the sealed envelope of a did:key's key, served by the pickup route)
   * with its `payment-deliver` audit row.
   *
   * @returns true when a pending delivery was marked delivered; false when it was delivered already
   */
  delivered(
    change: {
      network: string;
      tx_hash: string;
      channel: DeliveryChannel;
      to: string;
      sealed?: unknown;
      at: number;
    },
    lease?: Lease,
  ): Promise<boolean>;
  /**
   * Moves the watcher's cursor forward (never back).
   *
   * @returns the cursor as it now stands
   */
  advanceCursor(change: PaymentCursorKey & { next_block: number; at: number }, lease?: Lease): Promise<number>;
}
