import { afterEach, describe, expect, it } from 'vitest';
import {
  ANCHOR_LEDGER_STATES,
  ANCHOR_STATES,
  anchorLedgerState,
  type AnchorLedgerState,
  type AnchorState,
} from '../../src-shared/api/anchor-contract';
import { recordAnchorCheck } from './anchor-checks';
import { insertAnchor, resolveAnchor } from './anchors';
import { MIGRATIONS } from './migrations/index';
import { receiptAnchorStateSql } from './migrations/0008-receipt-anchor-state';
import { receiptAnchorStateWithContextSql } from './migrations/0010-verified-with-context';
import { openLedger, type Ledger } from './open-ledger';
import { anchorStateCounts, countReceipts, getReceipt, insertReceipts, listReceipts } from './receipts';
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
const BATCH = '2026-11-23T09:00Z';
const STEPS = [
  { step: 1 as const, status: 'pass' as const, detail: 'ok' },
  { step: 2 as const, status: 'pass' as const, detail: 'ok' },
  { step: 3 as const, status: 'pass' as const, detail: 'ok' },
];

/** Writes an anchor row in a given state straight into the table (as any code path could leave it). */
let rowSeed = 0;
function writeRecord(ledger: Ledger, receipt: string, state: AnchorState): void {
  rowSeed += 1;
  const status = state === 'pending' ? 'pending' : 'resolved';
  const check = state === 'unchecked' || state === 'pending' ? null : state;
  ledger.writable
    .prepare(
      `INSERT INTO anchors (svc_anchor, batch_id, receipt_sha256, record_json, status, created_at, updated_at, check_state)
       VALUES (?, ?, ?, '{}', ?, 0, 0, ?)`,
    )
    .run(`urn:test:${rowSeed}`, BATCH, receipt, status, check);
}

/** What the counts table says, and what counting the rows says. */
function countsBothWays(ledger: Ledger): [Record<AnchorLedgerState, number>, Record<string, number>] {
  const counted = Object.fromEntries(ANCHOR_LEDGER_STATES.map((state) => [state, 0]));
  for (const row of ledger.readable
    .prepare('SELECT anchor_state AS state, count(*) AS n FROM receipts GROUP BY anchor_state')
    .all() as { state: string; n: number }[])
    counted[row.state] = row.n;
  return [anchorStateCounts(ledger.readable), counted];
}

describe('anchorLedgerState (the definition)', () => {
  it('says none, verified, failed or pending from the records’ states', () => {
    expect(anchorLedgerState([])).toBe('none');
    expect(anchorLedgerState(['verified'])).toBe('verified');
    expect(anchorLedgerState(['failed', 'verified'])).toBe('verified');
    expect(anchorLedgerState(['failed'])).toBe('failed');
    expect(anchorLedgerState(['failed', 'failed'])).toBe('failed');
    expect(anchorLedgerState(['verified_with_context'])).toBe('verified_with_context');
    expect(anchorLedgerState(['failed', 'verified_with_context', 'pending'])).toBe('verified_with_context');
    expect(anchorLedgerState(['verified_with_context', 'verified'])).toBe('verified');
    for (const state of ['pending', 'unchecked', 'verified_offline'] as const) {
      expect(anchorLedgerState([state])).toBe('pending');
      expect(anchorLedgerState(['failed', state])).toBe('pending');
    }
  });
});

