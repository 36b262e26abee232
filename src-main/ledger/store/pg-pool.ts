/**
 * PostgreSQL through node-postgres: one pool per service node, and the branded handles the
 * PostgreSQL adapters run their SQL on (STYLE "The database in one place": a read path cannot
 * write). Owned by h-pgbase (docs/deploy.md); this file holds the shape the adapters code
 * against, and h-pgbase fills in {@link openPgPool}.
 */

import type { Lease } from './cluster';

declare const readBrand: unique symbol;
declare const writeBrand: unique symbol;

/** What a query answers. */
export interface PgResult<Row> {
  rows: Row[];
  rowCount: number;
}

/** A connection inside a read-only transaction (`BEGIN READ ONLY`): it can only read. */
export interface PgReader {
  readonly [readBrand]: true;
  /** Runs one statement with `$1`… parameters. */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<PgResult<Row>>;
}

/** A connection inside a read-write transaction: everything it writes commits together or not at all. */
export interface PgWriter extends PgReader {
  readonly [writeBrand]: true;
}

/** How a transaction sees the others. */
export type PgIsolation = 'read committed' | 'repeatable read' | 'serializable';

/** The service node's pool. */
export interface PgPool {
  /**
   * Runs `fn` in one read-only transaction (default isolation repeatable read: one snapshot).
   *
   * @throws StoreUnavailableError when the database cannot be reached
   */
  read<T>(fn: (reader: PgReader) => Promise<T>, options?: { isolation?: PgIsolation }): Promise<T>;
  /**
   * Runs `fn` in one read-write transaction (default isolation read committed); retried from
   * the start, up to a few times, on a serialization failure or a deadlock, so `fn` must do
   * nothing but SQL on `writer`.
   *
   * @throws StoreUnavailableError when the database cannot be reached; whatever `fn` throws
   */
  write<T>(fn: (writer: PgWriter) => Promise<T>, options?: { isolation?: PgIsolation }): Promise<T>;
  close(): Promise<void>;
}

/**
 * Opens the pool and brings the schema up to date (pg-migrate.ts).
 *
 * @param url - `postgres://user:password@host:port/database` (never logged with its password).
 */
export function openPgPool(url: string): Promise<PgPool> {
  void url;
  return Promise.reject(new Error('openPgPool: not built yet (h-pgbase)'));
}

/**
 * Inside a write under a lease: throws LeaseLostError (so the transaction writes nothing) unless
 * `lease.fence` is still the lease's current fence (cluster.ts).
 */
export function assertFence(writer: PgWriter, lease: Lease): Promise<void> {
  void writer;
  void lease;
  return Promise.reject(new Error('assertFence: not built yet (h-pgbase)'));
}
