/**
 * Profile samples, one folder per issuer (nano, standard, pq, legacy-standard, legacy-pq): the
 * docs' worked examples, and tampered, forged, malformed and unsupported receipts.
 */
import { b64uDecode, b64uEncode } from '../../crypto';
import type { KeyEntry } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import type { ReportFormat } from '../../verify/report';
import {
  FORGER_SEED_BYTE,
  edited,
  sampleHash,
  sampleMember,
  sampleSeed,
  type SampleKit,
} from '../../verify/sample-kit';
import {
  PROFILE_EXAMPLE_AGENT,
  PROFILE_EXAMPLE_CONTENT,
  PROFILE_EXAMPLE_KEY_ID,
  PROFILE_EXAMPLE_NOW,
  profileWorkedExamples,
} from './examples';
import { RECEIPT_ID_PREFIX, encodeUlid } from './receipt-id';
import { issueLegacyReceipt, issueProfileReceipt } from './sign';
import { profileDigest } from './verify';

/**
 * Add the profile samples and the keys of their issuers.
 *
 * @param kit - What the samples are added to.
 */
export function profileSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const [nano, standard, pq] = profileWorkedExamples(crypto);
  if (nano === undefined || standard === undefined || pq === undefined)
    throw new Error('the profile worked examples are missing');
  kit.addKey({ ...exampleKey(nano.key), label: 'Sample key: nano issuer (did:key)' });
  kit.addKey({ ...exampleKey(standard.key), label: 'Sample key: profile receipt service' });
  const serviceSeed = sampleSeed(0x53);
  const contentSha256 = sampleHash(crypto, PROFILE_EXAMPLE_CONTENT);
  const idFor = (fill: number): string =>
    RECEIPT_ID_PREFIX + encodeUlid(PROFILE_EXAMPLE_NOW.getTime(), new Uint8Array(10).fill(fill));
  const pqFields = (currentAlg: string) => ({
    agent_did: PROFILE_EXAMPLE_AGENT,
    content: { sha256: contentSha256, type: 'text/plain' },
    crypto_agile_metadata: { current_alg: currentAlg, signature_posture: 'classical', envelope_posture: 'pq-ready' },
    pq_posture: 'declared',
    auditor_verifier: true,
  });
  const legacyStandard = issueLegacyReceipt(
    'standard',
    {
      agent_did: PROFILE_EXAMPLE_AGENT,
      content: { sha256: contentSha256, type: 'text/plain' },
      smsh: { sealed: false, declaration: 'No sealed evidence accompanies this receipt.' },
      hktn_context: { reputation_tier: 'new' },
    },
    serviceSeed,
    PROFILE_EXAMPLE_KEY_ID,
    crypto,
    { now: PROFILE_EXAMPLE_NOW, id: idFor(0x04) },
  );
  const legacyPq = issueLegacyReceipt('pq', pqFields('Ed25519'), serviceSeed, PROFILE_EXAMPLE_KEY_ID, crypto, {
    now: PROFILE_EXAMPLE_NOW,
    id: idFor(0x05),
  });
  const forge = (document: JsonObject): string => {
    const unsigned = edited(document, (copy) => delete sampleMember(copy, 'receipt')['sig_b64u']);
    return b64uEncode(crypto.ed25519Sign(profileDigest(unsigned, crypto.sha256), sampleSeed(FORGER_SEED_BYTE)));
  };
  const series: {
    folder: string;
    format: ReportFormat;
    valid: JsonObject;
    what: string;
    tamper: (copy: JsonObject) => void;
    unsupported?: JsonObject;
  }[] = [
    {
      folder: 'nano',
      format: 'profile/nano',
      valid: nano.document,
      what: "The docs' nano example, signed by a did:key (checkable offline).",
      tamper: (copy) => (copy['ok'] = false),
    },
    {
      folder: 'standard',
      format: 'profile/standard',
      valid: standard.document,
      what: "The docs' standard example with a settlement reference.",
      tamper: (copy) => (sampleMember(copy, 'hktn_context')['reputation_tier'] = 'established'),
    },
    {
      folder: 'pq',
      format: 'profile/pq',
      valid: pq.document,
      what: "The docs' pq example: posture declared, signed with Ed25519.",
      tamper: (copy) => (copy['auditor_verifier'] = false),
      unsupported: issueProfileReceipt('pq', pqFields('ML-DSA-65'), serviceSeed, PROFILE_EXAMPLE_KEY_ID, crypto, {
        now: PROFILE_EXAMPLE_NOW,
        id: idFor(0x06),
      }),
    },
    {
      folder: 'legacy-standard',
      format: 'legacy/proof_tier',
      valid: legacyStandard,
      what: 'A standard receipt as older issuers wrote it, with proof_tier.',
      tamper: (copy) => (sampleMember(copy, 'smsh')['sealed'] = true),
    },
    {
      folder: 'legacy-pq',
      format: 'legacy/proof_tier',
      valid: legacyPq,
      what: 'A pq receipt as older issuers wrote it, with proof_tier.',
      tamper: (copy) => (copy['pq_posture'] = 'enforced'),
      unsupported: issueLegacyReceipt('pq', pqFields('ML-DSA-65'), serviceSeed, PROFILE_EXAMPLE_KEY_ID, crypto, {
        now: PROFILE_EXAMPLE_NOW,
        id: idFor(0x07),
      }),
    },
  ];
  for (const { folder, format, valid, what, tamper, unsupported } of series) {
    kit.add(`${folder}/valid.json`, format, 'PASS', 'trusted', what, valid);
    kit.add(
      `${folder}/tampered.json`,
      format,
      'INVALID',
      'unattributed',
      'A field was changed after signing; a profile receipt has no digest member, so the signature check is what fails.',
      edited(valid, tamper),
    );
    kit.add(
      `${folder}/forged.json`,
      format,
      'INVALID',
      'unattributed',
      'The signature was made by another key than the key the receipt names.',
      edited(valid, (copy) => (sampleMember(copy, 'receipt')['sig_b64u'] = forge(valid))),
    );
    kit.add(
      `${folder}/malformed.json`,
      format,
      'MALFORMED',
      'not_applicable',
      'The receipt id is not rcp_ followed by a ULID.',
      edited(valid, (copy) => (sampleMember(copy, 'receipt')['id'] = 'receipt-1')),
    );
    if (unsupported !== undefined) {
      kit.add(
        `${folder}/unsupported.json`,
        format,
        'UNSUPPORTED',
        'not_applicable',
        'crypto_agile_metadata.current_alg names ML-DSA-65; profile receipts are verified with Ed25519 only.',
        unsupported,
      );
    }
  }
}

function exampleKey(key: { key_id: string; algorithm: 'Ed25519'; public_key: string }): KeyEntry {
  return { key_id: key.key_id, algorithm: key.algorithm, public_key: b64uDecode(key.public_key) };
}
