import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TlogMemory, tlogConsistencyProof, tlogLeafHash } from '../../../src-shared/crypto/tlog';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres';
import { LedgerError } from '../errors';
import { StoreUnavailableError } from './errors';
import { openLedger, type Ledger } from '../open-ledger';
import { insertTenant } from '../service-state';
import type { IssuanceStore, IssueItem, IssueOutcome } from './issuance';
import { pgIssuance } from './pg-issuance';
import { openPgPool, type PgPool } from './pg-pool';
import { sqliteIssuance } from './sqlite-issuance';

// The issuance domain, the same cases on both engines (a real SQLite file, a real PostgreSQL
// database), then what only several nodes on one database can do wrong: two stores on one
// PostgreSQL database stand for two service nodes.

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());
const hex = (data: Uint8Array): string => Buffer.from(data).toString('hex');
const NOW = Date.parse('2026-06-01T12:00:00Z');

let serial = 0;
/** An issued receipt (its bytes are unique), for `tenant` (its log) or public. */
function item(tenant: string | undefined, extra: Omit<IssueItem, 'row' | 'leaf'> = {}): IssueItem {
  serial += 1;
  const raw = new TextEncoder().encode(`{"n":${serial},"r":"${Math.random()}"}`);
  return {
    row: {
      receipt_sha256: hex(sha256(raw)),
      raw,
      report: {
        json: '{"status":"PASS"}',
        format: 'profile/standard',
        status: 'PASS',
        trust: { status: 'unpinned' },
      },
      receipt_id: `rcp_${serial}`,
      issued_at: NOW + serial,
      issuer_key_id: 'did:key:z6Mktest',
      ref: tenant === undefined ? 'public' : `tenant:${tenant}`,
    },
    ...(tenant === undefined ? {} : { leaf: { tenant, hash: tlogLeafHash(sha256, raw) } }),
    ...extra,
  };
}

const nonce = (value: string) => ({ device_id_commitment_sha256: 'd'.repeat(64), observation_nonce: value, at: NOW });
const stored = (outcome: IssueOutcome | undefined) => (outcome?.stored === true ? outcome : undefined);
const reason = (outcome: IssueOutcome | undefined) => (outcome?.stored === false ? outcome.reason : 'stored');

/** One engine: a store over a fresh database with tenants `acme` and `beta`. */
interface Engine {
  store: IssuanceStore;
  close(): Promise<void>;
}

let postgres: TestPostgres | undefined;

