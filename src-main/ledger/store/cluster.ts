/**
 * The nodes of a service and what only one of them may do at a time (owned by h-pgbase;
 * docs/deploy.md "The PostgreSQL store").
 *
 * Leases: a named right (`anchoring`, `payments`) held by one node until it expires. Each new
 * holder gets a higher fence; every write made under a lease passes it, and the adapter checks
 * in that write's transaction that the fence is still the lease's (else LeaseLostError, nothing
 * written): `assertFence` of pg-pool.ts on PostgreSQL, `sqliteAssertFence` of sqlite-cluster.ts
 * on SQLite. On SQLite (one node, one process) leases live in the process's memory, with the same
 * rules. On PostgreSQL a lease's expiry is judged by the database's clock, never a node's, so a
 * node whose clock runs ahead cannot take a lease that is still held.
 */

/** A lease a node holds. */
export interface Lease {
  readonly name: string;
  /** The node that holds it. */
  readonly holder: string;
  /** Higher for each new holder of this lease (and after a lapse); writes under the lease carry it. */
  readonly fence: number;
  /** When it lapses unless renewed (ms since the epoch; on PostgreSQL by the database's clock). */
  readonly expiresAt: number;
}

/** A node of the service, as /status lists it. */
export interface NodeRecord {
  id: string;
  started_at: number;
  heartbeat_at: number;
  version: string;
}

/** Which secret of the service a registered key id names (brief rule 8); `payment`: the bought keys' secret's digest. */
export type ServiceKeyRole = 'signing' | 'log' | 'payment';

/** A key every node of one database must hold: its role and its key id. */
export interface ServiceKeyClaim {
  readonly role: ServiceKeyRole;
  readonly key_id: string;
}

/** The names of the leases (one writer of anchor batches; one payment watcher). */
export const LEASE_NAMES = ['anchoring', 'payments'] as const;
/** How long a lease lasts unless renewed (ms). */
export const LEASE_TTL_MS = 15_000;
/** How often a holder renews its lease, and a node its heartbeat (ms). */
export const RENEW_EVERY_MS = 5_000;
/** Nodes whose heartbeat is older than this are not listed by /status (ms). */
export const NODES_SEEN_WITHIN_MS = 10 * 60_000;

export interface ClusterStore {
  /** Records that `node` is alive at `now` (inserted on first call; later calls move heartbeat_at). */
  heartbeat(node: { id: string; started_at: number; version: string }, now: number): Promise<void>;
  /** The nodes seen since `since` (ms), newest heartbeat first (ties by id). */
  listNodes(since: number): Promise<NodeRecord[]>;
  /**
   * Takes the lease when it is free or lapsed (a new, higher fence), renews it when `holder`
   * holds it (same fence, a new expiry); undefined when another node holds it.
   *
   * @param now - the caller's clock (ms); on PostgreSQL the database's clock decides instead
   */
  acquireLease(name: string, holder: string, ttlMs: number, now: number): Promise<Lease | undefined>;
  /** Gives the lease up: it lapses at once (no-op when it was lost). */
  releaseLease(lease: Lease): Promise<void>;
  /**
   * Registers each key id for its role unless one is registered already, and answers the
   * registered key id of each role given (the first node to register wins). A node whose own
   * key differs from the answer must not start (its signatures would not match the others').
   * On SQLite (one node) it answers the keys given.
   */
  claimServiceKeys(keys: readonly ServiceKeyClaim[], node: string, now: number): Promise<ServiceKeyClaim[]>;
  /** Registers `key` for its role in place of the one registered (after a rotation). */
  replaceServiceKey(key: ServiceKeyClaim, node: string, now: number): Promise<void>;
}

/**
 * Checks a lease name, a holder and a TTL (both adapters).
 *
 * @throws RangeError naming what is wrong
 */
export function checkLeaseRequest(name: string, holder: string, ttlMs: number): void {
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(name)) throw new RangeError(`not a lease name: ${JSON.stringify(name)}`);
  if (holder.length === 0 || holder.length > 200) throw new RangeError('a lease holder is 1 to 200 characters');
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > 3_600_000)
    throw new RangeError('a lease TTL is 1 ms to 1 hour');
}
