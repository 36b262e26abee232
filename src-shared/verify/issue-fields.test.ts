import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../crypto';
import { fromPlain, toPlain } from '../json';
import type { IssueInput } from './format-module';
import { IssueInputError } from './issue-error';
import { checkMembers, copyObject, fieldsObject, issuerKey, publicEntry, withMldsa65SecretKey } from './issue-fields';

const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(1);
const key = {
  key_id: 'did:svc:test:k',
  algorithm: 'Ed25519' as const,
  seed,
  public_key: crypto.ed25519PublicKey(seed),
  label: 'Test',
};

function input(value: unknown, extra: Partial<IssueInput> = {}): IssueInput {
  const tree = fromPlain(value as never);
  return {
    name: 'nano',
    fields: { text: '', tree, value: toPlain(tree) },
    roles: {},
    now: new Date(0),
    crypto,
    verify: () => {
      throw new Error('not called');
    },
    ...extra,
  };
}

function codeOf(action: () => unknown): [string, string] {
  try {
    action();
  } catch (error) {
    if (error instanceof IssueInputError) return [error.code, error.path];
    throw error;
  }
  throw new Error('no refusal');
}

describe('issuer helpers', () => {
  it('take an object of fields, and refuse anything else', () => {
    expect(fieldsObject(input({ ok: true }))).toEqual({ ok: true });
    expect(codeOf(() => fieldsObject(input([1])))).toEqual(['not_an_object', '']);
  });

  it('refuse unknown members first, then missing ones, at their paths', () => {
    expect(codeOf(() => checkMembers({ a: 1, 'x/y': 2 }, ['a', 'b'], [], 'nano'))).toEqual(['unknown_member', '/x~1y']);
    expect(codeOf(() => checkMembers({ a: 1 }, ['a', 'b'], ['c'], 'nano'))).toEqual(['missing_member', '/b']);
    expect(() => checkMembers({ a: 1, c: 2 }, ['a'], ['c'], 'nano')).not.toThrow();
  });

  it('name the key to write and the entry that verifies it', () => {
    expect(codeOf(() => issuerKey(input({})))).toEqual(['key_missing', '']);
    expect(issuerKey(input({}, { key, keyId: 'did:svc:test:other' })).keyId).toBe('did:svc:test:other');
    expect(issuerKey(input({}, { key })).keyId).toBe('did:svc:test:k');
    const entry = publicEntry(key, 'did:svc:test:other');
    expect(entry).toEqual({
      key_id: 'did:svc:test:other',
      algorithm: 'Ed25519',
      public_key: key.public_key,
      label: 'Test',
    });
    expect(entry.public_key).not.toBe(key.public_key);
  });

  it('expand an ML-DSA-65 seed for one use and wipe the secret key after, also when the use throws', () => {
    const pq = crypto.mldsa65KeyGen(seed);
    const pqKey = { key_id: 'did:svc:test:pq', algorithm: 'ML-DSA-65' as const, seed, public_key: pq.publicKey };
    let seen: Uint8Array | undefined;
    const signature = withMldsa65SecretKey(input({}), pqKey, (secretKey) => {
      seen = secretKey;
      expect(secretKey).toEqual(pq.secretKey);
      return crypto.mldsa65Sign(new Uint8Array([1]), secretKey);
    });
    expect(crypto.mldsa65Verify(signature, new Uint8Array([1]), pq.publicKey)).toBe(true);
    expect(seen?.every((byte) => byte === 0)).toBe(true);
    expect(() =>
      withMldsa65SecretKey(input({}), pqKey, (secretKey) => {
        seen = secretKey;
        throw new RangeError('refused');
      }),
    ).toThrow('refused');
    expect(seen?.length).toBe(4032);
    expect(seen?.every((byte) => byte === 0)).toBe(true);
  });

  it('copy a member named __proto__ as an own member', () => {
    const value = toPlain(fromPlain(JSON.parse('{"__proto__":{"x":1},"a":2}') as never)) as Record<string, unknown>;
    const copy = copyObject(value as never);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });
});
