import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { describe, expect, it } from 'vitest';

import { equalBytes, hexDecode, hexEncode, utf8Encode } from './encoding';
import { createPortableProvider } from './portable-provider';
import { AuthenticationError } from './provider';

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
  tests: { tcId: number; msg: string; sig: string; result: 'valid' | 'invalid' | 'acceptable' }[];
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
interface MldsaSignGroup {
  privateSeed?: string;
  privateKey?: string;
  publicKey: string | null;
  tests: {
    tcId: number;
    msg?: string;
    ctx?: string;
    mu?: string;
    rnd?: string;
    sig: string;
    result: string;
    flags: string[];
  }[];
}
interface Rfc8032File {
  tests: { name: string; secretKey: string; publicKey: string; message: string; signature: string }[];
}
interface Blake3File {
  cases: { input_len: number; hash: string }[];
}
interface AcvpFile<Group> {
  testGroups: Group[];
}

const provider = createPortableProvider();

/**
 * Checks a Wycheproof ML-DSA-65 sign file: keys derived from seeds, deterministic (or `rnd`)
 * signatures byte for byte, refusals for invalid cases, and the provider's verify (and its own
 * hedged signature, once per key) for empty-context messages. Returns the number of cases run.
 */
function checkSignFile(file: WycheproofFile<MldsaSignGroup>, scope: 'all' | 'first valid per key'): number {
  let checked = 0;
  for (const group of file.testGroups) {
    let secretKey: Uint8Array;
    if (group.privateSeed !== undefined) {
      const seed = hexDecode(group.privateSeed);
      if (seed.length !== 32) {
        expect(() => provider.mldsa65KeyGen(seed)).toThrow(RangeError);
        checked += group.tests.length;
        continue;
      }
      const keys = provider.mldsa65KeyGen(seed);
      expect(hexEncode(keys.publicKey)).toBe(group.publicKey);
      secretKey = keys.secretKey;
    } else {
      secretKey = hexDecode(group.privateKey ?? '');
    }
    let validSeen = false;
    for (const test of group.tests) {
      if (test.result === 'valid' && validSeen && scope !== 'all') continue;
      checked++;
      const entropy = test.rnd === undefined ? false : hexDecode(test.rnd);
      const sign = (): Uint8Array =>
        test.msg === undefined
          ? // "Internal" cases give only mu (FIPS 204 external-mu signing).
            ml_dsa65.internal.sign(hexDecode(test.mu ?? ''), secretKey, { externalMu: true, extraEntropy: entropy })
          : ml_dsa65.sign(hexDecode(test.msg), secretKey, {
              context: hexDecode(test.ctx ?? ''),
              extraEntropy: entropy,
            });
      if (test.result !== 'valid') {
        expect(sign, `tcId ${test.tcId}`).toThrow();
        if (test.msg !== undefined && (test.ctx ?? '') === '') {
          expect(() => provider.mldsa65Sign(hexDecode(test.msg ?? ''), secretKey)).toThrow();
        }
        continue;
      }
      expect(hexEncode(sign()), `tcId ${test.tcId}`).toBe(test.sig);
      if (test.msg !== undefined && (test.ctx ?? '') === '') {
        const publicKey = hexDecode(group.publicKey ?? '');
        const message = hexDecode(test.msg);
        expect(provider.mldsa65Verify(hexDecode(test.sig), message, publicKey)).toBe(true);
        if (!validSeen) {
          expect(provider.mldsa65Verify(provider.mldsa65Sign(message, secretKey), message, publicKey)).toBe(true);
        }
      }
      validSeen = true;
    }
  }
  return checked;
}

