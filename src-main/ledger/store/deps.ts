/**
 * What each adapter of a store domain is built from.
 */
import type { Ledger } from '../open-ledger';
import type { PgPool } from './pg-pool';

/** The SQLite adapters: the data folder's ledger (the workspace owns and closes it). */
export interface SqliteStoreDeps {
  readonly ledger: Ledger;
  /** SHA-256 of the process's crypto provider (the logs hash with it). */
  readonly sha256: (bytes: Uint8Array) => Uint8Array;
}

/** The PostgreSQL adapters: the node's pool (the store closes it). */
export interface PgStoreDeps {
  readonly pool: PgPool;
  readonly sha256: (bytes: Uint8Array) => Uint8Array;
}
