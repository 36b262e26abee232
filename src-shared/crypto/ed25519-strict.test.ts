import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';

import {
  ed25519IsCanonicalScalar,
  ed25519IsStrictPublicKey,
  ed25519SignatureHasCanonicalS,
  ed25519VerifyStrict,
} from './ed25519-strict';
import { concatBytes, hexDecode, utf8Encode } from './encoding';

const Point = ed25519.Point;
const L = Point.Fn.ORDER;
const P = Point.Fp.ORDER;
const scalarBytes = (value: bigint): Uint8Array => numberToBytesLE(value, 32);
const challenge = (r: Uint8Array, publicKey: Uint8Array, message: Uint8Array): bigint =>
  bytesToNumberLE(sha512(concatBytes(r, publicKey, message))) % L;
/** RFC 8032 TEST 1 key pair. */
const SEED = hexDecode('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const PUBLIC_KEY = hexDecode('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const TORSION = ED25519_TORSION_SUBGROUP.map(hexDecode);
/** A point of order 8. */
const T8 = Point.fromBytes(TORSION[1] as Uint8Array);

describe('ed25519IsCanonicalScalar', () => {
  it('accepts 0 .. L-1 and refuses L and above', () => {
    expect(ed25519IsCanonicalScalar(scalarBytes(0n))).toBe(true);
    expect(ed25519IsCanonicalScalar(scalarBytes(L - 1n))).toBe(true);
    expect(ed25519IsCanonicalScalar(scalarBytes(L))).toBe(false);
    expect(ed25519IsCanonicalScalar(scalarBytes(L + 1n))).toBe(false);
    expect(ed25519IsCanonicalScalar(scalarBytes(2n ** 253n))).toBe(false);
    expect(ed25519IsCanonicalScalar(new Uint8Array(32).fill(255))).toBe(false);
    // Equal to L in the top byte only, smaller below: still valid.
    expect(ed25519IsCanonicalScalar(scalarBytes(2n ** 252n))).toBe(true);
  });

  it('answers false for the wrong length or type', () => {
    expect(ed25519IsCanonicalScalar(new Uint8Array(31))).toBe(false);
    expect(ed25519IsCanonicalScalar(new Uint8Array(33))).toBe(false);
    expect(ed25519IsCanonicalScalar('0' as unknown as Uint8Array)).toBe(false);
  });
});

describe('ed25519SignatureHasCanonicalS', () => {
  const withS = (scalar: Uint8Array, r = 0x5a): Uint8Array => {
    const signature = new Uint8Array(64).fill(r);
    signature.set(scalar, 32);
    return signature;
  };

  it('answers what ed25519IsCanonicalScalar answers for bytes 32..63, whatever R holds', () => {
    for (const value of [0n, 1n, L - 1n, L, L + 1n, 2n ** 252n, 2n ** 253n, 2n ** 256n - 1n]) {
      const scalar = scalarBytes(value);
      for (const r of [0x00, 0xff]) {
        expect(ed25519SignatureHasCanonicalS(withS(scalar, r))).toBe(ed25519IsCanonicalScalar(scalar));
      }
    }
  });

  it('reads a view at its own offset', () => {
    const backing = new Uint8Array(80).fill(0xff);
    backing.set(withS(scalarBytes(L - 1n)), 16);
    expect(ed25519SignatureHasCanonicalS(backing.subarray(16, 80))).toBe(true);
    backing.set(scalarBytes(L), 48);
    expect(ed25519SignatureHasCanonicalS(backing.subarray(16, 80))).toBe(false);
  });

  it('answers false for the wrong length or type', () => {
    expect(ed25519SignatureHasCanonicalS(new Uint8Array(63))).toBe(false);
    expect(ed25519SignatureHasCanonicalS(new Uint8Array(65))).toBe(false);
    expect(ed25519SignatureHasCanonicalS('0' as unknown as Uint8Array)).toBe(false);
  });
});

describe('ed25519IsStrictPublicKey', () => {
  it('accepts an ordinary key', () => {
    expect(ed25519IsStrictPublicKey(PUBLIC_KEY)).toBe(true);
  });

  it('refuses the 8 small-order points', () => {
    expect(TORSION).toHaveLength(8);
    for (const encoding of TORSION) expect(ed25519IsStrictPublicKey(encoding)).toBe(false);
  });

  it('refuses non-canonical encodings: y >= p, or x = 0 with the sign bit set', () => {
    const identityWithSign = hexDecode(`01${'00'.repeat(30)}80`);
    expect(ed25519IsStrictPublicKey(identityWithSign)).toBe(false);
    // y = p + y0 for each small y0 that is on the curve.
    for (let y0 = 0n; y0 < 19n; y0++) {
      const encoding = scalarBytes(P + y0);
      expect(ed25519IsStrictPublicKey(encoding)).toBe(false);
      expect(
        ed25519IsStrictPublicKey(concatBytes(encoding.subarray(0, 31), Uint8Array.of((encoding[31] ?? 0) | 0x80))),
      ).toBe(false);
    }
    // The ordinary key with y + p would overflow 255 bits; flipping its sign bit gives -A, valid.
    const negated = PUBLIC_KEY.slice();
    negated[31] = (negated[31] ?? 0) ^ 0x80;
    expect(ed25519IsStrictPublicKey(negated)).toBe(true);
  });

  it('refuses a y with no curve point, and wrong lengths', () => {
    // y = 2: (y^2 - 1) / (d y^2 + 1) is not a square mod p.
    expect(() => Point.fromBytes(scalarBytes(2n))).toThrow();
    expect(ed25519IsStrictPublicKey(scalarBytes(2n))).toBe(false);
    expect(ed25519IsStrictPublicKey(PUBLIC_KEY.subarray(0, 31))).toBe(false);
    expect(ed25519IsStrictPublicKey(concatBytes(PUBLIC_KEY, Uint8Array.of(0)))).toBe(false);
  });
});

describe('ed25519VerifyStrict', () => {
  const message = utf8Encode('evidence');

  it('verifies an honest signature and refuses any changed byte', () => {
    const signature = ed25519.sign(message, SEED);
    expect(ed25519VerifyStrict(signature, message, PUBLIC_KEY)).toBe(true);
    for (let index = 0; index < 64; index++) {
      const changed = signature.slice();
      changed[index] = (changed[index] ?? 0) ^ 1;
      expect(ed25519VerifyStrict(changed, message, PUBLIC_KEY)).toBe(false);
    }
    expect(ed25519VerifyStrict(signature, utf8Encode('evidencE'), PUBLIC_KEY)).toBe(false);
  });

  it('refuses S + L (the malleable twin of a valid signature)', () => {
    const signature = ed25519.sign(message, SEED);
    const s = bytesToNumberLE(signature.subarray(32));
    const twin = concatBytes(signature.subarray(0, 32), scalarBytes(s + L));
    expect(ed25519VerifyStrict(twin, message, PUBLIC_KEY)).toBe(false);
  });

  it('refuses the all-identity forgery that a verifier without the small-order check accepts', () => {
    const identity = TORSION[0] as Uint8Array;
    const forgery = concatBytes(identity, new Uint8Array(32));
    // Cofactorless check without rule 4: [0]B - [k]identity = identity = R, for every message.
    expect(Point.BASE.multiplyUnsafe(0n).subtract(Point.ZERO).toBytes()).toEqual(identity);
    expect(ed25519VerifyStrict(forgery, message, identity)).toBe(false);
  });

  it('uses the cofactorless equation: a key with a torsion component verifies only when [k]T = 0', () => {
    const a = 0x1234567890abcdefn;
    const keyPoint = Point.BASE.multiply(a).add(T8);
    const publicKey = keyPoint.toBytes();
    expect(ed25519IsStrictPublicKey(publicKey)).toBe(true); // mixed order, not small order
    const outcomes = { accepted: 0, refused: 0 };
    for (let index = 0; index < 64; index++) {
      const text = utf8Encode(`message ${index}`);
      const r = BigInt(index + 1) * 0x9e3779b97f4a7c15n;
      const rEncoded = Point.BASE.multiply(r).toBytes();
      const k = challenge(rEncoded, publicKey, text);
      const signature = concatBytes(rEncoded, scalarBytes((r + k * a) % L));
      const expected = k % 8n === 0n;
      expect(ed25519VerifyStrict(signature, text, publicKey)).toBe(expected);
      // noble's own strict verify is cofactored and accepts every one of them.
      expect(ed25519.verify(signature, text, publicKey, { zip215: false })).toBe(true);
      outcomes[expected ? 'accepted' : 'refused']++;
    }
    expect(outcomes.accepted).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });

  it('refuses an R with a torsion component (cofactored verifiers accept it)', () => {
    const a = bytesToNumberLE(sha512(SEED).subarray(0, 32)) % L;
    const publicKey = Point.BASE.multiply(a).toBytes();
    const r = 0xfeedn;
    const rEncoded = Point.BASE.multiply(r).add(T8).toBytes();
    const k = challenge(rEncoded, publicKey, message);
    const signature = concatBytes(rEncoded, scalarBytes((r + k * a) % L));
    expect(ed25519.verify(signature, message, publicKey, { zip215: false })).toBe(true);
    expect(ed25519VerifyStrict(signature, message, publicKey)).toBe(false);
  });

  it('answers false, never throws, for malformed arguments', () => {
    const signature = ed25519.sign(message, SEED);
    const garbage: unknown[] = [undefined, null, 'text', 42, [1, 2], new Uint16Array(32), new Uint8Array(0)];
    for (const value of garbage) {
      expect(ed25519VerifyStrict(value as Uint8Array, message, PUBLIC_KEY)).toBe(false);
      expect(ed25519VerifyStrict(signature, value as Uint8Array, PUBLIC_KEY)).toBe(false);
      expect(ed25519VerifyStrict(signature, message, value as Uint8Array)).toBe(false);
    }
    expect(ed25519VerifyStrict(signature, new Uint8Array(0), PUBLIC_KEY)).toBe(false);
  });
});
