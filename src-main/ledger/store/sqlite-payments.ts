/**
 * The SQLite adapter of payments.ts (a stub until its owner fills it in).
 */
import type { SqliteStoreDeps } from './deps';
import type { PaymentStore } from './payments';

/** The payments domain on SQLite. */
export function sqlitePayments(deps: SqliteStoreDeps): PaymentStore {
  void deps;
  return {} as PaymentStore;
}
