import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { tlogLeafHash } from '../../src-shared/crypto/tlog';
import { explainQueryPlan, type WritableDB } from './database';
import { insertReceipts } from './receipts';
import { insertTenant } from './service-state';
import { appendTlogLeaves, tlogQueries } from './tlog';
import { makeReceipt, makeTemporaryLedger } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

/** The ledger's connection, counting the statements run through it (a real SQLite connection). */
function counting(database: WritableDB): { database: WritableDB; statements: () => number } {
  let statements = 0;
  const wrapStatement = (statement: object): object =>
    new Proxy(statement, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (key === 'run' || key === 'get' || key === 'all' || key === 'iterate') statements += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  const proxy = new Proxy(database, {
    get(target, key) {
      if (key === 'prepare') return (text: string) => wrapStatement(target.prepare(text));
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { database: proxy, statements: () => statements };
}

describe('the log’s statements are indexed searches (EXPLAIN QUERY PLAN)', () => {
  it('appends, reads nodes and finds a period’s edges without scanning a log', () => {
    const made = makeTemporaryLedger();
    cleanups.push(made.dispose);
    const database = made.ledger.writable;
    insertTenant(database, { id: 'acme', tier: 'scale', at: 1 });
    const rows = insertReceipts(
      database,
      Array.from({ length: 40 }, (_, index) => makeReceipt(`plan-${index}`, { issued_at: 1_000_000 + index })),
    );
    appendTlogLeaves(
      database,
      sha256,
      'acme',
      rows.map((row, index) => ({ receipt: row.id, leaf_hash: tlogLeafHash(sha256, Uint8Array.of(index)) })),
    );
    const hash = new Uint8Array(32);
    const plans: Record<string, string[]> = {
      size: explainQueryPlan(database, tlogQueries.size('acme')),
      leaf: explainQueryPlan(database, tlogQueries.leaf('acme', 3)),
      node: explainQueryPlan(database, tlogQueries.node('acme', 2, 1)),
      leafOfReceipt: explainQueryPlan(database, tlogQueries.leafOfReceipt('acme', 7)),
      insertLeaf: explainQueryPlan(database, tlogQueries.insertLeaf('acme', 40, hash, 1)),
      insertNode: explainQueryPlan(database, tlogQueries.insertNode('acme', 3, 5, hash)),
      leafRange: explainQueryPlan(database, tlogQueries.leafRange('acme', 3, 30)),
      nodeRange: explainQueryPlan(database, tlogQueries.nodeRange('acme', 2, 1, 6)),
      periodEdges: explainQueryPlan(database, tlogQueries.periodEdges('acme', 40, 1_000_010, 1_000_020)),
      newestBefore: explainQueryPlan(database, tlogQueries.newestBefore('acme', 40, 1_000_010)),
      lastBeforeAfter: explainQueryPlan(database, tlogQueries.lastBeforeAfter('acme', 40, 1_000_010, 9)),
    };
    for (const [name, plan] of Object.entries(plans)) {
      // No step reads a whole table, and none sorts: every read is a search of a key or index.
      for (const step of plan) expect(`${name}: ${step}`).not.toMatch(/\bSCAN\b|TEMP B-TREE/);
    }
    const text = (name: string): string => plans[name]?.join(' | ') ?? '';
    expect(text('size')).toMatch(/SEARCH tlog_leaves USING PRIMARY KEY \(tenant_id=\?\)/);
    expect(text('leaf')).toMatch(/SEARCH tlog_leaves USING PRIMARY KEY \(tenant_id=\? AND leaf_index=\?\)/);
    expect(text('node')).toMatch(/SEARCH tlog_nodes USING PRIMARY KEY \(tenant_id=\? AND level=\? AND node_index=\?\)/);
    expect(text('leafOfReceipt')).toMatch(/idx_tlog_leaves_receipt \(tenant_id=\? AND receipt_id=\?\)/);
    expect(text('leafRange')).toMatch(/PRIMARY KEY \(tenant_id=\? AND leaf_index>\? AND leaf_index<\?\)/);
    expect(text('nodeRange')).toMatch(/PRIMARY KEY \(tenant_id=\? AND level=\? AND node_index>\? AND node_index<\?\)/);
    expect(text('periodEdges')).toMatch(
      /SEARCH r USING (COVERING )?INDEX idx_receipts_issued \(issued_order>\? AND issued_order<\?\) \| SEARCH l USING COVERING INDEX idx_tlog_leaves_receipt/,
    );
    expect(text('newestBefore')).toMatch(
      /SEARCH r USING (COVERING )?INDEX idx_receipts_issued \(issued_order>\? AND issued_order<\?\)/,
    );
    expect(text('lastBeforeAfter')).toMatch(/PRIMARY KEY \(tenant_id=\? AND leaf_index>\? AND leaf_index<\?\)/);
  });

  it('appends a leaf in O(log n) statements: the size, the receipt’s check, the leaf, and two per node it completes', () => {
    const made = makeTemporaryLedger();
    cleanups.push(made.dispose);
    const database = made.ledger.writable;
    insertTenant(database, { id: 'acme', tier: 'scale', at: 1 });
    const rows = insertReceipts(
      database,
      Array.from({ length: 1026 }, (_, index) => makeReceipt(`append-${index}`)),
    );
    const leaf = (index: number) => ({
      receipt: (rows[index] as { id: number }).id,
      leaf_hash: tlogLeafHash(sha256, Uint8Array.of(index & 0xff, index >> 8)),
    });
    appendTlogLeaves(
      database,
      sha256,
      'acme',
      Array.from({ length: 1023 }, (_, index) => leaf(index)),
    );
    const counted = counting(database);
    // Leaf 1023 completes ten nodes (levels 1 to 10): each reads its left child and is inserted.
    expect(appendTlogLeaves(counted.database, sha256, 'acme', [leaf(1023)])).toEqual([1023]);
    expect(counted.statements()).toBe(3 + 2 * 10);
    // Leaf 1024 completes none.
    expect(appendTlogLeaves(counted.database, sha256, 'acme', [leaf(1024)])).toEqual([1024]);
    expect(counted.statements()).toBe(3 + 2 * 10 + 3);
    // A receipt already logged: the size and the check, nothing written.
    expect(appendTlogLeaves(counted.database, sha256, 'acme', [leaf(5)])).toEqual([5]);
    expect(counted.statements()).toBe(3 + 2 * 10 + 3 + 2);
  });
});
