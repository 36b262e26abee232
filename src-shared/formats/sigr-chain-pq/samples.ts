/**
 * SiGR chain samples: a fan-out/fan-in agent run sealed with ML-DSA-65 (SHA-256 and SHA-384),
 * and tampered, forged, malformed and unsupported receipts. The kit's provider signs
 * deterministically.
 */
import { b64Encode, hexDecode } from '../../crypto';
import type { JsonObject } from '../../verify/fields';
import { edited, SAMPLES_NOW, sampleMember, sampleSeed, type SampleKit } from '../../verify/sample-kit';
import { sigrSuite } from './chain';
import { sigrChainExampleRun } from './example';
import { signSigrChain } from './sign';

/** The key id the samples' key file gives the sample issuer's ML-DSA-65 key. */
export const SIGR_SAMPLE_KEY_ID = 'did:svc:evroom:example-sigr1';
/** The seed byte of the sample issuer's key, and of the forger's (in no key file). */
const ISSUER_SEED_BYTE = 0x51;
const FORGER_SEED_BYTE = 0xed;

/**
 * Add the SiGR chain samples and the issuer's ML-DSA-65 key.
 *
 * @param kit - What the samples are added to.
 */
export function sigrChainSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const issuer = crypto.mldsa65KeyGen(sampleSeed(ISSUER_SEED_BYTE));
  const forger = crypto.mldsa65KeyGen(sampleSeed(FORGER_SEED_BYTE));
  kit.addKey({
    key_id: SIGR_SAMPLE_KEY_ID,
    algorithm: 'ML-DSA-65',
    public_key: issuer.publicKey,
    label: 'Sample key: SiGR chain issuer (ML-DSA-65)',
  });
  const sha256 = sigrSuite('sha-256', crypto);
  const sha384 = sigrSuite('sha-384', crypto);
  if (sha256 === undefined || sha384 === undefined) throw new Error('the SiGR suites are missing');
  const options = { issuedAt: SAMPLES_NOW };
  const valid = signSigrChain(sigrChainExampleRun(sha256), issuer.secretKey, issuer.publicKey, crypto, options);
  const valid384 = signSigrChain(sigrChainExampleRun(sha384), issuer.secretKey, issuer.publicKey, crypto, {
    ...options,
    hashSuite: 'sha-384',
  });
  // The forger signs the very payload digest the valid receipt carries, with its own key.
  const payload = hexDecode(sampleMember(valid, 'envelope')['payload_digest'] as string);
  const forgedSignature = b64Encode(crypto.mldsa65Sign(payload, forger.secretKey));
  issuer.secretKey.fill(0);
  forger.secretKey.fill(0);
  const envelope = (copy: JsonObject): JsonObject => sampleMember(copy, 'envelope');
  const step = (copy: JsonObject, index: number): JsonObject =>
    (envelope(copy)['steps'] as JsonObject[])[index] as JsonObject;
  kit.add(
    'sigr-chain/valid.json',
    'sigr-chain-pq',
    'PASS',
    'trusted',
    'An agent run of five steps (plan, two parallel tool calls, merge, final) sealed under one ML-DSA-65 signature.',
    valid,
  );
  kit.add(
    'sigr-chain/valid-sha384.json',
    'sigr-chain-pq',
    'PASS',
    'trusted',
    'The same run sealed with the sha-384 hash suite.',
    valid384,
  );
  kit.add(
    'sigr-chain/tampered.json',
    'sigr-chain-pq',
    'MISMATCH',
    'unattributed',
    "The second tool call's io_digest was changed; its commit_digest no longer matches its record.",
    edited(valid, (copy) => (step(copy, 2)['io_digest'] = 'f'.repeat(64))),
  );
  kit.add(
    'sigr-chain/forged.json',
    'sigr-chain-pq',
    'INVALID',
    'unattributed',
    'The signature was made by another ML-DSA-65 key than the inline one.',
    edited(valid, (copy) => (envelope(copy)['envelope_signature'] = forgedSignature)),
  );
  kit.add(
    'sigr-chain/malformed.json',
    'sigr-chain-pq',
    'MALFORMED',
    'not_applicable',
    'A step carries a member the format does not have (it would be unsigned).',
    edited(valid, (copy) => (step(copy, 0)['note'] = 'added')),
  );
  kit.add(
    'sigr-chain/unsupported.json',
    'sigr-chain-pq',
    'UNSUPPORTED',
    'not_applicable',
    'hash_suite names "sha3-256"; only sha-256 and sha-384 are executed.',
    edited(valid, (copy) => (envelope(copy)['hash_suite'] = 'sha3-256')),
  );
}
