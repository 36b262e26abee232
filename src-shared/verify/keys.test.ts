import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WEARABLE_KEY_ID_PATTERN } from '../formats/wearable/sign';
import { createPortableProvider, didKeyFromEd25519 } from '../crypto';
import { createVerifyContext, type KeyEntry } from './context';
import {
  describeKey,
  ed25519KeyEntry,
  findEmbeddedKey,
  findKeyById,
  isIssuerKeyId,
  isKeyId,
  KEY_ID_PATTERN,
  keyIdProblem,
  MAX_KEY_ID_LENGTH,
  pinnedTrust,
} from './keys';

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
  it('accepts any DID (W3C syntax), a decodable did:key and opaque ids of printable ASCII', () => {
    for (const id of [
      'did:svc:evroom:k1',
      'did:svc:a',
      'did:web:example.com',
      'did:web:example.com%3A8443:keys:k1',
      didKeyFromEd25519(keyA),
      'did:hive:typed-demo',
      'did:hive:abc123',
      'did:example:123',
      'did:ion:EiD_x-1.y',
      'did:a1:b%2Fc',
      'test-key-001',
      'k1',
      'a',
      'tenant/2026#key-1',
      '!~',
      'a'.repeat(256),
      `did:hive:${'x'.repeat(247)}`,
    ]) {
      expect(keyIdProblem(id), id).toBeUndefined();
      expect(isKeyId(id), id).toBe(true);
    }
  });

  it('refuses each bad id with its own reason', () => {
    const did = didKeyFromEd25519(keyA);
    const cases: [unknown, RegExp][] = [
      ['', /must not be empty/],
      ['test key', /must not contain spaces \(character 5 is a space\)/],
      [' lead', /spaces \(character 1/],
      ['tab\there', /character 4 is U\+0009, a control character/],
      ['nul\u0000', /U\+0000, a control character/],
      ['del\u007f', /U\+007F, a control character/],
      ['c1\u0085', /U\+0085, a control character/],
      ['café', /U\+00E9, not ASCII/],
      ['rtl\u202eevil', /U\+202E, not ASCII/],
      ['a'.repeat(257), /at most 256 characters; this one has 257/],
      [`did:hive:${'x'.repeat(248)}`, /at most 256 characters/],
      ['did:', /method is empty/],
      ['did::x', /method is empty/],
      ['did:Hive:x', /method is lowercase letters and digits/],
      ['did:hi-ve:x', /method is lowercase letters and digits/],
      ['did:hive', /no method-specific id/],
      ['did:hive:', /method-specific id is empty/],
      ['did:hive:a:', /does not end with ':'/],
      ['did:hive:a/b', /method-specific id holds letters/],
      ['did:web:exa%2', /method-specific id holds letters/],
      ['DID:svc:a', /lowercase "did:"/],
      ['Did:hive:x', /lowercase "did:"/],
      ['did:key:z6Mk', /did:key must encode an Ed25519 public key/],
      [`${did.slice(0, -1)}0`, /did:key must encode/],
      [`${did}1`, /did:key must encode/],
      [42, /must be a string, not number/],
      [null, /must be a string, not null/],
    ];
    for (const [id, reason] of cases) {
      expect(keyIdProblem(id), String(id)).toMatch(reason);
      expect(isKeyId(id), String(id)).toBe(false);
    }
  });

  it('KEY_ID_PATTERN is the rule without its length and did:key decoding', () => {
    for (const id of ['did:hive:typed-demo', 'test-key-001', 'did:key:z6Mk', 'a'.repeat(300)]) {
      expect(KEY_ID_PATTERN.test(id), id).toBe(true);
    }
    for (const id of ['', 'a b', 'did:', 'did:hive:', 'DID:x:y', 'tab\t', 'é']) {
      expect(KEY_ID_PATTERN.test(id), id).toBe(false);
    }
  });

  it('issuing key ids stay did:svc, did:web or an Ed25519 did:key', () => {
    for (const id of ['did:svc:evroom:k1', 'did:web:example.com%3A8443:keys:k1', didKeyFromEd25519(keyA)]) {
      expect(isIssuerKeyId(id), id).toBe(true);
    }
    for (const id of ['did:hive:typed-demo', 'test-key-001', 'did:web:example.com:~me', 'did:key:z6Mk', '']) {
      expect(isIssuerKeyId(id), id).toBe(false);
    }
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
    expect(describeKey(resolved, 'signed')).toBe(
      `the embedded key ${didKeyFromEd25519(keyA)} (from the document, trust unpinned)`,
    );
    // A key that did not sign what is here is named without the trust it would have had.
    const pinned = createVerifyContext(crypto, { now, pinned: [entry('did:svc:a', keyA)] });
    const named = findKeyById('did:svc:a', pinned);
    expect(named?.trust.status).toBe('trusted');
    expect(describeKey(named!, 'signed')).toBe('did:svc:a (pinned, trust trusted)');
    expect(describeKey(named!, 'not_signed')).toBe('did:svc:a (pinned)');
    expect(() => describeKey(named!, 'trusted' as never)).toThrow(TypeError);
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
    expect(() => ed25519KeyEntry(crypto, 'no pe', seedA)).toThrow(TypeError);
    expect(ed25519KeyEntry(crypto, 'test-key-001', seedA).key_id).toBe('test-key-001');
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

describe('the published schemas say the same key id rule', () => {
  it('every key id pattern is KEY_ID_PATTERN within MAX_KEY_ID_LENGTH, except the wearable receipt (the spec fixes it)', () => {
    const folder = fileURLToPath(new URL('../../resources/schemas/', import.meta.url));
    const found: string[] = [];
    const visit = (node: unknown, file: string, name: string): void => {
      if (Array.isArray(node)) node.forEach((item) => visit(item, file, name));
      if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
      const object = node as Record<string, unknown>;
      if (/^(?:key_id|k|signer_key_id|keyId)$/.test(name) && typeof object['pattern'] === 'string') {
        found.push(`${file}#${name}`);
        if (file.startsWith('wearable-')) {
          expect(object['pattern'], file).toBe(WEARABLE_KEY_ID_PATTERN.source);
        } else {
          expect(object['pattern'], `${file} ${name}`).toBe(KEY_ID_PATTERN.source);
          expect(object['maxLength'], `${file} ${name}`).toBe(MAX_KEY_ID_LENGTH);
        }
      }
      for (const [key, value] of Object.entries(object)) visit(value, file, key);
    };
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.schema.json'))) {
      visit(JSON.parse(readFileSync(`${folder}${file}`, 'utf8')) as unknown, file, '');
    }
    expect(found.length).toBeGreaterThanOrEqual(7);
    expect(found.some((where) => where.startsWith('wearable-'))).toBe(true);
  });
});
