/**
 * Strict Ed25519 verification rules shared by every provider (PROTOCOL section 0).
 *
 * The rule set is the one OpenSSL applies plus two checks OpenSSL lacks, so that the portable
 * (noble) and node:crypto (OpenSSL) providers give the same answer on every input:
 *
 * 1. signature 64 bytes, public key 32 bytes;
 * 2. S < L (the group order): no malleable signatures;
 * 3. the public key is a canonical encoding (y < p, and not x = 0 with the sign bit set) of a
 *    curve point (OpenSSL reduces y mod p instead: added check);
 * 4. the public key is not one of the 8 small-order points, which would let one signature
 *    verify for many messages (OpenSSL accepts them: added check);
 * 5. the cofactorless equation with a byte comparison: encode([S]B - [k]A) must equal the R
 *    bytes, k = SHA-512(R || A || M) mod L. A non-canonical R therefore never verifies.
 *
 * Rule 5 is OpenSSL's equation. noble's own strict verify uses the cofactored equation
 * ([8][S]B = [8]R + [8][k]A), which also accepts signatures whose R carries a small-order
 * component or whose key has one; a per-signature subgroup check on the OpenSSL side would cost
 * as much as the verification itself, so the portable side uses the cofactorless equation
 * instead. RFC 8032 section 5.1.7 allows either; Wycheproof's Ed25519 vectors pass with both.
 */
import type { EdwardsPoint } from '@noble/curves/abstract/edwards.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';

import { isBytes } from './assert';
import { equalBytes } from './encoding';

const Point = ed25519.Point;
/** L = 2^252 + 27742317777372353535851937790883648493, the prime order of the base point. */
const GROUP_ORDER = Point.Fn.ORDER;
/** L as 32 little-endian bytes, for a scalar check that needs no bigint. */
const GROUP_ORDER_BYTES: Uint8Array = littleEndian(GROUP_ORDER, 32);

/** The byte lengths of Ed25519 keys, seeds and signatures. */
export const ED25519_LENGTHS = Object.freeze({ publicKey: 32, secretSeed: 32, signature: 64 });

function littleEndian(value: bigint, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let rest = value;
  for (let index = 0; index < length; index++) {
    bytes[index] = Number(rest & 255n);
    rest >>= 8n;
  }
  return bytes;
}

function numberFromLittleEndian(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let index = bytes.length - 1; index >= 0; index--) value = (value << 8n) | BigInt(bytes[index] ?? 0);
  return value;
}

/**
 * Whether 32 little-endian bytes encode a scalar below the group order L.
 *
 * This is the S range check of RFC 8032 section 5.1.7; a signature whose S is L or more is
 * malleable and is refused.
 *
 * @param scalar - the S half of a signature (32 bytes)
 * @returns true when `scalar` has 32 bytes and its value is < L; false otherwise
 */
export function ed25519IsCanonicalScalar(scalar: Uint8Array): boolean {
  return isBytes(scalar) && scalar.length === 32 && scalarBelowOrder(scalar, 0);
}

/**
 * Whether the S half of a 64-byte signature R || S is below the group order L.
 *
 * The same check as {@link ed25519IsCanonicalScalar} on bytes 32..63, read in place: a
 * `subarray` of a small typed array makes V8 move its bytes off the heap, which costs more than
 * the check itself on the bulk verification path.
 *
 * @param signature - a signature (64 bytes)
 * @returns true when `signature` has 64 bytes and its S is < L; false otherwise
 */
export function ed25519SignatureHasCanonicalS(signature: Uint8Array): boolean {
  return isBytes(signature) && signature.length === 64 && scalarBelowOrder(signature, 32);
}

/** Whether the 32 little-endian bytes at `offset` are a value below L. */
function scalarBelowOrder(bytes: Uint8Array, offset: number): boolean {
  for (let index = 31; index >= 0; index--) {
    const byte = bytes[offset + index] ?? 0;
    const limit = GROUP_ORDER_BYTES[index] ?? 0;
    if (byte !== limit) return byte < limit;
  }
  return false; // equal to L
}

/**
 * Whether 32 bytes are a public key the strict rules accept (rules 3 and 4 above).
 *
 * Costs a field square root, so callers that see the same key often should cache the answer.
 *
 * @param publicKey - candidate Ed25519 public key
 * @returns true for a canonical encoding of a curve point that is not of small order
 */
export function ed25519IsStrictPublicKey(publicKey: Uint8Array): boolean {
  return decodeStrictPublicKey(publicKey) !== undefined;
}

function decodeStrictPublicKey(publicKey: Uint8Array): EdwardsPoint | undefined {
  if (!isBytes(publicKey) || publicKey.length !== 32) return undefined;
  let point: EdwardsPoint;
  try {
    // zip215 = false: y must be below p, and x = 0 with the sign bit set is refused.
    point = Point.fromBytes(publicKey, false);
  } catch {
    return undefined;
  }
  return point.isSmallOrder() ? undefined : point;
}

/**
 * Strict Ed25519 verification in portable JavaScript (rules 1 to 5 above).
 *
 * Never throws: a malformed signature, key or message answers false.
 *
 * @param signature - 64-byte signature R || S
 * @param message - the signed message
 * @param publicKey - 32-byte public key
 * @returns true only when every rule holds
 */
export function ed25519VerifyStrict(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (!isBytes(signature) || !isBytes(message) || signature.length !== 64) return false;
  const encodedR = signature.subarray(0, 32);
  const encodedS = signature.subarray(32, 64);
  if (!ed25519IsCanonicalScalar(encodedS)) return false;
  const keyPoint = decodeStrictPublicKey(publicKey);
  if (keyPoint === undefined) return false;
  const digest = sha512.create().update(encodedR).update(publicKey).update(message).digest();
  const challenge = numberFromLittleEndian(digest) % GROUP_ORDER;
  const scalar = numberFromLittleEndian(encodedS);
  const expectedR = Point.BASE.multiplyUnsafe(scalar).subtract(keyPoint.multiplyUnsafe(challenge));
  return equalBytes(expectedR.toBytes(), encodedR);
}
