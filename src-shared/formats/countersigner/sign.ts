/**
 * Countersigner record signer: makes valid records from a seed, for tests, samples and
 * benchmarks.
 */
import { b64Encode, hexEncode, rfc9162InclusionPath, rfc9162Root, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import type { JsonObject } from '../../verify/fields';

/** Options for {@link signCountersigner}. */
export interface CountersignOptions {
  /**
   * The signed_over digests (32 bytes each) of the log's other entries, in log order. Default:
   * none, a log of one entry.
   */
  others?: readonly Uint8Array[];
  /** Where this record's entry sits among `others` (0 to others.length). Default: last. */
  leafIndex?: number;
}

/**
 * Countersign a canonical text and place it in an RFC 9162 BLAKE3 log.
 *
 * @param canonical - The signed_over_canonical text.
 * @param seed - The countersigner's 32-byte Ed25519 secret seed.
 * @param crypto - The crypto provider.
 * @param options - The log's other entries and this entry's position.
 * @returns The countersigner record as plain values.
 * @throws TypeError if `canonical` is not a string.
 * @throws RangeError if the seed is not 32 bytes, an entry is not 32 bytes or the index is
 *   outside the log.
 */
export function signCountersigner(
  canonical: string,
  seed: Uint8Array,
  crypto: CryptoProvider,
  options: CountersignOptions = {},
): JsonObject {
  if (typeof canonical !== 'string') throw new TypeError('signed_over_canonical must be a string');
  const others = options.others ?? [];
  const leafIndex = options.leafIndex ?? others.length;
  if (!Number.isSafeInteger(leafIndex) || leafIndex < 0 || leafIndex > others.length) {
    throw new RangeError(`leafIndex must be between 0 and ${others.length}`);
  }
  for (const entry of others) {
    if (!(entry instanceof Uint8Array) || entry.length !== 32) throw new RangeError('Each log entry must be 32 bytes');
  }
  const message = utf8Encode(canonical);
  const signedOver = crypto.blake3(message);
  const entries = [...others.slice(0, leafIndex), signedOver, ...others.slice(leafIndex)];
  const hash = (data: Uint8Array): Uint8Array => crypto.blake3(data);
  return {
    signed_over: hexEncode(signedOver),
    signed_over_canonical: canonical,
    countersignature: b64Encode(crypto.ed25519Sign(message, seed)),
    countersigner_public_key_b64: b64Encode(crypto.ed25519PublicKey(seed)),
    root: hexEncode(rfc9162Root(hash, entries)),
    leaf_index: leafIndex,
    tree_size: entries.length,
    path: rfc9162InclusionPath(hash, entries, leafIndex).map((node) => hexEncode(node)),
  };
}
