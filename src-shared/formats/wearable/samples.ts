/**
 * Wearable samples: the docs' worked example, its partial and inconsistent outcomes, and an
 * invalid device signature, tampered, re-derived, forged and malformed receipts.
 */
import { b64uEncode, utf8Encode } from '../../crypto';
import type { JsonObject } from '../../verify/fields';
import {
  FORGER_SEED_BYTE,
  edited,
  sampleEd25519Key,
  sampleMember,
  sampleSeed,
  type SampleKit,
} from '../../verify/sample-kit';
import { ruleD1Payload, signRuleD1 } from '../../verify/signature';
import {
  WEARABLE_EXAMPLE_KEY_ID,
  WEARABLE_EXAMPLE_TS,
  wearableExampleDeviceSeed,
  wearableExampleObservation,
  wearableExampleServiceSeed,
} from './example';
import { issueWearable, signObservation } from './sign';

/**
 * Add the wearable samples and the service's key.
 *
 * @param kit - What the samples are added to.
 */
export function wearableSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const serviceSeed = wearableExampleServiceSeed();
  kit.addKey(sampleEd25519Key(crypto, WEARABLE_EXAMPLE_KEY_ID, serviceSeed, 'wearable receipt service'));
  const issue = (overrides: JsonObject = {}, afterDeviceSigning: JsonObject = {}): JsonObject => {
    const fields = wearableExampleObservation(crypto) as unknown as JsonObject;
    Object.assign(fields, overrides);
    fields['device_signature'] = signObservation(fields as never, wearableExampleDeviceSeed(), crypto);
    Object.assign(fields, afterDeviceSigning);
    return issueWearable(fields, serviceSeed, WEARABLE_EXAMPLE_KEY_ID, crypto, {
      ts: WEARABLE_EXAMPLE_TS,
    }) as unknown as JsonObject;
  };
  const valid = issue();
  const body = (copy: JsonObject): JsonObject => sampleMember(copy, 'signed_body');
  const forgedSignature = b64uEncode(
    crypto.ed25519Sign(crypto.sha256(utf8Encode(ruleD1Payload(valid))), sampleSeed(FORGER_SEED_BYTE)),
  );
  kit.add(
    'wearable/valid.json',
    'wearable/r2.0.0',
    'PASS',
    'trusted',
    "The docs' worked example: heart rate 72 /min, sequence 42 after 41; outcome measurement_provenance_complete.",
    valid,
  );
  kit.add(
    'wearable/outcome-partial.json',
    'wearable/r2.0.0',
    'PASS',
    'trusted',
    'Valid receipt whose sequence jumps from 41 to 45; outcome measurement_provenance_partial (sequence_gap).',
    issue({ sequence_no: 45 }),
  );
  kit.add(
    'wearable/outcome-inconsistent.json',
    'wearable/r2.0.0',
    'PASS',
    'trusted',
    'Valid receipt of a heart rate in "bpm", not the registry\'s "/min"; outcome measurement_provenance_inconsistent.',
    issue({ unit: 'bpm' }),
  );
  kit.add(
    'wearable/device-signature-invalid.json',
    'wearable/r2.0.0',
    'INVALID',
    'unattributed',
    'Issued faithfully, but the device signed another value than the one sent; the device signature fails.',
    issue({}, { value: 150 }),
  );
  kit.add(
    'wearable/tampered.json',
    'wearable/r2.0.0',
    'MISMATCH',
    'unattributed',
    'The value was changed from 72 to 150 after issuance; digest, signatures and derived fields disagree.',
    edited(valid, (copy) => (body(copy)['value'] = 150)),
  );
  kit.add(
    'wearable/derived-mismatch.json',
    'wearable/r2.0.0',
    'MISMATCH',
    'unattributed',
    'Re-signed by the service with sequence_relation "gap" where the fields give "contiguous".',
    signRuleD1(
      edited(valid, (copy) => (body(copy)['sequence_relation'] = 'gap')),
      serviceSeed,
      crypto,
    ),
  );
  kit.add(
    'wearable/forged.json',
    'wearable/r2.0.0',
    'INVALID',
    'unattributed',
    'The service signature was made by another key than the service key it names.',
    edited(valid, (copy) => (copy['sig_b64u'] = forgedSignature)),
  );
  kit.add(
    'wearable/malformed.json',
    'wearable/r2.0.0',
    'MALFORMED',
    'not_applicable',
    'A verdict flag claims clinical validity; every verdict flag must be false.',
    edited(valid, (copy) => (sampleMember(body(copy), 'verdict')['clinical_validity_proven'] = true)),
  );
}
