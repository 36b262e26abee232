import { describe, expect, it } from 'vitest';
import { b64Decode, concatBytes, createPortableProvider, hexEncode, utf8Encode } from '../../crypto';
import type { JsonValue } from '../../json/types';
import type { JsonObject } from '../../verify/fields';
import { signTypedPq } from './sign';

const crypto = createPortableProvider();
const keys = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x81));
const other = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x82));
const KEY_ID = 'did:svc:test:pq-signer';

describe('signTypedPq', () => {
  it('writes h_i = SHA-256(JCS(fragment_i)) and digest = SHA-256(h_1 || ... || h_n) over raw bytes', () => {
    const fragments: JsonValue[] = [{ b: 2, a: 1 }, 'x', 1.5];
    const document = signTypedPq(fragments, keys.secretKey, keys.publicKey, KEY_ID, crypto);
    const envelope = document['envelope'] as JsonObject;
    const expected = ['{"a":1,"b":2}', '"x"', '1.5'].map((text) => crypto.sha256(utf8Encode(text)));
    expect(envelope['fragment_digests']).toEqual(expected.map(hexEncode));
    expect(envelope['digest']).toBe(hexEncode(crypto.sha256(concatBytes(...expected))));
    expect(
      crypto.mldsa65Verify(
        b64Decode(envelope['signature'] as string),
        crypto.sha256(concatBytes(...expected)),
        keys.publicKey,
      ),
    ).toBe(true);
    expect(document['fragments']).toEqual(fragments);
  });

  it('writes the envelope members in PROTOCOL order; embedKey: false leaves the public key out', () => {
    const withKey = signTypedPq([1], keys.secretKey, keys.publicKey, KEY_ID, crypto);
    expect(Object.keys(withKey['envelope'] as JsonObject)).toEqual([
      'object',
      'version',
      'sig_scheme',
      'key_id',
      'public_key',
      'aggregation',
      'fragment_digests',
      'digest',
      'signature',
    ]);
    expect(b64Decode((withKey['envelope'] as JsonObject)['public_key'] as string)).toEqual(keys.publicKey);
    const without = signTypedPq([1], keys.secretKey, keys.publicKey, KEY_ID, crypto, { embedKey: false });
    expect(without['envelope']).not.toHaveProperty('public_key');
  });

  it('is hedged: two signatures of the same fragments differ, the digests do not', () => {
    const first = signTypedPq([1], keys.secretKey, keys.publicKey, KEY_ID, crypto)['envelope'] as JsonObject;
    const second = signTypedPq([1], keys.secretKey, keys.publicKey, KEY_ID, crypto)['envelope'] as JsonObject;
    expect(first['digest']).toBe(second['digest']);
    expect(first['signature']).not.toBe(second['signature']);
  });

  it('does not share the caller fragments', () => {
    const fragment = { a: [1] };
    const document = signTypedPq([fragment], keys.secretKey, keys.publicKey, KEY_ID, crypto);
    fragment.a.push(2);
    expect(document['fragments']).toEqual([{ a: [1] }]);
  });

  it('refuses a public key that is not the secret key partner, and bad arguments', () => {
    expect(() => signTypedPq([1], keys.secretKey, other.publicKey, KEY_ID, crypto)).toThrow(/does not verify/);
    expect(() => signTypedPq([], keys.secretKey, keys.publicKey, KEY_ID, crypto)).toThrow(RangeError);
    expect(() =>
      signTypedPq(
        Array.from({ length: 1025 }, () => 1),
        keys.secretKey,
        keys.publicKey,
        KEY_ID,
        crypto,
      ),
    ).toThrow(RangeError);
    expect(() => signTypedPq({} as JsonValue[], keys.secretKey, keys.publicKey, KEY_ID, crypto)).toThrow(TypeError);
    expect(() =>
      signTypedPq([undefined as unknown as JsonValue], keys.secretKey, keys.publicKey, KEY_ID, crypto),
    ).toThrow(TypeError);
    expect(() => signTypedPq([1], keys.secretKey, keys.publicKey.subarray(1), KEY_ID, crypto)).toThrow(RangeError);
    expect(() => signTypedPq([1], keys.secretKey.subarray(1), keys.publicKey, KEY_ID, crypto)).toThrow(RangeError);
    expect(() => signTypedPq([1], keys.secretKey, keys.publicKey, 'pq key', crypto)).toThrow(TypeError);
  });
});
