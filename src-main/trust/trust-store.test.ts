import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { b64uEncode, didKeyFromEd25519, hexDecode } from '../../src-shared/crypto';
import { pinnedTrust } from '../../src-shared/verify/keys';
import { checkAuditChain, listAdvertisedKeys, listAuditEntries, listTrustedKeys, type Ledger } from '../ledger/index';
import { makeTemporaryLedger } from '../ledger/test-support';
import { TrustError } from './errors';
import { createTrustStore, type TrustStore } from './trust-store';

function vector<T>(relative: string): T {
  return JSON.parse(
    fs.readFileSync(fileURLToPath(new URL(`../../../shared/vectors/${relative}`, import.meta.url)), 'utf8'),
  ) as T;
}

// Real public keys from the published vectors: RFC 8032 section 7.1 and NIST ACVP ML-DSA-65.
const rfc8032 = vector<{ tests: { publicKey: string }[] }>('rfc8032-ed25519.json').tests;
const ED_A = hexDecode(rfc8032[0]?.publicKey ?? '');
const ED_B = hexDecode(rfc8032[1]?.publicKey ?? '');
const ED_C = hexDecode(rfc8032[2]?.publicKey ?? '');
const acvp = vector<{ testGroups: { tests: { pk: string }[] }[] }>('mldsa65/acvp-keyGen-ML-DSA-65.json');
const ML_DSA = hexDecode((acvp.testGroups[0]?.tests[0]?.pk ?? '').toLowerCase());

const K1 = 'did:svc:evroom:k1';
const K2 = 'did:web:acme.example';
const PQ = 'did:svc:evroom:pq1';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function setup(): { ledger: Ledger; trust: TrustStore; clock: { now: number } } {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  const clock = { now: 1_800_000_000_000 };
  const trust = createTrustStore(made.ledger, { now: () => clock.now });
  return { ledger: made.ledger, trust, clock };
}

/** Everything the trust store can change, read through the ledger's repositories. */
function snapshot(ledger: Ledger): unknown {
  return {
    keys: listTrustedKeys(ledger.readable),
    advertised: listAdvertisedKeys(ledger.readable),
    audit: listAuditEntries(ledger.readable, { direction: 'asc', limit: 1000 }),
  };
}

function trustErrorOf(fn: () => unknown): TrustError {
  try {
    fn();
  } catch (error) {
    if (error instanceof TrustError) return error;
    throw new Error(`expected a TrustError, got ${String(error)}`);
  }
  throw new Error('expected a TrustError, nothing was thrown');
}

/** Assert that `fn` fails with `code` and that the ledger did not change. */
function expectRefused(ledger: Ledger, code: string, fn: () => unknown): TrustError {
  const before = snapshot(ledger);
  const error = trustErrorOf(fn);
  expect(error.code).toBe(code);
  expect(snapshot(ledger)).toEqual(before);
  return error;
}

function lastAudit(ledger: Ledger): { action: string; subject: string; details: unknown; at: number } | undefined {
  return listAuditEntries(ledger.readable, { limit: 1 })[0];
}

