/**
 * Typed-pq envelope signer: makes 1.0.0-typed-pq documents with ML-DSA-65, for the service,
 * tests, samples and benchmarks.
 */
import { assertBytes, b64Encode, hexEncode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import type { JsonValue } from '../../json/types';
import type { JsonObject } from '../../verify/fields';
import { isKeyId } from '../../verify/keys';
import {
  MAX_TYPED_PQ_FRAGMENTS,
  TYPED_PQ_AGGREGATION,
  TYPED_PQ_LENGTHS,
  TYPED_PQ_OBJECT,
  TYPED_PQ_SCHEME,
  TYPED_PQ_VERSION,
  fragmentDigest,
  linearDigest,
} from './verify';

/** Options for {@link signTypedPq}. */
export interface TypedPqSignOptions {
  /**
   * Write the public key into the envelope as `public_key` (b64). Default true. An embedded key
   * lets anyone check the signature but confers no trust; only a pinned key does.
   */
  embedKey?: boolean;
}

/**
 * Sign fragments as a typed-pq envelope.
 *
 * Computes `h_i = SHA-256(JCS(fragment_i))` and `digest = SHA-256(h_1 || ... || h_n)`, signs the
 * 32 digest bytes with ML-DSA-65 (FIPS 204, pure, empty context, hedged: each call gives a
 * different valid signature) and checks the signature under `publicKey` before returning, so a
 * key pair that does not belong together is refused rather than published.
 *
 * @param fragments - The fragments, 1 to {@link MAX_TYPED_PQ_FRAGMENTS} JSON values.
 * @param mldsaSecretKey - The 4032-byte ML-DSA-65 secret key.
 * @param publicKey - Its 1952-byte public key.
 * @param keyId - The key id to write as `envelope.key_id`.
 * @param crypto - The crypto provider.
 * @param options - Whether to embed the public key.
 * @returns `{envelope, fragments}`.
 * @throws TypeError if `fragments` is not an array or holds a non-JSON value, a key is not a
 *   Uint8Array, or `keyId` is not a key id.
 * @throws RangeError if there are no or too many fragments, a key has the wrong length, or the
 *   public key does not verify the signature made with the secret key.
 */
export function signTypedPq(
  fragments: readonly JsonValue[],
  mldsaSecretKey: Uint8Array,
  publicKey: Uint8Array,
  keyId: string,
  crypto: CryptoProvider,
  options: TypedPqSignOptions = {},
): JsonObject {
  if (!Array.isArray(fragments)) throw new TypeError('signTypedPq needs an array of fragments');
  if (fragments.length === 0 || fragments.length > MAX_TYPED_PQ_FRAGMENTS) {
    throw new RangeError(`A typed-pq envelope holds 1 to ${MAX_TYPED_PQ_FRAGMENTS} fragments, got ${fragments.length}`);
  }
  assertBytes(mldsaSecretKey, 'signTypedPq: mldsaSecretKey');
  assertBytes(publicKey, 'signTypedPq: publicKey', TYPED_PQ_LENGTHS.publicKey);
  if (!isKeyId(keyId)) throw new TypeError(`Not a key id: ${JSON.stringify(String(keyId))}`);
  if (typeof crypto !== 'object' || crypto === null) throw new TypeError('signTypedPq needs a CryptoProvider');

  const digests = fragments.map((fragment) => fragmentDigest(fragment, crypto.sha256));
  const digest = linearDigest(digests, crypto.sha256);
  const signature = crypto.mldsa65Sign(digest, mldsaSecretKey);
  if (!crypto.mldsa65Verify(signature, digest, publicKey)) {
    throw new RangeError('signTypedPq: the public key does not verify signatures made with this secret key');
  }
  const envelope: JsonObject = {
    object: TYPED_PQ_OBJECT,
    version: TYPED_PQ_VERSION,
    sig_scheme: TYPED_PQ_SCHEME,
    key_id: keyId,
  };
  if (options.embedKey ?? true) envelope['public_key'] = b64Encode(publicKey);
  envelope['aggregation'] = TYPED_PQ_AGGREGATION;
  envelope['fragment_digests'] = digests.map(hexEncode);
  envelope['digest'] = hexEncode(digest);
  envelope['signature'] = b64Encode(signature);
  // Copy the fragments through JSON so the document shares nothing with the caller's values.
  return { envelope, fragments: JSON.parse(JSON.stringify(fragments)) as JsonValue[] };
}
