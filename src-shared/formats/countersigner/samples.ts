/**
 * Countersigner samples: a five-entry log's countersign answer, inclusion answer and verify
 * request, and tampered, forged and malformed ones. Edits are made on the text, so the float
 * `countersigner_time` keeps its spelling.
 */
import { fromPlain } from '../../json';
import {
  FORGER_SEED_BYTE,
  SAMPLES_NOW,
  replaced,
  sampleEd25519Key,
  sampleHash,
  sampleSeed,
  type SampleKit,
} from '../../verify/sample-kit';
import { countersign, inclusionAnswer, verifyRequest, type CountersignedEntry } from './sign';

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
  const start = Date.parse(SAMPLES_NOW) / 1000;
  const records = [1, 2, 3, 4, 5].map((n) =>
    fromPlain({ receipt_id: `r-2026-000${n}`, sha256: sampleHash(crypto, `evroom sample receipt r-2026-000${n}`) }),
  );
  const log: CountersignedEntry[] = [];
  records.forEach((record, index) => {
    log.push(
      countersign(
        {
          record,
          operator_signature: sampleHash(crypto, `evroom sample operator signature ${index + 1}`),
          operator_signature_scheme: 'ml-dsa-65',
        },
        seed,
        crypto,
        { time: start + index * 1.25, previousLeaves: log.map((entry) => entry.leaf) },
      ),
    );
  });
  const [first, second, third] = log;
  if (first === undefined || second === undefined || third === undefined) throw new Error('the sample log is short');
  const valid = inclusionAnswer(log, 2, crypto);
  const forger = countersign(
    { record: records[1] ?? fromPlain({}), operator_signature: 'x', operator_signature_scheme: 'ml-dsa-65' },
    sampleSeed(FORGER_SEED_BYTE),
    crypto,
    { time: start },
  );
  kit.add(
    'countersigner/valid.json',
    'countersigner',
    'PASS',
    'trusted',
    'Inclusion answer of entry 2 of a five-entry log: countersignature, leaf and audit path to the root.',
    valid,
  );
  kit.add(
    'countersigner/valid-countersign.json',
    'countersigner',
    'PASS',
    'trusted',
    'Countersign answer of entry 1: it chains to the genesis leaf and log_root_after is its leaf.',
    first.answer,
  );
  kit.add(
    'countersigner/valid-verify-request.json',
    'countersigner',
    'PASS',
    'trusted',
    'Verify request of entry 3 with its record and audit path: record_digest is checked too.',
    verifyRequest(third, { record: records[2], inclusion: inclusionAnswer(log, 3, crypto) }),
  );
  kit.add(
    'countersigner/tampered.json',
    'countersigner',
    'MISMATCH',
    'unattributed',
    'signed_over.operator_signature_scheme was changed; signed_over_canonical is no longer its canonical text.',
    replaced(valid, '"operator_signature_scheme":"ml-dsa-65"', '"operator_signature_scheme":"ed25519"'),
  );
  kit.add(
    'countersigner/forged.json',
    'countersigner',
    'INVALID',
    'unattributed',
    'The countersignature was made by another key than the embedded one.',
    replaced(valid, second.countersignature, forger.countersignature),
  );
  kit.add(
    'countersigner/malformed.json',
    'countersigner',
    'MALFORMED',
    'not_applicable',
    'countersigner_public_key_b64 is missing from the inclusion answer.',
    replaced(valid, `"countersigner_public_key_b64":"${second.publicKey}",`, ''),
  );
}
