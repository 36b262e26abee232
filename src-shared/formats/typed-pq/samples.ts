/**
 * Typed-pq samples: the docs' three fragments signed with ML-DSA-65, and tampered, forged,
 * malformed and unsupported envelopes. The kit's provider signs ML-DSA-65 deterministically.
 */
import type { JsonValue } from '../../json/types';
import type { JsonObject } from '../../verify/fields';
import { edited, sampleMember, sampleSeed, type SampleKit } from '../../verify/sample-kit';
import { TYPED_PQ_EXAMPLE_FRAGMENTS, TYPED_PQ_EXAMPLE_KEY_ID } from './examples';
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
  const fragments = TYPED_PQ_EXAMPLE_FRAGMENTS.map((fragment) => JSON.parse(JSON.stringify(fragment)) as JsonValue);
  const valid = signTypedPq(fragments, secretKey, publicKey, TYPED_PQ_EXAMPLE_KEY_ID, crypto);
  const forgedEnvelope = signTypedPq(fragments, forger.secretKey, forger.publicKey, TYPED_PQ_EXAMPLE_KEY_ID, crypto);
  secretKey.fill(0);
  forger.secretKey.fill(0);
  const envelope = (copy: JsonObject): JsonObject => sampleMember(copy, 'envelope');
  kit.add(
    'typed-pq/valid.json',
    'typed-pq',
    'PASS',
    'trusted',
    "The docs' three fragments signed with ML-DSA-65, public key embedded.",
    valid,
  );
  kit.add(
    'typed-pq/tampered.json',
    'typed-pq',
    'MISMATCH',
    'trusted',
    "Fragment 2's retention was changed; its digest no longer matches fragment_digests[2].",
    edited(valid, (copy) => (((copy['fragments'] as JsonObject[])[2] as JsonObject)['retention_days'] = 30)),
  );
  kit.add(
    'typed-pq/forged.json',
    'typed-pq',
    'INVALID',
    'trusted',
    'The signature was made by another ML-DSA-65 key than the embedded one.',
    edited(
      valid,
      (copy) => (envelope(copy)['signature'] = sampleMember(forgedEnvelope, 'envelope')['signature'] ?? null),
    ),
  );
  kit.add(
    'typed-pq/malformed.json',
    'typed-pq',
    'MALFORMED',
    'not_applicable',
    'The envelope carries a member the format does not have.',
    edited(valid, (copy) => (envelope(copy)['note'] = 'added')),
  );
  kit.add(
    'typed-pq/unsupported.json',
    'typed-pq',
    'UNSUPPORTED',
    'not_applicable',
    'aggregation names "merkle"; only "linear" is executed.',
    edited(valid, (copy) => (envelope(copy)['aggregation'] = 'merkle')),
  );
}
