/**
 * The SQLite adapter of cluster.ts (a stub until its owner fills it in).
 */
import type { SqliteStoreDeps } from './deps';
import type { ClusterStore } from './cluster';

/** The cluster domain on SQLite. */
export function sqliteCluster(deps: SqliteStoreDeps): ClusterStore {
  void deps;
  return {} as ClusterStore;
}
