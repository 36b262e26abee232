import { afterEach, describe, expect, it } from 'vitest';
import { SIGNER_ROLES } from '../../src-shared/verify/context';
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
import { MIGRATIONS } from './migrations/index';
import { openLedger, type Ledger } from './open-ledger';
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
    insertTrustedKey(
      ledger.writable,
      { ...ed, key_id: 'did:svc:k', status: 'pinned', source: 'user', label: 'K' },
      { at: 1 },
    );
    try {
      insertTrustedKey(ledger.writable, {
        ...ed,
        key_id: 'did:svc:k',
        status: 'revoked',
        source: 'user',
        revoked_at: 1,
      });
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
      roles: null,
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
        roles: null,
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
    expect(
      Buffer.from(getTrustedKey(ledger.readable, 'did:svc:k')?.public_key ?? []).equals(Buffer.from(ed.public_key)),
    ).toBe(true);
  });

  it('checks key length per algorithm, in code and in the schema', () => {
    const ledger = temporary();
    expect(() =>
      insertTrustedKey(ledger.writable, {
        ...ed,
        public_key: new Uint8Array(31),
        key_id: 'k',
        status: 'pinned',
        source: 'u',
      }),
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

  it('keeps the roles a trust-store key signs for, in role order; null is every role', () => {
    const ledger = temporary();
    insertTrustedKey(ledger.writable, {
      ...ed,
      key_id: 'did:svc:r',
      status: 'pinned',
      source: 'user',
      roles: ['service', 'requester'],
    });
    insertTrustedKey(ledger.writable, { ...ed, key_id: 'did:svc:all', status: 'pinned', source: 'user' });
    expect(getTrustedKey(ledger.readable, 'did:svc:r')?.roles).toEqual(['requester', 'service']);
    expect(getTrustedKey(ledger.readable, 'did:svc:all')?.roles).toBeNull();
    // One set, one spelling in the column.
    expect(ledger.readable.prepare("SELECT roles FROM keys WHERE key_id = 'did:svc:r'").pluck().get()).toBe(
      '["requester","service"]',
    );
    updateTrustedKey(ledger.writable, 'did:svc:all', {
      label: null,
      not_before: null,
      not_after: null,
      status: 'revoked',
      revoked_at: 5,
      revocation_reason: null,
      roles: ['auditor'],
    });
    expect(listTrustedKeys(ledger.readable).map((row) => row.roles)).toEqual([['auditor'], ['requester', 'service']]);
    expect(() =>
      updateTrustedKey(ledger.writable, 'did:svc:all', {
        label: null,
        not_before: null,
        not_after: null,
        status: 'pinned',
        revoked_at: null,
        revocation_reason: null,
      } as never),
    ).toThrow(TypeError);
  });

  it('refuses roles that are not distinct role names, and roles on advertised keys, in code and in the schema', () => {
    const ledger = temporary();
    const base = { ...ed, key_id: 'did:svc:r', status: 'pinned' as const, source: 'user' };
    expect(() => insertTrustedKey(ledger.writable, { ...base, roles: [] })).toThrow(RangeError);
    expect(() => insertTrustedKey(ledger.writable, { ...base, roles: ['signer'] as never })).toThrow(
      /unknown role "signer"/,
    );
    expect(() => insertTrustedKey(ledger.writable, { ...base, roles: ['service', 'service'] })).toThrow(
      /appears twice/,
    );
    expect(() => insertTrustedKey(ledger.writable, { ...base, roles: 'service' as never })).toThrow(TypeError);
    expect(() => insertAdvertisedKey(ledger.writable, { ...base, status: 'advertised', roles: ['service'] })).toThrow(
      RangeError,
    );
    const raw =
      (roles: string, status = 'pinned') =>
      () =>
        ledger.writable
          .prepare(
            "INSERT INTO keys (key_id, algorithm, public_key, status, source, added_at, roles) VALUES ('did:svc:x', 'Ed25519', zeroblob(32), ?, 'u', 1, ?)",
          )
          .run(status, roles);
    expect(raw('[]')).toThrow(/CHECK/);
    expect(raw('service')).toThrow(/CHECK/);
    expect(raw('{"a":1}')).toThrow(/CHECK/);
    expect(raw('["service"]', 'advertised')).toThrow(/CHECK/);
    expect(listTrustedKeys(ledger.readable)).toEqual([]);
    // The schema's CHECK allows at most 4 names: one of each role there is.
    expect(SIGNER_ROLES.length).toBeLessThanOrEqual(4);
  });

  it('upgrades a ledger made before migration 6: its pins stay, trusted for every role, and can take roles', () => {
    const { file, dispose, ledger: fresh } = makeTemporaryLedger({ migrations: MIGRATIONS.slice(0, 5) });
    cleanups.push(dispose);
    expect(fresh.schemaVersion).toBe(5);
    // Written as version 5 wrote it: no roles column.
    fresh.writable
      .prepare(
        "INSERT INTO keys (key_id, algorithm, public_key, label, status, source, added_at) VALUES ('did:svc:old', 'Ed25519', ?, 'Old', 'pinned', 'user', 7)",
      )
      .run(Buffer.from(ed.public_key));
    fresh.writable
      .prepare(
        "INSERT INTO keys (key_id, algorithm, public_key, status, source, added_at, revoked_at) VALUES ('did:svc:gone', 'Ed25519', ?, 'revoked', 'user', 7, 8)",
      )
      .run(Buffer.from(ed.public_key));
    fresh.close();
    const upgraded = openLedger(file);
    try {
      expect(upgraded.schemaVersion).toBe(MIGRATIONS.length);
      expect(listTrustedKeys(upgraded.readable)).toMatchObject([
        { key_id: 'did:svc:gone', status: 'revoked', revoked_at: 8, roles: null },
        { key_id: 'did:svc:old', label: 'Old', status: 'pinned', added_at: 7, roles: null },
      ]);
      insertTrustedKey(upgraded.writable, {
        ...ed,
        key_id: 'did:svc:new',
        status: 'pinned',
        source: 'user',
        roles: ['operator'],
      });
      expect(getTrustedKey(upgraded.readable, 'did:svc:new')?.roles).toEqual(['operator']);
    } finally {
      upgraded.close();
    }
  });
});
