import { afterEach, describe, expect, it } from 'vitest';
import { getAnchor, insertAnchor, listAnchors, resolveAnchor } from './anchors';
import { LedgerError } from './errors';
import type { Ledger } from './open-ledger';
import { makeTemporaryLedger, sha256Hex } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): Ledger {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  return made.ledger;
}

const pending = 'urn:svc:anchor:pending:2026-11-22T04:00Z:0123456789abcdef';
const TX = `0x${'ab'.repeat(32)}`;
const resolvedUrn = `urn:svc:anchor:base:123:${TX}:0123456789abcdef`;

describe('anchors', () => {
  it('stores a pending anchor once and resolves it, findable by either URN', () => {
    const ledger = temporary();
    const anchor = {
      svc_anchor: pending,
      batch_id: '2026-11-22T04:00Z',
      receipt_sha256: sha256Hex('r'),
      record: { svc_anchor: pending, batch_id: '2026-11-22T04:00Z', eta_seconds: 60 },
      status: 'pending' as const,
    };
    expect(insertAnchor(ledger.writable, anchor, { at: 1 })).toEqual({ id: 1, created: true });
    expect(insertAnchor(ledger.writable, anchor, { at: 2 })).toEqual({ id: 1, created: false });
    const resolved = resolveAnchor(
      ledger.writable,
      pending,
      { svc_anchor: resolvedUrn, record: { svc_anchor: resolvedUrn, merkle_root: 'ab' } },
      { at: 3 },
    );
    expect(resolved).toMatchObject({
      id: 1,
      svc_anchor: resolvedUrn,
      pending_svc_anchor: pending,
      status: 'resolved',
      created_at: 1,
      updated_at: 3,
      record: { merkle_root: 'ab' },
    });
    expect(getAnchor(ledger.readable, pending)?.id).toBe(1);
    expect(getAnchor(ledger.readable, resolvedUrn)?.id).toBe(1);
    // Inserting the pending record again after resolution finds the same row.
    expect(insertAnchor(ledger.writable, anchor)).toEqual({ id: 1, created: false });
  });

  it('lists by status, batch and receipt, with paging', () => {
    const ledger = temporary();
    for (let index = 0; index < 5; index += 1) {
      insertAnchor(ledger.writable, {
        svc_anchor: `urn:svc:anchor:pending:2026-11-22T04:0${index % 2}Z:${String(index).padStart(16, '0')}`,
        batch_id: `2026-11-22T04:0${index % 2}Z`,
        receipt_sha256: sha256Hex(`r${index}`),
        record: {},
        status: 'pending',
      });
    }
    expect(listAnchors(ledger.readable, { batch_id: '2026-11-22T04:00Z' }).rows.map((row) => row.id)).toEqual([
      1, 3, 5,
    ]);
    expect(listAnchors(ledger.readable, { receipt_sha256: sha256Hex('r3') }).rows.map((row) => row.id)).toEqual([4]);
    const first = listAnchors(ledger.readable, { status: 'pending', limit: 2 });
    const second = listAnchors(ledger.readable, { status: 'pending', limit: 2, after: first.nextCursor ?? '' });
    expect([...first.rows, ...second.rows].map((row) => row.id)).toEqual([1, 2, 3, 4]);
    expect(listAnchors(ledger.readable, { status: 'resolved' }).rows).toEqual([]);
  });

  it('refuses bad input', () => {
    const ledger = temporary();
    const base = { svc_anchor: pending, batch_id: '2026-11-22T04:00Z', record: {}, status: 'pending' as const };
    const resolvedBase = { ...base, svc_anchor: resolvedUrn, status: 'resolved' as const };
    expect(() => insertAnchor(ledger.writable, { ...base, svc_anchor: 'urn:other:1' })).toThrow(RangeError);
    expect(() => insertAnchor(ledger.writable, { ...base, status: 'done' as 'pending' })).toThrow(RangeError);
    expect(() => insertAnchor(ledger.writable, { ...base, receipt_sha256: 'nothex' })).toThrow(RangeError);
    expect(() => insertAnchor(ledger.writable, { ...base, record: undefined })).toThrow(TypeError);
    // The URN rules of src-shared/anchor/urn.ts: the form, the status it implies, its batch.
    expect(() => insertAnchor(ledger.writable, { ...base, svc_anchor: 'urn:svc:anchor:pending:B0:1' })).toThrow(
      RangeError,
    );
    expect(() =>
      insertAnchor(ledger.writable, {
        ...base,
        svc_anchor: 'urn:svc:anchor:base:123:0xabc:0123456789abcdef',
        status: 'resolved',
      }),
    ).toThrow(RangeError);
    expect(() => insertAnchor(ledger.writable, { ...base, status: 'resolved' })).toThrow(/pending URN/);
    expect(() => insertAnchor(ledger.writable, { ...resolvedBase, status: 'pending' })).toThrow(/resolved URN/);
    expect(() => insertAnchor(ledger.writable, { ...base, batch_id: '2026-11-22T04:01Z' })).toThrow(
      /names batch 2026-11-22T04:00Z/,
    );
    expect(() => insertAnchor(ledger.writable, { ...base, batch_id: 'b' })).toThrow(RangeError);
    expect(() => listAnchors(ledger.readable, { batch_id: 'b' })).toThrow(RangeError);
    expect(() => getAnchor(ledger.readable, 'urn:svc:anchor:x')).toThrow(RangeError);
    expect(listAnchors(ledger.readable).rows).toEqual([]);
    expect(() => resolveAnchor(ledger.writable, pending, { svc_anchor: resolvedUrn, record: {} })).toThrow(LedgerError);
    // A resolved row is stored as it is (e.g. from a bundle), with the batch it names nowhere.
    expect(insertAnchor(ledger.writable, resolvedBase).created).toBe(true);
  });

  it('resolves a pending URN only to a resolved URN of the same digest', () => {
    const ledger = temporary();
    insertAnchor(ledger.writable, {
      svc_anchor: pending,
      batch_id: '2026-11-22T04:00Z',
      record: {},
      status: 'pending',
    });
    const otherDigest = `urn:svc:anchor:base:123:${TX}:fedcba9876543210`;
    expect(() => resolveAnchor(ledger.writable, pending, { svc_anchor: otherDigest, record: {} })).toThrow(
      /another digest/,
    );
    expect(() => resolveAnchor(ledger.writable, pending, { svc_anchor: pending, record: {} })).toThrow(
      /resolved anchor URN/,
    );
    expect(() => resolveAnchor(ledger.writable, resolvedUrn, { svc_anchor: resolvedUrn, record: {} })).toThrow(
      /pending anchor URN/,
    );
    expect(getAnchor(ledger.readable, pending)).toMatchObject({ status: 'pending', svc_anchor: pending });
    expect(resolveAnchor(ledger.writable, pending, { svc_anchor: resolvedUrn, record: {} })).toMatchObject({
      status: 'resolved',
    });
  });
});
