/**
 * Hybrid Public Key Encryption (RFC 9180), base mode, one suite, single-shot.
 *
 * Suite: DHKEM(X25519, HKDF-SHA256) (kem_id 0x0020), HKDF-SHA256 (kdf_id 0x0001),
 * ChaCha20Poly1305 (aead_id 0x0003). Only `mode_base` (0x00) and only the single-shot API of
 * section 6.1 (one message per encapsulation, sequence number 0), which is all a sealed API key
 * needs (docs/protocol.md, "Delivery of bought keys"). Written from the RFC's text on @noble's
 * X25519, HKDF and ChaCha20-Poly1305; hpke.test.ts holds it to the RFC's Appendix A.2.1 vector
 * and to an independent implementation (@hpke/core) both ways.
 *
 * Also the Edwards-to-Montgomery maps, so an Ed25519 identity (a did:key) can receive: the
 * public key by the birational map u = (1 + y) / (1 - y), the secret by clamping the first half
 * of SHA-512(seed), as Ed25519 itself does (noble's `toMontgomery` / `toMontgomerySecret`).
 */
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { expand, extract } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { randomBytes } from '@noble/hashes/utils.js';
import { assertBytes, describeType, isBytes } from './assert';
import { concatBytes, utf8Encode } from './encoding';

/** X25519 public and secret keys, enc, and the DH output: Npk = Nsk = Ndh = 32 (RFC 9180 7.1). */
const X25519_LENGTH = 32;
/** Nsecret of DHKEM(X25519, HKDF-SHA256). */
const N_SECRET = 32;
/** ChaCha20Poly1305: Nk 32, Nn 12, Nt 16 (RFC 9180 7.3). */
const N_K = 32;
const N_N = 12;
const N_T = 16;
const MODE_BASE = 0x00;
const KEM_ID = 0x0020;
const KDF_ID = 0x0001;
const AEAD_ID = 0x0003;

/** The labels' version prefix (RFC 9180 section 4). */
const HPKE_V1 = utf8Encode('HPKE-v1');
/** suite_id of the KEM: "KEM" || I2OSP(kem_id, 2) (section 4.1). */
const KEM_SUITE_ID = concatBytes(utf8Encode('KEM'), i2osp2(KEM_ID));
/** suite_id of the key schedule: "HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) || I2OSP(aead_id, 2) (section 5.1). */
const HPKE_SUITE_ID = concatBytes(utf8Encode('HPKE'), i2osp2(KEM_ID), i2osp2(KDF_ID), i2osp2(AEAD_ID));
const EMPTY = new Uint8Array(0);

/** The three algorithm identifiers of the suite, as RFC 9180 section 7 numbers them. */
export const HPKE_SUITE = { kemId: KEM_ID, kdfId: KDF_ID, aeadId: AEAD_ID } as const;

/** What {@link hpkeSeal} returns: the encapsulated key and the AEAD ciphertext (tag included). */
export interface HpkeSealed {
  /** The sender's ephemeral X25519 public key (32 bytes). */
  enc: Uint8Array;
  /** ChaCha20Poly1305 ciphertext of the plaintext, 16 bytes longer than it. */
  ciphertext: Uint8Array;
}

/** Test seams of {@link hpkeSeal}; never set outside tests. */
export interface HpkeSealOptions {
  /**
   * For tests only: the input keying material the ephemeral key pair is derived from
   * (DeriveKeyPair(ikmE), RFC 9180 section 7.1.3), so an encapsulation is reproducible and
   * Appendix A's vectors can be checked. Without it, 32 fresh random bytes are used, as
   * GenerateKeyPair allows. Reusing an ikm reuses the ephemeral key: never do that for real.
   */
  ephemeralIkm?: Uint8Array;
}

/** I2OSP(n, 2): two big-endian bytes. */
function i2osp2(value: number): Uint8Array {
  return Uint8Array.of((value >> 8) & 0xff, value & 0xff);
}

/** LabeledExtract(salt, label, ikm) = Extract(salt, "HPKE-v1" || suite_id || label || ikm) (section 4). */
function labeledExtract(suiteId: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array): Uint8Array {
  return extract(sha256, concatBytes(HPKE_V1, suiteId, utf8Encode(label), ikm), salt);
}

/** LabeledExpand(prk, label, info, L) = Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L) (section 4). */
function labeledExpand(
  suiteId: Uint8Array,
  prk: Uint8Array,
  label: string,
  info: Uint8Array,
  length: number,
): Uint8Array {
  return expand(sha256, prk, concatBytes(i2osp2(length), HPKE_V1, suiteId, utf8Encode(label), info), length);
}

