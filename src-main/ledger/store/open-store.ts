/**
 * Opens the service store on SQLite (the data folder's ledger) or PostgreSQL (a database URL).
 * Owned by h-pgbase.
 */
import type { Ledger } from '../open-ledger';
import type { ServiceStore } from './index';
import { openPgPool } from './pg-pool';
import { sqliteAnchoring } from './sqlite-anchoring';
import { sqliteCluster } from './sqlite-cluster';
import { sqliteEvidence } from './sqlite-evidence';
import { sqliteIdentity } from './sqlite-identity';
import { sqliteIssuance } from './sqlite-issuance';
import { sqlitePayments } from './sqlite-payments';
import { pgAnchoring } from './pg-anchoring';
import { pgCluster } from './pg-cluster';
import { pgEvidence } from './pg-evidence';
import { pgIdentity } from './pg-identity';
import { pgIssuance } from './pg-issuance';
import { pgPayments } from './pg-payments';

/** The store over the data folder's ledger (one node). The ledger stays the workspace's to close. */
export function sqliteServiceStore(ledger: Ledger, sha256: (bytes: Uint8Array) => Uint8Array): ServiceStore {
  const deps = { ledger, sha256 };
  return {
    engine: 'sqlite',
    identity: sqliteIdentity(deps),
    issuance: sqliteIssuance(deps),
    evidence: sqliteEvidence(deps),
    anchoring: sqliteAnchoring(deps),
    payments: sqlitePayments(deps),
    cluster: sqliteCluster(deps),
    close: () => Promise.resolve(),
  };
}

/**
 * The store on PostgreSQL (any number of nodes): opens the pool and migrates the schema.
 *
 * @throws StoreUnavailableError when the database cannot be reached
 */
export async function postgresServiceStore(
  url: string,
  sha256: (bytes: Uint8Array) => Uint8Array,
): Promise<ServiceStore> {
  const pool = await openPgPool(url);
  const deps = { pool, sha256 };
  return {
    engine: 'postgres',
    identity: pgIdentity(deps),
    issuance: pgIssuance(deps),
    evidence: pgEvidence(deps),
    anchoring: pgAnchoring(deps),
    payments: pgPayments(deps),
    cluster: pgCluster(deps),
    close: () => pool.close(),
  };
}
