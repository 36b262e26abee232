/**
 * The PostgreSQL adapter of issuance.ts (a stub until its owner fills it in).
 */
import type { PgStoreDeps } from './deps';
import type { IssuanceStore } from './issuance';

/** The issuance domain on PostgreSQL. */
export function pgIssuance(deps: PgStoreDeps): IssuanceStore {
  void deps;
  return {} as IssuanceStore;
}
