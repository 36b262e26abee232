import { createPublicKey, verify as opensslVerify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { ED25519_TORSION_SUBGROUP, ed25519 } from '@noble/curves/ed25519.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { sha512 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  AuthenticationError,
  concatBytes,
  createPortableProvider,
  equalBytes,
  formatNote,
  hexDecode,
  hexEncode,
  parseNote,
  parseVkey,
  signCosignatureLine,
  signNoteLine,
  utf8Encode,
  verifyNote,
} from '../../src-shared/crypto/index';
import type { CryptoProvider } from '../../src-shared/crypto/index';
import { createNodeCryptoProvider } from './node-crypto-provider';

// Vector files are described in /work/shared/vectors/SOURCES.md.
function readVectors<T>(name: string): T {
  const path = fileURLToPath(new URL(`../../../shared/vectors/${name}`, import.meta.url));
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

interface WycheproofFile<Group> {
  numberOfTests: number;
  testGroups: Group[];
}
interface EddsaGroup {
  publicKey: { pk: string };
  tests: { tcId: number; msg: string; sig: string; result: string }[];
}
interface AeadGroup {
  keySize: number;
  ivSize: number;
  tagSize: number;
  tests: { tcId: number; key: string; iv: string; aad: string; msg: string; ct: string; tag: string; result: string }[];
}
interface MldsaVerifyGroup {
  publicKey: string | null;
  tests: { tcId: number; msg: string; ctx?: string; sig: string; result: string }[];
}

const portable = createPortableProvider();
const node = createNodeCryptoProvider();
const providers: CryptoProvider[] = [portable, node];

const Point = ed25519.Point;
const L = Point.Fn.ORDER;
const P = Point.Fp.ORDER;
const TORSION = ED25519_TORSION_SUBGROUP.map(hexDecode);
const scalarBytes = (value: bigint): Uint8Array => numberToBytesLE(value, 32);
const challenge = (r: Uint8Array, publicKey: Uint8Array, message: Uint8Array): bigint =>
  bytesToNumberLE(sha512(concatBytes(r, publicKey, message))) % L;

/** OpenSSL's Ed25519 verify with no checks of ours, to show what the pre-checks add. */
function rawOpensslVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  const spki = concatBytes(hexDecode('302a300506032b6570032100'), publicKey);
  try {
    return opensslVerify(
      null,
      message,
      createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }),
      signature,
    );
  } catch {
    return false;
  }
}

