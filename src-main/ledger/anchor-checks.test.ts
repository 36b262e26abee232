import { afterEach, describe, expect, it } from 'vitest';
import type { AnchorStepView } from '../../src-shared/api/anchor-contract';
import {
  anchorStateTotals,
  anchorsOfReceipt,
  getAnchorState,
  listAnchorBatches,
  listAnchorStates,
  recordAnchorCheck,
  uncheckedAnchors,
} from './anchor-checks';
import { insertAnchor, resolveAnchor } from './anchors';
import { explainQueryPlan } from './database';
import { LedgerError } from './errors';
import type { Ledger } from './open-ledger';
import { insertReceipts } from './receipts';
import { sql } from './sql';
import { makeReceipt, makeTemporaryLedger, sha256Hex } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): Ledger {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  return made.ledger;
}

const TX = `0x${'ab'.repeat(32)}`;
const ROOT = `sha256:${'cd'.repeat(32)}`;

function suffixOf(seed: string): string {
  return sha256Hex(seed).slice(0, 16);
}

function resolvedUrn(seed: string, height = 7): string {
  return `urn:svc:anchor:anvil-local:${height}:${TX}:${suffixOf(seed)}`;
}

function insertResolved(ledger: Ledger, seed: string, batch: string, receipt: string | null = sha256Hex(seed)): number {
  const urn = resolvedUrn(seed);
  return insertAnchor(ledger.writable, {
    svc_anchor: urn,
    batch_id: batch,
    receipt_sha256: receipt,
    record: {
      svc_anchor: urn,
      batch_id: batch,
      network: 'anvil-local',
      block_height: 7,
      tx_hash: TX,
      merkle_root: ROOT,
      merkle_path: [],
    },
    status: 'resolved',
  }).id;
}

function insertPending(ledger: Ledger, seed: string, batch: string): number {
  const urn = `urn:svc:anchor:pending:${batch}:${suffixOf(seed)}`;
  return insertAnchor(ledger.writable, {
    svc_anchor: urn,
    batch_id: batch,
    receipt_sha256: sha256Hex(seed),
    record: { svc_anchor: urn, batch_id: batch },
    status: 'pending',
  }).id;
}

const PASS_OFFLINE: AnchorStepView[] = [
  { step: 1, status: 'pass', detail: 'folds' },
  { step: 2, status: 'unchecked', detail: 'offline' },
  { step: 3, status: 'unchecked', detail: 'offline' },
];