describe('TrustStore.pin', () => {
  it('pins a key with its label and window, audited with the key itself', () => {
    const { ledger, trust } = setup();
    const result = trust.pin({
      key_id: K1,
      algorithm: 'Ed25519',
      public_key: ED_A,
      label: 'Acme service key',
      not_before: '2026-01-01T00:00:00Z',
      not_after: '2027-01-01T00:00:00.000Z',
    });
    expect(result.changed).toBe(true);
    expect(result.key).toMatchObject({
      key_id: K1,
      algorithm: 'Ed25519',
      status: 'pinned',
      label: 'Acme service key',
      source: 'user',
      added_at: 1_800_000_000_000,
    });
    expect(trust.get(K1)?.public_key).toEqual(ED_A);
    expect(lastAudit(ledger)).toMatchObject({
      action: 'pin',
      subject: K1,
      at: 1_800_000_000_000,
      details: { algorithm: 'Ed25519', public_key: b64uEncode(ED_A), label: 'Acme service key', source: 'user' },
    });
    expect(trust.pinnedEntries()).toEqual([
      {
        key_id: K1,
        algorithm: 'Ed25519',
        public_key: ED_A,
        status: 'pinned',
        label: 'Acme service key',
        not_before: '2026-01-01T00:00:00Z',
        not_after: '2027-01-01T00:00:00.000Z',
      },
    ]);
  });

  it('pins ML-DSA-65 keys and did:key ids that name their own key', () => {
    const { trust } = setup();
    trust.pin({ key_id: PQ, algorithm: 'ML-DSA-65', public_key: ML_DSA });
    const didKey = didKeyFromEd25519(ED_B);
    trust.pin({ key_id: didKey, algorithm: 'Ed25519', public_key: ED_B });
    expect(trust.list().map((key) => key.key_id)).toEqual([didKey, PQ].sort());
    expect(trust.get(PQ)?.public_key).toHaveLength(1952);
  });

  it('pins a key for roles: stored in role order, audited, given to the verifier, kept when unpinned in the log', () => {
    const { ledger, trust } = setup();
    const { key } = trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, roles: ['service', 'operator'] });
    expect(key.roles).toEqual(['operator', 'service']);
    expect(lastAudit(ledger)).toMatchObject({
      action: 'pin',
      subject: K1,
      details: { roles: ['operator', 'service'] },
    });
    expect(trust.pinnedEntries()).toEqual([
      { key_id: K1, algorithm: 'Ed25519', public_key: ED_A, status: 'pinned', roles: ['operator', 'service'] },
    ]);
    // A pin for every role records no roles, exactly as before roles existed.
    trust.pin({ key_id: K2, algorithm: 'Ed25519', public_key: ED_B });
    expect(lastAudit(ledger)?.details).not.toHaveProperty('roles');
    expect(trust.get(K2)).not.toHaveProperty('roles');
    // The same roles again change nothing; other roles are refused with both named.
    const before = snapshot(ledger);
    expect(
      trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, roles: ['operator', 'service'] }).changed,
    ).toBe(false);
    expect(trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A }).changed).toBe(false);
    expect(snapshot(ledger)).toEqual(before);
    const other = expectRefused(ledger, 'already_pinned', () =>
      trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, roles: ['service'] }),
    );
    expect(other.message).toBe(
      `Key ${K1} is in the trust store for operator, service, not for service only. Roles change only by unpinning the key and pinning it again.`,
    );
    expectRefused(ledger, 'already_pinned', () =>
      trust.pin({ key_id: K2, algorithm: 'Ed25519', public_key: ED_B, roles: ['service'] }),
    );
    trust.unpin(K1);
    expect(lastAudit(ledger)).toMatchObject({ action: 'unpin', details: { roles: ['operator', 'service'] } });
  });

  it('refuses roles that are not distinct role names, naming where; nothing changes', () => {
    const { ledger, trust } = setup();
    const cases: [unknown, string][] = [
      [[], '/roles'],
      ['service', '/roles'],
      [['service', 'signer'], '/roles/1'],
      [['operator', 'operator'], '/roles/1'],
      [[7], '/roles/0'],
    ];
    for (const [roles, path] of cases) {
      const error = expectRefused(ledger, 'invalid_roles', () =>
        trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, roles: roles as never }),
      );
      expect(error.path).toBe(path);
    }
  });

  it('is a no-op when the same key is pinned again', () => {
    const { ledger, trust } = setup();
    trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, label: 'L' });
    const before = snapshot(ledger);
    expect(trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A }).changed).toBe(false);
    expect(trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, label: 'L' }).changed).toBe(false);
    expect(snapshot(ledger)).toEqual(before);
  });

  it('refuses other key bytes for a pinned key_id, and other metadata for the same key', () => {
    const { ledger, trust } = setup();
    trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, label: 'L' });
    expectRefused(ledger, 'key_conflict', () => trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_B }));
    expectRefused(ledger, 'key_conflict', () => trust.pin({ key_id: K1, algorithm: 'ML-DSA-65', public_key: ML_DSA }));
    expectRefused(ledger, 'already_pinned', () =>
      trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, label: 'Other' }),
    );
    expectRefused(ledger, 'already_pinned', () =>
      trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, not_after: '2030-01-01T00:00:00Z' }),
    );
  });

  it('validates every field, changing nothing', () => {
    const { ledger, trust } = setup();
    const base = { key_id: K1, algorithm: 'Ed25519' as const, public_key: ED_A };
    const cases: [string, object][] = [
      ['invalid_key_id', { key_id: 'svc evroom k1' }],
      ['invalid_key_id', { key_id: '' }],
      ['invalid_key_id', { key_id: 'k1\u0000' }],
      ['invalid_key_id', { key_id: 'did:svc:' }],
      ['invalid_key_id', { key_id: 'did::evroom' }],
      ['invalid_key_id', { key_id: 'did:key:z6MkNOTAKEY' }],
      ['invalid_key_id', { key_id: `did:svc:${'x'.repeat(600)}` }],
      ['invalid_key_id', { key_id: 'k'.repeat(257) }],
      ['invalid_algorithm', { algorithm: 'RSA' }],
      ['invalid_algorithm', { algorithm: 'ed25519' }],
      ['invalid_public_key', { public_key: ED_A.subarray(0, 31) }],
      ['invalid_public_key', { public_key: new Uint8Array(33) }],
      ['invalid_public_key', { algorithm: 'ML-DSA-65', public_key: ML_DSA.subarray(0, 1951) }],
      ['invalid_public_key', { algorithm: 'ML-DSA-65', public_key: ED_A }],
      ['did_key_mismatch', { key_id: didKeyFromEd25519(ED_B), public_key: ED_A }],
      ['invalid_timestamp', { not_before: '2026-13-01T00:00:00Z' }],
      ['invalid_timestamp', { not_before: '2026-02-30T00:00:00Z' }],
      ['invalid_timestamp', { not_after: '2026-01-01 00:00:00Z' }],
      ['invalid_timestamp', { not_after: '2026-01-01T00:00:00+01:00' }],
      ['invalid_timestamp', { not_after: '2026-01-01T00:00:00.1234567890Z' }],
      ['invalid_timestamp', { not_after: '2026-01-01T00:00:60Z' }],
      ['invalid_window', { not_before: '2026-06-01T00:00:00Z', not_after: '2026-05-31T23:59:59.999Z' }],
      ['invalid_label', { label: '' }],
      ['invalid_label', { label: 'x'.repeat(257) }],
      ['invalid_label', { label: 'Acme\u001b[2J' }],
    ];
    for (const [code, change] of cases) {
      expectRefused(ledger, code, () => trust.pin({ ...base, ...change }));
    }
    expect(() => trust.pin({ ...base, public_key: 'AAAA' as unknown as Uint8Array })).toThrow(TypeError);
    expect(() => trust.pin(null as never)).toThrow(TypeError);
    expect(trust.list()).toEqual([]);
  });
});

