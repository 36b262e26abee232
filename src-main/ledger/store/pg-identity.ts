/**
 * The PostgreSQL adapter of identity.ts (a stub until its owner fills it in).
 */
import type { PgStoreDeps } from './deps';
import type { IdentityStore } from './identity';

/** The identity domain on PostgreSQL. */
export function pgIdentity(deps: PgStoreDeps): IdentityStore {
  void deps;
  return {} as IdentityStore;
}
