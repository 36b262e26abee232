/**
 * Typed-pq attestation signer: makes `afir.attestation` documents (version 1.0.0-typed-pq) with
 * ML-DSA-65, in the typed signer's layout, for `evroom sign`, samples, tests and benchmarks.
 */
import { MLDSA65_LENGTHS, assertBytes, b64Encode, hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import type { JsonObject } from '../../verify/fields';
import {
  MAX_TYPED_PQ_FRAGMENTS,
  TYPED_PQ_AGG_MODES,
  TYPED_PQ_HASH_SUITES,
  TYPED_PQ_OBJECT,
  TYPED_PQ_SCHEME,
  TYPED_PQ_VERSION,
  type TypedPqAggMode,
  type TypedPqFragmentInput,
  type TypedPqHashSuite,
  aggregateRoot,
  fragmentCanonDigest,
  payloadDigest,
  policyDigest,
  typedPqHash,
} from './verify';

/** One fragment to attest: its text (hashed, never written) and its type. */
export interface TypedPqFragmentSource {
  /** The fragment's text; the document carries only its hash. */
  text: string;
  /** The fragment type, e.g. `reasoning`, `tool_call`, `final`. */
  type: string;
  /** The fragment id; `f<n>` (1-based position) when omitted. */
  id?: string;
}

/** Options for {@link signTypedPq}. */
export interface TypedPqSignOptions {
  /** The fragment types the policy attests; every type present when omitted. */
  signTypes?: readonly string[];
  /** The policy's id (unsigned); `default` when omitted. */
  policyId?: string;
  /** `linear` (default) or `merkle`. */
  aggMode?: TypedPqAggMode;
  /** `sha-256` (default, not written) or `sha-384`. */
  hashSuite?: TypedPqHashSuite;
  /** A temporal object bound as the payload's fourth slot. */
  temporal?: JsonObject;
  /** The `issued_at` written (unsigned); a TS. */
  issuedAt: string;
}

/**
 * Sign fragments as a typed-pq attestation, `{envelope, fragments}` (the inputs as
 * `{fragment_id, fragment_type, text_hash, index}`).
 *
 * Hashes each text, computes each `d_i`, aggregates the attested ones, binds base, root, policy
 * (and temporal) into the payload digest, signs it with ML-DSA-65 (FIPS 204, pure, empty
 * context, hedged: each call gives a different valid signature) and checks the signature under
 * `publicKey` before returning, so a key pair that does not belong together is refused.
 *
 * @param sources - 1 to {@link MAX_TYPED_PQ_FRAGMENTS} fragments.
 * @param mldsaSecretKey - The 4032-byte ML-DSA-65 secret key.
 * @param publicKey - Its 1952-byte public key (written inline).
 * @param crypto - The crypto provider.
 * @param options - Policy, aggregation, suite, temporal and issuing instant.
 * @returns `{envelope, fragments}`.
 * @throws TypeError if an argument has the wrong type.
 * @throws RangeError if there are no or too many fragments, an id repeats, an option is not one
 *   of its values, a key has the wrong length, or the public key does not verify the signature.
 */
export function signTypedPq(
  sources: readonly TypedPqFragmentSource[],
  mldsaSecretKey: Uint8Array,
  publicKey: Uint8Array,
  crypto: CryptoProvider,
  options: TypedPqSignOptions,
): JsonObject {
  if (!Array.isArray(sources)) throw new TypeError('signTypedPq needs an array of fragments');
  if (sources.length === 0 || sources.length > MAX_TYPED_PQ_FRAGMENTS) {
    throw new RangeError(
      `A typed-pq attestation holds 1 to ${MAX_TYPED_PQ_FRAGMENTS} fragments, got ${sources.length}`,
    );
  }
  assertBytes(mldsaSecretKey, 'signTypedPq: mldsaSecretKey');
  assertBytes(publicKey, 'signTypedPq: publicKey', MLDSA65_LENGTHS.publicKey);
  if (typeof crypto !== 'object' || crypto === null) throw new TypeError('signTypedPq needs a CryptoProvider');
  if (typeof options !== 'object' || options === null || typeof options.issuedAt !== 'string') {
    throw new TypeError('signTypedPq needs options with issuedAt');
  }
  const aggMode = options.aggMode ?? 'linear';
  const hashSuite = options.hashSuite ?? 'sha-256';
  if (!TYPED_PQ_AGG_MODES.includes(aggMode)) throw new RangeError(`Unknown agg_mode ${JSON.stringify(aggMode)}`);
  if (!TYPED_PQ_HASH_SUITES.includes(hashSuite))
    throw new RangeError(`Unknown hash_suite ${JSON.stringify(hashSuite)}`);
  const hash = typedPqHash(hashSuite, crypto);

  const inputs: TypedPqFragmentInput[] = sources.map((source, index) => {
    if (typeof source !== 'object' || source === null) throw new TypeError(`Fragment ${index} is not an object`);
    if (typeof source.text !== 'string') throw new TypeError(`Fragment ${index}: text must be a string`);
    if (typeof source.type !== 'string' || source.type === '') {
      throw new TypeError(`Fragment ${index}: type must be a non-empty string`);
    }
    const id = source.id ?? `f${index + 1}`;
    if (typeof id !== 'string' || id === '') throw new TypeError(`Fragment ${index}: id must be a non-empty string`);
    return {
      fragment_id: id,
      fragment_type: source.type,
      text_hash: hexEncode(hash(utf8Encode(source.text))),
      index,
    };
  });
  if (new Set(inputs.map((input) => input.fragment_id)).size !== inputs.length) {
    throw new RangeError('Every fragment id must differ');
  }
  const signTypes = options.signTypes ?? [...new Set(inputs.map((input) => input.fragment_type))];
  if (!Array.isArray(signTypes) || signTypes.some((type) => typeof type !== 'string')) {
    throw new TypeError('signTypes must be an array of strings');
  }
  const attestedTypes = new Set(signTypes);
  const digests = inputs.map((input) => fragmentCanonDigest(input, hash));
  const attested = digests.filter((_, index) =>
    attestedTypes.has((inputs[index] as TypedPqFragmentInput).fragment_type),
  );
  const root = aggregateRoot(attested, aggMode, hash);
  const policy = policyDigest(signTypes, 0, hash);
  const base = {
    object: TYPED_PQ_OBJECT,
    version: TYPED_PQ_VERSION,
    sig_scheme: TYPED_PQ_SCHEME,
    public_key: b64Encode(publicKey),
  };
  const payload = payloadDigest(base, root, policy, options.temporal, hash);
  const signature = crypto.mldsa65Sign(payload, mldsaSecretKey);
  if (!crypto.mldsa65Verify(signature, payload, publicKey)) {
    throw new RangeError('signTypedPq: the public key does not verify signatures made with this secret key');
  }
  const envelope: JsonObject = {
    ...base,
    merkle_root: hexEncode(root),
    agg_mode: aggMode,
    agg_root: hexEncode(root),
    policy_id: options.policyId ?? 'default',
    policy_digest: hexEncode(policy),
    fragment_count: inputs.length,
    attested: attested.length,
    payload_digest: hexEncode(payload),
    envelope_signature: b64Encode(signature),
    fragments: inputs.map((input, index) => ({
      fragment_id: input.fragment_id,
      fragment_type: input.fragment_type,
      canon_digest: hexEncode(digests[index] as Uint8Array),
      attested: attestedTypes.has(input.fragment_type),
    })),
    issued_at: options.issuedAt,
  };
  if (hashSuite !== 'sha-256') envelope['hash_suite'] = hashSuite;
  // Copied through JSON so the document shares nothing with the caller's value.
  if (options.temporal !== undefined) envelope['temporal'] = JSON.parse(JSON.stringify(options.temporal)) as JsonObject;
  return { envelope, fragments: inputs.map((input) => ({ ...input })) };
}
