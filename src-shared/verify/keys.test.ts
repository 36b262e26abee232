import { describe, expect, it } from 'vitest';
import { createPortableProvider, didKeyFromEd25519 } from '../crypto';
import { createVerifyContext, type KeyEntry } from './context';
import { describeKey, ed25519KeyEntry, findEmbeddedKey, findKeyById, isKeyId, pinnedTrust } from './keys';

const crypto = createPortableProvider();
const now = new Date('2026-06-01T00:00:00.000Z');
const seedA = new Uint8Array(32).fill(1);
const seedB = new Uint8Array(32).fill(2);
const keyA = crypto.ed25519PublicKey(seedA);
const keyB = crypto.ed25519PublicKey(seedB);

function entry(keyId: string, publicKey: Uint8Array, extra: Partial<KeyEntry> = {}): KeyEntry {
  return { key_id: keyId, algorithm: 'Ed25519', public_key: publicKey, ...extra };
}

describe('key ids', () => {
  it('accepts did:svc, did:web and decodable did:key', () => {
    for (const id of [
      'did:svc:evroom:k1',
      'did:svc:a',
      'did:web:example.com',
      'did:web:example.com%3A8443:keys:k1',
      didKeyFromEd25519(keyA),
    ]) {
      expect(isKeyId(id), id).toBe(true);
    }
  });

  it('refuses other schemes, empty parts and undecodable did:key', () => {
    const did = didKeyFromEd25519(keyA);
    for (const id of [
      'did:svc:',
      'did:svc:a b',
      'did:example:123',
      'did:web:',
      'did:web:exa_mple.com',
      'did:web:.com',
      'did:key:z6Mk',
      `${did.slice(0, -1)}0`,
      `${did}1`,
      'DID:svc:a',
      `did:svc:${'a'.repeat(600)}`,
      '',
    ]) {
      expect(isKeyId(id), id).toBe(false);
    }
    expect(isKeyId(42)).toBe(false);
  });
});

describe('finding a key by id', () => {
  it('prefers pinned, then did:key, then advertised', () => {
    const did = didKeyFromEd25519(keyA);
    const advertised = [entry('did:svc:x', keyB), entry(did, keyB)];
    const ctx = createVerifyContext(crypto, { now, pinned: [entry('did:svc:x', keyA)], advertised });
    const pinned = findKeyById('did:svc:x', ctx);
    expect(pinned?.source).toBe('pinned');
    expect(pinned?.public_key).toEqual(keyA);
    expect(pinned?.trust.status).toBe('trusted');

    const decoded = findKeyById(did, ctx);
    expect(decoded?.source).toBe('did:key');
    expect(decoded?.public_key).toEqual(keyA);
    expect(decoded?.trust.status).toBe('unpinned');

    const ctxAdvertised = createVerifyContext(crypto, { now, advertised });
    const fromList = findKeyById('did:svc:x', ctxAdvertised);
    expect(fromList?.source).toBe('advertised');
    expect(fromList?.trust).toMatchObject({ status: 'unpinned', key_id: 'did:svc:x' });
    expect(findKeyById('did:svc:nobody', ctxAdvertised)).toBeUndefined();
  });

  it('decodes a did:key the same each time: a caller changing the key it got changes no later answer', () => {
    const did = didKeyFromEd25519(keyB);
    const ctx = createVerifyContext(crypto, { now });
    const first = findKeyById(did, ctx);
    expect(first?.public_key).toEqual(keyB);
    first!.public_key.fill(0);
    expect(findKeyById(did, ctx)?.public_key).toEqual(keyB);
    expect(isKeyId('did:key:z6MkZZZZ')).toBe(false);
    expect(isKeyId('did:key:z6MkZZZZ')).toBe(false);
  });

  it('a pinned did:key entry makes a did:key trusted', () => {
    const did = didKeyFromEd25519(keyA);
    const ctx = createVerifyContext(crypto, { now, pinned: [entry(did, keyA, { label: 'Alice' })] });
    expect(findKeyById(did, ctx)?.trust).toMatchObject({ status: 'trusted', key_id: did, label: 'Alice' });
  });

  it('with several pinned entries of one id, revoked wins, then the one valid now', () => {
    const expired = entry('did:svc:k', keyA, { not_after: '2025-01-01T00:00:00Z' });
    const current = entry('did:svc:k', keyA, { not_before: '2025-01-01T00:00:00Z' });
    const revoked = entry('did:svc:k', keyA, { status: 'revoked' });
    expect(
      findKeyById('did:svc:k', createVerifyContext(crypto, { now, pinned: [expired, current] }))?.trust.status,
    ).toBe('trusted');
    expect(
      findKeyById('did:svc:k', createVerifyContext(crypto, { now, pinned: [current, revoked] }))?.trust.status,
    ).toBe('revoked');
    expect(findKeyById('did:svc:k', createVerifyContext(crypto, { now, pinned: [expired] }))?.trust.status).toBe(
      'expired',
    );
  });

  it('throws TypeError for a non-string id', () => {
    expect(() => findKeyById(5 as never, createVerifyContext(crypto))).toThrow(TypeError);
  });
});

