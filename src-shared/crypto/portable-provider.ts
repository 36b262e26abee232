/**
 * The portable crypto provider: pure JavaScript on @noble/*, for browsers and as the reference.
 *
 * Ed25519 verification follows the strict rules of ./ed25519-strict (shared with the node:crypto
 * provider); signing and key derivation are noble's RFC 8032 code. ML-DSA-65 is FIPS 204 pure
 * mode with an empty context. Randomness comes from `globalThis.crypto.getRandomValues`, which
 * Node 20, Electron and every supported browser provide.
 */
import { gcm } from '@noble/ciphers/aes.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { blake3 } from '@noble/hashes/blake3.js';
import { sha256, sha384 } from '@noble/hashes/sha2.js';
import { randomBytes as nobleRandomBytes } from '@noble/hashes/utils.js';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';

import { assertBytes, assertIndex, isBytes } from './assert';
import { concatBytes } from './encoding';
import { ED25519_LENGTHS, ed25519VerifyStrict } from './ed25519-strict';
import { AuthenticationError } from './provider';
import type { CryptoProvider } from './provider';

/** Byte lengths of ML-DSA-65 (FIPS 204 table 2) and of its key-generation seed. */
export const MLDSA65_LENGTHS = Object.freeze({
  publicKey: 1952,
  secretKey: 4032,
  signature: 3309,
  seed: 32,
});

/** Byte lengths the providers accept for AES-256-GCM (PROTOCOL section 5: 12-byte IV). */
export const AES256GCM_LENGTHS = Object.freeze({ key: 32, iv: 12, tag: 16 });

/** getRandomValues refuses more than 65,536 bytes per call (Web Crypto section 10.1.1). */
const RANDOM_CHUNK = 65536;

/**
 * Checks the arguments every AES-256-GCM call shares, so both providers refuse the same inputs
 * with the same errors.
 *
 * @param operation - the calling method's name, for messages
 * @param key - must be 32 bytes
 * @param iv - must be 12 bytes
 * @param data - the plaintext or ciphertext, any length
 * @param aad - optional additional authenticated data
 * @throws TypeError when an argument is not a Uint8Array
 * @throws RangeError when the key is not 32 bytes or the IV not 12 bytes
 */
export function assertAesArguments(operation: string, key: unknown, iv: unknown, data: unknown, aad: unknown): void {
  assertBytes(key, `${operation}: key`, AES256GCM_LENGTHS.key);
  assertBytes(iv, `${operation}: iv`, AES256GCM_LENGTHS.iv);
  assertBytes(data, `${operation}: data`);
  if (aad !== undefined) assertBytes(aad, `${operation}: aad`);
}

/**
 * Creates the portable provider.
 *
 * @returns a CryptoProvider named `portable`
 * @example
 * const crypto = createPortableProvider();
 * crypto.ed25519Verify(signature, message, publicKey); // true or false, never throws
 */
export function createPortableProvider(): CryptoProvider {
  return Object.freeze({
    name: 'portable',
    ed25519Verify: ed25519VerifyStrict,
    ed25519Sign: portableEd25519Sign,
    ed25519PublicKey: portableEd25519PublicKey,
    sha256: portableSha256,
    sha384: portableSha384,
    blake3: portableBlake3,
    mldsa65Verify: portableMldsa65Verify,
    mldsa65Sign: portableMldsa65Sign,
    mldsa65KeyGen: portableMldsa65KeyGen,
    aes256gcmDecrypt: portableAes256gcmDecrypt,
    aes256gcmEncrypt: portableAes256gcmEncrypt,
    randomBytes: portableRandomBytes,
  });
}

function portableEd25519Sign(message: Uint8Array, secretSeed: Uint8Array): Uint8Array {
  assertBytes(message, 'ed25519Sign: message');
  assertBytes(secretSeed, 'ed25519Sign: secretSeed', ED25519_LENGTHS.secretSeed);
  return ed25519.sign(message, secretSeed);
}

