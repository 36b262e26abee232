import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { didKeyFromEd25519, ed25519FromDidKey } from './did-key';
import { base58btcDecode, base58btcEncode, hexDecode } from './encoding';
import { createPortableProvider } from './portable-provider';

/**
 * W3C CCG did:key test vectors, test-vectors/ed25519-x25519.json of github.com/w3c-ccg/did-method-key
 * (commit 801b0a91ce5af882c389ca399fa1fd1a75229c09): Ed25519 seed, the resulting did:key, and the
 * key as publicKeyBase58 (an encoding independent of the multicodec wrapping).
 */
const W3C_VECTORS = [
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000000',
    did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
    publicKeyBase58: '4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000001',
    did: 'did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG',
    publicKeyBase58: '6ASf5EcmmEHTgDJ4X4ZT5vT6iHVJBXPg5AN5YoTCpGWt',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000002',
    did: 'did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf',
    publicKeyBase58: '8pM1DN3RiT8vbom5u1sNryaNT1nyL8CTTW3b5PwWXRBH',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000003',
    did: 'did:key:z6MkvqoYXQfDDJRv8L4wKzxYeuKyVZBfi9Qo6Ro8MiLH3kDQ',
    publicKeyBase58: 'HPYVwAQmskwT1qEEeRzhoomyfyupJGASQQtCXSNG8XS2',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000004',
    did: 'did:key:z6MkwW6aqMnjgrhJXFUko3NnZPGzVpkNzhYK7yEhnsibmLwL',
    publicKeyBase58: 'J3qYF7YJMKCqQke47UQwiHizgFUXapHxRxKmxbkar89x',
  },
];

const provider = createPortableProvider();

describe('did:key for Ed25519', () => {
  it.each(W3C_VECTORS)('W3C vector $did', ({ seed, did, publicKeyBase58 }) => {
    const publicKey = provider.ed25519PublicKey(hexDecode(seed));
    expect(publicKey).toEqual(base58btcDecode(publicKeyBase58));
    expect(didKeyFromEd25519(publicKey)).toBe(did);
    expect(ed25519FromDidKey(did)).toEqual(publicKey);
  });

  it('round-trips any 32 bytes and always starts with z6Mk', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (publicKey) => {
        const did = didKeyFromEd25519(publicKey);
        expect(did.startsWith('did:key:z6Mk')).toBe(true);
        expect(ed25519FromDidKey(did)).toEqual(publicKey);
      }),
    );
  });

  it('refuses anything that is not an Ed25519 did:key, saying why', () => {
    const valid = W3C_VECTORS[0]?.did ?? '';
    const identifier = valid.slice('did:key:z'.length);
    expect(() => ed25519FromDidKey(`did:web:${identifier}`)).toThrow(/is not a did:key/);
    expect(() => ed25519FromDidKey(`DID:KEY:z${identifier}`)).toThrow(/is not a did:key/);
    expect(() => ed25519FromDidKey(`did:key:${identifier}`)).toThrow(/base58btc multibase/);
    expect(() => ed25519FromDidKey(`did:key:u${identifier}`)).toThrow(/base58btc multibase/);
    expect(() => ed25519FromDidKey(`${valid}#${valid.slice(8)}`)).toThrow(RangeError);
    expect(() => ed25519FromDidKey(`${valid.slice(0, -1)}0`)).toThrow(/not valid base58btc/);
    expect(() => ed25519FromDidKey(` ${valid}`)).toThrow(RangeError);
    // The W3C did-key test suite's "too small for ed keys" example.
    expect(() => ed25519FromDidKey('did:key:zTjsVPtY')).toThrow(RangeError);
    // An X25519 key (multicodec 0xec01) from the same W3C vectors.
    expect(() => ed25519FromDidKey('did:key:z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW')).toThrow(
      /not an Ed25519 key/,
    );
    // Right multicodec, wrong key length (31 and 33 bytes).
    const short = `did:key:z${base58btcEncode(Uint8Array.of(0xed, 0x01, ...new Uint8Array(31).fill(7)))}`;
    const long = `did:key:z${base58btcEncode(Uint8Array.of(0xed, 0x01, ...new Uint8Array(33).fill(7)))}`;
    expect(() => ed25519FromDidKey(short)).toThrow(/holds 31 key bytes, expected 32/);
    expect(() => ed25519FromDidKey(long)).toThrow(/too long for an Ed25519 did:key/);
    expect(() => ed25519FromDidKey(`did:key:z${'2'.repeat(5000)}`)).toThrow(/too long/);
    expect(() => ed25519FromDidKey(42 as unknown as string)).toThrow(TypeError);
  });

  it('refuses a public key that is not 32 bytes', () => {
    expect(() => didKeyFromEd25519(new Uint8Array(31))).toThrow(RangeError);
    expect(() => didKeyFromEd25519('key' as unknown as Uint8Array)).toThrow(TypeError);
  });
});