describe('embedded keys', () => {
  it('are unpinned unless a pinned entry has the same bytes and algorithm', () => {
    const ctx = createVerifyContext(crypto, { now, pinned: [entry('did:svc:a', keyA, { label: 'A' })] });
    expect(findEmbeddedKey(keyA, 'Ed25519', ctx)).toMatchObject({
      source: 'pinned',
      key_id: 'did:svc:a',
      trust: { status: 'trusted', label: 'A' },
    });
    expect(findEmbeddedKey(keyB, 'Ed25519', ctx)).toMatchObject({ source: 'document', trust: { status: 'unpinned' } });
    expect(findEmbeddedKey(keyA, 'ML-DSA-65', ctx).trust.status).toBe('unpinned');
  });

  it('advertised entries never pin an embedded key', () => {
    const ctx = createVerifyContext(crypto, { now, advertised: [entry('did:svc:a', keyA)] });
    expect(findEmbeddedKey(keyA, 'Ed25519', ctx).trust.status).toBe('unpinned');
    expect(() => findEmbeddedKey('00' as never, 'Ed25519', ctx)).toThrow(TypeError);
  });

  it('describes keys for check details', () => {
    const ctx = createVerifyContext(crypto, { now });
    const resolved = findEmbeddedKey(keyA, 'Ed25519', ctx);
    expect(resolved.key_id).toBe(didKeyFromEd25519(keyA));
    expect(resolved.trust.key_id).toBe(didKeyFromEd25519(keyA));
    expect(describeKey(resolved)).toBe(
      `the embedded key ${didKeyFromEd25519(keyA)} (from the document, trust unpinned)`,
    );
  });

  it('are named by their own did:key however keys alternate (the name cache is exact)', () => {
    const ctx = createVerifyContext(crypto, { now });
    const keys = Array.from({ length: 300 }, (_, index) =>
      crypto.ed25519PublicKey(new Uint8Array(32).fill(index % 256).map((byte, at) => (at === 0 ? index >> 8 : byte))),
    );
    for (const round of [0, 1]) {
      for (const [index, key] of keys.entries()) {
        if ((index + round) % 3 === 0) continue;
        expect(findEmbeddedKey(key, 'Ed25519', ctx).key_id).toBe(didKeyFromEd25519(key));
      }
    }
    // A few keys in turn, as a bulk verification sees them: the recent-key list is hit and rotated.
    for (let step = 0; step < 200; step++) {
      const key = keys[(step * 7 + (step >> 3)) % 11]!;
      expect(findEmbeddedKey(key, 'Ed25519', ctx).key_id).toBe(didKeyFromEd25519(key));
    }
    // A caller reusing its buffer for another key gets the other key's name.
    const buffer = keyA.slice();
    expect(findEmbeddedKey(buffer, 'Ed25519', ctx).key_id).toBe(didKeyFromEd25519(keyA));
    buffer.set(keyB);
    expect(findEmbeddedKey(buffer, 'Ed25519', ctx).key_id).toBe(didKeyFromEd25519(keyB));
  });
});

describe('trust of a pinned entry', () => {
  const base = entry('did:svc:a', keyA);
  it('is trusted inside the window, bounds included', () => {
    expect(pinnedTrust(base, now).status).toBe('trusted');
    expect(
      pinnedTrust({ ...base, not_before: '2026-06-01T00:00:00Z', not_after: '2026-06-01T00:00:00.000Z' }, now).status,
    ).toBe('trusted');
  });

  it('is expired before not_before and after not_after', () => {
    expect(pinnedTrust({ ...base, not_before: '2026-06-01T00:00:00.001Z' }, now)).toMatchObject({
      status: 'expired',
      detail: expect.stringMatching(/not yet valid/),
    });
    expect(pinnedTrust({ ...base, not_after: '2026-05-31T23:59:59.999Z' }, now)).toMatchObject({
      status: 'expired',
      detail: expect.stringMatching(/no longer valid/),
    });
  });

  it('is revoked when revoked, even inside the window', () => {
    expect(pinnedTrust({ ...base, status: 'revoked', not_after: '2020-01-01T00:00:00Z' }, now).status).toBe('revoked');
  });

  it('an unreadable bound or an invalid clock never widens trust', () => {
    expect(pinnedTrust({ ...base, not_after: 'tomorrow' }, now).status).toBe('expired');
    expect(pinnedTrust({ ...base, not_before: '2020-01-01T00:00:00Z' }, new Date(Number.NaN)).status).toBe('expired');
  });
});

describe('ed25519KeyEntry', () => {
  it('derives the public key and refuses a bad id', () => {
    expect(ed25519KeyEntry(crypto, 'did:svc:a', seedA, { label: 'A' })).toEqual({
      key_id: 'did:svc:a',
      algorithm: 'Ed25519',
      public_key: keyA,
      label: 'A',
    });
    expect(() => ed25519KeyEntry(crypto, 'nope', seedA)).toThrow(TypeError);
  });
});

describe('pinned roles', () => {
  const entry: KeyEntry = {
    key_id: 'did:svc:test:roles',
    algorithm: 'Ed25519',
    public_key: keyA,
    status: 'pinned',
    roles: ['requester'],
  };
  const ctx = createVerifyContext(crypto, { now, pinned: [entry] });

  it('a pinned key is trusted only in the roles it lists; the issuer of other formats signs as service', () => {
    expect(findKeyById(entry.key_id, ctx, 'requester')?.trust.status).toBe('trusted');
    expect(findKeyById(entry.key_id, ctx)?.trust).toMatchObject({
      status: 'unpinned',
      detail: expect.stringContaining('pinned for requester only; here it signs as service'),
    });
    expect(findEmbeddedKey(keyA, 'Ed25519', ctx).trust.status).toBe('unpinned');
    expect(findEmbeddedKey(keyA, 'Ed25519', ctx, 'requester').trust.status).toBe('trusted');
  });

  it('keeps revoked and expired: they say more than a role', () => {
    const revoked = createVerifyContext(crypto, { now, pinned: [{ ...entry, status: 'revoked' }] });
    expect(findKeyById(entry.key_id, revoked)?.trust.status).toBe('revoked');
  });
});
