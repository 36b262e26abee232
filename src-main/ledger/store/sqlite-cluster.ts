/**
 * The SQLite adapter of cluster.ts: one node, one process. The node list and the leases live in
 * the process's memory, per ledger (a ledger is served by one process at a time), with the same
 * rules as on PostgreSQL: a new holder or a lapse raises the fence.
 */
import type { Ledger } from '../open-ledger';
import type { SqliteStoreDeps } from './deps';
import { checkLeaseRequest, type ClusterStore, type Lease, type NodeRecord } from './cluster';
import { LeaseLostError } from './errors';

interface ClusterMemory {
  nodes: Map<string, NodeRecord>;
  leases: Map<string, Lease>;
}

const memories = new WeakMap<Ledger, ClusterMemory>();

function memoryOf(ledger: Ledger): ClusterMemory {
  let memory = memories.get(ledger);
  if (memory === undefined) {
    memory = { nodes: new Map(), leases: new Map() };
    memories.set(ledger, memory);
  }
  return memory;
}

/**
 * On SQLite, inside a write under a lease (e.g. in `ledger.runInTransaction`): throws
 * LeaseLostError unless `lease.fence` is still the lease's current fence. The counterpart of
 * pg-pool.ts's `assertFence`; call it first, so a lost lease writes nothing.
 */
export function sqliteAssertFence(ledger: Ledger, lease: Lease): void {
  const current = memoryOf(ledger).leases.get(lease.name);
  if (current === undefined || current.fence !== lease.fence || current.holder !== lease.holder)
    throw new LeaseLostError(
      `The ${lease.name} lease is no longer held with fence ${lease.fence}` +
        (current === undefined ? '' : ` (now ${current.holder}, fence ${current.fence})`),
    );
}

/** The cluster domain on SQLite. */
export function sqliteCluster(deps: SqliteStoreDeps): ClusterStore {
  const memory = memoryOf(deps.ledger);
  return {
    heartbeat: (node, now) => {
      const known = memory.nodes.get(node.id);
      memory.nodes.set(node.id, {
        id: node.id,
        version: node.version,
        started_at: known?.started_at ?? node.started_at,
        heartbeat_at: Math.max(known?.heartbeat_at ?? now, now),
      });
      return Promise.resolve();
    },
    listNodes: (since) =>
      Promise.resolve(
        [...memory.nodes.values()]
          .filter((node) => node.heartbeat_at >= since)
          .sort((a, b) => b.heartbeat_at - a.heartbeat_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .map((node) => ({ ...node })),
      ),
    acquireLease: (name, holder, ttlMs, now) => {
      try {
        checkLeaseRequest(name, holder, ttlMs);
      } catch (error) {
        return Promise.reject(error as Error);
      }
      const current = memory.leases.get(name);
      const live = current !== undefined && current.expiresAt > now;
      if (live && current.holder !== holder) return Promise.resolve(undefined);
      const fence = live ? current.fence : (current?.fence ?? 0) + 1;
      const lease: Lease = { name, holder, fence, expiresAt: now + ttlMs };
      memory.leases.set(name, lease);
      return Promise.resolve({ ...lease });
    },
    releaseLease: (lease) => {
      const current = memory.leases.get(lease.name);
      if (current !== undefined && current.holder === lease.holder && current.fence === lease.fence)
        memory.leases.set(lease.name, { ...current, expiresAt: 0 });
      return Promise.resolve();
    },
    claimServiceKeys: (keys) => Promise.resolve(keys.map((key) => ({ role: key.role, key_id: key.key_id }))),
    replaceServiceKey: () => Promise.resolve(),
  };
}
