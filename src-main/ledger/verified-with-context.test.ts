import { afterEach, describe, expect, it } from 'vitest';
import type { ContextEvidence } from '../../src-shared/anchor/context';
import type { AnchorStepView } from '../../src-shared/api/anchor-contract';
import { getAnchorState, recordAnchorCheck } from './anchor-checks';
import { insertAnchor } from './anchors';
import { MIGRATIONS } from './migrations/index';
import { openLedger, type Ledger } from './open-ledger';
import { anchorStateCounts, getReceipt, insertReceipts } from './receipts';
import { makeReceipt, makeTemporaryLedger, sha256Hex } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

const TX = `0x${'ab'.repeat(32)}`;
const BATCH = '2026-11-23T09:00Z';

const CONTEXT: ContextEvidence = {
  pack_id: `ctx_${'0f'.repeat(16)}`,
  made_at: '2026-11-26T01:00:00Z',
  rpc: 'http://127.0.0.1:8545',
  chain_id: 31337,
  head: { number: 42, hash: `0x${'12'.repeat(32)}` },
  head_trust: 'checked',
  pinned: { number: 40, hash: `0x${'34'.repeat(32)}` },
  signer: 'did:key:z6MkexampleSignerKey',
};

const FROM_PACK: AnchorStepView[] = [
  { step: 1, status: 'pass', detail: 'folds' },
  { step: 2, status: 'pass', detail: 'proved in block 7', evidence: 'context', context: CONTEXT },
  { step: 3, status: 'pass', detail: '36 confirmations', evidence: 'context', context: CONTEXT },
];

function insertResolved(ledger: Ledger, seed: string): { id: number; urn: string } {
  const urn = `urn:svc:anchor:anvil-local:7:${TX}:${sha256Hex(seed).slice(0, 16)}`;
  const { id } = insertAnchor(ledger.writable, {
    svc_anchor: urn,
    batch_id: BATCH,
    receipt_sha256: sha256Hex(seed),
    record: { svc_anchor: urn, batch_id: BATCH },
    status: 'resolved',
  });
  return { id, urn };
}

describe('verified_with_context in the ledger (migration 10)', () => {
  it('records a check answered from a context pack with each step’s evidence, as its own receipt state', () => {
    const made = makeTemporaryLedger();
    cleanups.push(made.dispose);
    const { ledger } = made;
    insertReceipts(ledger.writable, [makeReceipt('ctx-a')]);
    const { id, urn } = insertResolved(ledger, 'ctx-a');
    expect(
      recordAnchorCheck(ledger.writable, id, {
        svc_anchor: urn,
        state: 'verified_with_context',
        steps: FROM_PACK,
        rpc: null,
        at: 9,
      }),
    ).toBe(true);
    const stored = getAnchorState(ledger.readable, id);
    expect(stored?.state).toBe('verified_with_context');
    expect(stored?.last_check?.steps).toEqual(FROM_PACK);
    expect(getReceipt(ledger.readable, sha256Hex('ctx-a'))?.anchor_state).toBe('verified_with_context');
    expect(anchorStateCounts(ledger.readable)).toMatchObject({ verified: 0, verified_with_context: 1, pending: 0 });
    // A live-chain check later makes it verified, and the counts move.
    const LIVE: AnchorStepView[] = [
      FROM_PACK[0] as AnchorStepView,
      { step: 2, status: 'pass', detail: 'found', evidence: 'chain' },
      { step: 3, status: 'pass', detail: 'deep', evidence: 'chain' },
    ];
    recordAnchorCheck(ledger.writable, id, { svc_anchor: urn, state: 'verified', steps: LIVE, rpc: CONTEXT.rpc });
    expect(getAnchorState(ledger.readable, id)?.last_check?.steps).toEqual(LIVE);
    expect(getReceipt(ledger.readable, sha256Hex('ctx-a'))?.anchor_state).toBe('verified');
    expect(anchorStateCounts(ledger.readable)).toMatchObject({ verified: 1, verified_with_context: 0 });
  });

  it('refuses malformed evidence and changes nothing', () => {
    const made = makeTemporaryLedger();
    cleanups.push(made.dispose);
    const { ledger } = made;
    const { id, urn } = insertResolved(ledger, 'ctx-b');
    const attempt = (steps: unknown) => () =>
      recordAnchorCheck(ledger.writable, id, {
        svc_anchor: urn,
        state: 'verified_with_context',
        steps: steps as AnchorStepView[],
        rpc: null,
      });
    const withStep2 = (step: Record<string, unknown>) => [FROM_PACK[0], { ...FROM_PACK[1], ...step }, FROM_PACK[2]];
    expect(attempt(withStep2({ evidence: 'rumour' }))).toThrow(/evidence must be one of chain, context/);
    expect(attempt(withStep2({ evidence: 'chain' }))).toThrow(/only for a step answered from a context pack/);
    expect(attempt(withStep2({ context: { ...CONTEXT, head: { number: 1, hash: '0x12' } } }))).toThrow(
      /context\.head\.hash/,
    );
    expect(attempt(withStep2({ context: { ...CONTEXT, head_trust: 'trusted' } }))).toThrow(/head_trust/);
    expect(getAnchorState(ledger.readable, id)?.last_check).toBeNull();
  });

  it('upgrades a ledger written before it, keeping its states and counts', () => {
    const made = makeTemporaryLedger({ migrations: MIGRATIONS.slice(0, 9) });
    cleanups.push(made.dispose);
    insertReceipts(made.ledger.writable, [makeReceipt('old-a')]);
    const { id, urn } = insertResolved(made.ledger, 'old-a');
    expect(() =>
      made.ledger.writable.prepare(`UPDATE anchors SET check_state = 'verified_with_context' WHERE id = ?`).run(id),
    ).toThrow(/CHECK constraint/);
    made.ledger.close();
    const ledger = openLedger(made.file);
    cleanups.unshift(() => ledger.close());
    expect(ledger.schemaVersion).toBe(MIGRATIONS.length);
    expect(getReceipt(ledger.readable, sha256Hex('old-a'))?.anchor_state).toBe('pending');
    expect(anchorStateCounts(ledger.readable)).toMatchObject({ pending: 1, verified_with_context: 0 });
    recordAnchorCheck(ledger.writable, id, {
      svc_anchor: urn,
      state: 'verified_with_context',
      steps: FROM_PACK,
      rpc: null,
    });
    expect(getReceipt(ledger.readable, sha256Hex('old-a'))?.anchor_state).toBe('verified_with_context');
    expect(anchorStateCounts(ledger.readable)).toMatchObject({ pending: 0, verified_with_context: 1 });
    expect(() => ledger.writable.prepare(`UPDATE receipts SET anchor_state = 'verified_somehow'`).run()).toThrow(
      /CHECK constraint/,
    );
  });
});
