/**
 * Envelope samples: signed by all three roles, and tampered, forged, missing-role and malformed
 * envelopes.
 */
import { b64uEncode, didKeyFromEd25519 } from '../../crypto';
import type { JsonObject } from '../../verify/fields';
import {
  FORGER_SEED_BYTE,
  SAMPLES_NOW,
  edited,
  sampleEd25519Key,
  sampleHash,
  sampleMember,
  sampleSeed,
  type SampleKit,
} from '../../verify/sample-kit';
import { RECEIPT_ID_PREFIX, encodeUlid } from '../profile/receipt-id';
import { signEnvelope } from './sign';
import { envelopeDigest } from './verify';

/**
 * Add the envelope samples and the three roles' keys.
 *
 * @param kit - What the samples are added to.
 */
export function envelopeSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const seeds = { requester: sampleSeed(0x13), operator: sampleSeed(0x14), service: sampleSeed(0x15) };
  const signers = {
    requester: { key_id: didKeyFromEd25519(crypto.ed25519PublicKey(seeds.requester)), seed: seeds.requester },
    operator: { key_id: 'did:web:operator.example.com', seed: seeds.operator },
    service: { key_id: 'did:svc:evroom:samples:service', seed: seeds.service },
  };
  kit.addKey(sampleEd25519Key(crypto, signers.requester.key_id, seeds.requester, 'envelope requester'));
  kit.addKey(sampleEd25519Key(crypto, signers.operator.key_id, seeds.operator, 'envelope operator'));
  kit.addKey(sampleEd25519Key(crypto, signers.service.key_id, seeds.service, 'envelope service'));
  const fields: JsonObject = {
    v: 'svc-receipt-v1',
    receipt_id: RECEIPT_ID_PREFIX + encodeUlid(Date.parse(SAMPLES_NOW), new Uint8Array(10).fill(0x0e)),
    request: { hash: `sha256:${sampleHash(crypto, 'evroom sample request')}`, origin: 'eu', purpose: 'audit' },
    operator: { entity: 'Operator Example Ltd', region: 'eu-west', training_region: 'none' },
    response: { hash: `sha256:${sampleHash(crypto, 'evroom sample response')}`, sealed: false },
    issued_at: SAMPLES_NOW,
  };
  const valid = signEnvelope(fields, signers, crypto);
  const forgedService = b64uEncode(
    crypto.ed25519Sign(envelopeDigest(fields, crypto.sha256), sampleSeed(FORGER_SEED_BYTE)),
  );
  kit.add(
    'envelope/valid.json',
    'envelope/svc-receipt-v1',
    'PASS',
    'trusted',
    'Signed by requester (did:key), operator and service.',
    valid,
  );
  kit.add(
    'envelope/tampered.json',
    'envelope/svc-receipt-v1',
    'MISMATCH',
    'unattributed',
    "response.sealed was changed after signing; no role's signature covers the content any more.",
    edited(valid, (copy) => (sampleMember(copy, 'response')['sealed'] = true)),
  );
  kit.add(
    'envelope/forged.json',
    'envelope/svc-receipt-v1',
    'INVALID',
    'unattributed',
    'The service signature was made by another key than the service key it names.',
    edited(valid, (copy) => (sampleMember(sampleMember(copy, 'signatures'), 'service')['sig_b64u'] = forgedService)),
  );
  kit.add(
    'envelope/missing-role.json',
    'envelope/svc-receipt-v1',
    'INDETERMINATE',
    'trusted',
    'The operator signature is missing; a missing role is unavailable, never a pass.',
    edited(valid, (copy) => delete sampleMember(copy, 'signatures')['operator']),
  );
  kit.add(
    'envelope/malformed.json',
    'envelope/svc-receipt-v1',
    'MALFORMED',
    'not_applicable',
    'signatures holds a fourth role, "auditor".',
    edited(
      valid,
      (copy) =>
        (sampleMember(copy, 'signatures')['auditor'] = sampleMember(sampleMember(copy, 'signatures'), 'service')),
    ),
  );
}
