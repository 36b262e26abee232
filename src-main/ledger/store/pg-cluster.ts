/**
 * The PostgreSQL adapter of cluster.ts (a stub until its owner fills it in).
 */
import type { PgStoreDeps } from './deps';
import type { ClusterStore } from './cluster';

/** The cluster domain on PostgreSQL. */
export function pgCluster(deps: PgStoreDeps): ClusterStore {
  void deps;
  return {} as ClusterStore;
}
