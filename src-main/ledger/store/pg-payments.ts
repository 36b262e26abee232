/**
 * The PostgreSQL adapter of payments.ts (a stub until its owner fills it in).
 */
import type { PgStoreDeps } from './deps';
import type { PaymentStore } from './payments';

/** The payments domain on PostgreSQL. */
export function pgPayments(deps: PgStoreDeps): PaymentStore {
  void deps;
  return {} as PaymentStore;
}
