/**
 * Countersigner samples: entry 2 of a five-entry log, and tampered, forged and malformed records.
 */
import { utf8Encode } from '../../crypto';
import {
  FORGER_SEED_BYTE,
  edited,
  sampleEd25519Key,
  sampleHash,
  sampleSeed,
  type SampleKit,
} from '../../verify/sample-kit';
import { signCountersigner } from './sign';

/**
 * Add the countersigner samples and the countersigner's key.
 *
 * @param kit - What the samples are added to.
 */
export function countersignerSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const seed = sampleSeed(0x12);
  kit.addKey(
    sampleEd25519Key(crypto, 'did:svc:evroom:samples:countersigner', seed, 'countersigner (operated by the service)'),
  );
  const canonical =
    '{"receipt_id":"r-2026-0001","sha256":"' + sampleHash(crypto, 'evroom sample receipt r-2026-0001') + '"}';
  const others = [1, 2, 3, 4].map((entry) => crypto.blake3(utf8Encode(`evroom sample log entry ${entry}`)));
  const valid = signCountersigner(canonical, seed, crypto, { others, leafIndex: 2 });
  const forged = signCountersigner(canonical, sampleSeed(FORGER_SEED_BYTE), crypto, { others, leafIndex: 2 });
  kit.add(
    'countersigner/valid.json',
    'countersigner',
    'PASS',
    'trusted',
    'Countersigned entry 2 of a five-entry BLAKE3 log with its inclusion path.',
    valid,
  );
  kit.add(
    'countersigner/tampered.json',
    'countersigner',
    'MISMATCH',
    'trusted',
    'signed_over_canonical was changed; its BLAKE3 no longer equals signed_over.',
    edited(valid, (copy) => (copy['signed_over_canonical'] = canonical.replace('r-2026-0001', 'r-2026-0002'))),
  );
  kit.add(
    'countersigner/forged.json',
    'countersigner',
    'INVALID',
    'trusted',
    'The countersignature was made by another key than the embedded one.',
    edited(valid, (copy) => (copy['countersignature'] = forged['countersignature'] ?? null)),
  );
  kit.add(
    'countersigner/malformed.json',
    'countersigner',
    'MALFORMED',
    'not_applicable',
    'countersigner_public_key_b64 is missing.',
    edited(valid, (copy) => delete copy['countersigner_public_key_b64']),
  );
}
