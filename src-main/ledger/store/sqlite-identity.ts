/**
 * The SQLite adapter of identity.ts (a stub until its owner fills it in).
 */
import type { SqliteStoreDeps } from './deps';
import type { IdentityStore } from './identity';

/** The identity domain on SQLite. */
export function sqliteIdentity(deps: SqliteStoreDeps): IdentityStore {
  void deps;
  return {} as IdentityStore;
}
