/**
 * Signing a Spectral payload, for the samples and tests (this project only verifies Spectral
 * receipts).
 */
import { b64Encode, concatBytes, hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { fromPlain } from '../../json';
import type { JsonObjectNode } from '../../json/types';
import type { JsonObject } from '../../verify/fields';
import { spectralSignedBytes, type SpectralAlgorithm } from './serialize';

const ED25519_SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

/**
 * Sign a payload: append `signature`, `public_key`, `signed_payload_sha256` and `signature_algo`.
 *
 * @param payload - The payload as plain values.
 * @param seed - The signer's 32-byte Ed25519 seed.
 * @param crypto - The provider.
 * @param algorithm - `ed25519` (member order) or `ed25519-canonical` (sorted names).
 * @returns The signed receipt.
 * @throws TypeError if the payload is not an object.
 */
export function signSpectral(
  payload: JsonObject,
  seed: Uint8Array,
  crypto: CryptoProvider,
  algorithm: SpectralAlgorithm = 'ed25519',
): JsonObject {
  const node = fromPlain(payload);
  if (node.type !== 'object') throw new TypeError('A Spectral payload must be a JSON object');
  const bytes = utf8Encode(spectralSignedBytes(node as JsonObjectNode, algorithm).text);
  return {
    ...payload,
    signature: b64Encode(crypto.ed25519Sign(bytes, seed)),
    public_key: b64Encode(concatBytes(ED25519_SPKI_PREFIX, crypto.ed25519PublicKey(seed))),
    signed_payload_sha256: hexEncode(crypto.sha256(bytes)),
    signature_algo: algorithm,
  };
}
