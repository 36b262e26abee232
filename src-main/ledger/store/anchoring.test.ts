import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { batchIdOf, isPendingAnchorUrn, resolvedAnchorUrn } from '../../../src-shared/anchor/urn';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres';
import { LedgerError } from '../errors';
import { openLedger } from '../open-ledger';
import type { AnchorBatchRecord, AnchorQueueEntry } from './anchoring';
import type { Lease } from './cluster';
import { LeaseLostError } from './errors';
import type { ServiceStore } from './index';
import { postgresServiceStore, sqliteServiceStore } from './open-store';

// The anchoring domain, the same cases on both engines (a real SQLite file, a real PostgreSQL
// database from the harness); the cases with two nodes on one database run on PostgreSQL only.

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());
const hexOf = (text: string): string => createHash('sha256').update(text).digest('hex');
const T0 = Date.UTC(2026, 10, 26, 9, 0, 0);
const INTERVAL = 60_000;
const entry = (text: string, at = T0, tenant: string | null = 'acme'): AnchorQueueEntry => ({
  digest: hexOf(text),
  tenant_id: tenant,
  at,
  interval_ms: INTERVAL,
});
/** A digest with the same first 8 bytes as `digest` (so the same pending URN in one batch). */
const twinOf = (digest: string): string => `${digest.slice(0, 63)}${digest.endsWith('0') ? '1' : '0'}`;

let postgres: TestPostgres | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
const folders: string[] = [];

async function makeSqlite(): Promise<ServiceStore> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-anchoring-store-'));
  folders.push(folder);
  const ledger = openLedger(path.join(folder, 'ledger.sqlite'));
  cleanups.push(() => ledger.close());
  return sqliteServiceStore(ledger, sha256);
}

async function makePg(): Promise<ServiceStore> {
  postgres ??= await startTestPostgres();
  const url = await postgres.createDatabase();
  const store = await postgresServiceStore(url, sha256);
  cleanups.push(() => store.close());
  return store;
}

/** A second node on the database of a PostgreSQL store made last by {@link makePgPair}. */
async function makePgPair(): Promise<[ServiceStore, ServiceStore]> {
  postgres ??= await startTestPostgres();
  const url = await postgres.createDatabase();
  const a = await postgresServiceStore(url, sha256);
  cleanups.push(() => a.close());
  const b = await postgresServiceStore(url, sha256);
  cleanups.push(() => b.close());
  return [a, b];
}

async function leaseOf(store: ServiceStore, holder = 'node-a', now = T0): Promise<Lease> {
  const lease = await store.cluster.acquireLease('anchoring', holder, 15_000, now);
  if (lease === undefined) throw new Error(`${holder} did not get the anchoring lease`);
  return lease;
}

