/**
 * Classical samples: a valid receipt, and tampered, forged, malformed, unsupported and
 * duplicate-name ones.
 */
import type { JsonObject } from '../../verify/fields';
import { FORGER_SEED_BYTE, replaced, sampleEd25519Key, sampleSeed, type SampleKit } from '../../verify/sample-kit';
import { signClassical } from './sign';

/**
 * Add the classical samples and their signer's key.
 *
 * @param kit - What the samples are added to.
 */
export function classicalSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const seed = sampleSeed(0x11);
  kit.addKey(sampleEd25519Key(crypto, 'did:svc:evroom:samples:classical', seed, 'classical issuer'));
  const payload =
    '{"receipt_id":"r-2026-0001","sequence":7,"amount":12.50,"currency":"EUR","memo":"Coffee beans, 1 kg"}';
  const valid = signClassical(payload, seed, crypto);
  const forger = JSON.parse(signClassical(payload, sampleSeed(FORGER_SEED_BYTE), crypto)) as JsonObject;
  const genuine = JSON.parse(valid) as JsonObject;
  kit.add(
    'classical/valid.json',
    'classical',
    'PASS',
    'trusted',
    'Signed payload with its raw text and sequence; 12.50 is signed as written.',
    valid,
  );
  kit.add(
    'classical/tampered.json',
    'classical',
    'MISMATCH',
    'unattributed',
    'The amount in signed_payload was changed to 99.50 after signing; raw_payload still holds the signed text.',
    replaced(valid, '"amount":12.50,"currency"', '"amount":99.50,"currency"'),
  );
  kit.add(
    'classical/forged.json',
    'classical',
    'INVALID',
    'unattributed',
    'The signature was made by another key than the one the receipt names.',
    replaced(valid, String(genuine['signature']), String(forger['signature'])),
  );
  kit.add(
    'classical/malformed.json',
    'classical',
    'MALFORMED',
    'not_applicable',
    'An unsigned member "note" was added beside the signed payload.',
    replaced(valid, '{"alg"', '{"note":"approved","alg"'),
  );
  kit.add(
    'classical/unsupported.json',
    'classical',
    'UNSUPPORTED',
    'not_applicable',
    'alg names ES256, which evroom does not execute.',
    replaced(valid, '"alg":"Ed25519"', '"alg":"ES256"'),
  );
  // Strict parsing refuses this before any format is recognized, so it is written unindented.
  kit.addFile({
    file: 'classical/duplicate-name.json',
    format: 'unknown',
    expected_status: 'MALFORMED',
    expected_trust: 'not_applicable',
    note: 'signed_payload names "amount" twice; strict JSON parsing refuses the document.',
    text: `${replaced(valid, '"signed_payload":{', '"signed_payload":{"amount":1.00,')}\n`,
  });
}
