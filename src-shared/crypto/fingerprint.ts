/**
 * Key fingerprints a person can read aloud (docs/protocol.md, "Key fingerprints").
 *
 * A fingerprint is the first 128 bits of SHA-256 over the raw public key bytes (the 32 bytes of
 * an Ed25519 key, the 1,952 bytes of an ML-DSA-65 key), written as 8 groups of 4 uppercase hex
 * digits joined by hyphens: `3F2A-9C01-77B0-12DE-4A5C-0F19-E2D3-8B64`. The receiver reads it to
 * the sender over the phone; both compare it with what their own tool shows. 128 bits keep a
 * second key with the same fingerprint out of reach (2^128 work for a second preimage), and 32
 * hex digits in 8 groups are short enough to read out without losing one's place.
 *
 * A key without a key id (an ML-DSA-65 key carried inline by a document) is named by
 * {@link fingerprintKeyId}: `key-fingerprint:` and its fingerprint, a valid opaque key id.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { b64uDecode, hexEncode } from './encoding';

/** Bytes of the SHA-256 digest a fingerprint keeps (128 bits). */
export const FINGERPRINT_BYTES = 16;

/** The prefix of the key id {@link fingerprintKeyId} gives a key that has no key id. */
export const FINGERPRINT_KEY_ID_PREFIX = 'key-fingerprint:';

/** The shape of a fingerprint: 8 groups of 4 uppercase hex digits joined by hyphens. */
export const FINGERPRINT_PATTERN = /^[0-9A-F]{4}(?:-[0-9A-F]{4}){7}$/;

// Keys of pinned and advertised entries are the same arrays document after document.
const cache = new WeakMap<Uint8Array, string>();

/**
 * The fingerprint of a public key, to read aloud and compare.
 *
 * @param publicKey - The raw public key bytes (not base64, not a did:key).
 * @returns e.g. `3F2A-9C01-77B0-12DE-4A5C-0F19-E2D3-8B64`.
 * @throws TypeError if `publicKey` is not a Uint8Array; RangeError if it is empty.
 * @example keyFingerprint(new Uint8Array(32)) // '6668-7AAD-F862-BD77-6C8F-C18B-8E9F-8E20'
 */
export function keyFingerprint(publicKey: Uint8Array): string {
  if (!(publicKey instanceof Uint8Array)) throw new TypeError('keyFingerprint expects the public key bytes');
  if (publicKey.length === 0) throw new RangeError('keyFingerprint: the public key is empty');
  const known = cache.get(publicKey);
  if (known !== undefined) return known;
  const hex = hexEncode(sha256(publicKey).subarray(0, FINGERPRINT_BYTES)).toUpperCase();
  const groups: string[] = [];
  for (let index = 0; index < hex.length; index += 4) groups.push(hex.slice(index, index + 4));
  const fingerprint = groups.join('-');
  cache.set(publicKey, fingerprint);
  return fingerprint;
}

/**
 * A key id for a key that has none (an inline ML-DSA-65 key): `key-fingerprint:` and its
 * fingerprint.
 *
 * @param publicKey - The raw public key bytes.
 * @returns e.g. `key-fingerprint:3F2A-9C01-77B0-12DE-4A5C-0F19-E2D3-8B64`.
 * @throws TypeError if `publicKey` is not a Uint8Array; RangeError if it is empty.
 */
export function fingerprintKeyId(publicKey: Uint8Array): string {
  return `${FINGERPRINT_KEY_ID_PREFIX}${keyFingerprint(publicKey)}`;
}

/**
 * The fingerprint of a public key given as unpadded base64url (the app API's and key files'
 * form), or undefined when the text is not base64url of a non-empty key.
 *
 * @param publicKey - The key as b64u text.
 * @returns The fingerprint, or undefined.
 */
export function keyFingerprintOfB64u(publicKey: string): string | undefined {
  try {
    return keyFingerprint(b64uDecode(publicKey));
  } catch {
    return undefined;
  }
}
