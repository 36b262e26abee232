import { afterEach, describe, expect, it } from 'vitest';
import { appendAudit } from './audit-log';
import { insertBundle } from './bundles';
import { insertAdvertisedKey, insertTrustedKey } from './keys';
import type { Ledger } from './open-ledger';
import { insertReceipts } from './receipts';
import { ledgerStats, unpinnedIssuers } from './stats';
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

describe('ledgerStats', () => {
  it('is all zeros on a new ledger', () => {
    expect(ledgerStats(temporary().readable)).toEqual({
      receipts: 0,
      byFormat: {},
      byStatus: {},
      byTrust: {},
      bundles: 0,
      keys: { pinned: 0, revoked: 0, advertised: 0 },
      anchors: 0,
      auditEntries: 0,
    });
  });

  it('counts distinct receipts and everything else', () => {
    const ledger = temporary();
    insertReceipts(ledger.writable, [
      {
        ...makeReceipt('a', { format: 'classical', status: 'PASS', trust: 'trusted' }),
        source: { kind: 'file', ref: '1' },
      },
      {
        ...makeReceipt('a', { format: 'classical', status: 'PASS', trust: 'trusted' }),
        source: { kind: 'file', ref: '2' },
      },
      makeReceipt('b', { format: 'classical', status: 'INVALID', trust: 'unpinned' }),
      makeReceipt('c', { format: 'profile/nano', status: 'PASS', trust: 'unpinned' }),
    ]);
    insertBundle(ledger.writable, { bundle_sha256: sha256Hex('z'), manifest_json: '{}', signature: null });
    const key = { algorithm: 'Ed25519' as const, public_key: new Uint8Array(32).fill(1), source: 'user' };
    insertTrustedKey(ledger.writable, { ...key, key_id: 'did:svc:a', status: 'pinned' });
    insertTrustedKey(ledger.writable, { ...key, key_id: 'did:svc:b', status: 'revoked', revoked_at: 5 });
    insertAdvertisedKey(ledger.writable, { ...key, key_id: 'did:svc:a', status: 'advertised', source: 'bundle:1' });
    appendAudit(ledger.writable, 'import', 'x');
    expect(ledgerStats(ledger.readable)).toEqual({
      receipts: 3,
      byFormat: { classical: 2, 'profile/nano': 1 },
      byStatus: { PASS: 2, INVALID: 1 },
      byTrust: { trusted: 1, unpinned: 2 },
      bundles: 1,
      keys: { pinned: 1, revoked: 1, advertised: 1 },
      anchors: 0,
      auditEntries: 1,
    });
  });
});

describe('unpinnedIssuers', () => {
  it('groups the unpinned receipts by signing key, the most first, and counts every such key', () => {
    const ledger = temporary();
    insertReceipts(ledger.writable, [
      makeReceipt('a1', { trust: 'unpinned', key_id: 'did:svc:a' }),
      makeReceipt('b1', { trust: 'unpinned', key_id: 'did:svc:b' }),
      makeReceipt('b2', { trust: 'unpinned', key_id: 'did:svc:b' }),
      makeReceipt('c1', { trust: 'unpinned', key_id: 'did:svc:c' }),
      makeReceipt('n1', { trust: 'unpinned' }),
      // Not unpinned: a trusted key, and a document whose named key did not sign it.
      makeReceipt('t1', { trust: 'trusted', key_id: 'did:svc:t' }),
      makeReceipt('u1', { status: 'MISMATCH', trust: 'unattributed', key_id: 'did:svc:u' }),
    ]);
    expect(unpinnedIssuers(ledger.readable, 10)).toEqual({
      issuers: [
        { issuer_key_id: 'did:svc:b', receipts: 2 },
        { issuer_key_id: null, receipts: 1 },
        { issuer_key_id: 'did:svc:a', receipts: 1 },
        { issuer_key_id: 'did:svc:c', receipts: 1 },
      ],
      total: 4,
    });
    expect(unpinnedIssuers(ledger.readable, 2)).toEqual({
      issuers: [
        { issuer_key_id: 'did:svc:b', receipts: 2 },
        { issuer_key_id: null, receipts: 1 },
      ],
      total: 4,
    });
  });

  it('is empty on a new ledger and refuses a bad limit', () => {
    expect(unpinnedIssuers(temporary().readable, 10)).toEqual({ issuers: [], total: 0 });
    expect(() => unpinnedIssuers(temporary().readable, 0)).toThrow(RangeError);
  });
});