function portableEd25519PublicKey(secretSeed: Uint8Array): Uint8Array {
  assertBytes(secretSeed, 'ed25519PublicKey: secretSeed', ED25519_LENGTHS.secretSeed);
  return ed25519.getPublicKey(secretSeed);
}

function portableSha256(data: Uint8Array): Uint8Array {
  assertBytes(data, 'sha256: data');
  return sha256(data);
}

function portableSha384(data: Uint8Array): Uint8Array {
  assertBytes(data, 'sha384: data');
  return sha384(data);
}

function portableBlake3(data: Uint8Array): Uint8Array {
  assertBytes(data, 'blake3: data');
  return blake3(data);
}

/**
 * ML-DSA-65 verification, FIPS 204 pure mode with an empty context.
 *
 * @returns false for a failing signature and for any malformed argument; never throws
 */
function portableMldsa65Verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (!isBytes(signature) || !isBytes(message) || !isBytes(publicKey)) return false;
  if (signature.length !== MLDSA65_LENGTHS.signature || publicKey.length !== MLDSA65_LENGTHS.publicKey) {
    return false;
  }
  try {
    return ml_dsa65.verify(signature, message, publicKey);
  } catch {
    return false;
  }
}

/**
 * ML-DSA-65 hedged signature, FIPS 204 pure mode with an empty context.
 *
 * @throws TypeError when an argument is not a Uint8Array
 * @throws RangeError when the secret key is not 4032 bytes
 */
function portableMldsa65Sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  assertBytes(message, 'mldsa65Sign: message');
  assertBytes(secretKey, 'mldsa65Sign: secretKey', MLDSA65_LENGTHS.secretKey);
  return ml_dsa65.sign(message, secretKey);
}

/**
 * ML-DSA-65 key pair (FIPS 204 ML-DSA.KeyGen_internal) from a 32-byte seed, random if omitted.
 *
 * @throws TypeError when the seed is not a Uint8Array
 * @throws RangeError when the seed is not 32 bytes
 */
function portableMldsa65KeyGen(seed?: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  if (seed !== undefined) assertBytes(seed, 'mldsa65KeyGen: seed', MLDSA65_LENGTHS.seed);
  const { publicKey, secretKey } = ml_dsa65.keygen(seed ?? portableRandomBytes(MLDSA65_LENGTHS.seed));
  return { publicKey, secretKey };
}

function portableAes256gcmDecrypt(
  key: Uint8Array,
  iv: Uint8Array,
  ciphertext: Uint8Array,
  tag: Uint8Array,
  aad?: Uint8Array,
): Uint8Array {
  assertAesArguments('aes256gcmDecrypt', key, iv, ciphertext, aad);
  assertBytes(tag, 'aes256gcmDecrypt: tag', AES256GCM_LENGTHS.tag);
  try {
    return gcm(key, iv, aad).decrypt(concatBytes(ciphertext, tag));
  } catch {
    // Arguments are checked above, so the only failure left is the tag.
    throw new AuthenticationError();
  }
}

function portableAes256gcmEncrypt(
  key: Uint8Array,
  iv: Uint8Array,
  plaintext: Uint8Array,
  aad?: Uint8Array,
): { ciphertext: Uint8Array; tag: Uint8Array } {
  assertAesArguments('aes256gcmEncrypt', key, iv, plaintext, aad);
  const sealed = gcm(key, iv, aad).encrypt(plaintext);
  const split = sealed.length - AES256GCM_LENGTHS.tag;
  return { ciphertext: sealed.slice(0, split), tag: sealed.slice(split) };
}

function portableRandomBytes(length: number): Uint8Array {
  assertIndex(length, 'randomBytes: length');
  const bytes = new Uint8Array(length);
  for (let offset = 0; offset < length; offset += RANDOM_CHUNK) {
    bytes.set(nobleRandomBytes(Math.min(RANDOM_CHUNK, length - offset)), offset);
  }
  return bytes;
}
