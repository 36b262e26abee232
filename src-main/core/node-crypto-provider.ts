/**
 * The node:crypto provider: OpenSSL for Ed25519, SHA-256 and AES-256-GCM (the fast path).
 *
 * Ed25519 verification applies the shared strict rules (src-shared/crypto/ed25519-strict)
 * around OpenSSL's cofactorless check: lengths and S < L are checked here on every call, and
 * the public key's canonical encoding and non-small order once per key, because OpenSSL reduces
 * a non-canonical y and accepts small-order keys. The KeyObject of each accepted key is kept in
 * a bounded LRU cache: bulk verification sees few distinct keys, and building a KeyObject costs
 * about as much as a verification.
 *
 * BLAKE3 and ML-DSA-65 delegate to the portable provider: OpenSSL 3.0 (Node 20) has neither.
 */
import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  hash,
  randomFillSync,
  sign,
  verify,
} from 'node:crypto';
import type { KeyObject } from 'node:crypto';

import {
  AES256GCM_LENGTHS,
  AuthenticationError,
  ED25519_LENGTHS,
  assertAesArguments,
  assertBytes,
  assertIndex,
  bytesKey,
  createPortableProvider,
  ed25519SignatureHasCanonicalS,
  ed25519IsStrictPublicKey,
  isBytes,
} from '../../src-shared/crypto/index';
import type { CryptoProvider } from '../../src-shared/crypto/index';

/** DER SubjectPublicKeyInfo header for a raw Ed25519 key (RFC 8410 section 4). */
const ED25519_SPKI_PREFIX = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);
/** DER PKCS #8 header for a raw Ed25519 seed (RFC 8410 section 7). */
const ED25519_PKCS8_PREFIX = Uint8Array.of(
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
);
/** Default number of public keys kept; a KeyObject is a few hundred bytes. */
const DEFAULT_KEY_CACHE_SIZE = 1024;

/** Options of `createNodeCryptoProvider`. */
export interface NodeCryptoProviderOptions {
  /** How many distinct Ed25519 public keys to keep as KeyObjects (default 1024, minimum 1). */
  readonly keyCacheSize?: number;
}

/**
 * Creates the node:crypto provider.
 *
 * Each provider has its own key cache; create one per process or worker and share it.
 *
 * @param options - cache tuning
 * @returns a CryptoProvider named `node`
 * @throws RangeError when `keyCacheSize` is not a positive integer
 * @example
 * const crypto = createNodeCryptoProvider();
 * crypto.ed25519Verify(signature, message, publicKey); // true or false, never throws
 */
export function createNodeCryptoProvider(options: NodeCryptoProviderOptions = {}): CryptoProvider {
  const keyCacheSize = options.keyCacheSize ?? DEFAULT_KEY_CACHE_SIZE;
  assertIndex(keyCacheSize, 'createNodeCryptoProvider: keyCacheSize');
  if (keyCacheSize < 1) throw new RangeError('createNodeCryptoProvider: keyCacheSize must be at least 1');
  const portable = createPortableProvider();
  const publicKeys = createKeyCache(keyCacheSize);

  function ed25519Verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
    if (!isBytes(signature) || !isBytes(message) || !isBytes(publicKey)) return false;
    if (signature.length !== ED25519_LENGTHS.signature || publicKey.length !== ED25519_LENGTHS.publicKey) {
      return false;
    }
    // OpenSSL checks S < L too; checking here keeps the rule independent of the OpenSSL build.
    if (!ed25519SignatureHasCanonicalS(signature)) return false;
    const keyObject = publicKeys.get(publicKey);
    if (keyObject === undefined) return false;
    try {
      return verify(null, message, keyObject, signature);
    } catch {
      return false;
    }
  }

  return Object.freeze({
    name: 'node',
    ed25519Verify,
    ed25519Sign: nodeEd25519Sign,
    ed25519PublicKey: nodeEd25519PublicKey,
    sha256: nodeSha256,
    sha384: nodeSha384,
    blake3: portable.blake3,
    mldsa65Verify: portable.mldsa65Verify,
    mldsa65Sign: portable.mldsa65Sign,
    mldsa65KeyGen: portable.mldsa65KeyGen,
    aes256gcmDecrypt: nodeAes256gcmDecrypt,
    aes256gcmEncrypt: nodeAes256gcmEncrypt,
    randomBytes: nodeRandomBytes,
  });
}

/**
 * A least-recently-used map from raw public key to KeyObject, or to `undefined` for a key the
 * strict rules refuse (remembered too, so repeated garbage costs one lookup).
 */
function createKeyCache(capacity: number): { get(publicKey: Uint8Array): KeyObject | undefined } {
  // A Map iterates in insertion order, so re-inserting on use keeps the oldest entry first.
  const entries = new Map<string, KeyObject | undefined>();
  let newestId = '';
  return {
    get(publicKey: Uint8Array): KeyObject | undefined {
      const id = bytesKey(publicKey);
      if (entries.has(id)) {
        const keyObject = entries.get(id);
        // Bulk verification repeats one key: skip the re-insertion when it is already newest.
        if (id !== newestId) {
          entries.delete(id);
          entries.set(id, keyObject);
          newestId = id;
        }
        return keyObject;
      }
      const keyObject = ed25519IsStrictPublicKey(publicKey) ? importPublicKey(publicKey) : undefined;
      if (entries.size >= capacity) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
      entries.set(id, keyObject);
      newestId = id;
      return keyObject;
    },
  };
}

