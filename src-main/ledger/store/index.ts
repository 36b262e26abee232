/**
 * The service's data: one typed interface over two engines (ARCHITECTURE "Rules"; docs/deploy.md).
 *
 * The HTTP service, its admin commands and its background work (anchoring, the payment
 * watcher, the log's checkpoints) reach tenants, API keys, quotas, nonces, issued receipts and
 * their logs, anchor batches, payments, nodes and leases only through a {@link ServiceStore}.
 * Two adapters implement it: SQLite (the embedded default, the data folder's ledger; one node)
 * and PostgreSQL (any number of nodes on one database). Each method is one transaction and
 * returns a promise on both engines; SQL stays in this folder.
 */
import type { AnchoringStore } from './anchoring';
import type { ClusterStore } from './cluster';
import type { EvidenceStore } from './evidence';
import type { IdentityStore } from './identity';
import type { IssuanceStore } from './issuance';
import type { PaymentStore } from './payments';

export { LeaseLostError, StoreUnavailableError } from './errors';
export type { Lease, NodeRecord, ClusterStore, ServiceKeyClaim, ServiceKeyRole } from './cluster';
export { LEASE_NAMES, LEASE_TTL_MS, NODES_SEEN_WITHIN_MS, RENEW_EVERY_MS } from './cluster';

/** Which engine a store runs on. */
export type StoreEngine = 'sqlite' | 'postgres';

export interface ServiceStore {
  readonly engine: StoreEngine;
  /** Tenants, API keys, quota use, the service's audit rows (h-identity). */
  readonly identity: IdentityStore;
  /** Issued receipts with their quota, nonce and log leaf; the tenants' logs (h-issue). */
  readonly issuance: IssuanceStore;
  /** A tenant's evidence for a period, read in one snapshot (h-evidence). */
  readonly evidence: EvidenceStore;
  /** Anchor batches and their hashes, under the anchoring lease (h-anchor). */
  readonly anchoring: AnchoringStore;
  /** Payments and deliveries, under the payment watcher's lease (h-pay). */
  readonly payments: PaymentStore;
  /** Nodes, heartbeats, leases (h-pgbase). */
  readonly cluster: ClusterStore;
  /** Closes the store (the PostgreSQL pool; the SQLite ledger belongs to the workspace and stays open). */
  close(): Promise<void>;
}
