/**
 * Signing a HAHS body, for the samples and tests (the producer's issuer is its own; this project
 * only verifies HAHS receipts).
 */
import { b64uEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { fromPlain } from '../../json';
import { pythonJsonDumps } from '../../json/python-dumps';
import type { JsonObject } from '../../verify/fields';

/**
 * Sign a HAHS body: append `canonical_sha256`, `issuer_pubkey` and `signature`.
 *
 * @param body - The body (with `protocol`), as plain values.
 * @param seed - The issuer's 32-byte Ed25519 seed.
 * @param crypto - The provider.
 * @returns The signed receipt.
 * @throws TypeError if the body is not an object.
 */
export function signHahs(body: JsonObject, seed: Uint8Array, crypto: CryptoProvider): JsonObject {
  const node = fromPlain(body);
  if (node.type !== 'object') throw new TypeError('A HAHS body must be a JSON object');
  const digest = crypto.sha256(utf8Encode(pythonJsonDumps(node, { ensureAscii: false })));
  return {
    ...body,
    canonical_sha256: b64uEncode(digest),
    issuer_pubkey: `ed25519:${b64uEncode(crypto.ed25519PublicKey(seed))}`,
    signature: `ed25519:${b64uEncode(crypto.ed25519Sign(digest, seed))}`,
  };
}