async function sqliteEngine(): Promise<Engine> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-issuance-'));
  const ledger: Ledger = openLedger(path.join(directory, 'ledger.sqlite'));
  ledger.runInTransaction((database) => {
    insertTenant(database, { id: 'acme', tier: 'pro', at: NOW });
    insertTenant(database, { id: 'beta', tier: 'scale', at: NOW });
  });
  return {
    store: sqliteIssuance({ ledger, sha256 }),
    close: async () => {
      ledger.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A fresh database with the two tenants: its URL. */
async function pgDatabase(): Promise<string> {
  postgres ??= await startTestPostgres();
  const url = await postgres.createDatabase();
  const pool = await openPgPool(url);
  try {
    await pool.write(async (writer) => {
      await writer.query('INSERT INTO tenants (id, tier, created_at) VALUES ($1, $2, $3), ($4, $5, $3)', [
        'acme',
        'pro',
        NOW,
        'beta',
        'scale',
      ]);
    });
  } finally {
    await pool.close();
  }
  return url;
}

async function pgEngine(): Promise<Engine> {
  const pool = await openPgPool(await pgDatabase());
  return { store: pgIssuance({ pool, sha256 }), close: () => pool.close() };
}

afterAll(async () => {
  await postgres?.stop();
});

describe.each([
  ['sqlite', sqliteEngine],
  ['postgres', pgEngine],
])('the issuance store on %s', (_name, open) => {
  let engine: Engine;
  let store: IssuanceStore;
  beforeEach(async () => {
    engine = await open();
    store = engine.store;
  });
  afterEach(async () => {
    await engine.close();
  });

  it('stores a group in order, counting the quota up to its limit and refusing the rest alone', async () => {
    const quota = { subject: 'tenant:acme', period: '2026-06', limit: 3 };
    const items = [item('acme', { quota }), item(undefined), item('acme', { quota }), item('acme', { quota })];
    items.push(item('acme', { quota }), item('beta'));
    const outcomes = await store.commit(items);
    expect(outcomes.map(reason)).toEqual(['stored', 'stored', 'stored', 'stored', 'quota_exceeded', 'stored']);
    expect(outcomes.map((outcome) => stored(outcome)?.quotaUsed)).toEqual([1, undefined, 2, 3, undefined, undefined]);
    const ids = outcomes.flatMap((outcome) => (outcome.stored ? [outcome.id] : []));
    expect(new Set(ids).size).toBe(5);
    // The tenant's log holds its three stored receipts in the group's order, and not the refused one.
    expect(await store.tlogSize('acme')).toBe(3);
    expect(await store.tlogSize('beta')).toBe(1);
    const memory = new TlogMemory(sha256);
    for (const index of [0, 2, 3]) memory.append((items[index] as IssueItem).leaf?.hash as Uint8Array);
    const due = await store.checkpointDue('acme', false);
    expect(due.latest).toBeUndefined();
    expect(due.due?.size).toBe(3);
    expect(hex(due.due?.root as Uint8Array)).toBe(hex(memory.root()));
    // A used-up quota stays used up in the next group; another period is counted apart.
    const next = await store.commit([
      item('acme', { quota }),
      item('acme', { quota: { ...quota, period: '2026-07' } }),
    ]);
    expect(next.map(reason)).toEqual(['quota_exceeded', 'stored']);
    expect(stored(next[1])?.quotaUsed).toBe(1);
    expect(await store.tlogSize('acme')).toBe(4);
    // A quota with room for a whole group counts each of its receipts in the group's order.
    const august = { ...quota, period: '2026-08', limit: 5 };
    const roomy = await store.commit([
      item('acme', { quota: august }),
      item('beta'),
      item('acme', { quota: august }),
      item('acme', { quota: august }),
    ]);
    expect(roomy.map((outcome) => stored(outcome)?.quotaUsed)).toEqual([1, undefined, 2, 3]);
    const edge = await store.commit([
      item('acme', { quota: august }),
      item('acme', { quota: august }),
      item('acme', { quota: august }),
    ]);
    expect(edge.map((outcome) => stored(outcome)?.quotaUsed)).toEqual([4, 5, undefined]);
  });

  it('reads an issued receipt back by its hash: its bytes and its report at issuance', async () => {
    const quota = { subject: 'tenant:acme', period: '2026-06', limit: 1 };
    const [kept, refused] = [item('acme', { quota }), item('acme', { quota })];
    await store.commit([kept, refused]);
    const found = await store.issued(kept.row.receipt_sha256);
    expect({ ...found, raw: hex(found?.raw ?? new Uint8Array()) }).toEqual({
      receipt_sha256: kept.row.receipt_sha256,
      raw: hex(kept.row.raw),
      format: 'profile/standard',
      status: 'PASS',
      report_json: '{"status":"PASS"}',
    });
    expect(found?.raw).toBeInstanceOf(Uint8Array);
    expect(await store.issued(refused.row.receipt_sha256)).toBeUndefined();
    await expect(store.issued('not a hash')).rejects.toThrow(RangeError);
  });

  it('uses a nonce once, and a receipt refused for its nonce uses no quota', async () => {
    const quota = { subject: 'tenant:acme', period: '2026-06', limit: 2 };
    const first = await store.commit([
      item('acme', { quota, nonce: nonce('n'.repeat(16)) }),
      item('acme', { quota, nonce: nonce('n'.repeat(16)) }),
    ]);
    expect(first.map(reason)).toEqual(['stored', 'nonce_reused']);
    const again = await store.commit([
      item('acme', { quota, nonce: nonce('n'.repeat(16)) }),
      item('acme', { quota, nonce: nonce('m'.repeat(16)) }),
    ]);
    expect(again.map(reason)).toEqual(['nonce_reused', 'stored']);
    // Two uses counted: the refused ones gave theirs back.
    expect(stored(again[1])?.quotaUsed).toBe(2);
    expect(await store.tlogSize('acme')).toBe(2);
  });

  it('refuses only the item whose row the database refuses, and counts no quota for it', async () => {
    const quota = { subject: 'tenant:acme', period: '2026-06', limit: 10 };
    // A leaf for a tenant the database does not know: its row is refused.
    const outcomes = await store.commit([item('acme', { quota }), item('ghost', { quota }), item('acme', { quota })]);
    expect(outcomes.map(reason)).toEqual(['stored', 'failed', 'stored']);
    expect(outcomes.map((outcome) => stored(outcome)?.quotaUsed)).toEqual([1, undefined, 2]);
    expect(await store.tlogSize('acme')).toBe(2);
  });

  it('stores a receipt once and logs it once, however often it is committed', async () => {
    const once = item('acme');
    const [second, third] = [item('acme'), item('acme')];
    const first = await store.commit([once, second]);
    const again = await store.commit([once, third, once]);
    expect(again.map(reason)).toEqual(['stored', 'stored', 'stored']);
    expect(stored(again[0])?.id).toBe(stored(first[0])?.id);
    expect(stored(again[2])?.id).toBe(stored(first[0])?.id);
    expect(await store.tlogSize('acme')).toBe(3);
    const memory = new TlogMemory(sha256);
    for (const entry of [once, second, third]) memory.append(entry.leaf?.hash as Uint8Array);
    expect(hex((await store.checkpointDue('acme', false)).due?.root as Uint8Array)).toBe(hex(memory.root()));
  });

  it('keeps a checkpoint per size, the first one kept when a size is signed again', async () => {
    expect(await store.lastSignedCheckpoint()).toBeUndefined();
    expect((await store.checkpointDue('acme', false)).due).toBeUndefined();
    const empty = await store.checkpointDue('acme', true);
    expect(empty.due?.size).toBe(0);
    expect(hex(empty.due?.root as Uint8Array)).toBe(hex(sha256(new Uint8Array(0))));
    await store.commit([item('acme'), item('acme')]);
    const due = await store.checkpointDue('acme', false);
    const root = due.due?.root as Uint8Array;
    const kept = await store.insertCheckpoint({
      tenant_id: 'acme',
      tree_size: 2,
      root,
      note: 'first\n',
      signed_at: NOW,
    });
    expect(kept.note).toBe('first\n');
    const again = await store.insertCheckpoint({
      tenant_id: 'acme',
      tree_size: 2,
      root,
      note: 'second\n',
      signed_at: NOW + 1,
    });
    expect(again).toEqual(kept);
    await expect(
      store.insertCheckpoint({ tenant_id: 'acme', tree_size: 2, root: sha256(root), note: 'x\n', signed_at: NOW }),
    ).rejects.toSatisfy((error) => error instanceof LedgerError && error.code === 'constraint');
    expect((await store.checkpointDue('acme', true)).due).toBeUndefined();
    expect((await store.checkpointDue('acme', true)).latest).toEqual(kept);
    expect(await store.getCheckpoint('acme', 2)).toEqual(kept);
    expect(await store.getCheckpoint('acme', 1)).toBeUndefined();
    expect(await store.latestCheckpoint('beta')).toBeUndefined();
    await store.commit([item('acme'), item('beta')]);
    expect(await store.tlogsToSign()).toEqual([
      { tenant_id: 'acme', size: 3, signed: 2 },
      { tenant_id: 'beta', size: 1, signed: null },
    ]);
    const three = await store.checkpointDue('acme', false);
    await store.insertCheckpoint({
      tenant_id: 'acme',
      tree_size: 3,
      root: three.due?.root as Uint8Array,
      note: 'third\n',
      signed_at: NOW,
    });
    expect((await store.listCheckpoints('acme')).map((checkpoint) => checkpoint.tree_size)).toEqual([2, 3]);
    expect((await store.latestCheckpoint('acme'))?.tree_size).toBe(3);
    // The checkpoint signed last, of any tenant: the latest signed_at.
    expect(await store.lastSignedCheckpoint()).toMatchObject({ tenant_id: 'acme', tree_size: 3, note: 'third\n' });
    const beta = await store.checkpointDue('beta', false);
    await store.insertCheckpoint({
      tenant_id: 'beta',
      tree_size: 1,
      root: beta.due?.root as Uint8Array,
      note: 'beta\n',
      signed_at: NOW + 5,
    });
    expect(await store.lastSignedCheckpoint()).toMatchObject({ tenant_id: 'beta', tree_size: 1, note: 'beta\n' });
  });

  it('gives the inclusion and consistency proofs of the in-memory log at every size', async () => {
    const memory = new TlogMemory(sha256);
    for (let group = 0; group < 4; group += 1) {
      const items = Array.from({ length: 5 }, () => item('acme'));
      await store.commit(items);
      for (const entry of items) memory.append(entry.leaf?.hash as Uint8Array);
    }
    const size = memory.size;
    expect(await store.tlogSize('acme')).toBe(size);
    for (const at of [1, 7, 13, size]) {
      for (const index of [0, at - 1, Math.floor(at / 2)]) {
        expect((await store.inclusionProof('acme', index, at)).map(hex)).toEqual(
          memory.inclusionProof(index, at).map(hex),
        );
      }
      expect((await store.consistencyProof('acme', at, size)).map(hex)).toEqual(
        tlogConsistencyProof(sha256, at, size, memory.node).map(hex),
      );
    }
    await expect(store.inclusionProof('acme', 0, size + 1)).rejects.toThrow(RangeError);
  });

  it('keeps 16 cosignatures a checkpoint, one per key, in the order first received', async () => {
    await store.commit([item('acme')]);
    const due = await store.checkpointDue('acme', false);
    await expect(
      store.addCosignature({
        tenant_id: 'acme',
        tree_size: 1,
        key_name: 'w',
        key_id: 1,
        line: 'l',
        received_at: NOW,
      }),
    ).rejects.toSatisfy((error) => error instanceof LedgerError && error.code === 'constraint');
    await store.insertCheckpoint({
      tenant_id: 'acme',
      tree_size: 1,
      root: due.due?.root as Uint8Array,
      note: 'c\n',
      signed_at: NOW,
    });
    const cosign = (name: string, line: string) =>
      store.addCosignature({ tenant_id: 'acme', tree_size: 1, key_name: name, key_id: 7, line, received_at: NOW });
    for (let index = 0; index < 16; index += 1) expect(await cosign(`w${index}`, `— w${index} a`)).toBe('stored');
    expect(await cosign('w16', '— w16 a')).toBe('full');
    expect(await cosign('w3', '— w3 b')).toBe('replaced');
    const lines = await store.listCosignatures('acme', 1);
    expect(lines).toHaveLength(16);
    expect(lines.map((line) => line.key_name)).toEqual(Array.from({ length: 16 }, (_, index) => `w${index}`));
    expect(lines[3]).toEqual({ key_name: 'w3', key_id: 7, line: '— w3 b', received_at: NOW });
  });
});

describe('two nodes on one PostgreSQL database', () => {
  let url: string;
  let pools: PgPool[];
  let nodes: [IssuanceStore, IssuanceStore];
  beforeAll(async () => {
    postgres ??= await startTestPostgres();
  });
  beforeEach(async () => {
    url = await pgDatabase();
    pools = [await openPgPool(url), await openPgPool(url)];
    nodes = [pgIssuance({ pool: pools[0] as PgPool, sha256 }), pgIssuance({ pool: pools[1] as PgPool, sha256 })];
  });
  afterEach(async () => {
    for (const pool of pools) await pool.close();
  });

  /** `groups` groups of `size` items from each node at once. */
  const burst = (groups: number, size: number, make: () => IssueItem) =>
    Promise.all(
      nodes.flatMap((node) =>
        Array.from({ length: groups }, () => {
          const items = Array.from({ length: size }, make);
          return node
            .commit(items)
            .then((outcomes) => outcomes.map((outcome, index) => ({ outcome, item: items[index] as IssueItem })));
        }),
      ),
    ).then((results) => results.flat());

  it('gives a quota of N consumed from both exactly N uses', async () => {
    const quota = { subject: 'tenant:acme', period: '2026-06', limit: 37 };
    const results = await burst(8, 6, () => item('acme', { quota }));
    const used = results.flatMap(({ outcome }) => (outcome.stored ? [outcome.quotaUsed] : []));
    expect(used).toHaveLength(37);
    expect([...used].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(Array.from({ length: 37 }, (_, index) => index + 1));
    expect(results.filter(({ outcome }) => reason(outcome) === 'quota_exceeded')).toHaveLength(96 - 37);
    expect(await nodes[0].tlogSize('acme')).toBe(37);
  });

  it('stores a nonce used from both once', async () => {
    const results = await burst(3, 2, () => item('acme', { nonce: nonce('x'.repeat(20)) }));
    expect(results.filter(({ outcome }) => outcome.stored)).toHaveLength(1);
    expect(results.filter(({ outcome }) => reason(outcome) === 'nonce_reused')).toHaveLength(11);
    expect(await nodes[1].tlogSize('acme')).toBe(1);
  });

  it('keeps one contiguous log under appends from both, whose root is the recomputed one', async () => {
    const results = await burst(10, 7, () => item(Math.random() < 0.7 ? 'acme' : 'beta'));
    expect(results.every(({ outcome }) => outcome.stored)).toBe(true);
    const pool = pools[0] as PgPool;
    for (const tenant of ['acme', 'beta']) {
      const { rows } = await pool.read((reader) =>
        reader.query<{ leaf_index: number; leaf_hash: Uint8Array; receipt_id: number }>(
          'SELECT leaf_index, leaf_hash, receipt_id FROM tlog_leaves WHERE tenant_id = $1 ORDER BY leaf_index',
          [tenant],
        ),
      );
      const mine = results.filter(({ item: entry }) => entry.leaf?.tenant === tenant);
      expect(rows.map((row) => Number(row.leaf_index))).toEqual(mine.map((_, index) => index));
      // Each stored receipt once, with its own leaf hash.
      const byId = new Map(mine.map(({ outcome, item: entry }) => [outcome.stored ? outcome.id : 0, entry]));
      expect(new Set(rows.map((row) => Number(row.receipt_id))).size).toBe(mine.length);
      for (const row of rows)
        expect(hex(row.leaf_hash)).toBe(hex(byId.get(Number(row.receipt_id))?.leaf?.hash as Uint8Array));
      // The root from the stored nodes is the one recomputed from the leaves alone.
      const memory = new TlogMemory(sha256);
      for (const row of rows) memory.append(new Uint8Array(row.leaf_hash));
      const due = await nodes[1].checkpointDue(tenant, false);
      expect(hex(due.due?.root as Uint8Array)).toBe(hex(memory.root()));
      expect((await nodes[0].inclusionProof(tenant, 0, rows.length)).map(hex)).toEqual(
        memory.inclusionProof(0, rows.length).map(hex),
      );
    }
  });

  it('keeps one checkpoint when both sign one size, and 16 cosignatures from both', async () => {
    await nodes[0].commit([item('acme'), item('acme'), item('acme')]);
    const due = await nodes[1].checkpointDue('acme', false);
    const root = due.due?.root as Uint8Array;
    const kept = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        (nodes[index % 2] as IssuanceStore).insertCheckpoint({
          tenant_id: 'acme',
          tree_size: 3,
          root,
          note: `signed by ${index}\n`,
          signed_at: NOW + index,
        }),
      ),
    );
    expect(new Set(kept.map((checkpoint) => checkpoint.note)).size).toBe(1);
    expect(await nodes[0].listCheckpoints('acme')).toEqual([kept[0]]);
    const outcomes = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        (nodes[index % 2] as IssuanceStore).addCosignature({
          tenant_id: 'acme',
          tree_size: 3,
          key_name: `w${index}`,
          key_id: index,
          line: `— w${index} x`,
          received_at: NOW,
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'stored')).toHaveLength(16);
    expect(outcomes.filter((outcome) => outcome === 'full')).toHaveLength(8);
    expect(await nodes[1].listCosignatures('acme', 3)).toHaveLength(16);
  });

  it('refuses a whole group while the database is down, and stores the next once it is back', async () => {
    const server = postgres as TestPostgres;
    const quota = { subject: 'tenant:acme', period: '2026-06', limit: 5 };
    await nodes[0].commit([item('acme', { quota })]);
    await server.kill();
    try {
      await expect(nodes[0].commit([item('acme', { quota }), item('beta')])).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
    } finally {
      await server.start();
    }
    // Nothing of the refused group was written: the next counts the second use, at leaf 1.
    const after = await nodes[1].commit([item('acme', { quota })]);
    expect(stored(after[0])?.quotaUsed).toBe(2);
    expect(await nodes[0].tlogSize('acme')).toBe(2);
    expect(await nodes[0].tlogSize('beta')).toBe(0);
  });
});