function importPublicKey(publicKey: Uint8Array): KeyObject | undefined {
  const der = new Uint8Array(ED25519_SPKI_PREFIX.length + publicKey.length);
  der.set(ED25519_SPKI_PREFIX, 0);
  der.set(publicKey, ED25519_SPKI_PREFIX.length);
  try {
    return createPublicKey({
      key: Buffer.from(der.buffer, der.byteOffset, der.byteLength),
      format: 'der',
      type: 'spki',
    });
  } catch {
    return undefined;
  }
}

function importSecretSeed(secretSeed: Uint8Array): KeyObject {
  const der = new Uint8Array(ED25519_PKCS8_PREFIX.length + secretSeed.length);
  der.set(ED25519_PKCS8_PREFIX, 0);
  der.set(secretSeed, ED25519_PKCS8_PREFIX.length);
  try {
    return createPrivateKey({
      key: Buffer.from(der.buffer, der.byteOffset, der.byteLength),
      format: 'der',
      type: 'pkcs8',
    });
  } finally {
    // The KeyObject holds its own copy inside OpenSSL; do not leave the seed in this buffer.
    der.fill(0);
  }
}

/**
 * Signing keys already imported, by the seed array that was signed with. Importing a seed
 * (PKCS #8 into OpenSSL) costs about ten times the signature itself, and a service signs every
 * receipt with one long-lived seed. Keyed by the array's identity and checked against the
 * SHA-256 of its bytes (no copy of the seed is kept), so a seed that was wiped (`fill(0)`) or
 * reused for another key is imported afresh; a WeakMap lets the entry go with the array.
 */
const importedSeeds = new WeakMap<Uint8Array, { digest: string; key: KeyObject }>();

function signingKey(secretSeed: Uint8Array): KeyObject {
  const digest = hash('sha256', secretSeed, 'base64');
  const known = importedSeeds.get(secretSeed);
  if (known !== undefined && known.digest === digest) return known.key;
  const key = importSecretSeed(secretSeed);
  importedSeeds.set(secretSeed, { digest, key });
  return key;
}

function nodeEd25519Sign(message: Uint8Array, secretSeed: Uint8Array): Uint8Array {
  assertBytes(message, 'ed25519Sign: message');
  assertBytes(secretSeed, 'ed25519Sign: secretSeed', ED25519_LENGTHS.secretSeed);
  return plainBytes(sign(null, message, signingKey(secretSeed)));
}

function nodeEd25519PublicKey(secretSeed: Uint8Array): Uint8Array {
  assertBytes(secretSeed, 'ed25519PublicKey: secretSeed', ED25519_LENGTHS.secretSeed);
  const spki = createPublicKey(importSecretSeed(secretSeed)).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(ED25519_SPKI_PREFIX.length));
}

function nodeSha256(data: Uint8Array): Uint8Array {
  assertBytes(data, 'sha256: data');
  return plainBytes(hash('sha256', data, 'buffer'));
}

function nodeSha384(data: Uint8Array): Uint8Array {
  assertBytes(data, 'sha384: data');
  return plainBytes(hash('sha384', data, 'buffer'));
}

function nodeAes256gcmDecrypt(
  key: Uint8Array,
  iv: Uint8Array,
  ciphertext: Uint8Array,
  tag: Uint8Array,
  aad?: Uint8Array,
): Uint8Array {
  assertAesArguments('aes256gcmDecrypt', key, iv, ciphertext, aad);
  assertBytes(tag, 'aes256gcmDecrypt: tag', AES256GCM_LENGTHS.tag);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: AES256GCM_LENGTHS.tag });
  decipher.setAuthTag(tag);
  if (aad !== undefined) decipher.setAAD(aad);
  const plaintext = decipher.update(ciphertext);
  try {
    decipher.final();
  } catch {
    // Do not let unauthenticated plaintext linger.
    plaintext.fill(0);
    throw new AuthenticationError();
  }
  return plainBytes(plaintext);
}

function nodeAes256gcmEncrypt(
  key: Uint8Array,
  iv: Uint8Array,
  plaintext: Uint8Array,
  aad?: Uint8Array,
): { ciphertext: Uint8Array; tag: Uint8Array } {
  assertAesArguments('aes256gcmEncrypt', key, iv, plaintext, aad);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: AES256GCM_LENGTHS.tag });
  if (aad !== undefined) cipher.setAAD(aad);
  const ciphertext = cipher.update(plaintext);
  cipher.final(); // GCM is a stream mode: final() yields no bytes, it computes the tag
  return { ciphertext: plainBytes(ciphertext), tag: plainBytes(cipher.getAuthTag()) };
}

function nodeRandomBytes(length: number): Uint8Array {
  assertIndex(length, 'randomBytes: length');
  return randomFillSync(new Uint8Array(length));
}

/**
 * A plain Uint8Array with the bytes of a Buffer, so both providers return the same type.
 *
 * Small Buffers are slices of a shared 8 KiB pool; those are copied so that `.buffer` of the
 * result holds exactly the result.
 */
function plainBytes(buffer: Buffer): Uint8Array {
  if (buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength) {
    return new Uint8Array(buffer.buffer, 0, buffer.byteLength);
  }
  return new Uint8Array(buffer);
}
