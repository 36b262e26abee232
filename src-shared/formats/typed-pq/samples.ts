/**
 * Typed-pq samples: the docs' three fragments attested with ML-DSA-65, and tampered, forged,
 * malformed and unsupported attestations. The kit's provider signs ML-DSA-65 deterministically.
 */
import type { JsonObject } from '../../verify/fields';
import { type SampleKit, edited, sampleMember, sampleSeed } from '../../verify/sample-kit';
import { TYPED_PQ_EXAMPLE_FRAGMENTS, TYPED_PQ_EXAMPLE_KEY_ID, TYPED_PQ_EXAMPLE_SIGN_TYPES } from './examples';
import { signTypedPq } from './sign';

/** The seed byte of the typed-pq forger's ML-DSA-65 key (in no key file). */
const PQ_FORGER_SEED_BYTE = 0xef;

/**
 * Add the typed-pq samples and the issuer's ML-DSA-65 key.
 *
 * @param kit - What the samples are added to.
 */
export function typedPqSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const { publicKey, secretKey } = crypto.mldsa65KeyGen(sampleSeed(0x50));
  const forger = crypto.mldsa65KeyGen(sampleSeed(PQ_FORGER_SEED_BYTE));
  kit.addKey({
    key_id: TYPED_PQ_EXAMPLE_KEY_ID,
    algorithm: 'ML-DSA-65',
    public_key: publicKey,
    label: 'Sample key: typed-pq issuer (ML-DSA-65)',
  });
  const options = {
    signTypes: TYPED_PQ_EXAMPLE_SIGN_TYPES,
    policyId: 'refund-policy-v1',
    issuedAt: '2026-05-01T12:00:00.000Z',
  };
  const valid = signTypedPq(TYPED_PQ_EXAMPLE_FRAGMENTS, secretKey, publicKey, crypto, options);
  const forgedDocument = signTypedPq(TYPED_PQ_EXAMPLE_FRAGMENTS, forger.secretKey, forger.publicKey, crypto, options);
  secretKey.fill(0);
  forger.secretKey.fill(0);
  const envelope = (copy: JsonObject): JsonObject => sampleMember(copy, 'envelope');
  const input = (copy: JsonObject, index: number): JsonObject =>
    (copy['fragments'] as JsonObject[])[index] as JsonObject;
  kit.add(
    'typed-pq/valid.json',
    'typed-pq',
    'PASS',
    'trusted',
    "The docs' three fragments attested with ML-DSA-65 (two attested, one not), public key inline.",
    valid,
  );
  kit.add(
    'typed-pq/tampered.json',
    'typed-pq',
    'MISMATCH',
    'unattributed',
    "The final answer's text_hash was changed; its digest no longer matches its canon_digest.",
    edited(valid, (copy) => (input(copy, 2)['text_hash'] = '0'.repeat(64))),
  );
  kit.add(
    'typed-pq/forged.json',
    'typed-pq',
    'INVALID',
    'unattributed',
    'The signature was made by another ML-DSA-65 key than the inline one.',
    edited(
      valid,
      (copy) =>
        (envelope(copy)['envelope_signature'] = sampleMember(forgedDocument, 'envelope')['envelope_signature'] ?? null),
    ),
  );
  kit.add(
    'typed-pq/malformed.json',
    'typed-pq',
    'MALFORMED',
    'not_applicable',
    'fragment_count is a string.',
    edited(valid, (copy) => (envelope(copy)['fragment_count'] = 'three')),
  );
  kit.add(
    'typed-pq/unsupported.json',
    'typed-pq',
    'UNSUPPORTED',
    'not_applicable',
    'agg_mode names "xor-fold"; only linear and merkle are executed.',
    edited(valid, (copy) => (envelope(copy)['agg_mode'] = 'xor-fold')),
  );
}