describe.each(providers)('$name provider', (provider) => {
  it('Ed25519: agrees with all 151 Wycheproof cases (88 valid, 63 invalid)', () => {
    const file = readVectors<WycheproofFile<EddsaGroup>>('wycheproof-ed25519.json');
    const counts = { valid: 0, invalid: 0 };
    const disagreements: number[] = [];
    for (const group of file.testGroups) {
      const publicKey = hexDecode(group.publicKey.pk);
      for (const test of group.tests) {
        // No case in the file is "acceptable"; the strict rules would count one as invalid.
        const expected = test.result === 'valid';
        counts[expected ? 'valid' : 'invalid']++;
        if (provider.ed25519Verify(hexDecode(test.sig), hexDecode(test.msg), publicKey) !== expected) {
          disagreements.push(test.tcId);
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(counts).toEqual({ valid: 88, invalid: 63 });
    expect(counts.valid + counts.invalid).toBe(file.numberOfTests);
  });

  it('Ed25519: RFC 8032 section 7.1 keys and signatures byte for byte', () => {
    const file = readVectors<{ tests: { secretKey: string; publicKey: string; message: string; signature: string }[] }>(
      'rfc8032-ed25519.json',
    );
    expect(file.tests).toHaveLength(5);
    for (const test of file.tests) {
      const seed = hexDecode(test.secretKey);
      const message = hexDecode(test.message);
      expect(hexEncode(provider.ed25519PublicKey(seed))).toBe(test.publicKey);
      expect(hexEncode(provider.ed25519Sign(message, seed))).toBe(test.signature);
      expect(provider.ed25519Verify(hexDecode(test.signature), message, hexDecode(test.publicKey))).toBe(true);
    }
  });

  it('Ed25519: refuses small-order keys, non-canonical keys and S >= L, never throwing', () => {
    const message = utf8Encode('any message at all');
    for (const key of TORSION) {
      for (const r of TORSION) {
        for (const s of [0n, 1n, L - 1n, L]) {
          expect(provider.ed25519Verify(concatBytes(r, scalarBytes(s)), message, key)).toBe(false);
        }
      }
    }
    for (let y0 = 0n; y0 < 19n; y0++) {
      const key = scalarBytes(P + y0);
      expect(provider.ed25519Verify(concatBytes(TORSION[0] as Uint8Array, new Uint8Array(32)), message, key)).toBe(
        false,
      );
    }
    const garbage: unknown[] = [
      undefined,
      null,
      'text',
      7,
      [1],
      new Uint16Array(32),
      new Uint8Array(0),
      new Uint8Array(65),
    ];
    const seed = new Uint8Array(32).fill(9);
    const signature = provider.ed25519Sign(message, seed);
    const publicKey = provider.ed25519PublicKey(seed);
    for (const value of garbage) {
      expect(provider.ed25519Verify(value as Uint8Array, message, publicKey)).toBe(false);
      expect(provider.ed25519Verify(signature, value as Uint8Array, publicKey)).toBe(false);
      expect(provider.ed25519Verify(signature, message, value as Uint8Array)).toBe(false);
    }
    expect(provider.ed25519Verify(signature, message, publicKey)).toBe(true);
  });

  it('Ed25519: checks seeds with RangeError and types with TypeError', () => {
    expect(() => provider.ed25519Sign(new Uint8Array(1), new Uint8Array(31))).toThrow(RangeError);
    expect(() => provider.ed25519PublicKey(new Uint8Array(33))).toThrow(/secretSeed must be 32 bytes, got 33/);
    expect(() => provider.ed25519Sign('message' as unknown as Uint8Array, new Uint8Array(32))).toThrow(TypeError);
  });

  it('SHA-256: FIPS 180-2 examples', () => {
    expect(hexEncode(provider.sha256(utf8Encode('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hexEncode(provider.sha256(utf8Encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(hexEncode(provider.sha256(new Uint8Array(1_000_000).fill(0x61)))).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
    expect(() => provider.sha256('abc' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('SHA-384: FIPS 180-2 examples', () => {
    expect(hexEncode(provider.sha384(utf8Encode('abc')))).toBe(
      'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
    );
    expect(
      hexEncode(
        provider.sha384(
          utf8Encode(
            'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
          ),
        ),
      ),
    ).toBe('09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039');
    expect(hexEncode(provider.sha384(new Uint8Array(0)))).toBe(
      '38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b',
    );
    expect(hexEncode(provider.sha384(new Uint8Array(1_000_000).fill(0x61)))).toBe(
      '9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985',
    );
    expect(() => provider.sha384('abc' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('BLAKE3: all 35 official vectors (hash mode, first 32 bytes)', () => {
    const file = readVectors<{ cases: { input_len: number; hash: string }[] }>('blake3-test_vectors.json');
    expect(file.cases).toHaveLength(35);
    for (const test of file.cases) {
      const input = Uint8Array.from({ length: test.input_len }, (_, index) => index % 251);
      expect(hexEncode(provider.blake3(input)), `input_len ${test.input_len}`).toBe(test.hash.slice(0, 64));
    }
  });

  it('AES-256-GCM: Wycheproof 32-byte key, 12-byte IV, 16-byte tag (39 valid, 27 invalid)', () => {
    const file = readVectors<WycheproofFile<AeadGroup>>('wycheproof-aes-gcm.json');
    const cases = file.testGroups
      .filter((group) => group.keySize === 256 && group.ivSize === 96 && group.tagSize === 128)
      .flatMap((group) => group.tests);
    const counts = { valid: 0, invalid: 0 };
    for (const test of cases) {
      const [key, iv, aad, msg, ct, tag] = [test.key, test.iv, test.aad, test.msg, test.ct, test.tag].map(
        hexDecode,
      ) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
      if (test.result === 'valid') {
        counts.valid++;
        expect(provider.aes256gcmDecrypt(key, iv, ct, tag, aad), `tcId ${test.tcId}`).toEqual(msg);
        expect(provider.aes256gcmEncrypt(key, iv, msg, aad), `tcId ${test.tcId}`).toEqual({ ciphertext: ct, tag });
      } else {
        counts.invalid++;
        expect(() => provider.aes256gcmDecrypt(key, iv, ct, tag, aad), `tcId ${test.tcId}`).toThrow(
          AuthenticationError,
        );
      }
    }
    expect(counts).toEqual({ valid: 39, invalid: 27 });
  });

  it('AES-256-GCM: refuses other key, IV and tag sizes with RangeError', () => {
    const [key, iv, tag, empty] = [new Uint8Array(32), new Uint8Array(12), new Uint8Array(16), new Uint8Array(0)];
    expect(() => provider.aes256gcmDecrypt(new Uint8Array(24), iv, empty, tag)).toThrow(/key must be 32 bytes/);
    expect(() => provider.aes256gcmDecrypt(key, new Uint8Array(16), empty, tag)).toThrow(/iv must be 12 bytes/);
    expect(() => provider.aes256gcmDecrypt(key, iv, empty, new Uint8Array(15))).toThrow(/tag must be 16 bytes/);
    expect(() => provider.aes256gcmEncrypt(key, new Uint8Array(8), empty)).toThrow(RangeError);
    expect(() => provider.aes256gcmEncrypt(key, iv, 'text' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('ML-DSA-65: ACVP keyGen (25 seeds) gives the published keys', () => {
    const file = readVectors<{ testGroups: { tests: { tcId: number; seed: string; pk: string; sk: string }[] }[] }>(
      'mldsa65/acvp-keyGen-ML-DSA-65.json',
    );
    const tests = file.testGroups.flatMap((group) => group.tests);
    expect(tests).toHaveLength(25);
    for (const test of tests) {
      const { publicKey, secretKey } = provider.mldsa65KeyGen(hexDecode(test.seed));
      expect(hexEncode(publicKey), `tcId ${test.tcId}`).toBe(test.pk.toLowerCase());
      expect(hexEncode(secretKey), `tcId ${test.tcId}`).toBe(test.sk.toLowerCase());
    }
  });

  it('ML-DSA-65: Wycheproof verify, the 203 empty-context cases', () => {
    const file = readVectors<WycheproofFile<MldsaVerifyGroup>>('mldsa65/wycheproof-mldsa_65_verify_test.json');
    const disagreements: number[] = [];
    let count = 0;
    for (const group of file.testGroups) {
      const publicKey = hexDecode(group.publicKey ?? '');
      for (const test of group.tests) {
        if ((test.ctx ?? '') !== '') continue; // the provider API is empty-context only
        count++;
        const actual = provider.mldsa65Verify(hexDecode(test.sig), hexDecode(test.msg), publicKey);
        if (actual !== (test.result === 'valid')) disagreements.push(test.tcId);
      }
    }
    expect(disagreements).toEqual([]);
    expect(count).toBe(203);
  });

  it('ML-DSA-65: a hedged signature verifies for its message only', () => {
    const { publicKey, secretKey } = provider.mldsa65KeyGen(new Uint8Array(32).fill(3));
    const message = utf8Encode('digest');
    const signature = provider.mldsa65Sign(message, secretKey);
    expect(provider.mldsa65Verify(signature, message, publicKey)).toBe(true);
    expect(provider.mldsa65Verify(signature, utf8Encode('digesT'), publicKey)).toBe(false);
    expect(provider.mldsa65Verify(signature.subarray(1), message, publicKey)).toBe(false);
  });

  it('randomBytes: the requested length, fresh each time, checked argument', () => {
    expect(provider.randomBytes(0)).toHaveLength(0);
    expect(provider.randomBytes(100_000)).toHaveLength(100_000);
    expect(equalBytes(provider.randomBytes(32), provider.randomBytes(32))).toBe(false);
    expect(() => provider.randomBytes(-1)).toThrow(RangeError);
    expect(() => provider.randomBytes(Number.NaN)).toThrow(RangeError);
    expect(() => provider.randomBytes('1' as unknown as number)).toThrow(TypeError);
  });
});

describe('node and portable providers agree', () => {
  const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

  it('on signatures, keys and hashes of random inputs', () => {
    fc.assert(
      fc.property(bytes32, fc.uint8Array({ maxLength: 200 }), (seed, message) => {
        const publicKey = node.ed25519PublicKey(seed);
        const signature = node.ed25519Sign(message, seed);
        expect(portable.ed25519PublicKey(seed)).toEqual(publicKey);
        expect(portable.ed25519Sign(message, seed)).toEqual(signature);
        expect(node.ed25519Verify(signature, message, publicKey)).toBe(true);
        expect(portable.ed25519Verify(signature, message, publicKey)).toBe(true);
        expect(node.sha256(message)).toEqual(portable.sha256(message));
        expect(node.sha384(message)).toEqual(portable.sha384(message));
      }),
      { numRuns: 40 },
    );
  });

  it('on every kind of altered signature and key', () => {
    const mutations = [
      'flip a bit',
      'S + L',
      'torsion R',
      'torsion key',
      'non-canonical key',
      'sign bit of key',
      'random signature',
    ] as const;
    fc.assert(
      fc.property(
        bytes32,
        fc.uint8Array({ maxLength: 64 }),
        fc.constantFrom(...mutations),
        fc.nat(),
        bytes32,
        (seed, message, mutation, choice, noise) => {
          let publicKey = portable.ed25519PublicKey(seed);
          let signature = portable.ed25519Sign(message, seed);
          switch (mutation) {
            case 'flip a bit': {
              signature = signature.slice();
              signature[choice % 64] = (signature[choice % 64] ?? 0) ^ (1 << (choice % 8));
              break;
            }
            case 'S + L': {
              const s = bytesToNumberLE(signature.subarray(32)) + L;
              if (s < 2n ** 256n) signature = concatBytes(signature.subarray(0, 32), scalarBytes(s));
              break;
            }
            case 'torsion R':
              signature = concatBytes(TORSION[choice % 8] as Uint8Array, signature.subarray(32));
              break;
            case 'torsion key':
              publicKey = TORSION[choice % 8] as Uint8Array;
              break;
            case 'non-canonical key':
              publicKey = scalarBytes(P + BigInt(choice % 19));
              break;
            case 'sign bit of key':
              publicKey = publicKey.slice();
              publicKey[31] = (publicKey[31] ?? 0) ^ 0x80;
              break;
            case 'random signature':
              signature = concatBytes(noise, noise);
              break;
          }
          const answer = portable.ed25519Verify(signature, message, publicKey);
          expect(node.ed25519Verify(signature, message, publicKey)).toBe(answer);
          expect(answer).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on the forgery OpenSSL alone accepts: small-order key, identity R, S = 0', () => {
    const identity = TORSION[0] as Uint8Array;
    const forgery = concatBytes(identity, new Uint8Array(32));
    for (const message of [new Uint8Array(0), utf8Encode('pay 1,000,000'), utf8Encode('anything')]) {
      expect(rawOpensslVerify(forgery, message, identity)).toBe(true);
      expect(node.ed25519Verify(forgery, message, identity)).toBe(false);
      expect(portable.ed25519Verify(forgery, message, identity)).toBe(false);
    }
    // The same identity key spelled non-canonically (y = p + 1): OpenSSL reduces it and accepts.
    const nonCanonicalIdentity = scalarBytes(P + 1n);
    expect(rawOpensslVerify(forgery, utf8Encode('x'), nonCanonicalIdentity)).toBe(true);
    expect(node.ed25519Verify(forgery, utf8Encode('x'), nonCanonicalIdentity)).toBe(false);
  });

  it('on keys with a torsion component: both use the cofactorless equation', () => {
    const a = 0xc0ffee1234n;
    const publicKey = Point.BASE.multiply(a)
      .add(Point.fromBytes(TORSION[1] as Uint8Array))
      .toBytes();
    const outcomes = new Set<boolean>();
    for (let index = 0; index < 40; index++) {
      const message = utf8Encode(`receipt ${index}`);
      const r = BigInt(index + 7) * 0x5851f42d4c957f2dn;
      const rEncoded = Point.BASE.multiply(r).toBytes();
      const signature = concatBytes(rEncoded, scalarBytes((r + challenge(rEncoded, publicKey, message) * a) % L));
      const answer = node.ed25519Verify(signature, message, publicKey);
      expect(portable.ed25519Verify(signature, message, publicKey)).toBe(answer);
      expect(rawOpensslVerify(signature, message, publicKey)).toBe(answer);
      outcomes.add(answer);
    }
    expect(outcomes).toEqual(new Set([true, false]));
  });

  it('on AES-256-GCM: each decrypts what the other encrypts', () => {
    fc.assert(
      fc.property(
        bytes32,
        fc.uint8Array({ minLength: 12, maxLength: 12 }),
        fc.uint8Array({ maxLength: 300 }),
        fc.uint8Array({ maxLength: 40 }),
        (key, iv, plaintext, aad) => {
          const sealed = node.aes256gcmEncrypt(key, iv, plaintext, aad);
          expect(portable.aes256gcmEncrypt(key, iv, plaintext, aad)).toEqual(sealed);
          expect(portable.aes256gcmDecrypt(key, iv, sealed.ciphertext, sealed.tag, aad)).toEqual(plaintext);
          expect(node.aes256gcmDecrypt(key, iv, sealed.ciphertext, sealed.tag, aad)).toEqual(plaintext);
          const otherKey = key.slice();
          otherKey[0] = (otherKey[0] ?? 0) ^ 1;
          expect(() => node.aes256gcmDecrypt(otherKey, iv, sealed.ciphertext, sealed.tag, aad)).toThrow(
            AuthenticationError,
          );
          expect(() => portable.aes256gcmDecrypt(otherKey, iv, sealed.ciphertext, sealed.tag, aad)).toThrow(
            AuthenticationError,
          );
        },
      ),
      { numRuns: 50 },
    );
  });
});

interface NoteVectors {
  notes: { name: string; seed_hex: string; vkey: string; text: string; note: string; signature_line: string }[];
  cosignatures: {
    log_vkey: string;
    witness_name: string;
    witness_seed_hex: string;
    witness_vkey: string;
    text: string;
    note: string;
    cosignature_line: string;
  }[];
}

describe.each(providers)('$name provider: signed notes (src-shared/crypto/signed-note.ts)', (provider) => {
  const vectors = JSON.parse(
    readFileSync(new URL('../../src-shared/crypto/testdata/tlog-go-vectors.json', import.meta.url), 'utf8'),
  ) as NoteVectors;

  it("signs and verifies Go's sumdb/note and transparency-dev cosignature vectors byte for byte", () => {
    for (const vector of vectors.notes) {
      const line = signNoteLine(provider, vector.text, vector.name, hexDecode(vector.seed_hex));
      expect(formatNote(vector.text, [line])).toBe(vector.note);
      const key = parseVkey(provider.sha256, vector.vkey);
      expect(verifyNote(provider, parseNote(vector.note), [key])).toEqual([{ key, status: 'valid' }]);
    }
    for (const vector of vectors.cosignatures) {
      const keys = [parseVkey(provider.sha256, vector.log_vkey), parseVkey(provider.sha256, vector.witness_vkey)];
      const results = verifyNote(provider, parseNote(vector.note), keys);
      expect(results.map(({ status }) => status)).toEqual(['valid', 'valid']);
      const timestamp = results[1]?.timestamp as number;
      const seed = hexDecode(vector.witness_seed_hex);
      expect(signCosignatureLine(provider, vector.text, vector.witness_name, seed, timestamp)).toBe(
        vector.cosignature_line,
      );
    }
  });
});

describe('node provider specifics', () => {
  it('signs with what a seed array holds now, also after it was changed in place', () => {
    const provider = createNodeCryptoProvider();
    const message = utf8Encode('seed reuse');
    const seed = new Uint8Array(32).fill(21);
    const first = provider.ed25519Sign(message, seed);
    expect(provider.ed25519Sign(message, seed)).toEqual(first);
    // The same array now holds another key (or was wiped): its signature, never the old key's.
    seed.fill(22);
    const second = provider.ed25519Sign(message, seed);
    expect(second).toEqual(createPortableProvider().ed25519Sign(message, new Uint8Array(32).fill(22)));
    expect(second).not.toEqual(first);
    seed.fill(0);
    expect(provider.ed25519Sign(message, seed)).toEqual(
      createPortableProvider().ed25519Sign(message, new Uint8Array(32)),
    );
  });

  it('keeps answering correctly when more keys are used than the cache holds', () => {
    const small = createNodeCryptoProvider({ keyCacheSize: 2 });
    const seeds = [1, 2, 3, 4].map((byte) => new Uint8Array(32).fill(byte));
    const message = utf8Encode('bulk');
    const keys = seeds.map((seed) => small.ed25519PublicKey(seed));
    const signatures = seeds.map((seed) => small.ed25519Sign(message, seed));
    const identity = TORSION[0] as Uint8Array;
    for (let round = 0; round < 3; round++) {
      keys.forEach((key, index) => {
        expect(small.ed25519Verify(signatures[index] as Uint8Array, message, key)).toBe(true);
        expect(small.ed25519Verify(signatures[(index + 1) % 4] as Uint8Array, message, key)).toBe(false);
        // A refused key stays refused whether it is cached or not.
        expect(small.ed25519Verify(concatBytes(identity, new Uint8Array(32)), message, identity)).toBe(false);
      });
    }
  });

  it('returns plain Uint8Arrays, never Buffers', () => {
    const seed = new Uint8Array(32).fill(5);
    const isPlain = (value: Uint8Array): boolean => Object.getPrototypeOf(value) === Uint8Array.prototype;
    expect(isPlain(node.sha256(new Uint8Array(3)))).toBe(true);
    expect(isPlain(node.ed25519Sign(new Uint8Array(3), seed))).toBe(true);
    expect(isPlain(node.ed25519PublicKey(seed))).toBe(true);
    const sealed = node.aes256gcmEncrypt(new Uint8Array(32), new Uint8Array(12), new Uint8Array(5));
    expect(isPlain(sealed.ciphertext) && isPlain(sealed.tag)).toBe(true);
    expect(isPlain(node.aes256gcmDecrypt(new Uint8Array(32), new Uint8Array(12), sealed.ciphertext, sealed.tag))).toBe(
      true,
    );
    // A copied 32-byte digest owns its whole ArrayBuffer (no view into Node's shared pool).
    expect(node.sha256(new Uint8Array(3)).buffer.byteLength).toBe(32);
  });

  it('refuses a key cache size below 1', () => {
    expect(() => createNodeCryptoProvider({ keyCacheSize: 0 })).toThrow(RangeError);
    expect(() => createNodeCryptoProvider({ keyCacheSize: 1.5 })).toThrow(RangeError);
  });
});
