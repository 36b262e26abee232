/**
 * The nodes of a service and what only one of them may do at a time (owned by h-pgbase).
 *
 * Leases: a named right (`anchoring`, `payments`) held by one node until it expires. Each new
 * holder gets a higher fence; every write made under a lease passes it, and the adapter checks
 * in that write's transaction that the fence is still the lease's (else LeaseLostError, nothing
 * written). On SQLite (one node) a lease is always granted.
 */

/** A lease a node holds. */
export interface Lease {
  readonly name: string;
  /** The node that holds it. */
  readonly holder: string;
  /** Higher for each new holder of this lease; writes under the lease carry it. */
  readonly fence: number;
  /** When it lapses unless renewed (ms since the epoch). */
  readonly expiresAt: number;
}

/** A node of the service, as /status lists it. */
export interface NodeRecord {
  id: string;
  started_at: number;
  heartbeat_at: number;
  version: string;
}

export interface ClusterStore {
  /** Records that `node` is alive at `now` (inserted on first call). */
  heartbeat(node: { id: string; started_at: number; version: string }, now: number): Promise<void>;
  /** The nodes seen since `since` (ms), newest heartbeat first. */
  listNodes(since: number): Promise<NodeRecord[]>;
  /** Takes the lease when it is free or lapsed (a new fence), renews it when `holder` holds it; undefined when another node holds it. */
  acquireLease(name: string, holder: string, ttlMs: number, now: number): Promise<Lease | undefined>;
  /** Gives the lease up (no-op when it was lost). */
  releaseLease(lease: Lease): Promise<void>;
}