/** DeriveKeyPair(ikm) for X25519 (section 7.1.3): the secret key is LabeledExpand of dkp_prk. */
function deriveSecretKey(ikm: Uint8Array): Uint8Array {
  const dkpPrk = labeledExtract(KEM_SUITE_ID, EMPTY, 'dkp_prk', ikm);
  const secret = labeledExpand(KEM_SUITE_ID, dkpPrk, 'sk', EMPTY, X25519_LENGTH);
  dkpPrk.fill(0);
  return secret;
}

/**
 * DH(sk, pk) with the all-zero check section 7.1.4 requires for X25519 (a low-order public key).
 * noble refuses such points itself; the check stays so the rule does not rest on a dependency.
 */
function diffieHellman(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  let shared: Uint8Array;
  try {
    shared = x25519.getSharedSecret(secretKey, publicKey);
  } catch {
    throw new RangeError('HPKE: the X25519 public key is not usable (a low-order point)');
  }
  if (shared.every((byte) => byte === 0)) throw new RangeError('HPKE: the X25519 shared secret is all zero');
  return shared;
}

/** ExtractAndExpand(dh, kem_context) of DHKEM (section 4.1). */
function kemSharedSecret(dh: Uint8Array, enc: Uint8Array, recipientPublic: Uint8Array): Uint8Array {
  const eaePrk = labeledExtract(KEM_SUITE_ID, EMPTY, 'eae_prk', dh);
  const shared = labeledExpand(KEM_SUITE_ID, eaePrk, 'shared_secret', concatBytes(enc, recipientPublic), N_SECRET);
  eaePrk.fill(0);
  return shared;
}

/** KeySchedule(mode_base, shared_secret, info, "", "") (section 5.1): the AEAD key and base nonce. */
function keySchedule(sharedSecret: Uint8Array, info: Uint8Array): { key: Uint8Array; baseNonce: Uint8Array } {
  const pskIdHash = labeledExtract(HPKE_SUITE_ID, EMPTY, 'psk_id_hash', EMPTY);
  const infoHash = labeledExtract(HPKE_SUITE_ID, EMPTY, 'info_hash', info);
  const context = concatBytes(Uint8Array.of(MODE_BASE), pskIdHash, infoHash);
  const secret = labeledExtract(HPKE_SUITE_ID, sharedSecret, 'secret', EMPTY);
  const key = labeledExpand(HPKE_SUITE_ID, secret, 'key', context, N_K);
  // Single-shot: the one message has sequence number 0, so its nonce is base_nonce XOR 0.
  const baseNonce = labeledExpand(HPKE_SUITE_ID, secret, 'base_nonce', context, N_N);
  secret.fill(0);
  return { key, baseNonce };
}

function assertByteArgument(value: unknown, name: string): asserts value is Uint8Array {
  if (!isBytes(value)) throw new TypeError(`${name} must be a Uint8Array, got ${describeType(value)}`);
}

/**
 * Encrypts one message to an X25519 public key: RFC 9180 SealBase, single-shot.
 *
 * @param recipientX25519Public - the recipient's 32-byte X25519 public key (pkR)
 * @param plaintext - the message
 * @param info - application context bound into the key schedule
 * @param aad - additional data authenticated with the ciphertext (not encrypted)
 * @param options - test seams only ({@link HpkeSealOptions})
 * @returns `enc` (32 bytes) and the ciphertext (plaintext length + 16)
 * @throws TypeError when an argument is not a Uint8Array
 * @throws RangeError when the public key is not 32 bytes or is a low-order point
 * @example const { enc, ciphertext } = hpkeSeal(pkR, utf8Encode('secret'), info, aad)
 */
export function hpkeSeal(
  recipientX25519Public: Uint8Array,
  plaintext: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
  options: HpkeSealOptions = {},
): HpkeSealed {
  assertBytes(recipientX25519Public, 'hpkeSeal: recipientX25519Public', X25519_LENGTH);
  assertByteArgument(plaintext, 'hpkeSeal: plaintext');
  assertByteArgument(info, 'hpkeSeal: info');
  assertByteArgument(aad, 'hpkeSeal: aad');
  if (options.ephemeralIkm !== undefined) assertByteArgument(options.ephemeralIkm, 'hpkeSeal: options.ephemeralIkm');
  const ikm = options.ephemeralIkm ?? randomBytes(X25519_LENGTH);
  const ephemeralSecret = deriveSecretKey(ikm);
  if (options.ephemeralIkm === undefined) ikm.fill(0);
  try {
    const enc = x25519.getPublicKey(ephemeralSecret);
    const dh = diffieHellman(ephemeralSecret, recipientX25519Public);
    const sharedSecret = kemSharedSecret(dh, enc, recipientX25519Public);
    dh.fill(0);
    const { key, baseNonce } = keySchedule(sharedSecret, info);
    sharedSecret.fill(0);
    const ciphertext = chacha20poly1305(key, baseNonce, aad).encrypt(plaintext);
    key.fill(0);
    return { enc, ciphertext };
  } finally {
    ephemeralSecret.fill(0);
  }
}

