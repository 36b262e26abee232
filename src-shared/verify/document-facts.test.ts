import { describe, expect, it } from 'vitest';
import { b64Encode, createPortableProvider, didKeyFromEd25519, hexEncode } from '../crypto';
import { fromPlain } from '../json';
import {
  MAX_RECEIPT_ID_LENGTH,
  b64KeyId,
  documentFacts,
  factMember,
  factString,
  hexKeyId,
  plausibleInstant,
  timestampFact,
  unixSecondsFact,
} from './document-facts';

const crypto = createPortableProvider();

describe('documentFacts', () => {
  it('keeps printable ids and key ids, and plausible instants', () => {
    expect(documentFacts({ receipt_id: 'rcp_A', issued_at: Date.UTC(2026, 0, 1), issuer_key_id: 'did:svc:a' })).toEqual(
      {
        receipt_id: 'rcp_A',
        issued_at: Date.UTC(2026, 0, 1),
        issuer_key_id: 'did:svc:a',
      },
    );
  });

  it.each<[string, Parameters<typeof documentFacts>[0]]>([
    ['an empty id', { receipt_id: '' }],
    ['a space', { receipt_id: 'a b' }],
    ['a non-ASCII id', { receipt_id: 'rcp_é' }],
    ['an id over the limit', { receipt_id: 'x'.repeat(MAX_RECEIPT_ID_LENGTH + 1) }],
    ['a key id with a control character', { issuer_key_id: 'did:svc:\u0007' }],
    ['an instant before 2000', { issued_at: Date.UTC(1999, 11, 31) }],
    ['a fractional instant', { issued_at: 1.5 }],
  ])('records nothing for %s', (_name, claims) => {
    expect(documentFacts(claims)).toEqual({ receipt_id: null, issued_at: null, issuer_key_id: null });
  });

  it('keeps an id of exactly the limit', () => {
    expect(documentFacts({ receipt_id: 'x'.repeat(MAX_RECEIPT_ID_LENGTH) }).receipt_id).toHaveLength(
      MAX_RECEIPT_ID_LENGTH,
    );
    expect(plausibleInstant(Date.UTC(9999, 11, 31))).toBe(Date.UTC(9999, 11, 31));
    expect(plausibleInstant(Date.UTC(9999, 11, 31) + 1)).toBeNull();
  });
});

describe('reading claims from a tree', () => {
  const tree = fromPlain({ a: { b: 'text' }, n: 1_790_000_000, f: 1.5, t: '2026-06-01T12:00:00.000Z' });

  it('reads members and strings, and nothing of other shapes', () => {
    expect(factString(factMember(tree, 'a'), 'b')).toBe('text');
    expect(factString(tree, 'n')).toBeUndefined();
    expect(factMember(fromPlain([1]), '0')).toBeUndefined();
    expect(factMember(undefined, 'a')).toBeUndefined();
  });

  it('reads TS and Unix seconds', () => {
    expect(timestampFact(factString(tree, 't'))).toBe(Date.UTC(2026, 5, 1, 12));
    expect(timestampFact('2026-06-01')).toBeUndefined();
    expect(unixSecondsFact(factMember(tree, 'n'))).toBe(1_790_000_000_000);
    expect(unixSecondsFact(factMember(tree, 'f'))).toBeUndefined();
  });

  it('names embedded Ed25519 keys by their did:key, and nothing else', () => {
    const key = crypto.ed25519PublicKey(new Uint8Array(32).fill(9));
    expect(hexKeyId(hexEncode(key))).toBe(didKeyFromEd25519(key));
    expect(hexKeyId(hexEncode(key))).toBe(didKeyFromEd25519(key));
    expect(b64KeyId(b64Encode(key))).toBe(didKeyFromEd25519(key));
    expect(hexKeyId(hexEncode(key).toUpperCase())).toBeUndefined();
    expect(hexKeyId('00')).toBeUndefined();
    expect(b64KeyId('AAAA')).toBeUndefined();
    expect(b64KeyId(undefined)).toBeUndefined();
  });
});