describe('anchor checks', () => {
  it('derives the state from the record until a check is recorded, and keeps the check with its steps', () => {
    const ledger = temporary();
    const resolved = insertResolved(ledger, 'r1', '2026-11-23T09:00Z');
    const pending = insertPending(ledger, 'r2', '2026-11-23T09:01Z');
    expect(getAnchorState(ledger.readable, resolved)).toMatchObject({
      state: 'unchecked',
      status: 'resolved',
      last_check: null,
      receipt_ledger_id: null,
    });
    expect(getAnchorState(ledger.readable, pending)).toMatchObject({ state: 'pending', status: 'pending' });
    expect(
      recordAnchorCheck(ledger.writable, resolved, {
        svc_anchor: resolvedUrn('r1'),
        state: 'verified_offline',
        steps: PASS_OFFLINE,
        rpc: null,
        at: 5,
      }),
    ).toBe(true);
    expect(getAnchorState(ledger.readable, resolved)).toMatchObject({
      state: 'verified_offline',
      last_check: { state: 'verified_offline', steps: PASS_OFFLINE, checked_at: 5, rpc: null },
    });
    expect(getAnchorState(ledger.readable, 999)).toBeUndefined();
  });

  it('records nothing for a URN the row no longer holds, and a resolution clears the last check', () => {
    const ledger = temporary();
    const id = insertPending(ledger, 'r3', '2026-11-23T09:02Z');
    const pendingUrn = `urn:svc:anchor:pending:2026-11-23T09:02Z:${suffixOf('r3')}`;
    const steps: AnchorStepView[] = [
      { step: 1, status: 'unchecked', detail: 'pending' },
      { step: 2, status: 'unchecked', detail: 'pending' },
      { step: 3, status: 'unchecked', detail: 'pending' },
    ];
    expect(
      recordAnchorCheck(ledger.writable, id, { svc_anchor: pendingUrn, state: 'pending', steps, rpc: null, at: 1 }),
    ).toBe(true);
    resolveAnchor(ledger.writable, pendingUrn, {
      svc_anchor: resolvedUrn('r3'),
      record: { svc_anchor: resolvedUrn('r3') },
    });
    // The trigger of migration 5 cleared the verdict about the pending record.
    expect(getAnchorState(ledger.readable, id)).toMatchObject({ state: 'unchecked', last_check: null });
    // A check of the old URN finishing late records nothing.
    expect(
      recordAnchorCheck(ledger.writable, id, {
        svc_anchor: pendingUrn,
        state: 'verified',
        steps,
        rpc: 'http://127.0.0.1:8545',
        at: 2,
      }),
    ).toBe(false);
    expect(getAnchorState(ledger.readable, id)?.state).toBe('unchecked');
  });

  it('refuses a bad check and changes nothing', () => {
    const ledger = temporary();
    const id = insertResolved(ledger, 'r4', '2026-11-23T09:00Z');
    const urn = resolvedUrn('r4');
    expect(() =>
      recordAnchorCheck(ledger.writable, id, {
        svc_anchor: urn,
        state: 'unchecked' as never,
        steps: PASS_OFFLINE,
        rpc: null,
      }),
    ).toThrow(RangeError);
    expect(() =>
      recordAnchorCheck(ledger.writable, id, {
        svc_anchor: urn,
        state: 'verified',
        steps: PASS_OFFLINE.slice(0, 2),
        rpc: null,
      }),
    ).toThrow(/three steps/);
    expect(() =>
      recordAnchorCheck(ledger.writable, id, {
        svc_anchor: urn,
        state: 'verified',
        steps: [PASS_OFFLINE[1], PASS_OFFLINE[0], PASS_OFFLINE[2]] as AnchorStepView[],
        rpc: null,
      }),
    ).toThrow(/step must be 1/);
    expect(() =>
      recordAnchorCheck(ledger.writable, id, { svc_anchor: urn, state: 'verified', steps: PASS_OFFLINE, rpc: '' }),
    ).toThrow(TypeError);
    expect(getAnchorState(ledger.readable, id)?.last_check).toBeNull();
  });

  it('pages anchors by state and batch, and counts batches per state, newest batch first', () => {
    const ledger = temporary();
    const ids: number[] = [];
    for (let index = 0; index < 6; index += 1)
      ids.push(insertResolved(ledger, `s${index}`, index < 4 ? '2026-11-23T09:00Z' : '2026-11-23T09:05Z'));
    ids.push(insertPending(ledger, 's6', '2026-11-23T09:10Z'));
    recordAnchorCheck(ledger.writable, ids[0] as number, {
      svc_anchor: resolvedUrn('s0'),
      state: 'verified_offline',
      steps: PASS_OFFLINE,
      rpc: null,
    });
    recordAnchorCheck(ledger.writable, ids[1] as number, {
      svc_anchor: resolvedUrn('s1'),
      state: 'failed',
      steps: [{ step: 1, status: 'fail', detail: 'x' }, PASS_OFFLINE[1], PASS_OFFLINE[2]] as AnchorStepView[],
      rpc: null,
    });
    recordAnchorCheck(ledger.writable, ids[4] as number, {
      svc_anchor: resolvedUrn('s4'),
      state: 'verified',
      steps: PASS_OFFLINE,
      rpc: 'http://127.0.0.1:8545',
    });

    expect(listAnchorStates(ledger.readable, { state: 'unchecked' }).rows.map((row) => row.id)).toEqual([
      ids[2],
      ids[3],
      ids[5],
    ]);
    expect(
      listAnchorStates(ledger.readable, { state: 'failed', batch_id: '2026-11-23T09:00Z' }).rows.map((row) => row.id),
    ).toEqual([ids[1]]);
    const first = listAnchorStates(ledger.readable, { limit: 4 });
    expect(first.rows).toHaveLength(4);
    const second = listAnchorStates(ledger.readable, { limit: 4, after: first.nextCursor as string });
    expect(second.nextCursor).toBeNull();
    expect([...first.rows, ...second.rows].map((row) => row.id)).toEqual(ids);
    // A cursor belongs to its filters.
    expect(() => listAnchorStates(ledger.readable, { state: 'failed', after: first.nextCursor as string })).toThrow(
      LedgerError,
    );
    expect(() => listAnchorStates(ledger.readable, { batch_id: '2026-02-30T00:00Z' })).toThrow(RangeError);

    const batches = listAnchorBatches(ledger.readable, { limit: 2 });
    expect(batches.rows.map((row) => row.batch_id)).toEqual(['2026-11-23T09:10Z', '2026-11-23T09:05Z']);
    expect(batches.rows[0]).toMatchObject({ total: 1, by_state: { pending: 1, verified: 0 }, resolved_record: null });
    expect(batches.rows[1]).toMatchObject({
      total: 2,
      by_state: { verified: 1, unchecked: 1 },
      resolved_record: { tx_hash: TX },
    });
    const rest = listAnchorBatches(ledger.readable, { limit: 2, after: batches.nextCursor as string });
    expect(rest.rows.map((row) => row.batch_id)).toEqual(['2026-11-23T09:00Z']);
    expect(rest.rows[0]?.by_state).toEqual({
      verified: 0,
      verified_with_context: 0,
      verified_offline: 1,
      pending: 0,
      unchecked: 2,
      failed: 1,
    });
    expect(rest.nextCursor).toBeNull();
    expect(anchorStateTotals(ledger.readable)).toEqual({
      verified: 1,
      verified_with_context: 0,
      verified_offline: 1,
      pending: 1,
      unchecked: 3,
      failed: 1,
    });
  });

  it("finds a receipt's anchors and the unchecked anchors whose receipt is in the ledger, with its bytes", () => {
    const ledger = temporary();
    ledger.runInTransaction((database) => insertReceipts(database, [makeReceipt('k1'), makeReceipt('k2')]));
    const one = insertResolved(ledger, 'k1', '2026-11-23T09:00Z');
    insertResolved(ledger, 'k9', '2026-11-23T09:00Z'); // its receipt is not in the ledger
    const orphan = insertResolved(ledger, 'k8', '2026-11-23T09:00Z', null);
    const two = insertResolved(ledger, 'k2', '2026-11-23T09:00Z');
    const rows = anchorsOfReceipt(ledger.readable, sha256Hex('k1'));
    expect(rows.map((row) => row.id)).toEqual([one]);
    expect(rows[0]?.receipt_ledger_id).toBe(1);
    expect(getAnchorState(ledger.readable, orphan)?.receipt_ledger_id).toBeNull();
    const unchecked = uncheckedAnchors(ledger.readable);
    expect(unchecked.map((row) => row.id)).toEqual([one, two]);
    expect(new TextDecoder().decode(unchecked[0]?.raw)).toBe(JSON.stringify({ seed: 'k1' }));
    expect(uncheckedAnchors(ledger.readable, { afterId: one }).map((row) => row.id)).toEqual([two]);
    recordAnchorCheck(ledger.writable, two, {
      svc_anchor: resolvedUrn('k2'),
      state: 'verified_offline',
      steps: PASS_OFFLINE,
      rpc: null,
    });
    expect(uncheckedAnchors(ledger.readable).map((row) => row.id)).toEqual([one]);
  });

  it('serves the state filters and the sweep from indexes, not by scanning the table', () => {
    const ledger = temporary();
    const plan = (query: readonly [string, readonly unknown[]]): string =>
      explainQueryPlan(ledger.readable, query as never).join('\n');
    expect(
      plan(sql`SELECT id FROM anchors a WHERE a.state = ${'failed'} AND a.id > ${0} ORDER BY a.id LIMIT 101`),
    ).toMatch(/idx_anchors_state/);
    expect(
      plan(sql`SELECT state, count(*) FROM anchors WHERE batch_id = ${'2026-11-23T09:00Z'} GROUP BY state`),
    ).toMatch(/idx_anchors_batch_state/);
    // uncheckedAnchors names idx_anchors_unchecked (INDEXED BY): SQLite refuses the query if the index cannot serve it.
    expect(uncheckedAnchors(ledger.readable)).toEqual([]);
  });
});