/**
 * Decrypts one message sealed by {@link hpkeSeal}: RFC 9180 OpenBase, single-shot.
 *
 * Every failure after the argument checks (a wrong key, an altered enc, ciphertext, info or
 * aad) is the same Error, so a caller learns nothing about which part was wrong.
 *
 * @param recipientX25519Secret - the recipient's 32-byte X25519 secret key (skR)
 * @param enc - the encapsulated key (32 bytes)
 * @param ciphertext - the AEAD ciphertext with its 16-byte tag
 * @param info - the same info the sender used
 * @param aad - the same additional data the sender used
 * @returns the plaintext
 * @throws TypeError when an argument is not a Uint8Array
 * @throws RangeError when the secret key or enc is not 32 bytes, or the ciphertext is shorter than a tag
 * @throws Error `HPKE: cannot open` when decryption fails
 * @example const plaintext = hpkeOpen(skR, enc, ciphertext, info, aad)
 */
export function hpkeOpen(
  recipientX25519Secret: Uint8Array,
  enc: Uint8Array,
  ciphertext: Uint8Array,
  info: Uint8Array,
  aad: Uint8Array,
): Uint8Array {
  assertBytes(recipientX25519Secret, 'hpkeOpen: recipientX25519Secret', X25519_LENGTH);
  assertBytes(enc, 'hpkeOpen: enc', X25519_LENGTH);
  assertByteArgument(ciphertext, 'hpkeOpen: ciphertext');
  assertByteArgument(info, 'hpkeOpen: info');
  assertByteArgument(aad, 'hpkeOpen: aad');
  if (ciphertext.length < N_T) {
    throw new RangeError(`hpkeOpen: ciphertext must be at least ${N_T} bytes (the tag), got ${ciphertext.length}`);
  }
  let dh: Uint8Array;
  try {
    dh = diffieHellman(recipientX25519Secret, enc);
  } catch {
    throw new Error('HPKE: cannot open (the encapsulated key is not usable)');
  }
  const recipientPublic = x25519.getPublicKey(recipientX25519Secret);
  const sharedSecret = kemSharedSecret(dh, enc, recipientPublic);
  dh.fill(0);
  const { key, baseNonce } = keySchedule(sharedSecret, info);
  sharedSecret.fill(0);
  try {
    return chacha20poly1305(key, baseNonce, aad).decrypt(ciphertext);
  } catch {
    throw new Error('HPKE: cannot open (wrong key, or the message, enc, info or aad was altered)');
  } finally {
    key.fill(0);
  }
}

/**
 * The X25519 public key of an Ed25519 public key (the birational map u = (1 + y) / (1 - y)).
 *
 * @param pub - a 32-byte Ed25519 public key
 * @returns the 32-byte X25519 public key
 * @throws TypeError when `pub` is not a Uint8Array
 * @throws RangeError when it is not 32 bytes or not a point of the curve
 * @example const pkR = x25519FromEd25519Public(ed25519FromDidKey(did))
 */
export function x25519FromEd25519Public(pub: Uint8Array): Uint8Array {
  assertBytes(pub, 'x25519FromEd25519Public: pub', X25519_LENGTH);
  try {
    return ed25519.utils.toMontgomery(pub);
  } catch {
    throw new RangeError('x25519FromEd25519Public: pub is not an Ed25519 public key (not a curve point)');
  }
}

/**
 * The X25519 secret key of an Ed25519 seed: the clamped first half of SHA-512(seed) (RFC 8032 5.1.5).
 *
 * Its X25519 public key is {@link x25519FromEd25519Public} of the seed's Ed25519 public key.
 *
 * @param seed - a 32-byte Ed25519 secret key (seed)
 * @returns the 32-byte X25519 secret key; wipe it with `fill(0)` when done
 * @throws TypeError when `seed` is not a Uint8Array
 * @throws RangeError when it is not 32 bytes
 * @example const skR = x25519FromEd25519Seed(seed)
 */
export function x25519FromEd25519Seed(seed: Uint8Array): Uint8Array {
  assertBytes(seed, 'x25519FromEd25519Seed: seed', X25519_LENGTH);
  return ed25519.utils.toMontgomerySecret(seed);
}
