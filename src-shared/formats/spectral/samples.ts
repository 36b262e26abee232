/**
 * Spectral samples: a payment receipt under each algorithm, and tampered, forged, malformed and
 * unsupported ones.
 */
import { b64Encode } from '../../crypto';
import { FORGER_SEED_BYTE, edited, sampleEd25519Key, sampleSeed, type SampleKit } from '../../verify/sample-kit';
import { signSpectral } from './sign';

/**
 * Add the Spectral samples and the signer's key (pinned by its bytes, the receipts embed it).
 *
 * @param kit - What the samples are added to.
 */
export function spectralSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const seed = sampleSeed(0x33);
  kit.addKey(sampleEd25519Key(crypto, 'did:svc:evroom:samples:spectral', seed, 'Spectral signer'));
  const payload = {
    receipt_id: 'rcpt_sample_0001',
    kind: 'x402.payment',
    chain: 'base',
    asset: 'USDC',
    amount: 12.5,
    recipient: 'did:hive:agent-7',
    issued_at: '2026-06-01T12:00:00.000Z',
  };
  const valid = signSpectral(payload, seed, crypto);
  const forged = signSpectral(payload, sampleSeed(FORGER_SEED_BYTE), crypto);
  kit.add(
    'spectral/valid.json',
    'spectral',
    'PASS',
    'trusted',
    'A payment receipt signed over JSON.stringify of its payload (ed25519); public_key is pinned by its bytes.',
    valid,
  );
  kit.add(
    'spectral/canonical-valid.json',
    'spectral',
    'PASS',
    'trusted',
    'The same payload signed over its sorted-names form (ed25519-canonical).',
    signSpectral(payload, seed, crypto, 'ed25519-canonical'),
  );
  kit.add(
    'spectral/tampered.json',
    'spectral',
    'MISMATCH',
    'unattributed',
    'amount was changed after signing; signed_payload_sha256 no longer matches the payload.',
    edited(valid, (copy) => (copy['amount'] = 125)),
  );
  kit.add(
    'spectral/forged.json',
    'spectral',
    'INVALID',
    'unattributed',
    'The signature was made by another key than the embedded public_key.',
    edited(valid, (copy) => (copy['signature'] = forged['signature'] ?? null)),
  );
  kit.add(
    'spectral/malformed.json',
    'spectral',
    'MALFORMED',
    'not_applicable',
    'public_key is the raw 32-byte key, not its SPKI DER.',
    edited(valid, (copy) => (copy['public_key'] = b64Encode(crypto.ed25519PublicKey(seed)))),
  );
  kit.add(
    'spectral/unsupported.json',
    'spectral',
    'UNSUPPORTED',
    'not_applicable',
    'signature_algo is ed448, an algorithm this verifier does not execute.',
    edited(valid, (copy) => (copy['signature_algo'] = 'ed448')),
  );
}
