/**
 * Payments, their states and deliveries, the watcher's cursor; writes under the payment lease carry its fence.
 * Owned by h-pay: the interface below and its two adapters (sqlite-payments.ts, pg-payments.ts).
 */

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by h-pay
export interface PaymentStore {}