describe('TrustStore changes to pinned keys', () => {
  it('labels and unlabels, audited, and refuses unknown keys', () => {
    const { ledger, trust } = setup();
    trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A });
    expect(trust.label(K1, 'Acme').label).toBe('Acme');
    expect(lastAudit(ledger)).toMatchObject({ action: 'label', subject: K1, details: { from: null, to: 'Acme' } });
    expect(trust.label(K1, null).label).toBeUndefined();
    expect(lastAudit(ledger)).toMatchObject({ action: 'label', details: { from: 'Acme', to: null } });
    // Setting the label it already has changes nothing and writes no audit row.
    const before = snapshot(ledger);
    trust.label(K1, null);
    expect(snapshot(ledger)).toEqual(before);
    expectRefused(ledger, 'unknown_key', () => trust.label(K2, 'x'));
    expectRefused(ledger, 'invalid_label', () => trust.label(K1, ''));
  });

  it('sets validity: undefined keeps a bound, null removes it', () => {
    const { ledger, trust } = setup();
    trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, not_before: '2026-01-01T00:00:00Z' });
    const changed = trust.setValidity(K1, undefined, '2027-01-01T00:00:00Z');
    expect([changed.not_before, changed.not_after]).toEqual(['2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z']);
    expect(lastAudit(ledger)).toMatchObject({
      action: 'validity',
      details: { from: { not_before: '2026-01-01T00:00:00Z', not_after: null } },
    });
    const cleared = trust.setValidity(K1, null);
    expect([cleared.not_before, cleared.not_after]).toEqual([undefined, '2027-01-01T00:00:00Z']);
    expectRefused(ledger, 'invalid_window', () => trust.setValidity(K1, '2028-01-01T00:00:00Z'));
    expectRefused(ledger, 'invalid_timestamp', () => trust.setValidity(K1, 'yesterday'));
    expectRefused(ledger, 'unknown_key', () => trust.setValidity(K2, null, null));
  });

  it('revokes: the key stays, reported revoked, and cannot be pinned again without unpinning', () => {
    const { ledger, trust, clock } = setup();
    trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, label: 'Acme' });
    clock.now += 1000;
    const revoked = trust.revoke(K1, 'key leaked');
    expect(revoked).toMatchObject({
      status: 'revoked',
      revoked_at: clock.now,
      revocation_reason: 'key leaked',
      label: 'Acme',
    });
    expect(lastAudit(ledger)).toMatchObject({ action: 'revoke', subject: K1, details: { reason: 'key leaked' } });
    const entries = trust.pinnedEntries();
    expect(entries).toEqual([{ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, status: 'revoked', label: 'Acme' }]);
    // The verifier's own judgement of that entry.
    expect(pinnedTrust(entries[0] as (typeof entries)[number], new Date()).status).toBe('revoked');
    expectRefused(ledger, 'already_revoked', () => trust.revoke(K1));
    expectRefused(ledger, 'key_revoked', () => trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A }));
    expectRefused(ledger, 'unknown_key', () => trust.revoke(K2));
    // Input is checked before the store is consulted.
    expectRefused(ledger, 'invalid_reason', () => trust.revoke(K1, 'a\u0007b'));
  });

  it('unpins, keeping the whole entry in the audit log, and allows re-pinning then', () => {
    const { ledger, trust } = setup();
    trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A, label: 'Acme' });
    trust.revoke(K1);
    trust.unpin(K1);
    expect(trust.get(K1)).toBeUndefined();
    expect(lastAudit(ledger)).toMatchObject({
      action: 'unpin',
      subject: K1,
      details: { status: 'revoked', label: 'Acme', public_key: b64uEncode(ED_A) },
    });
    expectRefused(ledger, 'unknown_key', () => trust.unpin(K1));
    expect(trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_B }).changed).toBe(true);
    expect(checkAuditChain(ledger.readable)).toEqual({ ok: true, entries: 4 });
  });
});

