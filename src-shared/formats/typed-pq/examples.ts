/**
 * The worked typed-pq example for the documentation: a fixed ML-DSA-65 seed, fixed fragments and
 * a fixed instant, so every digest is reproducible and the tests pin them. ML-DSA signing is
 * hedged (randomized), so the signature differs on every call; only the digests are fixed.
 */
import { b64uEncode, hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { jcs } from '../../json';
import type { JsonObject } from '../../verify/fields';
import { type TypedPqFragmentSource, signTypedPq } from './sign';
import { type TypedPqFragmentInput, typedPqHash } from './verify';

/** The worked example: the attestation and every intermediate value in hex. */
export interface TypedPqWorkedExample {
  /** The signed document `{envelope, fragments}` (public key inline). */
  document: JsonObject;
  /** JCS of each fragment input: the text whose UTF-8 SHA-256 is d_i. */
  fragmentTexts: string[];
  /** d_i in hex, in fragment order. */
  fragmentDigests: string[];
  /** Which fragments are attested. */
  attested: boolean[];
  /** The linear root over the attested d_i, sorted. */
  aggRoot: string;
  /** H(JCS({object, version, sig_scheme, public_key})): the payload's first slot. */
  baseDigest: string;
  /** The policy digest. */
  policyDigest: string;
  /** The payload digest: the 32 bytes the ML-DSA-65 signature signs. */
  payloadDigest: string;
  /** The verifying key as a key file entry (public key in b64u). */
  key: { key_id: string; algorithm: 'ML-DSA-65'; public_key: string };
  /** The ML-DSA-65 key generation seed in hex. Published on purpose: never use it for real attestations. */
  seedHex: string;
}

/** The key id the example's key file names (the document itself names none). */
export const TYPED_PQ_EXAMPLE_KEY_ID = 'did:svc:evroom:example-pq1';

/** The example's fragments: texts and types (the document carries only the texts' hashes). */
export const TYPED_PQ_EXAMPLE_FRAGMENTS: readonly TypedPqFragmentSource[] = Object.freeze([
  { text: 'Split the refund question into the order date and the policy window.', type: 'decomposition' },
  { text: 'According to the policy, refunds are allowed within 30 days.', type: 'retrieval' },
  { text: 'Final answer: the refund is allowed.', type: 'final' },
]);

/** The example's policy: the types it attests (retrieval is left out, so fragment 2 is unattested). */
export const TYPED_PQ_EXAMPLE_SIGN_TYPES: readonly string[] = Object.freeze(['decomposition', 'final']);

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
  const document = signTypedPq(TYPED_PQ_EXAMPLE_FRAGMENTS, secretKey, publicKey, crypto, {
    signTypes: TYPED_PQ_EXAMPLE_SIGN_TYPES,
    policyId: 'refund-policy-v1',
    issuedAt: '2026-05-01T12:00:00.000Z',
  });
  secretKey.fill(0);
  const envelope = document['envelope'] as JsonObject;
  const hash = typedPqHash('sha-256', crypto);
  const inputs = document['fragments'] as unknown as TypedPqFragmentInput[];
  const listed = envelope['fragments'] as unknown as { canon_digest: string; attested: boolean }[];
  const base = jcs({
    object: envelope['object'] as string,
    version: envelope['version'] as string,
    sig_scheme: envelope['sig_scheme'] as string,
    public_key: envelope['public_key'] as string,
  });
  return {
    document,
    fragmentTexts: inputs.map((input) => jcs({ ...input })),
    fragmentDigests: listed.map((fragment) => fragment.canon_digest),
    attested: listed.map((fragment) => fragment.attested),
    aggRoot: envelope['agg_root'] as string,
    baseDigest: hexEncode(hash(utf8Encode(base))),
    policyDigest: envelope['policy_digest'] as string,
    payloadDigest: envelope['payload_digest'] as string,
    key: { key_id: TYPED_PQ_EXAMPLE_KEY_ID, algorithm: 'ML-DSA-65', public_key: b64uEncode(publicKey) },
    seedHex: hexEncode(seed),
  };
}
