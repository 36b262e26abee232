import { afterEach, describe, expect, it } from 'vitest';
import { LedgerError } from './errors';
import {
  deleteTrustedKey,
  getTrustedKey,
  insertAdvertisedKey,
  insertTrustedKey,
  listAdvertisedKeys,
  listTrustedKeys,
  updateTrustedKey,
} from './keys';
import type { Ledger } from './open-ledger';
import { makeTemporaryLedger } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): Ledger {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  return made.ledger;
}

const ed = { algorithm: 'Ed25519' as const, public_key: new Uint8Array(32).fill(7) };

describe('keys repository', () => {
  it('keeps one trust-store row per key_id', () => {
    const ledger = temporary();
    insertTrustedKey(ledger.writable, { ...ed, key_id: 'did:svc:k', status: 'pinned', source: 'user', label: 'K' }, { at: 1 });
    try {
      insertTrustedKey(ledger.writable, { ...ed, key_id: 'did:svc:k', status: 'revoked', source: 'user', revoked_at: 1 });
      expect.unreachable();
    } catch (error) {
      expect((error as LedgerError).code).toBe('constraint');
    }
    const stored = getTrustedKey(ledger.readable, 'did:svc:k');
    expect(stored).toMatchObject({ key_id: 'did:svc:k', status: 'pinned', label: 'K', added_at: 1, source: 'user' });
    expect(Buffer.from(stored?.public_key ?? []).equals(Buffer.from(ed.public_key))).toBe(true);
  });

  it('updates mutable fields and deletes', () => {
    const ledger = temporary();
    insertTrustedKey(ledger.writable, { ...ed, key_id: 'did:svc:k', status: 'pinned', source: 'user' });
    updateTrustedKey(ledger.writable, 'did:svc:k', {
      label: 'L',
      not_before: '2026-01-01T00:00:00Z',
      not_after: null,
      status: 'revoked',
      revoked_at: 9,
      revocation_reason: 'leaked',
    });
    expect(listTrustedKeys(ledger.readable)).toMatchObject([
      { key_id: 'did:svc:k', label: 'L', status: 'revoked', revoked_at: 9, revocation_reason: 'leaked' },
    ]);
    expect(deleteTrustedKey(ledger.writable, 'did:svc:k')).toBe(true);
    expect(deleteTrustedKey(ledger.writable, 'did:svc:k')).toBe(false);
    expect(() =>
      updateTrustedKey(ledger.writable, 'did:svc:k', {
        label: null,
        not_before: null,
        not_after: null,
        status: 'pinned',
        revoked_at: null,
        revocation_reason: null,
      }),
    ).toThrow(LedgerError);
  });

  it('keeps advertised keys apart, per source, even when they contradict the trust store', () => {
    const ledger = temporary();
    insertTrustedKey(ledger.writable, { ...ed, key_id: 'did:svc:k', status: 'pinned', source: 'user' });
    const other = new Uint8Array(32).fill(9);
    const advertised = { algorithm: 'Ed25519' as const, key_id: 'did:svc:k', status: 'advertised' as const };
    expect(insertAdvertisedKey(ledger.writable, { ...advertised, public_key: other, source: 'bundle:1' })).toBe(true);
    expect(insertAdvertisedKey(ledger.writable, { ...advertised, public_key: other, source: 'bundle:1' })).toBe(false);
    expect(insertAdvertisedKey(ledger.writable, { ...advertised, public_key: other, source: 'bundle:2' })).toBe(true);
    expect(listAdvertisedKeys(ledger.readable)).toHaveLength(2);
    expect(listAdvertisedKeys(ledger.readable, { key_id: 'did:svc:k' })).toHaveLength(2);
    expect(listTrustedKeys(ledger.readable)).toHaveLength(1);
    expect(Buffer.from(getTrustedKey(ledger.readable, 'did:svc:k')?.public_key ?? []).equals(Buffer.from(ed.public_key))).toBe(
      true,
    );
  });

  it('checks key length per algorithm, in code and in the schema', () => {
    const ledger = temporary();
    expect(() =>
      insertTrustedKey(ledger.writable, { ...ed, public_key: new Uint8Array(31), key_id: 'k', status: 'pinned', source: 'u' }),
    ).toThrow(RangeError);
    expect(() =>
      insertTrustedKey(ledger.writable, {
        algorithm: 'ML-DSA-65',
        public_key: new Uint8Array(32),
        key_id: 'k',
        status: 'pinned',
        source: 'u',
      }),
    ).toThrow(RangeError);
    expect(() =>
      ledger.writable
        .prepare(
          "INSERT INTO keys (key_id, algorithm, public_key, status, source, added_at) VALUES ('k', 'ML-DSA-65', zeroblob(32), 'pinned', 'u', 1)",
        )
        .run(),
    ).toThrow(/CHECK/);
    expect(listTrustedKeys(ledger.readable)).toEqual([]);
  });
});