describe('advertised keys', () => {
  it('are recorded per source, shown apart, flagged when they contradict a pin, and never trusted', () => {
    const { ledger, trust } = setup();
    trust.pin({ key_id: K1, algorithm: 'Ed25519', public_key: ED_A });
    const advertised = [
      { key_id: K1, algorithm: 'Ed25519' as const, public_key: ED_B, label: 'ignored', status: 'pinned' as const },
      { key_id: K2, algorithm: 'Ed25519' as const, public_key: ED_C, not_after: '2030-01-01T00:00:00Z' },
    ];
    expect(trust.recordAdvertised(advertised, 'bundle:1')).toEqual({ recorded: 2, known: 0 });
    expect(trust.recordAdvertised(advertised, 'bundle:1')).toEqual({ recorded: 0, known: 2 });
    expect(trust.recordAdvertised(advertised.slice(1), 'service')).toEqual({ recorded: 1, known: 0 });
    expect(lastAudit(ledger)).toMatchObject({ action: 'advertise', subject: 'service', details: { recorded: 1 } });

    const listed = trust.listAdvertised();
    expect(listed.map((key) => [key.key_id, key.source, key.contradictsTrustStore])).toEqual([
      [K1, 'bundle:1', true],
      [K2, 'bundle:1', false],
      [K2, 'service', false],
    ]);
    expect(trust.pinnedEntries().map((entry) => [entry.key_id, entry.public_key])).toEqual([[K1, ED_A]]);
    expect(trust.list()).toHaveLength(1);
    expect(trust.get(K2)).toBeUndefined();
  });

  it('refuses the whole list when one entry is invalid', () => {
    const { ledger, trust } = setup();
    const error = expectRefused(ledger, 'invalid_public_key', () =>
      trust.recordAdvertised(
        [
          { key_id: K1, algorithm: 'Ed25519', public_key: ED_A },
          { key_id: K2, algorithm: 'Ed25519', public_key: new Uint8Array(16) },
        ],
        'bundle:2',
      ),
    );
    expect(error.path).toBe('/keys/1/public_key');
    expectRefused(ledger, 'invalid_source', () => trust.recordAdvertised([], ''));
  });
});

