/**
 * SMSH-Stamp samples: a tool-call stamp with a council score, and tampered, forged, malformed and
 * unsupported ones.
 */
import {
  FORGER_SEED_BYTE,
  edited,
  sampleEd25519Key,
  sampleMember,
  sampleSeed,
  type SampleKit,
} from '../../verify/sample-kit';
import { signSmshStamp } from './sign';

/**
 * Add the SMSH-Stamp samples and the stamping key (named by the stamps' kid).
 *
 * @param kit - What the samples are added to.
 */
export function smshStampSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const seed = sampleSeed(0x32);
  const kid = 'did:svc:evroom:samples:smsh-stamp';
  kit.addKey(sampleEd25519Key(crypto, kid, seed, 'SMSH-Stamp signer'));
  const stamp = {
    v: 'smsh-stamp/1',
    alg: 'ed25519',
    kid,
    stamped_at: '2026-06-01T12:00:00Z',
    subject: { kind: 'tool-call', model: 'sample-model', input_hash: 'aW5wdXQ', output_hash: 'b3V0cHV0' },
    council: { round: 'R4', score: 8, of: 10 },
    lineage: null,
  };
  const valid = signSmshStamp(stamp, seed, crypto);
  const forged = signSmshStamp(stamp, sampleSeed(FORGER_SEED_BYTE), crypto);
  kit.add('smsh-stamp/valid.json', 'smsh-stamp', 'PASS', 'trusted', 'A tool-call stamp with a council score.', valid);
  kit.add(
    'smsh-stamp/tampered.json',
    'smsh-stamp',
    'INVALID',
    'unattributed',
    'council.score was changed after signing; the signature binds the content, so it no longer verifies.',
    edited(valid, (copy) => (sampleMember(copy, 'council')['score'] = 10)),
  );
  kit.add(
    'smsh-stamp/forged.json',
    'smsh-stamp',
    'INVALID',
    'unattributed',
    'sig was made by another key than the one kid names.',
    edited(valid, (copy) => (copy['sig'] = forged['sig'] ?? null)),
  );
  kit.add(
    'smsh-stamp/malformed.json',
    'smsh-stamp',
    'MALFORMED',
    'not_applicable',
    'council is missing (it is required, and may be null).',
    edited(valid, (copy) => delete copy['council']),
  );
  kit.add(
    'smsh-stamp/unsupported.json',
    'smsh-stamp',
    'UNSUPPORTED',
    'not_applicable',
    'v is smsh-stamp/2, a version this verifier does not execute.',
    edited(valid, (copy) => (copy['v'] = 'smsh-stamp/2')),
  );
}
