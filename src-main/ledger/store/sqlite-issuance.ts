/**
 * The SQLite adapter of issuance.ts (a stub until its owner fills it in).
 */
import type { SqliteStoreDeps } from './deps';
import type { IssuanceStore } from './issuance';

/** The issuance domain on SQLite. */
export function sqliteIssuance(deps: SqliteStoreDeps): IssuanceStore {
  void deps;
  return {} as IssuanceStore;
}