describe('portable provider: Ed25519', () => {
  it('agrees with all 151 Wycheproof cases (88 valid, 63 invalid)', () => {
    const file = readVectors<WycheproofFile<EddsaGroup>>('wycheproof-ed25519.json');
    const counts = { valid: 0, invalid: 0 };
    const disagreements: number[] = [];
    for (const group of file.testGroups) {
      const publicKey = hexDecode(group.publicKey.pk);
      for (const test of group.tests) {
        // The file has no "acceptable" cases; one would count as invalid (strict rules).
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

  it('reproduces the RFC 8032 section 7.1 keys and signatures byte for byte', () => {
    const file = readVectors<Rfc8032File>('rfc8032-ed25519.json');
    expect(file.tests.map((test) => test.name)).toEqual(['TEST 1', 'TEST 2', 'TEST 3', 'TEST 1024', 'TEST SHA(abc)']);
    for (const test of file.tests) {
      const seed = hexDecode(test.secretKey);
      const message = hexDecode(test.message);
      expect(hexEncode(provider.ed25519PublicKey(seed))).toBe(test.publicKey);
      expect(hexEncode(provider.ed25519Sign(message, seed))).toBe(test.signature);
      expect(provider.ed25519Verify(hexDecode(test.signature), message, hexDecode(test.publicKey))).toBe(true);
    }
  });

  it('checks the seed of sign and key derivation', () => {
    expect(() => provider.ed25519Sign(new Uint8Array(1), new Uint8Array(31))).toThrow(RangeError);
    expect(() => provider.ed25519PublicKey(new Uint8Array(64))).toThrow(/secretSeed must be 32 bytes, got 64/);
    expect(() => provider.ed25519Sign('m' as unknown as Uint8Array, new Uint8Array(32))).toThrow(TypeError);
  });
});

describe('portable provider: hashes', () => {
  it('SHA-256 matches the FIPS 180-2 examples', () => {
    expect(hexEncode(provider.sha256(utf8Encode('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(hexEncode(provider.sha256(new Uint8Array(0)))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(hexEncode(provider.sha256(utf8Encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(hexEncode(provider.sha256(new Uint8Array(1_000_000).fill(0x61)))).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
  });

  // SHA-384's FIPS 180-2 examples run on this provider and the node one in
  // src-main/core/node-crypto-provider.test.ts (one copy of the vectors).

  it('BLAKE3 matches the official vectors (hash mode, first 32 bytes)', () => {
    const file = readVectors<Blake3File>('blake3-test_vectors.json');
    expect(file.cases).toHaveLength(35);
    for (const test of file.cases) {
      const input = Uint8Array.from({ length: test.input_len }, (_, index) => index % 251);
      expect(hexEncode(provider.blake3(input)), `input_len ${test.input_len}`).toBe(test.hash.slice(0, 64));
    }
  });
});

describe('portable provider: AES-256-GCM', () => {
  const file = readVectors<WycheproofFile<AeadGroup>>('wycheproof-aes-gcm.json');
  const groups = file.testGroups.filter(
    (group) => group.keySize === 256 && group.ivSize === 96 && group.tagSize === 128,
  );
  const cases = groups.flatMap((group) => group.tests);

  it('Wycheproof (32-byte key, 12-byte IV, 16-byte tag): valid ones decrypt and re-encrypt, invalid ones fail', () => {
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

  it('refuses other key, IV and tag sizes with RangeError', () => {
    const [key, iv, tag] = [new Uint8Array(32), new Uint8Array(12), new Uint8Array(16)];
    expect(() => provider.aes256gcmDecrypt(new Uint8Array(16), iv, new Uint8Array(0), tag)).toThrow(
      /key must be 32 bytes/,
    );
    expect(() => provider.aes256gcmDecrypt(key, new Uint8Array(16), new Uint8Array(0), tag)).toThrow(
      /iv must be 12 bytes/,
    );
    expect(() => provider.aes256gcmDecrypt(key, iv, new Uint8Array(0), new Uint8Array(12))).toThrow(
      /tag must be 16 bytes/,
    );
    expect(() => provider.aes256gcmEncrypt(key, new Uint8Array(8), new Uint8Array(0))).toThrow(RangeError);
  });
});

describe('portable provider: ML-DSA-65 (FIPS 204, pure, empty context)', () => {
  it('ACVP keyGen: all 25 seeds give the published public and secret keys', () => {
    const file = readVectors<AcvpFile<{ tests: { tcId: number; seed: string; pk: string; sk: string }[] }>>(
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

  it('Wycheproof verify: the 203 empty-context cases through the provider, the 7 others through noble', () => {
    const file = readVectors<WycheproofFile<MldsaVerifyGroup>>('mldsa65/wycheproof-mldsa_65_verify_test.json');
    const counts = { providerCases: 0, contextCases: 0 };
    const disagreements: number[] = [];
    for (const group of file.testGroups) {
      const publicKey = hexDecode(group.publicKey ?? '');
      for (const test of group.tests) {
        const [signature, message] = [hexDecode(test.sig), hexDecode(test.msg)];
        const expected = test.result === 'valid';
        let actual: boolean;
        if ((test.ctx ?? '') === '') {
          counts.providerCases++;
          actual = provider.mldsa65Verify(signature, message, publicKey);
        } else {
          counts.contextCases++;
          try {
            actual = ml_dsa65.verify(signature, message, publicKey, { context: hexDecode(test.ctx ?? '') });
          } catch {
            actual = false; // a context over 255 bytes is refused
          }
          // The provider is empty-context only, so it must refuse even the valid ones.
          expect(provider.mldsa65Verify(signature, message, publicKey)).toBe(false);
        }
        if (actual !== expected) disagreements.push(test.tcId);
      }
    }
    expect(disagreements).toEqual([]);
    expect(counts).toEqual({ providerCases: 203, contextCases: 7 });
    expect(counts.providerCases + counts.contextCases).toBe(file.numberOfTests);
  });

  it('Wycheproof sign, seed file: all 105 cases (keys from seeds, deterministic signatures, refusals)', () => {
    const file = readVectors<WycheproofFile<MldsaSignGroup>>('mldsa65/wycheproof-mldsa_65_sign_seed_test.json');
    expect(checkSignFile(file, 'all')).toBe(105);
  }, 60_000);

  it('Wycheproof sign, no-seed file: every refusal and the first valid case of each key', () => {
    // The valid cases repeat the seed file's signatures with expanded keys; one per key keeps
    // the run short while still checking each key's encoding.
    const file = readVectors<WycheproofFile<MldsaSignGroup>>('mldsa65/wycheproof-mldsa_65_sign_noseed_test.json');
    // 19 keys with valid cases (one each) and 5 refusals (tcId 5, 54, 55, 56, 57).
    expect(checkSignFile(file, 'first valid per key')).toBe(24);
  }, 60_000);

  it('ACVP sigVer (internal interface, via noble internal.verify): 15 cases, 3 pass, 12 fail', () => {
    const file = readVectors<
      AcvpFile<{ pk: string; tests: { tcId: number; message: string; signature: string; testPassed: boolean }[] }>
    >('mldsa65/acvp-sigVer-ML-DSA-65.json');
    const outcomes: boolean[] = [];
    for (const group of file.testGroups) {
      for (const test of group.tests) {
        const actual = ml_dsa65.internal.verify(
          hexDecode(test.signature),
          hexDecode(test.message),
          hexDecode(group.pk),
        );
        expect(actual, `tcId ${test.tcId}`).toBe(test.testPassed);
        outcomes.push(actual);
      }
    }
    expect(outcomes.filter(Boolean)).toHaveLength(3);
    expect(outcomes).toHaveLength(15);
  });

  it('ACVP sigGen (internal interface, via noble internal.sign): 10 deterministic, 10 hedged with rnd', () => {
    const file = readVectors<
      AcvpFile<{
        deterministic: boolean;
        tests: { tcId: number; sk: string; message: string; rnd?: string; signature: string }[];
      }>
    >('mldsa65/acvp-sigGen-ML-DSA-65.json');
    const counts = { deterministic: 0, hedged: 0 };
    for (const group of file.testGroups) {
      for (const test of group.tests) {
        const entropy = group.deterministic ? false : hexDecode(test.rnd ?? '');
        const signature = ml_dsa65.internal.sign(hexDecode(test.message), hexDecode(test.sk), {
          extraEntropy: entropy,
        });
        expect(hexEncode(signature), `tcId ${test.tcId}`).toBe(test.signature.toLowerCase());
        counts[group.deterministic ? 'deterministic' : 'hedged']++;
      }
    }
    expect(counts).toEqual({ deterministic: 10, hedged: 10 });
  });

  it('signs hedged (two signatures differ) and verifies only the signed message', () => {
    const { publicKey, secretKey } = provider.mldsa65KeyGen();
    const message = utf8Encode('typed pq digest');
    const first = provider.mldsa65Sign(message, secretKey);
    const second = provider.mldsa65Sign(message, secretKey);
    expect(first).toHaveLength(3309);
    expect(equalBytes(first, second)).toBe(false);
    expect(provider.mldsa65Verify(first, message, publicKey)).toBe(true);
    expect(provider.mldsa65Verify(second, message, publicKey)).toBe(true);
    expect(provider.mldsa65Verify(first, utf8Encode('typed pq digesT'), publicKey)).toBe(false);
    expect(provider.mldsa65Verify(first.subarray(1), message, publicKey)).toBe(false);
    expect(provider.mldsa65Verify(first, message, publicKey.subarray(1))).toBe(false);
    expect(provider.mldsa65Verify('sig' as unknown as Uint8Array, message, publicKey)).toBe(false);
    expect(() => provider.mldsa65KeyGen(new Uint8Array(31))).toThrow(RangeError);
    expect(() => provider.mldsa65Sign(message, secretKey.subarray(1))).toThrow(RangeError);
  });
});

describe('portable provider: randomBytes', () => {
  it('returns the requested length, beyond one getRandomValues call', () => {
    expect(provider.randomBytes(0)).toHaveLength(0);
    const large = provider.randomBytes(70_000);
    expect(large).toHaveLength(70_000);
    // The last chunk is filled too: 4,464 zero bytes in a row would be astronomically unlikely.
    expect(large.subarray(65_536).some((byte) => byte !== 0)).toBe(true);
    expect(equalBytes(provider.randomBytes(32), provider.randomBytes(32))).toBe(false);
    expect(() => provider.randomBytes(-1)).toThrow(RangeError);
    expect(() => provider.randomBytes(1.5)).toThrow(RangeError);
    expect(() => provider.randomBytes('8' as unknown as number)).toThrow(TypeError);
  });
});
