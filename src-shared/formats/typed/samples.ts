/**
 * Typed contract samples: the docs' worked delegation, one valid contract of every other type,
 * a broken rule, and tampered, forged, malformed and unsupported contracts.
 */
import { b64uEncode, didKeyFromEd25519, utf8Encode } from '../../crypto';
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
import { ruleD1Payload } from '../../verify/signature';
import { buildSigrChain, signTypedContract } from './sign';
import { typedWorkedExample } from './worked-example';

/**
 * Add the typed contract samples and the issuer's and witness's keys.
 *
 * @param kit - What the samples are added to.
 */
export function typedSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const example = typedWorkedExample(crypto);
  const seed = sampleSeed(0x2a);
  const keyId = example.key_id;
  const witnessSeed = sampleSeed(0x2b);
  const witnessId = didKeyFromEd25519(crypto.ed25519PublicKey(witnessSeed));
  kit.addKey(sampleEd25519Key(crypto, keyId, seed, 'typed contract issuer (did:key)'));
  kit.addKey(sampleEd25519Key(crypto, witnessId, witnessSeed, 'sigr chain witness (did:key)'));
  const issuer = 'did:web:acme.example';
  const sign = (
    contractType: string,
    contractId: string,
    body: JsonObject,
    options: { algorithm?: string } = {},
  ): JsonObject =>
    signTypedContract(
      { contract_type: contractType, contract_id: contractId, issued_at: SAMPLES_NOW, issuer, body, ...options },
      seed,
      keyId,
      crypto,
    );
  const demand: JsonObject = {
    demander: issuer,
    respondent: 'did:web:supplier.example',
    subject_sha256: sampleHash(crypto, 'evroom sample subject'),
    required: ['receipt', 'anchor'],
    due_by: '2026-06-15T12:00:00.000Z',
  };
  const valid = example.contract;
  kit.add(
    'typed/valid.json',
    'typed/authority.delegation',
    'PASS',
    'trusted',
    "The docs' worked example: a delegation of two scopes over 2026.",
    valid,
  );
  const more: [string, string, JsonObject, string][] = [
    ['proof-demand', 'proof.demand', demand, 'A demand for two proofs, due two weeks after issue.'],
    [
      'imprimatur-clearance',
      'imprimatur.clearance',
      {
        artifact_sha256: sampleHash(crypto, 'evroom sample artifact'),
        approver: issuer,
        policy_sha256: sampleHash(crypto, 'evroom sample policy'),
        decision: 'conditional',
        conditions: ['Publish only after the audit window closes.'],
      },
      'A conditional clearance with its condition.',
    ],
    [
      'sigr-chain',
      'sigr.chain',
      {
        links: buildSigrChain(
          [sampleHash(crypto, 'evroom sample statement 1'), sampleHash(crypto, 'evroom sample statement 2')],
          [
            { key_id: keyId, seed },
            { key_id: witnessId, seed: witnessSeed },
          ],
          crypto,
        ),
      },
      'Two chained statements, signed by the issuer and a witness.',
    ],
    [
      'divergence-record',
      'divergence.record',
      {
        expected_sha256: sampleHash(crypto, 'evroom sample expected'),
        observed_sha256: sampleHash(crypto, 'evroom sample observed'),
        subject: 'urn:evroom:sample:build-42',
        severity: 'high',
        detected_at: '2026-06-01T11:58:00.000Z',
      },
      'An observed digest that differs from the expected one.',
    ],
    [
      'effect-closure',
      'effect.closure',
      {
        effect_id: 'effect-2026-0001',
        origin_receipt_sha256: sampleHash(crypto, 'evroom sample origin receipt'),
        outcome: 'succeeded',
        closed_at: '2026-06-01T12:30:00.000Z',
      },
      'An effect closed as succeeded after the contract was issued.',
    ],
    [
      'proof-transition',
      'proof.transition',
      { subject: 'urn:evroom:sample:proof-7', from_state: 'pending', to_state: 'verified', at: SAMPLES_NOW },
      'A proof moving from pending to verified.',
    ],
  ];
  for (const [kind, contractType, body, note] of more) {
    kit.add(
      `typed/valid-${kind}.json`,
      `typed/${contractType}`,
      'PASS',
      'trusted',
      note,
      sign(contractType, `${kind}-0001`, body),
    );
  }
  kit.add(
    'typed/rule-broken.json',
    'typed/proof.demand',
    'MISMATCH',
    'unattributed',
    'A correctly signed proof demand due before it was issued: its semantic rule fails.',
    sign('proof.demand', 'proof-demand-0002', { ...demand, due_by: '2026-05-01T12:00:00.000Z' }),
  );
  kit.add(
    'typed/tampered.json',
    'typed/authority.delegation',
    'MISMATCH',
    'unattributed',
    'A scope was added after signing; payload_sha256 no longer matches.',
    edited(
      valid,
      (copy) => (sampleMember(copy, 'body')['scope'] = ['receipts:issue', 'receipts:verify', 'keys:rotate']),
    ),
  );
  kit.add(
    'typed/forged.json',
    'typed/authority.delegation',
    'INVALID',
    'unattributed',
    'The signature was made by another key than the key the contract names.',
    edited(
      valid,
      (copy) =>
        (copy['sig_b64u'] = b64uEncode(
          crypto.ed25519Sign(crypto.sha256(utf8Encode(ruleD1Payload(valid))), sampleSeed(FORGER_SEED_BYTE)),
        )),
    ),
  );
  kit.add(
    'typed/malformed.json',
    'typed/authority.delegation',
    'MALFORMED',
    'not_applicable',
    'The body carries a member its schema does not have.',
    edited(valid, (copy) => (sampleMember(copy, 'body')['note'] = 'added')),
  );
  kit.add(
    'typed/unsupported.json',
    'typed/proof.demand',
    'UNSUPPORTED',
    'not_applicable',
    'algorithm names ES256; r1.0.0 contracts are verified with Ed25519 only.',
    sign('proof.demand', 'proof-demand-0003', demand, { algorithm: 'ES256' }),
  );
}