describe('receipts.anchor_state (migration 8)', () => {
  it('agrees with anchorLedgerState for every receipt with up to two records in any states', () => {
    const ledger = temporary();
    const cases: AnchorState[][] = [[]];
    for (const a of ANCHOR_STATES) {
      cases.push([a]);
      for (const b of ANCHOR_STATES) cases.push([a, b]);
    }
    // Half the records are stored before their receipt (a bundle's anchors, then its receipts),
    // half after.
    cases.forEach((states, index) => {
      if (index % 2 === 0) for (const state of states) writeRecord(ledger, sha256Hex(`case-${index}`), state);
    });
    insertReceipts(
      ledger.writable,
      cases.map((_, index) => makeReceipt(`case-${index}`)),
    );
    cases.forEach((states, index) => {
      if (index % 2 === 1) for (const state of states) writeRecord(ledger, sha256Hex(`case-${index}`), state);
    });
    cases.forEach((states, index) => {
      expect([states, getReceipt(ledger.readable, sha256Hex(`case-${index}`))?.anchor_state]).toEqual([
        states,
        anchorLedgerState(states),
      ]);
    });
    const [kept, counted] = countsBothWays(ledger);
    expect(kept).toEqual(counted);
    expect(kept.none).toBe(1);
    for (const state of ANCHOR_LEDGER_STATES) {
      expect(countReceipts(ledger.readable, { anchor: state })).toBe(counted[state]);
      const rows = listReceipts(ledger.readable, { filters: { anchor: state }, limit: 1000 }).rows;
      expect(rows).toHaveLength(counted[state] ?? -1);
      expect(rows.every((row) => row.anchor_state === state)).toBe(true);
    }
  });

  it('follows a record through submit, resolution, checks, relinking and deletion; counts stay exact', () => {
    const ledger = temporary();
    insertReceipts(ledger.writable, [makeReceipt('a'), makeReceipt('b')]);
    const digest = sha256Hex('a');
    const state = (): string | undefined => getReceipt(ledger.readable, digest)?.anchor_state;
    expect(state()).toBe('none');
    const pendingUrn = `urn:svc:anchor:pending:${BATCH}:${digest.slice(0, 16)}`;
    const { id } = insertAnchor(ledger.writable, {
      svc_anchor: pendingUrn,
      batch_id: BATCH,
      receipt_sha256: digest,
      record: { svc_anchor: pendingUrn, batch_id: BATCH, eta_seconds: 1 },
      status: 'pending',
    });
    expect(state()).toBe('pending');
    const resolvedUrn = `urn:svc:anchor:anvil-local:3:${TX}:${digest.slice(0, 16)}`;
    resolveAnchor(ledger.writable, pendingUrn, { svc_anchor: resolvedUrn, record: { svc_anchor: resolvedUrn } });
    expect(state()).toBe('pending');
    recordAnchorCheck(ledger.writable, id, {
      svc_anchor: resolvedUrn,
      state: 'verified_offline',
      steps: STEPS,
      rpc: null,
    });
    expect(state()).toBe('pending');
    recordAnchorCheck(ledger.writable, id, {
      svc_anchor: resolvedUrn,
      state: 'verified',
      steps: STEPS,
      rpc: 'http://x',
    });
    expect(state()).toBe('verified');
    expect(anchorStateCounts(ledger.readable)).toEqual({
      none: 1,
      pending: 0,
      verified: 1,
      verified_with_context: 0,
      failed: 0,
    });
    recordAnchorCheck(ledger.writable, id, { svc_anchor: resolvedUrn, state: 'failed', steps: STEPS, rpc: 'http://x' });
    expect(state()).toBe('failed');
    // A replaced record clears its check (migration 5's trigger): pending again, not failed.
    ledger.writable.prepare(`UPDATE anchors SET record_json = '{"replaced":true}' WHERE id = ?`).run(id);
    expect(state()).toBe('pending');
    // The record moves to the other receipt: each receipt follows.
    ledger.writable.prepare('UPDATE anchors SET receipt_sha256 = ? WHERE id = ?').run(sha256Hex('b'), id);
    expect(state()).toBe('none');
    expect(getReceipt(ledger.readable, sha256Hex('b'))?.anchor_state).toBe('pending');
    ledger.writable.prepare('DELETE FROM anchors WHERE id = ?').run(id);
    expect(getReceipt(ledger.readable, sha256Hex('b'))?.anchor_state).toBe('none');
    const [kept, counted] = countsBothWays(ledger);
    expect(kept).toEqual(counted);
    ledger.writable.prepare('DELETE FROM receipts WHERE receipt_sha256 = ?').run(digest);
    expect(anchorStateCounts(ledger.readable)).toEqual({
      none: 1,
      pending: 0,
      verified: 0,
      verified_with_context: 0,
      failed: 0,
    });
  });

  it('fills in the states and counts of a ledger written before it', () => {
    const made = makeTemporaryLedger({ migrations: MIGRATIONS.slice(0, 7) });
    cleanups.push(made.dispose);
    insertLegacy(made.ledger, 'old-none', []);
    insertLegacy(made.ledger, 'old-verified', ['failed', 'verified']);
    insertLegacy(made.ledger, 'old-failed', ['failed']);
    insertLegacy(made.ledger, 'old-pending', ['unchecked']);
    made.ledger.close();
    const ledger = openLedger(made.file);
    cleanups.unshift(() => ledger.close());
    expect(ledger.schemaVersion).toBe(MIGRATIONS.length);
    for (const [seed, expected] of [
      ['old-none', 'none'],
      ['old-verified', 'verified'],
      ['old-failed', 'failed'],
      ['old-pending', 'pending'],
    ] as const)
      expect(getReceipt(ledger.readable, sha256Hex(seed))?.anchor_state).toBe(expected);
    expect(anchorStateCounts(ledger.readable)).toEqual({
      none: 1,
      pending: 1,
      verified: 1,
      verified_with_context: 0,
      failed: 1,
    });
  });
});

/** A receipt and its records written as a version-7 ledger holds them. */
function insertLegacy(ledger: Ledger, seed: string, states: AnchorState[]): void {
  ledger.writable
    .prepare(
      `INSERT INTO receipts (receipt_sha256, raw, format, imported_at, status, trust, report_json, search_text)
       VALUES (?, x'7b7d', 'classical', 0, 'PASS', 'unpinned', '{}', '')`,
    )
    .run(sha256Hex(seed));
  for (const state of states) writeRecord(ledger, sha256Hex(seed), state);
}

describe('the state expression’s query plan', () => {
  it('looks up the receipt’s own records (idx_anchors_receipt), never every record in a state', () => {
    const ledger = temporary();
    const plan = (
      ledger.readable
        .prepare(
          `EXPLAIN QUERY PLAN SELECT ${receiptAnchorStateSql('receipts.receipt_sha256')} FROM receipts WHERE receipt_sha256 = ?`,
        )
        .all('x') as { detail: string }[]
    )
      .map((row) => row.detail)
      .join('\n');
    expect(plan).toContain('idx_anchors_receipt');
    expect(plan).not.toContain('idx_anchors_state');
    const withContext = (
      ledger.readable
        .prepare(
          `EXPLAIN QUERY PLAN SELECT ${receiptAnchorStateWithContextSql('receipts.receipt_sha256')} FROM receipts WHERE receipt_sha256 = ?`,
        )
        .all('x') as { detail: string }[]
    )
      .map((row) => row.detail)
      .join('\n');
    expect(withContext).toContain('idx_anchors_receipt');
    expect(withContext).not.toContain('idx_anchors_state');
  });
});
