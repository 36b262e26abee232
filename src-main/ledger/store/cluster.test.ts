/**
 * The cluster domain on both engines (the same cases), and on PostgreSQL two nodes on one
 * database contending for a lease.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres';
import { openLedger } from '../open-ledger';
import type { ClusterStore, Lease } from './cluster';
import { LeaseLostError } from './errors';
import { pgCluster } from './pg-cluster';
import { assertFence, openPgPool, type PgPool } from './pg-pool';
import { sqliteAssertFence, sqliteCluster } from './sqlite-cluster';

interface Made {
  cluster: ClusterStore;
  /** A write under `lease` (the adapter's fence check, then nothing else). */
  writeUnder(lease: Lease): Promise<void>;
}

let server: TestPostgres | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await server?.stop();
});

function makeSqlite(): Promise<Made> {
  const folder = mkdtempSync(join(tmpdir(), 'evroom-cluster-'));
  const ledger = openLedger(join(folder, 'ledger.db'));
  cleanups.push(() => {
    ledger.close();
    rmSync(folder, { recursive: true, force: true });
  });
  return Promise.resolve({
    cluster: sqliteCluster({ ledger, sha256 }),
    writeUnder: (lease) => {
      try {
        ledger.runInTransaction(() => sqliteAssertFence(ledger, lease));
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
  });
}

async function pgPool(url: string): Promise<PgPool> {
  const pool = await openPgPool(url, { max: 3 });
  cleanups.push(() => pool.close());
  return pool;
}

async function makePg(): Promise<Made> {
  server ??= await startTestPostgres();
  const pool = await pgPool(await server.createDatabase());
  return { cluster: pgCluster({ pool, sha256 }), writeUnder: (lease) => pool.write((w) => assertFence(w, lease)) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  ['sqlite', makeSqlite],
  ['postgres', makePg],
])('cluster on %s', (_engine, make) => {
  let made: Made;
  beforeAll(async () => {
    made = await make();
  });

  it('lists the nodes seen since a time, newest heartbeat first, keeping when each started', async () => {
    const { cluster } = made;
    const t = Date.now();
    await cluster.heartbeat({ id: 'old', started_at: t - 900_000, version: '0.1.0' }, t - 800_000);
    await cluster.heartbeat({ id: 'b', started_at: t - 2000, version: '0.1.0' }, t - 1000);
    await cluster.heartbeat({ id: 'a', started_at: t - 3000, version: '0.1.0' }, t - 1000);
    await cluster.heartbeat({ id: 'c', started_at: t - 5000, version: '0.1.0' }, t - 4000);
    await cluster.heartbeat({ id: 'c', started_at: t, version: '0.2.0' }, t);
    expect(await cluster.listNodes(t - 600_000)).toEqual([
      { id: 'c', started_at: t - 5000, heartbeat_at: t, version: '0.2.0' },
      { id: 'a', started_at: t - 3000, heartbeat_at: t - 1000, version: '0.1.0' },
      { id: 'b', started_at: t - 2000, heartbeat_at: t - 1000, version: '0.1.0' },
    ]);
    // A late heartbeat never moves the time back.
    await cluster.heartbeat({ id: 'c', started_at: t - 5000, version: '0.2.0' }, t - 10_000);
    expect((await cluster.listNodes(t))[0]?.heartbeat_at).toBe(t);
  });

  it('grants a free lease, renews it for its holder with the same fence, refuses it to another', async () => {
    const { cluster } = made;
    const first = await cluster.acquireLease('anchoring', 'node-a', 10_000, Date.now());
    expect(first).toMatchObject({ name: 'anchoring', holder: 'node-a' });
    expect(first!.expiresAt).toBeGreaterThan(Date.now() + 5000);
    const renewed = await cluster.acquireLease('anchoring', 'node-a', 10_000, Date.now());
    expect(renewed?.fence).toBe(first!.fence);
    expect(await cluster.acquireLease('anchoring', 'node-b', 10_000, Date.now())).toBeUndefined();
    await made.writeUnder(renewed!);
  });

  it('hands a released lease to the next holder with a higher fence; the old fence cannot write', async () => {
    const { cluster } = made;
    const a = await cluster.acquireLease('payments', 'node-a', 10_000, Date.now());
    await cluster.releaseLease(a!);
    const b = await cluster.acquireLease('payments', 'node-b', 10_000, Date.now());
    expect(b?.holder).toBe('node-b');
    expect(b!.fence).toBeGreaterThan(a!.fence);
    await made.writeUnder(b!);
    await expect(made.writeUnder(a!)).rejects.toBeInstanceOf(LeaseLostError);
    // Releasing a lease already lost changes nothing.
    await cluster.releaseLease(a!);
    expect(await cluster.acquireLease('payments', 'node-c', 10_000, Date.now())).toBeUndefined();
  });

  it('hands a lapsed lease to another node with a higher fence', async () => {
    const { cluster } = made;
    const a = await cluster.acquireLease('lapsing', 'node-a', 200, Date.now());
    expect(await cluster.acquireLease('lapsing', 'node-b', 10_000, Date.now())).toBeUndefined();
    await sleep(350);
    const b = await cluster.acquireLease('lapsing', 'node-b', 10_000, Date.now());
    expect(b?.fence).toBe(a!.fence + 1);
    await expect(made.writeUnder(a!)).rejects.toThrow(/lapsing lease is no longer held with fence/);
    expect(await cluster.acquireLease('lapsing', 'node-a', 10_000, Date.now())).toBeUndefined();
  });

  it('refuses a bad lease request', async () => {
    await expect(made.cluster.acquireLease('Bad Name', 'n', 1000, Date.now())).rejects.toThrow(/not a lease name/);
    await expect(made.cluster.acquireLease('ok', '', 1000, Date.now())).rejects.toThrow(/holder/);
    await expect(made.cluster.acquireLease('ok', 'n', 0, Date.now())).rejects.toThrow(/TTL/);
  });

  it('registers the service keys of the first node', async () => {
    const keys = [
      { role: 'signing', key_id: 'k-sign-1' },
      { role: 'log', key_id: 'k-log-1' },
    ] as const;
    expect(await made.cluster.claimServiceKeys(keys, 'node-a', Date.now())).toEqual(keys);
  });
});

describe('cluster on postgres: two nodes on one database', () => {
  let a: Made;
  let b: Made;
  beforeAll(async () => {
    server ??= await startTestPostgres();
    const url = await server.createDatabase();
    const [poolA, poolB] = await Promise.all([pgPool(url), pgPool(url)]);
    a = { cluster: pgCluster({ pool: poolA, sha256 }), writeUnder: (l) => poolA.write((w) => assertFence(w, l)) };
    b = { cluster: pgCluster({ pool: poolB, sha256 }), writeUnder: (l) => poolB.write((w) => assertFence(w, l)) };
  });

  it('exactly one holds a contended lease; the other takes over after expiry; the old fence cannot write', async () => {
    for (let round = 0; round < 10; round += 1) {
      const name = `contended-${round}`;
      const [la, lb] = await Promise.all([
        a.cluster.acquireLease(name, 'node-a', 300, Date.now()),
        b.cluster.acquireLease(name, 'node-b', 300, Date.now()),
      ]);
      expect([la, lb].filter((lease) => lease !== undefined)).toHaveLength(1);
      if (round > 0) continue;
      const [held, holderStore, otherStore, other] = la !== undefined ? [la, a, b, 'node-b'] : [lb!, b, a, 'node-a'];
      await holderStore.writeUnder(held);
      expect(await otherStore.cluster.acquireLease(name, other, 300, Date.now())).toBeUndefined();
      await sleep(450);
      const taken = await otherStore.cluster.acquireLease(name, other, 10_000, Date.now());
      expect(taken?.holder).toBe(other);
      expect(taken!.fence).toBeGreaterThan(held.fence);
      await expect(holderStore.writeUnder(held)).rejects.toBeInstanceOf(LeaseLostError);
      await otherStore.writeUnder(taken!);
    }
  });

  it('a lease cannot be taken while a write under it is in flight', async () => {
    const pool = await pgPool(await server!.createDatabase());
    const cluster = pgCluster({ pool, sha256 });
    const held = await cluster.acquireLease('anchoring', 'node-a', 100, Date.now());
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const write = pool.write(async (w) => {
      await assertFence(w, held!);
      await gate;
    });
    await sleep(200); // lapsed meanwhile
    let taken: Lease | undefined;
    const takeover = cluster.acquireLease('anchoring', 'node-b', 10_000, Date.now()).then((lease) => (taken = lease));
    await sleep(200);
    expect(taken).toBeUndefined(); // waits for the write's share lock
    release();
    await write;
    await takeover;
    expect(taken?.fence).toBe(held!.fence + 1);
  });

  it('the first node registers the keys; a node with other keys is answered the registered ones', async () => {
    const now = Date.now();
    const first = [
      { role: 'signing', key_id: 'sign-A' },
      { role: 'log', key_id: 'log-A' },
    ] as const;
    expect(await a.cluster.claimServiceKeys(first, 'node-a', now)).toEqual(first);
    expect(
      await b.cluster.claimServiceKeys(
        [
          { role: 'signing', key_id: 'sign-B' },
          { role: 'log', key_id: 'log-A' },
        ],
        'node-b',
        now,
      ),
    ).toEqual(first);
    await a.cluster.replaceServiceKey({ role: 'signing', key_id: 'sign-A2' }, 'node-a', now);
    expect(await b.cluster.claimServiceKeys([{ role: 'signing', key_id: 'sign-B' }], 'node-b', now)).toEqual([
      { role: 'signing', key_id: 'sign-A2' },
    ]);
  });

  it('both nodes are listed', async () => {
    const now = Date.now();
    await Promise.all([
      a.cluster.heartbeat({ id: 'node-a', started_at: now, version: '1' }, now),
      b.cluster.heartbeat({ id: 'node-b', started_at: now, version: '1' }, now + 1),
    ]);
    expect((await a.cluster.listNodes(now - 1)).map((node) => node.id)).toEqual(['node-b', 'node-a']);
  });
});
