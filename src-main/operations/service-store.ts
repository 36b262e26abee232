/**
 * The service's store for a workspace: its data folder's ledger (SQLite, the default), or a
 * PostgreSQL database shared by several service nodes (docs/deploy.md). Doors get their store
 * here; the operations take it as their first argument.
 */
import { postgresServiceStore, sqliteServiceStore } from '../ledger/store/open-store';
import type { ServiceStore } from '../ledger/store';
import type { Workspace } from './workspace';

export type { Lease, ServiceStore, StoreEngine } from '../ledger/store';
export { LeaseLostError, StoreUnavailableError } from '../ledger/store';
export type { NodeRecord } from '../ledger/store';
export { NODES_SEEN_WITHIN_MS, RENEW_EVERY_MS } from '../ledger/store';
/** `host:port/database` of a PostgreSQL URL (never its password); RangeError when it is not one. */
export { describePgUrl as describeDatabaseUrl } from '../ledger/store/pg-url';

const sqliteStores = new WeakMap<Workspace, ServiceStore>();

/** The store over the workspace's own ledger (one per workspace; it closes with the workspace). */
export function workspaceServiceStore(workspace: Workspace): ServiceStore {
  let store = sqliteStores.get(workspace);
  if (store === undefined) {
    store = sqliteServiceStore(workspace.ledger, (bytes) => workspace.crypto.sha256(bytes));
    sqliteStores.set(workspace, store);
  }
  return store;
}

/**
 * The service's store: PostgreSQL when `databaseUrl` is given (the caller closes it), else the
 * workspace's ledger.
 *
 * @throws StoreUnavailableError when the database cannot be reached
 */
export async function openServiceStore(workspace: Workspace, databaseUrl?: string): Promise<ServiceStore> {
  if (databaseUrl === undefined) return workspaceServiceStore(workspace);
  return postgresServiceStore(databaseUrl, (bytes) => workspace.crypto.sha256(bytes));
}
