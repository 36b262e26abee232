/**
 * The worked typed-pq example for the documentation: a fixed ML-DSA-65 seed and fixed
 * fragments, so every digest is reproducible and the tests pin them. ML-DSA signing is hedged
 * (randomized), so the signature differs on every call; only the digests are fixed.
 */
import { b64uEncode, hexEncode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { jcs } from '../../json';
import type { JsonValue } from '../../json/types';
import type { JsonObject } from '../../verify/fields';
import { signTypedPq } from './sign';

/** The worked example: the envelope, its fragments' JCS texts and every digest in hex. */
export interface TypedPqWorkedExample {
  /** The signed document `{envelope, fragments}` (public key embedded). */
  document: JsonObject;
  /** JCS of each fragment: the text whose UTF-8 SHA-256 is h_i. */
  fragmentTexts: string[];
  /** h_i in hex, in fragment order. */
  fragmentDigests: string[];
  /** SHA-256(h_1 || ... || h_n) in hex: the 32 bytes the ML-DSA-65 signature signs. */
  digest: string;
  /** The verifying key as a key file entry (public key in b64u). */
  key: { key_id: string; algorithm: 'ML-DSA-65'; public_key: string };
  /** The ML-DSA-65 key generation seed in hex. Published on purpose: never use it for real envelopes. */
  seedHex: string;
}

/** The example's key id. */
export const TYPED_PQ_EXAMPLE_KEY_ID = 'did:svc:evroom:example-pq1';

/** The example's fragments. */
export const TYPED_PQ_EXAMPLE_FRAGMENTS: readonly JsonValue[] = Object.freeze<JsonValue[]>([
  { kind: 'request', purpose: 'summarize', input: 'Hello, Evidence Room.' },
  { kind: 'response', model: 'example-model', output_tokens: 12 },
  { kind: 'policy', region: 'eu', retention_days: 365 },
]);

/**
 * Build the worked typed-pq example.
 *
 * @param crypto - The provider to derive the key, hash and sign with.
 * @returns The example.
 * @throws TypeError if `crypto` is not a provider.
 */
export function typedPqWorkedExample(crypto: CryptoProvider): TypedPqWorkedExample {
  if (typeof crypto !== 'object' || crypto === null) throw new TypeError('typedPqWorkedExample needs a CryptoProvider');
  const seed = new Uint8Array(32).fill(0x50);
  const { publicKey, secretKey } = crypto.mldsa65KeyGen(seed);
  const fragments = TYPED_PQ_EXAMPLE_FRAGMENTS.map((fragment) => JSON.parse(JSON.stringify(fragment)) as JsonValue);
  const document = signTypedPq(fragments, secretKey, publicKey, TYPED_PQ_EXAMPLE_KEY_ID, crypto);
  secretKey.fill(0);
  const envelope = document['envelope'] as JsonObject;
  return {
    document,
    fragmentTexts: fragments.map((fragment) => jcs(fragment)),
    fragmentDigests: [...(envelope['fragment_digests'] as string[])],
    digest: envelope['digest'] as string,
    key: { key_id: TYPED_PQ_EXAMPLE_KEY_ID, algorithm: 'ML-DSA-65', public_key: b64uEncode(publicKey) },
    seedHex: hexEncode(seed),
  };
}
