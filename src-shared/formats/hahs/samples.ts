/**
 * HAHS samples: an anchored paid-tier receipt, and tampered, forged, malformed and unsupported ones.
 */
import { FORGER_SEED_BYTE, edited, sampleEd25519Key, sampleSeed, type SampleKit } from '../../verify/sample-kit';
import type { JsonObject } from '../../verify/fields';
import { signHahs } from './sign';

/**
 * The body of the HAHS example receipt (docs/protocol.md section 12a): a paid-tier receipt with an
 * anchor reference, in the producer's member order. The samples sign it under another
 * `receipt_id`.
 */
export const HAHS_EXAMPLE_BODY: Readonly<JsonObject> = Object.freeze({
  protocol: 'hahs/1',
  receipt_id: 'TGT-0123456789abcdef',
  symbol: 'SIU-GPT4O-1K',
  units: 42,
  amount_usd: '12.50',
  recipient: 'did:hive:agent-7',
  issued_at: '2026-06-01T12:00:00Z',
  tier: 'pro',
  hahs_anchor: 'base:#19284733',
  issuer_verified: true,
});

/**
 * Add the HAHS samples and the issuer's key (pinned by its bytes, the receipts embed it).
 *
 * @param kit - What the samples are added to.
 */
export function hahsSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const seed = sampleSeed(0x31);
  kit.addKey(sampleEd25519Key(crypto, 'did:svc:evroom:samples:hahs', seed, 'HAHS issuer'));
  const body = { ...HAHS_EXAMPLE_BODY, receipt_id: 'TGT-00000000000000a1' };
  const valid = signHahs(body, seed, crypto);
  const forged = signHahs(body, sampleSeed(FORGER_SEED_BYTE), crypto);
  kit.add(
    'hahs/valid.json',
    'hahs',
    'PASS',
    'trusted',
    'A paid-tier HAHS receipt with an anchor reference (shown, not resolved); issuer_pubkey is pinned by its bytes.',
    valid,
  );
  kit.add(
    'hahs/tampered.json',
    'hahs',
    'MISMATCH',
    'unattributed',
    'amount_usd was changed after signing; canonical_sha256 no longer matches the body.',
    edited(valid, (copy) => (copy['amount_usd'] = '99.00')),
  );
  kit.add(
    'hahs/forged.json',
    'hahs',
    'INVALID',
    'unattributed',
    'The signature was made by another key than the embedded issuer_pubkey.',
    edited(valid, (copy) => (copy['signature'] = forged['signature'] ?? null)),
  );
  kit.add(
    'hahs/malformed.json',
    'hahs',
    'MALFORMED',
    'not_applicable',
    'signature is missing its "ed25519:" prefix.',
    edited(valid, (copy) => (copy['signature'] = String(valid['signature']).slice('ed25519:'.length))),
  );
  kit.add(
    'hahs/unsupported.json',
    'hahs',
    'UNSUPPORTED',
    'not_applicable',
    'protocol is hahs/2, a version this verifier does not execute.',
    edited(valid, (copy) => (copy['protocol'] = 'hahs/2')),
  );
}
