/**
 * The PostgreSQL adapter of cluster.ts: the `nodes`, `leases` and `service_keys` tables of
 * migration 0001. Lease expiry is judged by the database's clock (cluster.ts).
 */
import type { PgStoreDeps } from './deps';
import { checkLeaseRequest, type ClusterStore, type Lease, type NodeRecord, type ServiceKeyClaim } from './cluster';

/** The database's clock in ms since the epoch. */
const DB_NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';
/** Nodes not seen for a day are forgotten when another heartbeats. */
const FORGET_NODES_AFTER_MS = 24 * 3_600_000;

/** The cluster domain on PostgreSQL. */
export function pgCluster(deps: PgStoreDeps): ClusterStore {
  const { pool } = deps;
  return {
    heartbeat: (node, now) =>
      pool.write(async (writer) => {
        await writer.query(
          `INSERT INTO nodes (id, version, started_at, heartbeat_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version,
             heartbeat_at = GREATEST(nodes.heartbeat_at, EXCLUDED.heartbeat_at)`,
          [node.id, node.version, node.started_at, now],
        );
        await writer.query('DELETE FROM nodes WHERE heartbeat_at < $1', [now - FORGET_NODES_AFTER_MS]);
      }),
    listNodes: (since) =>
      pool.read(async (reader) => {
        const { rows } = await reader.query<NodeRecord>(
          'SELECT id, started_at, heartbeat_at, version FROM nodes WHERE heartbeat_at >= $1 ORDER BY heartbeat_at DESC, id',
          [since],
        );
        return rows.map((row) => ({
          id: row.id,
          started_at: row.started_at,
          heartbeat_at: row.heartbeat_at,
          version: row.version,
        }));
      }),
    acquireLease: async (name, holder, ttlMs) => {
      checkLeaseRequest(name, holder, ttlMs);
      return pool.write(async (writer) => {
        // One statement: a missing row is inserted (fence 1); a row held by us and live is
        // renewed (same fence); a lapsed row is taken (fence + 1); a live row of another node is
        // left alone (no row back). Concurrent callers serialize on the row.
        const { rows } = await writer.query<{ holder: string; fence: number; expires_at: number }>(
          `INSERT INTO leases AS l (name, holder, fence, expires_at) VALUES ($1, $2, 1, ${DB_NOW_MS} + $3)
           ON CONFLICT (name) DO UPDATE SET
             holder = EXCLUDED.holder,
             fence = CASE WHEN l.holder = EXCLUDED.holder AND l.expires_at > ${DB_NOW_MS} THEN l.fence ELSE l.fence + 1 END,
             expires_at = EXCLUDED.expires_at
           WHERE l.holder = EXCLUDED.holder OR l.expires_at <= ${DB_NOW_MS}
           RETURNING holder, fence, expires_at`,
          [name, holder, ttlMs],
        );
        const row = rows[0];
        return row === undefined
          ? undefined
          : ({ name, holder: row.holder, fence: row.fence, expiresAt: row.expires_at } satisfies Lease);
      });
    },
    releaseLease: (lease) =>
      pool.write(async (writer) => {
        await writer.query('UPDATE leases SET expires_at = 0 WHERE name = $1 AND holder = $2 AND fence = $3', [
          lease.name,
          lease.holder,
          lease.fence,
        ]);
      }),
    claimServiceKeys: (keys, node, now) =>
      pool.write(async (writer) => {
        for (const key of keys)
          await writer.query(
            `INSERT INTO service_keys (role, key_id, registered_at, registered_by) VALUES ($1, $2, $3, $4)
             ON CONFLICT (role) DO NOTHING`,
            [key.role, key.key_id, now, node],
          );
        const { rows } = await writer.query<ServiceKeyClaim>(
          'SELECT role, key_id FROM service_keys WHERE role = ANY($1::text[])',
          [keys.map((key) => key.role)],
        );
        const registered = new Map(rows.map((row) => [row.role, row.key_id]));
        return keys.map((key) => ({ role: key.role, key_id: registered.get(key.role) ?? key.key_id }));
      }),
    replaceServiceKey: (key, node, now) =>
      pool.write(async (writer) => {
        await writer.query(
          `INSERT INTO service_keys (role, key_id, registered_at, registered_by) VALUES ($1, $2, $3, $4)
           ON CONFLICT (role) DO UPDATE SET key_id = EXCLUDED.key_id, registered_at = EXCLUDED.registered_at,
             registered_by = EXCLUDED.registered_by`,
          [key.role, key.key_id, now, node],
        );
      }),
  };
}