describe('export and import', () => {
  function populated(): { ledger: Ledger; trust: TrustStore } {
    const made = setup();
    made.trust.pin({
      key_id: K1,
      algorithm: 'Ed25519',
      public_key: ED_A,
      label: 'Acme “prod”',
      not_before: '2026-01-01T00:00:00Z',
      not_after: '2027-01-01T00:00:00.123456789Z',
    });
    made.trust.pin({ key_id: PQ, algorithm: 'ML-DSA-65', public_key: ML_DSA });
    made.trust.pin({ key_id: K2, algorithm: 'Ed25519', public_key: ED_C, label: 'old' });
    made.trust.revoke(K2, 'rotated');
    made.trust.recordAdvertised([{ key_id: 'did:svc:other', algorithm: 'Ed25519', public_key: ED_B }], 'bundle:1');
    return made;
  }

  it('round-trips into another ledger', () => {
    const { ledger, trust } = populated();
    const text = trust.exportKeys();
    expect(lastAudit(ledger)).toMatchObject({ action: 'trust-export', details: { pinned: 2, revoked: 1 } });
    const file = JSON.parse(text) as { keys: Record<string, unknown>[] };
    expect(file.keys.map((key) => [key.key_id, key.status, key.label])).toEqual([
      [K1, 'pinned', 'Acme “prod”'],
      [PQ, 'pinned', undefined],
      [K2, 'revoked', 'old'],
    ]);
    // Advertised keys are not part of the trust store.
    expect(text).not.toContain('did:svc:other');

    const other = setup();
    expect(other.trust.importKeys(text)).toEqual({ pinned: 2, revoked: 1, updated: 0, unchanged: 0 });
    expect(other.trust.pinnedEntries()).toEqual(trust.pinnedEntries());
    // Everything the file carries survives; source, times and reason are local records.
    const portable = (store: TrustStore): unknown =>
      store.list().map(({ key_id, algorithm, public_key, label, not_before, not_after, status }) => ({
        key_id,
        algorithm,
        public_key: b64uEncode(public_key),
        label,
        not_before,
        not_after,
        status,
      }));
    expect(portable(other.trust)).toEqual(portable(trust));
    expect(other.trust.list().every((key) => key.source === 'trust-import')).toBe(true);
    expect(lastAudit(other.ledger)).toMatchObject({
      action: 'trust-import',
      details: { pinned: 2, revoked: 1, updated: 0, unchanged: 0, keys: 3 },
    });
    // Importing the same file again changes nothing but the summary row.
    expect(other.trust.importKeys(text)).toEqual({ pinned: 0, revoked: 0, updated: 0, unchanged: 3 });
    expect(checkAuditChain(other.ledger.readable).ok).toBe(true);
  });

  it('revokes a pinned key the file marks revoked, and updates labels and windows', () => {
    const { trust } = populated();
    const file = JSON.stringify({
      keys: [
        { key_id: K1, algorithm: 'Ed25519', public_key: b64uEncode(ED_A), status: 'revoked' },
        {
          key_id: PQ,
          algorithm: 'ML-DSA-65',
          public_key: b64uEncode(ML_DSA),
          label: 'PQ',
          not_after: '2030-01-01T00:00:00Z',
        },
      ],
    });
    expect(trust.importKeys(file)).toEqual({ pinned: 0, revoked: 1, updated: 1, unchanged: 0 });
    expect(trust.get(K1)).toMatchObject({ status: 'revoked', label: 'Acme “prod”' });
    expect(trust.get(PQ)).toMatchObject({ status: 'pinned', label: 'PQ', not_after: '2030-01-01T00:00:00Z' });
  });

  it('is all or nothing', () => {
    const { ledger, trust } = populated();
    const newKey = { key_id: 'did:svc:new', algorithm: 'Ed25519', public_key: b64uEncode(ED_B) };
    const conflict = JSON.stringify({
      keys: [newKey, { key_id: K1, algorithm: 'Ed25519', public_key: b64uEncode(ED_B) }],
    });
    expectRefused(ledger, 'key_conflict', () => trust.importKeys(conflict));
    const unrevoke = JSON.stringify({
      keys: [newKey, { key_id: K2, algorithm: 'Ed25519', public_key: b64uEncode(ED_C), status: 'pinned' }],
    });
    expectRefused(ledger, 'key_revoked', () => trust.importKeys(unrevoke));
    const badWindow = JSON.stringify({
      keys: [
        newKey,
        { key_id: K1, algorithm: 'Ed25519', public_key: b64uEncode(ED_A), not_before: '2028-01-01T00:00:00Z' },
      ],
    });
    expectRefused(ledger, 'invalid_window', () => trust.importKeys(badWindow));
    expect(trust.get('did:svc:new')).toBeUndefined();
  });

  it('keeps the roles of a key file: new keys are pinned for them, exported with them, and judged by them', () => {
    const { ledger, trust } = populated();
    const narrowed = JSON.stringify({
      keys: [
        { key_id: 'did:svc:new', algorithm: 'Ed25519', public_key: b64uEncode(ED_B), roles: ['service', 'requester'] },
        // Present already for every role; no roles in the file leaves that as it is.
        { key_id: PQ, algorithm: 'ML-DSA-65', public_key: b64uEncode(ML_DSA) },
      ],
    });
    expect(trust.importKeys(narrowed)).toEqual({ pinned: 1, revoked: 0, updated: 0, unchanged: 1 });
    // Stored in role order, whatever order the file gave.
    expect(trust.get('did:svc:new')?.roles).toEqual(['requester', 'service']);
    expect(trust.get(PQ)?.roles).toBeUndefined();
    expect(lastAudit(ledger)?.action).toBe('trust-import');
    const pinAudit = listAuditEntries(ledger.readable, { direction: 'asc', limit: 100 }).find(
      (row) => row.action === 'pin' && row.subject === 'did:svc:new',
    );
    expect(pinAudit?.details).toMatchObject({ roles: ['requester', 'service'], via: 'trust-import' });
    const entry = trust.pinnedEntries().find((candidate) => candidate.key_id === 'did:svc:new');
    expect(entry?.roles).toEqual(['requester', 'service']);
    expect(trust.pinnedEntries().find((candidate) => candidate.key_id === PQ)?.roles).toBeUndefined();
    const exported = JSON.parse(trust.exportKeys()) as { keys: { key_id: string; roles?: string[] }[] };
    expect(exported.keys.find((key) => key.key_id === 'did:svc:new')?.roles).toEqual(['requester', 'service']);
    expect(exported.keys.find((key) => key.key_id === PQ)).not.toHaveProperty('roles');
    // The export imports again into another store as the same roles.
    const other = setup();
    other.trust.importKeys(trust.exportKeys());
    expect(other.trust.get('did:svc:new')?.roles).toEqual(['requester', 'service']);
  });

  it('refuses a file that gives a stored key other roles, naming both; nothing changes', () => {
    const { ledger, trust } = populated();
    trust.importKeys(
      JSON.stringify({
        keys: [{ key_id: 'did:svc:new', algorithm: 'Ed25519', public_key: b64uEncode(ED_B), roles: ['operator'] }],
      }),
    );
    const widen = JSON.stringify({
      keys: [
        { key_id: 'did:svc:new', algorithm: 'Ed25519', public_key: b64uEncode(ED_B), roles: ['operator', 'service'] },
      ],
    });
    const widened = expectRefused(ledger, 'already_pinned', () => trust.importKeys(widen));
    expect(widened.message).toContain('for operator, not for operator, service only');
    expect(widened.path).toBe('/roles');
    const narrow = JSON.stringify({
      keys: [{ key_id: PQ, algorithm: 'ML-DSA-65', public_key: b64uEncode(ML_DSA), roles: ['service'] }],
    });
    expect(expectRefused(ledger, 'already_pinned', () => trust.importKeys(narrow)).message).toContain('for every role');
    // The same roles again change nothing.
    const same = JSON.stringify({
      keys: [{ key_id: 'did:svc:new', algorithm: 'Ed25519', public_key: b64uEncode(ED_B), roles: ['operator'] }],
    });
    expect(trust.importKeys(same)).toEqual({ pinned: 0, revoked: 0, updated: 0, unchanged: 1 });
  });

  it('refuses a file whose roles are not distinct role names, naming where', () => {
    const { ledger, trust } = populated();
    const cases: [unknown, string][] = [
      [[], '/keys/0/roles'],
      [['signer'], '/keys/0/roles/0'],
      [['service', 'service'], '/keys/0/roles/1'],
      ['service', '/keys/0/roles'],
    ];
    for (const [roles, path] of cases) {
      const text = JSON.stringify({
        keys: [{ key_id: 'did:svc:new', algorithm: 'Ed25519', public_key: b64uEncode(ED_B), roles }],
      });
      expect(expectRefused(ledger, 'invalid_key_file', () => trust.importKeys(text)).path).toBe(path);
    }
  });

  it('refuses malformed files, naming where', () => {
    const { ledger, trust } = populated();
    const cases: [string, string][] = [
      ['{"keys": [', ''],
      ['{"keys": [], "keys": []}', '/keys'],
      ['{"keys": [{"key_id": "did:svc:a", "algorithm": "Ed25519", "public_key": "AAAA"}]}', '/keys/0/public_key'],
      [JSON.stringify({ keys: [{ key_id: K1, algorithm: 'RSA', public_key: b64uEncode(ED_A) }] }), '/keys/0/algorithm'],
      [
        JSON.stringify({
          keys: [
            { key_id: 'did:svc:x', algorithm: 'Ed25519', public_key: b64uEncode(ED_A) },
            { key_id: 'did:svc:x', algorithm: 'Ed25519', public_key: b64uEncode(ED_B) },
          ],
        }),
        '/keys/1/key_id',
      ],
      [
        JSON.stringify({
          keys: [{ key_id: 'did:svc:x', algorithm: 'Ed25519', public_key: b64uEncode(ED_A), status: 'advertised' }],
        }),
        '/keys/0/status',
      ],
      [
        JSON.stringify({
          keys: [{ key_id: 'did:svc:x', algorithm: 'Ed25519', public_key: b64uEncode(ED_A), label: 'a\u0000b' }],
        }),
        '/keys/0/label',
      ],
    ];
    for (const [text, path] of cases) {
      const error = expectRefused(ledger, 'invalid_key_file', () => trust.importKeys(text));
      if (path !== '') expect(error.path).toBe(path);
    }
    expect(() => trust.importKeys(5 as unknown as string)).toThrow(TypeError);
  });
});
