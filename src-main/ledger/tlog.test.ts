import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { TlogMemory, tlogLeafHash, tlogRoot } from '../../src-shared/crypto/tlog';
import { MIGRATIONS } from './migrations/index';
import { openLedger } from './open-ledger';
import { insertReceipts } from './receipts';
import { insertTenant } from './service-state';
import {
  appendTlogLeaves,
  getTlogCheckpoint,
  insertTlogCheckpoint,
  insertTlogCosignature,
  latestTlogCheckpoint,
  listTlogCosignatures,
  listTlogLeaves,
  MAX_TLOG_COSIGNATURES,
  tlogNodeSource,
  tlogPeriodIndices,
  tlogSize,
  tlogsToSign,
} from './tlog';
import { makeReceipt, makeTemporaryLedger } from './test-support';
import type { WritableDB } from './database';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

function leafHash(seed: string): Uint8Array {
  return tlogLeafHash(sha256, new TextEncoder().encode(JSON.stringify({ seed })));
}

/** Stores n receipts issued one second apart and returns their rows. */
function storeReceipts(database: WritableDB, prefix: string, n: number, from = 1_000_000): number[] {
  const rows = insertReceipts(
    database,
    Array.from({ length: n }, (_, index) => makeReceipt(`${prefix}-${index}`, { issued_at: from + index * 1000 })),
  );
  return rows.map((row) => row.id);
}

function ledgerWithTenant() {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  insertTenant(made.ledger.writable, { id: 'acme', tier: 'scale', at: 1 });
  insertTenant(made.ledger.writable, { id: 'globex', tier: 'scale', at: 1 });
  return made.ledger;
}

