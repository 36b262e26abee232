/**
 * Signing an SMSH stamp, for the samples and tests (this project only verifies SMSH stamps).
 */
import { b64uEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import type { JsonObject } from '../../verify/fields';
import { smshSignedText } from './verify';

/**
 * Sign a stamp: append `sig` over JCS of every other member.
 *
 * @param stamp - The stamp without `sig`.
 * @param seed - The signer's 32-byte Ed25519 seed.
 * @param crypto - The provider.
 * @returns The signed stamp.
 */
export function signSmshStamp(stamp: JsonObject, seed: Uint8Array, crypto: CryptoProvider): JsonObject {
  return { ...stamp, sig: b64uEncode(crypto.ed25519Sign(utf8Encode(smshSignedText(stamp)), seed)) };
}