/** A signed transaction's record for batch `id` (its values only need to be well formed). */
function txFor(id: number, nonce: number, sender = `0x${'a'.repeat(40)}`) {
  return {
    merkle_root: hexOf(`root ${id}`),
    network: 'anvil-local',
    raw_tx: `0x${hexOf(`raw ${id} ${nonce}`)}`,
    tx_hash: `0x${hexOf(`tx ${id} ${nonce}`)}`,
    nonce,
    sender,
  };
}

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});
afterAll(async () => {
  await postgres?.stop();
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

describe.each([
  ['sqlite', makeSqlite],
  ['postgres', makePg],
] as const)('the anchoring store on %s', (_engine, makeStore) => {
  it('queues a digest once per open batch with its pending record, and refuses a twin with the same suffix', async () => {
    const store = await makeStore();
    const { anchoring } = store;
    expect(await anchoring.openBatch()).toBeUndefined();
    const [first] = await anchoring.queue([entry('one')]);
    expect(first).toMatchObject({
      outcome: 'queued',
      batch: { state: 'open', hash_count: 1, batch_id: batchIdOf(new Date(T0)) },
    });
    expect(isPendingAnchorUrn(first!.svc_anchor)).toBe(true);
    expect(first!.batch).toMatchObject({ opened_at: T0, closes_at: T0 + INTERVAL, closed_at: null, attempts: 0 });
    const again = await anchoring.queue([entry('one', T0 + 1000), { ...entry('one'), digest: twinOf(hexOf('one')) }]);
    expect(again.map((outcome) => outcome.outcome)).toEqual(['existing', 'conflict']);
    expect(again.map((outcome) => outcome.svc_anchor)).toEqual([first!.svc_anchor, first!.svc_anchor]);
    expect(await anchoring.openBatch()).toEqual({ ...first!.batch });
    expect(await anchoring.batchHashes(first!.batch.id)).toEqual([
      {
        batch: first!.batch.id,
        digest: hexOf('one'),
        svc_anchor: first!.svc_anchor,
        tenant_id: 'acme',
        submitted_at: T0,
      },
    ]);
    expect(await anchoring.recordAt(first!.svc_anchor, T0 + 20_000)).toEqual({
      svc_anchor: first!.svc_anchor,
      batch_id: first!.batch.batch_id,
      eta_seconds: 40,
    });
    expect(
      await anchoring.recordAt(
        resolvedAnchorUrn({
          network: 'base',
          block_height: 1,
          tx_hash: `0x${'b'.repeat(64)}`,
          suffix: hexOf('one').slice(0, 16),
        }),
        T0,
      ),
    ).toBeUndefined();
    await expect(anchoring.recordAt('urn:svc:anchor:nonsense', T0)).rejects.toThrow(RangeError);
    expect(await anchoring.backlog()).toEqual({
      pending_hashes: 1,
      batches: { open: 1, closed: 0, signed: 0, posted: 0, resolved: 0 },
      last_error: null,
      next_attempt_at: null,
    });
  });

  it('writes nothing for a call with one bad entry', async () => {
    const { anchoring } = await makeStore();
    await expect(anchoring.queue([entry('good'), { ...entry('bad'), digest: 'ABC' }])).rejects.toThrow(RangeError);
    await expect(anchoring.queue([{ ...entry('bad'), interval_ms: 0 }])).rejects.toThrow(RangeError);
    await expect(anchoring.queue([{ ...entry('bad'), tenant_id: 'x'.repeat(65) }])).rejects.toThrow(RangeError);
    expect(await anchoring.openBatch()).toBeUndefined();
    expect((await anchoring.backlog()).pending_hashes).toBe(0);
    expect(await anchoring.queue([])).toEqual([]);
  });

  it('takes a batch through closed, signed, posted and resolved, and answers the resolved record by either URN', async () => {
    const store = await makeStore();
    const { anchoring } = store;
    const lease = await leaseOf(store);
    const queued = await anchoring.queue([entry('b'), entry('a', T0 + 5), entry('c', T0 + 5)]);
    const batch = queued[0]!.batch;
    const closed = await anchoring.closeBatch(lease, batch.id, T0 + 100);
    expect(closed).toMatchObject({ state: 'closed', closed_at: T0 + 100, hash_count: 3 });
    // A hash after the close opens the next batch.
    const [later] = await anchoring.queue([entry('later', T0 + 200)]);
    expect(later!.batch.id).toBeGreaterThan(batch.id);
    expect(later!.batch.state).toBe('open');
    expect((await anchoring.batchHashes(batch.id)).map((hash) => hash.digest)).toEqual([
      hexOf('b'),
      ...[hexOf('a'), hexOf('c')].sort(),
    ]);
    await expect(anchoring.closeBatch(lease, batch.id, T0 + 300)).rejects.toThrow(/is closed, not open/);
    await expect(anchoring.resolveBatch(lease, batch.id, { block_height: 1, records: [] }, T0)).rejects.toThrow(
      RangeError,
    );
    expect(await anchoring.highestNonce('anvil-local', txFor(batch.id, 7).sender)).toBeUndefined();
    const signed = await anchoring.recordTransaction(lease, batch.id, txFor(batch.id, 7), T0 + 400);
    expect(signed).toMatchObject({
      state: 'signed',
      signed_at: T0 + 400,
      broadcast_at: null,
      ...txFor(batch.id, 7),
    });
    expect(await anchoring.highestNonce('anvil-local', txFor(batch.id, 7).sender)).toBe(7);
    expect(await anchoring.unfinishedBatches()).toEqual([signed]);
    const failed = await anchoring.recordError(lease, batch.id, {
      message: 'The chain does not answer',
      next_attempt_at: T0 + 900,
    });
    expect(failed).toMatchObject({ attempts: 1, last_error: 'The chain does not answer', next_attempt_at: T0 + 900 });
    expect(await anchoring.backlog()).toEqual({
      pending_hashes: 4,
      batches: { open: 1, closed: 0, signed: 1, posted: 0, resolved: 0 },
      last_error: 'The chain does not answer',
      next_attempt_at: T0 + 900,
    });
    // The pending record's eta waits for the retry.
    expect(await anchoring.recordAt(queued[0]!.svc_anchor, T0 + 500)).toMatchObject({ eta_seconds: 60 });
    const posted = await anchoring.markPosted(lease, batch.id, T0 + 1000);
    expect(posted).toMatchObject({
      state: 'posted',
      broadcast_at: T0 + 1000,
      attempts: 0,
      last_error: null,
      next_attempt_at: null,
    });
    expect(await anchoring.markPosted(lease, batch.id, T0 + 2000)).toEqual(posted);
    const hashes = await anchoring.batchHashes(batch.id);
    const records = hashes.map((hash) => {
      const svcAnchor = resolvedAnchorUrn({
        network: 'anvil-local',
        block_height: 12,
        tx_hash: txFor(batch.id, 7).tx_hash,
        suffix: hash.digest.slice(0, 16),
      });
      return {
        pending: hash.svc_anchor,
        svc_anchor: svcAnchor,
        record: { svc_anchor: svcAnchor, batch_id: batch.batch_id, block_height: 12 },
      };
    });
    await expect(
      anchoring.resolveBatch(lease, batch.id, { block_height: 12, records: records.slice(1) }, T0 + 3000),
    ).rejects.toThrow(/cover exactly the 3 hashes/);
    expect((await anchoring.recordAt(queued[1]!.svc_anchor, T0))?.svc_anchor).toBe(queued[1]!.svc_anchor);
    const resolved = await anchoring.resolveBatch(lease, batch.id, { block_height: 12, records }, T0 + 3000);
    expect(resolved).toMatchObject({ state: 'resolved', block_height: 12, resolved_at: T0 + 3000 });
    for (const record of records) {
      expect(await anchoring.recordAt(record.pending, T0)).toEqual(record.record);
      expect(await anchoring.recordAt(record.svc_anchor, T0)).toEqual(record.record);
    }
    expect(await anchoring.unfinishedBatches()).toEqual([]);
    expect(await anchoring.backlog()).toEqual({
      pending_hashes: 1,
      batches: { open: 1, closed: 0, signed: 0, posted: 0, resolved: 1 },
      last_error: null,
      next_attempt_at: null,
    });
  });

  it('refuses a nonce or a transaction already recorded for another batch', async () => {
    const store = await makeStore();
    const { anchoring } = store;
    const lease = await leaseOf(store);
    const [one] = await anchoring.queue([entry('first')]);
    await anchoring.closeBatch(lease, one!.batch.id, T0 + 1);
    await anchoring.recordTransaction(lease, one!.batch.id, txFor(one!.batch.id, 3), T0 + 2);
    const [two] = await anchoring.queue([entry('second', T0 + 3)]);
    await anchoring.closeBatch(lease, two!.batch.id, T0 + 4);
    const refused = await anchoring
      .recordTransaction(lease, two!.batch.id, txFor(two!.batch.id, 3), T0 + 5)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LedgerError);
    expect((refused as LedgerError).code).toBe('constraint');
    expect((await anchoring.unfinishedBatches()).map((batch) => batch.state)).toEqual(['signed', 'closed']);
    await expect(
      anchoring.recordTransaction(lease, two!.batch.id, { ...txFor(two!.batch.id, 4), raw_tx: 'nothex' }, T0 + 5),
    ).rejects.toThrow(/raw_tx/);
  });

  it('refuses every batch write of a node whose lease another node has taken since, writing nothing', async () => {
    const store = await makeStore();
    const { anchoring } = store;
    const stale = await store.cluster.acquireLease('anchoring', 'node-a', 100, Date.now());
    if (stale === undefined) throw new Error('node-a did not get the anchoring lease');
    const [queued] = await anchoring.queue([entry('fenced')]);
    // node-a stopped renewing; its lease lapsed and node-b took it.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const current = await leaseOf(store, 'node-b', Date.now());
    expect(current.fence).toBeGreaterThan(stale.fence);
    const id = queued!.batch.id;
    await expect(anchoring.closeBatch(stale, id, T0 + 60_001)).rejects.toThrow(LeaseLostError);
    expect((await anchoring.openBatch())?.id).toBe(id);
    const closed = await anchoring.closeBatch(current, id, T0 + 60_002);
    await expect(anchoring.recordTransaction(stale, id, txFor(id, 0), T0 + 60_003)).rejects.toThrow(LeaseLostError);
    await expect(anchoring.recordError(stale, id, { message: 'x', next_attempt_at: T0 })).rejects.toThrow(
      LeaseLostError,
    );
    expect(await anchoring.unfinishedBatches()).toEqual([closed]);
    await anchoring.recordTransaction(current, id, txFor(id, 0), T0 + 60_004);
    await expect(anchoring.markPosted(stale, id, T0 + 60_005)).rejects.toThrow(LeaseLostError);
    const posted = await anchoring.markPosted(current, id, T0 + 60_005);
    await expect(anchoring.resolveBatch(stale, id, { block_height: 1, records: [] }, T0 + 60_006)).rejects.toThrow(
      LeaseLostError,
    );
    expect(await anchoring.unfinishedBatches()).toEqual([posted]);
  });
});

describe('the anchoring store: two nodes on one PostgreSQL database', () => {
  it('queues from both nodes at once into one open batch, each hash once', async () => {
    const [a, b] = await makePgPair();
    const texts = Array.from({ length: 120 }, (_, index) => `concurrent ${index}`);
    const outcomes = await Promise.all(
      texts.map((text, index) => (index % 2 === 0 ? a : b).anchoring.queue([entry(text, T0 + index)])),
    );
    expect(outcomes.flat().every((outcome) => outcome.outcome === 'queued')).toBe(true);
    const batchIds = new Set(outcomes.flat().map((outcome) => outcome.batch.id));
    expect(batchIds.size).toBe(1);
    const open = (await a.anchoring.openBatch()) as AnchorBatchRecord;
    expect(open.hash_count).toBe(120);
    expect(await b.anchoring.batchHashes(open.id)).toHaveLength(120);
    // The same digest from the other node: the same URN, nothing written.
    const [again] = await b.anchoring.queue([entry('concurrent 0', T0 + 500)]);
    expect(again).toMatchObject({ outcome: 'existing', svc_anchor: outcomes[0]![0]!.svc_anchor });
  });

  it('never adds a hash to a batch once the batch writer closed it, while the other node queues', async () => {
    const [writer, other] = await makePgPair();
    const lease = await leaseOf(writer);
    let queuing = true;
    const queued: string[] = [];
    const feeder = (async () => {
      for (let index = 0; queuing || index < 40; index += 1) {
        const [outcome] = await other.anchoring.queue([entry(`race ${index}`, T0 + index)]);
        queued.push(outcome!.svc_anchor);
      }
    })();
    const closedHashes = new Map<number, string[]>();
    try {
      for (let round = 0; round < 8; round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 15));
        const open = await writer.anchoring.openBatch();
        if (open === undefined) continue;
        const closed = await writer.anchoring.closeBatch(lease, open.id, T0 + 10_000 + round);
        const hashes = await writer.anchoring.batchHashes(closed.id);
        expect(hashes).toHaveLength(closed.hash_count);
        closedHashes.set(
          closed.id,
          hashes.map((hash) => hash.digest),
        );
      }
    } finally {
      queuing = false;
      await feeder;
    }
    expect(closedHashes.size).toBeGreaterThanOrEqual(2);
    for (const [id, digests] of closedHashes)
      expect((await writer.anchoring.batchHashes(id)).map((hash) => hash.digest)).toEqual(digests);
    // Every hash is in exactly one batch and counted there.
    const backlog = await writer.anchoring.backlog();
    expect(backlog.pending_hashes).toBe(queued.length);
    expect(new Set(queued).size).toBe(queued.length);
  });
});