describe('the tenants’ logs in the ledger (migration 11)', () => {
  it('appends leaves in order with their complete nodes, giving the root of the in-memory log at every size', () => {
    const ledger = ledgerWithTenant();
    const rows = storeReceipts(ledger.writable, 'a', 37);
    const memory = new TlogMemory(sha256);
    rows.forEach((receipt, index) => {
      const hash = leafHash(`a-${index}`);
      memory.append(hash);
      // One at a time, as the service appends them, each in its own transaction.
      expect(
        ledger.runInTransaction((database) =>
          appendTlogLeaves(database, sha256, 'acme', [{ receipt, leaf_hash: hash }]),
        ),
      ).toEqual([index]);
    });
    expect(tlogSize(ledger.readable, 'acme')).toBe(37);
    expect(tlogSize(ledger.readable, 'globex')).toBe(0);
    const node = tlogNodeSource(ledger.readable, 'acme');
    for (const size of [0, 1, 2, 3, 7, 8, 16, 31, 32, 33, 37]) {
      expect(Buffer.from(tlogRoot(sha256, size, node)).toString('hex')).toBe(
        Buffer.from(memory.root(size)).toString('hex'),
      );
    }
    // Only complete nodes are stored: 37 = 32 + 4 + 1 has 18 + 9 + 4 + 2 + 1 nodes above the leaves.
    const stored = ledger.readable.prepare(`SELECT count(*) AS n FROM tlog_nodes WHERE tenant_id = 'acme'`).get() as {
      n: number;
    };
    expect(stored.n).toBe(18 + 9 + 4 + 2 + 1);
    expect(() => node(5, 1)).toThrow(RangeError);
  });

  it('never logs one receipt twice for a tenant, and numbers each tenant’s log on its own', () => {
    const ledger = ledgerWithTenant();
    const [first, second] = storeReceipts(ledger.writable, 'b', 2) as [number, number];
    expect(appendTlogLeaves(ledger.writable, sha256, 'acme', [{ receipt: first, leaf_hash: leafHash('b-0') }])).toEqual(
      [0],
    );
    expect(
      appendTlogLeaves(ledger.writable, sha256, 'acme', [
        { receipt: first, leaf_hash: leafHash('b-0') },
        { receipt: second, leaf_hash: leafHash('b-1') },
      ]),
    ).toEqual([0, 1]);
    expect(
      appendTlogLeaves(ledger.writable, sha256, 'globex', [{ receipt: second, leaf_hash: leafHash('b-1') }]),
    ).toEqual([0]);
    expect(listTlogLeaves(ledger.readable, 'acme', 0, 10).map((leaf) => leaf.receipt)).toEqual([first, second]);
    expect(() =>
      appendTlogLeaves(ledger.writable, sha256, 'nobody', [{ receipt: first, leaf_hash: leafHash('x') }]),
    ).toThrow(/constraint/i);
    expect(() =>
      appendTlogLeaves(ledger.writable, sha256, 'acme', [{ receipt: first, leaf_hash: new Uint8Array(31) }]),
    ).toThrow(RangeError);
  });

  it('finds a period’s first and last leaf by issuing time', () => {
    const ledger = ledgerWithTenant();
    const rows = storeReceipts(ledger.writable, 'c', 5);
    appendTlogLeaves(
      ledger.writable,
      sha256,
      'acme',
      rows.map((receipt, index) => ({ receipt, leaf_hash: leafHash(`c-${index}`) })),
    );
    expect(tlogPeriodIndices(ledger.readable, 'acme', 5, { since: 1_001_000, until: 1_004_000 })).toEqual({
      first: 1,
      last: 3,
    });
    expect(tlogPeriodIndices(ledger.readable, 'acme', 3, { since: 1_001_000, until: null })).toEqual({
      first: 1,
      last: 2,
    });
    expect(tlogPeriodIndices(ledger.readable, 'acme', 5, { since: 1_001_500, until: 1_002_000 })).toBeNull();
  });

  it('keeps every checkpoint, one root per size', () => {
    const ledger = ledgerWithTenant();
    const root = sha256(new Uint8Array([1]));
    const note = 'example.com/log/tenants/acme\n1\nAAAA\n\n— example.com/log AAAA\n';
    insertTlogCheckpoint(ledger.writable, { tenant_id: 'acme', tree_size: 1, root, note, signed_at: 5 });
    // The same size and root again: the stored one stands.
    expect(
      insertTlogCheckpoint(ledger.writable, { tenant_id: 'acme', tree_size: 1, root, note: `${note}x`, signed_at: 6 }),
    ).toMatchObject({
      note,
      signed_at: 5,
    });
    expect(() =>
      insertTlogCheckpoint(ledger.writable, {
        tenant_id: 'acme',
        tree_size: 1,
        root: sha256(new Uint8Array([2])),
        note,
        signed_at: 7,
      }),
    ).toThrow(/another root/);
    // Even written around the repository, a second row for one size cannot be stored.
    expect(() =>
      ledger.writable
        .prepare(
          `INSERT INTO tlog_checkpoints (tenant_id, tree_size, root, note, signed_at) VALUES ('acme', 1, ?, 'n', 1)`,
        )
        .run(Buffer.from(sha256(new Uint8Array([3])))),
    ).toThrow(/UNIQUE|PRIMARY KEY/);
    insertTlogCheckpoint(ledger.writable, { tenant_id: 'acme', tree_size: 4, root, note, signed_at: 8 });
    expect(latestTlogCheckpoint(ledger.readable, 'acme')?.tree_size).toBe(4);
    expect(getTlogCheckpoint(ledger.readable, 'acme', 2)).toBeUndefined();
  });

  it('names the logs that grew past their newest checkpoint', () => {
    const ledger = ledgerWithTenant();
    const rows = storeReceipts(ledger.writable, 'd', 2);
    appendTlogLeaves(ledger.writable, sha256, 'acme', [{ receipt: rows[0] as number, leaf_hash: leafHash('d-0') }]);
    expect(tlogsToSign(ledger.readable)).toEqual([{ tenant_id: 'acme', size: 1, signed: null }]);
    expect(tlogsToSign(ledger.readable, { unsigned: true }).map((row) => row.tenant_id)).toEqual(['acme', 'globex']);
    insertTlogCheckpoint(ledger.writable, {
      tenant_id: 'acme',
      tree_size: 1,
      root: new Uint8Array(32),
      note: 'n',
      signed_at: 1,
    });
    expect(tlogsToSign(ledger.readable)).toEqual([]);
    appendTlogLeaves(ledger.writable, sha256, 'acme', [{ receipt: rows[1] as number, leaf_hash: leafHash('d-1') }]);
    expect(tlogsToSign(ledger.readable)).toEqual([{ tenant_id: 'acme', size: 2, signed: 1 }]);
  });

  it('keeps at most 16 cosignatures per checkpoint, one per key', () => {
    const ledger = ledgerWithTenant();
    insertTlogCheckpoint(ledger.writable, {
      tenant_id: 'acme',
      tree_size: 0,
      root: new Uint8Array(32),
      note: 'n',
      signed_at: 1,
    });
    const cosign = (n: number, line = `— w${n} line`) =>
      insertTlogCosignature(ledger.writable, {
        tenant_id: 'acme',
        tree_size: 0,
        key_name: `w${n}`,
        key_id: n,
        line,
        received_at: n,
      });
    for (let n = 1; n <= MAX_TLOG_COSIGNATURES; n += 1) expect(cosign(n)).toBe('stored');
    expect(cosign(17)).toBe('full');
    expect(cosign(1, '— w1 newer')).toBe('replaced');
    const lines = listTlogCosignatures(ledger.readable, 'acme', 0);
    expect(lines).toHaveLength(16);
    expect(lines[0]?.line).toBe('— w1 newer');
    // A cosignature of a size never signed cannot be stored.
    expect(() =>
      insertTlogCosignature(ledger.writable, { tenant_id: 'acme', tree_size: 9, key_name: 'w1', key_id: 1, line: 'l' }),
    ).toThrow(/constraint/i);
  });

  it('logs the tenant receipts a ledger stored before it, in their stored order', () => {
    const made = makeTemporaryLedger({ migrations: MIGRATIONS.slice(0, 10) });
    cleanups.push(made.dispose);
    insertTenant(made.ledger.writable, { id: 'acme', tier: 'scale', at: 1 });
    const tenant = (seed: string) => ({
      ...makeReceipt(seed),
      source: { kind: 'service' as const, ref: 'tenant:acme' },
    });
    insertReceipts(made.ledger.writable, [tenant('e-0')]);
    insertReceipts(made.ledger.writable, [{ ...makeReceipt('e-public'), source: { kind: 'service', ref: 'public' } }]);
    insertReceipts(made.ledger.writable, [tenant('e-1'), makeReceipt('e-file')]);
    made.ledger.close();
    const ledger = openLedger(made.file);
    cleanups.unshift(() => ledger.close());
    const leaves = listTlogLeaves(ledger.readable, 'acme', 0, 10);
    expect(leaves.map((leaf) => Buffer.from(leaf.leaf_hash).toString('hex'))).toEqual(
      [leafHash('e-0'), leafHash('e-1')].map((hash) => Buffer.from(hash).toString('hex')),
    );
    const memory = new TlogMemory(sha256);
    memory.append(leafHash('e-0'));
    memory.append(leafHash('e-1'));
    expect(tlogRoot(sha256, 2, tlogNodeSource(ledger.readable, 'acme'))).toEqual(memory.root(2));
  });
});
