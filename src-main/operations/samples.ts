/**
 * The labelled samples of every format, for demos, docs and tests (`evroom samples --out DIR`,
 * the app's Load samples).
 *
 * Moved from src-main/cli/commands/samples.ts unchanged: the operations layer loads them into
 * the ledger (load-samples.ts) and may not import a door.
 *
 * Decisions:
 * - Everything is fixed: seeds, key ids, times, receipt ids, IVs and the log entries, so two runs
 *   write byte-identical files. Ed25519 is deterministic by design. ML-DSA-65 signing is hedged
 *   (randomized) in the crypto provider; samples sign with FIPS 204's deterministic variant
 *   instead (ML-DSA.Sign with rnd = 32 zero bytes, which verifies exactly like a hedged
 *   signature), so the typed-pq samples are byte-identical too. Randomness is refused outright:
 *   the samples' provider throws if anything asks for it.
 * - The valid samples are the docs' worked examples where one exists (the wearable receipt,
 *   the nano/standard/pq receipts, the typed delegation), so the docs and the demo data agree.
 * - Each sample's expected status is stated, not computed: the tests check that `evroom verify`
 *   agrees, so a change in either the samples or the verifier shows up.
 * - Expected trust is the trust with DIR/keys.json pinned (`--trust`). With `--keys` instead,
 *   every status is the same and trust is `unpinned` wherever it would be `trusted`.
 * - Every seed here is public. The keys are labelled as sample keys; never pin them outside
 *   the samples.
 */
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { b64uDecode, b64uEncode, didKeyFromEd25519, hexEncode, utf8Encode } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import { signClassical } from '../../src-shared/formats/classical';
import { signCountersigner } from '../../src-shared/formats/countersigner';
import { envelopeDigest, signEnvelope } from '../../src-shared/formats/envelope';
import {
  PROFILE_EXAMPLE_AGENT,
  PROFILE_EXAMPLE_CONTENT,
  PROFILE_EXAMPLE_KEY_ID,
  PROFILE_EXAMPLE_NOW,
  RECEIPT_ID_PREFIX,
  encodeUlid,
  issueLegacyReceipt,
  issueProfileReceipt,
  profileDigest,
  profileWorkedExamples,
} from '../../src-shared/formats/profile';
import { sealDocument } from '../../src-shared/formats/sealed';
import { buildSigrChain, signTypedContract, typedWorkedExample } from '../../src-shared/formats/typed';
import { TYPED_PQ_EXAMPLE_FRAGMENTS, TYPED_PQ_EXAMPLE_KEY_ID, signTypedPq } from '../../src-shared/formats/typed-pq';
import {
  WEARABLE_EXAMPLE_KEY_ID,
  WEARABLE_EXAMPLE_TS,
  issueWearable,
  signObservation,
  wearableExampleDeviceSeed,
  wearableExampleObservation,
  wearableExampleServiceSeed,
} from '../../src-shared/formats/wearable';
import type { JsonValue } from '../../src-shared/json/types';
import type { KeyEntry, SecretEntry } from '../../src-shared/verify/context';
import type { JsonObject } from '../../src-shared/verify/fields';
import { serializeKeyFile } from '../../src-shared/verify/key-file';
import type { ReportFormat, ReportStatus, TrustStatus } from '../../src-shared/verify/report';
import { ruleD1Payload, signRuleD1 } from '../../src-shared/verify/signature';
import { formatJsonDocument } from './format-document';

/** One sample document and what verifying it must give. */
export interface SampleFile {
  /** Path under the output folder, with `/` separators, e.g. `classical/valid.json`. */
  file: string;
  format: ReportFormat;
  expected_status: ReportStatus;
  /** The trust with keys.json pinned (`evroom verify --trust keys.json`). */
  expected_trust: TrustStatus;
  /** What the sample shows, for people. */
  note: string;
  /** The file's contents. */
  text: string;
}

/** Every sample with the keys and secrets that verify them. */
export interface SampleSet {
  files: SampleFile[];
  /** The public keys of every sample signer (keys.json). */
  keys: KeyEntry[];
  /** The sealed samples' secret (secrets.json). */
  secrets: SecretEntry[];
}

/** The instant the samples without a worked example are issued at. */
export const SAMPLES_NOW = '2026-06-01T12:00:00.000Z';

/** The id of the sealed samples' secret. */
export const SAMPLES_SECRET_ID = 'evroom-samples/sealed';

/** The seed of the forger: a key in no key file, whose signatures are the `forged` samples'. */
const FORGER_SEED_BYTE = 0xee;


/**
 * Every file `evroom samples` writes: the documents, keys.json, secrets.json, index.json and
 * README.md.
 *
 * @param set - The samples.
 * @returns Paths (with `/`) and contents.
 */
export function sampleOutputs(set: SampleSet): { file: string; text: string }[] {
  const index = set.files.map(({ file, format, expected_status, expected_trust, note }) => ({ file, format, expected_status, expected_trust, note }));
  const secrets = { secrets: set.secrets.map((secret) => ({ key_id: secret.key_id, key: b64uEncode(secret.key) })) };
  return [
    ...set.files.map(({ file, text }) => ({ file, text })),
    { file: 'keys.json', text: serializeKeyFile(set.keys) },
    { file: 'secrets.json', text: `${JSON.stringify(secrets, null, 2)}\n` },
    { file: 'index.json', text: `${JSON.stringify(index, null, 2)}\n` },
    { file: 'README.md', text: sampleReadme(set) },
  ];
}

/**
 * Build every sample.
 *
 * @returns The sample documents, the keys that verify them and the sealed samples' secret.
 */
export function buildSamples(): SampleSet {
  const crypto = samplesCrypto();
  const set: SampleSet = { files: [], keys: [], secrets: [] };
  classicalSamples(crypto, set);
  countersignerSamples(crypto, set);
  sealedSamples(crypto, set);
  envelopeSamples(crypto, set);
  wearableSamples(crypto, set);
  profileSamples(crypto, set);
  typedSamples(crypto, set);
  typedPqSamples(crypto, set);
  return set;
}

/**
 * The node provider with deterministic ML-DSA-65 signing and no randomness at all.
 */
function samplesCrypto(): CryptoProvider {
  const base = createNodeCryptoProvider();
  return Object.freeze({
    ...base,
    name: 'samples',
    mldsa65Sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
      // FIPS 204 section 3.4: the deterministic variant; verifiers cannot tell it from hedged.
      return ml_dsa65.sign(message, secretKey, { extraEntropy: false });
    },
    randomBytes(): Uint8Array {
      throw new Error('the samples are deterministic and must not ask for randomness');
    },
  });
}

function seedOf(byte: number): Uint8Array {
  return new Uint8Array(32).fill(byte);
}

function hashOf(crypto: CryptoProvider, text: string): string {
  return hexEncode(crypto.sha256(utf8Encode(text)));
}

function addKey(set: SampleSet, entry: KeyEntry): void {
  set.keys.push(entry);
}

function ed25519Key(crypto: CryptoProvider, keyId: string, seed: Uint8Array, label: string): KeyEntry {
  return { key_id: keyId, algorithm: 'Ed25519', public_key: crypto.ed25519PublicKey(seed), label: `Sample key: ${label}` };
}

function add(
  set: SampleSet,
  file: string,
  format: ReportFormat,
  status: ReportStatus,
  trust: TrustStatus,
  note: string,
  document: string | JsonValue,
): void {
  set.files.push({ file, format, expected_status: status, expected_trust: trust, note, text: formatJsonDocument(document) });
}

/** A text edit that must change something: a sample that silently equals its original is a bug. */
function replaced(text: string, from: string, to: string): string {
  const result = text.replace(from, to);
  if (result === text) throw new Error(`sample edit found nothing to replace: ${from}`);
  return result;
}

/** A deep copy of a document with a change applied. */
function edited(document: JsonValue, change: (copy: JsonObject) => void): JsonObject {
  const copy = JSON.parse(JSON.stringify(document)) as JsonObject;
  change(copy);
  return copy;
}

function member(object: JsonValue | undefined, name: string): JsonObject {
  return (object as JsonObject)[name] as JsonObject;
}

function classicalSamples(crypto: CryptoProvider, set: SampleSet): void {
  const seed = seedOf(0x11);
  addKey(set, ed25519Key(crypto, 'did:svc:evroom:samples:classical', seed, 'classical issuer'));
  const payload = '{"receipt_id":"r-2026-0001","sequence":7,"amount":12.50,"currency":"EUR","memo":"Coffee beans, 1 kg"}';
  const valid = signClassical(payload, seed, crypto);
  const forger = JSON.parse(signClassical(payload, seedOf(FORGER_SEED_BYTE), crypto)) as JsonObject;
  const genuine = JSON.parse(valid) as JsonObject;
  add(set, 'classical/valid.json', 'classical', 'PASS', 'trusted', 'Signed payload with its raw text and sequence; 12.50 is signed as written.', valid);
  add(
    set,
    'classical/tampered.json',
    'classical',
    'MISMATCH',
    'trusted',
    'The amount in signed_payload was changed to 99.50 after signing; raw_payload still holds the signed text.',
    replaced(valid, '"amount":12.50,"currency"', '"amount":99.50,"currency"'),
  );
  add(
    set,
    'classical/forged.json',
    'classical',
    'INVALID',
    'trusted',
    'The signature was made by another key than the one the receipt names.',
    replaced(valid, String(genuine['signature']), String(forger['signature'])),
  );
  add(
    set,
    'classical/malformed.json',
    'classical',
    'MALFORMED',
    'not_applicable',
    'An unsigned member "note" was added beside the signed payload.',
    replaced(valid, '{"alg"', '{"note":"approved","alg"'),
  );
  add(
    set,
    'classical/unsupported.json',
    'classical',
    'UNSUPPORTED',
    'not_applicable',
    'alg names ES256, which evroom does not execute.',
    replaced(valid, '"alg":"Ed25519"', '"alg":"ES256"'),
  );
  // Strict parsing refuses this before any format is recognized, so it is written unindented.
  set.files.push({
    file: 'classical/duplicate-name.json',
    format: 'unknown',
    expected_status: 'MALFORMED',
    expected_trust: 'not_applicable',
    note: 'signed_payload names "amount" twice; strict JSON parsing refuses the document.',
    text: `${replaced(valid, '"signed_payload":{', '"signed_payload":{"amount":1.00,')}\n`,
  });
}

function countersignerSamples(crypto: CryptoProvider, set: SampleSet): void {
  const seed = seedOf(0x12);
  addKey(set, ed25519Key(crypto, 'did:svc:evroom:samples:countersigner', seed, 'countersigner (operated by the service)'));
  const canonical = '{"receipt_id":"r-2026-0001","sha256":"' + hashOf(crypto, 'evroom sample receipt r-2026-0001') + '"}';
  const others = [1, 2, 3, 4].map((entry) => crypto.blake3(utf8Encode(`evroom sample log entry ${entry}`)));
  const valid = signCountersigner(canonical, seed, crypto, { others, leafIndex: 2 });
  const forged = signCountersigner(canonical, seedOf(FORGER_SEED_BYTE), crypto, { others, leafIndex: 2 });
  add(set, 'countersigner/valid.json', 'countersigner', 'PASS', 'trusted', 'Countersigned entry 2 of a five-entry BLAKE3 log with its inclusion path.', valid);
  add(
    set,
    'countersigner/tampered.json',
    'countersigner',
    'MISMATCH',
    'trusted',
    'signed_over_canonical was changed; its BLAKE3 no longer equals signed_over.',
    edited(valid, (copy) => (copy['signed_over_canonical'] = canonical.replace('r-2026-0001', 'r-2026-0002'))),
  );
  add(
    set,
    'countersigner/forged.json',
    'countersigner',
    'INVALID',
    'trusted',
    'The countersignature was made by another key than the embedded one.',
    edited(valid, (copy) => (copy['countersignature'] = forged['countersignature'] ?? null)),
  );
  add(
    set,
    'countersigner/malformed.json',
    'countersigner',
    'MALFORMED',
    'not_applicable',
    'countersigner_public_key_b64 is missing.',
    edited(valid, (copy) => delete copy['countersigner_public_key_b64']),
  );
}

function sealedSamples(crypto: CryptoProvider, set: SampleSet): void {
  const secret: SecretEntry = { key_id: SAMPLES_SECRET_ID, key: seedOf(0x1d) };
  set.secrets.push(secret);
  const wrong: SecretEntry = { key_id: SAMPLES_SECRET_ID, key: seedOf(0x1e) };
  // One IV per sealing: an IV is never reused with a key, not even in samples.
  let ivCounter = 0;
  const seal = (text: string, key: SecretEntry = secret): JsonObject =>
    sealDocument(utf8Encode(text), key, crypto, { iv: Uint8Array.from({ length: 12 }, (_, index) => (index === 11 ? ++ivCounter : 0x5e)) });
  const inner = (name: string): string => {
    const found = set.files.find((file) => file.file === `classical/${name}.json`);
    if (found === undefined) throw new Error(`the sealed samples need classical/${name}.json`);
    return found.text;
  };
  const valid = seal(inner('valid'));
  add(set, 'sealed/valid.json', 'sealed', 'PASS', 'trusted', 'classical/valid.json sealed with AES-256-GCM under the secret in secrets.json.', valid);
  const ciphertext = String(valid['ciphertext']);
  add(
    set,
    'sealed/tampered.json',
    'sealed',
    'AUTH_FAILED',
    'not_applicable',
    'One character of the ciphertext was changed; the GCM tag no longer authenticates it.',
    edited(valid, (copy) => (copy['ciphertext'] = (ciphertext.startsWith('A') ? 'B' : 'A') + ciphertext.slice(1))),
  );
  add(
    set,
    'sealed/tampered-inside.json',
    'sealed',
    'MISMATCH',
    'trusted',
    'Opens correctly, but the document inside is classical/tampered.json.',
    seal(inner('tampered')),
  );
  add(set, 'sealed/forged.json', 'sealed', 'INVALID', 'trusted', 'Opens correctly, but the document inside is classical/forged.json.', seal(inner('forged')));
  add(
    set,
    'sealed/wrong-key.json',
    'sealed',
    'AUTH_FAILED',
    'not_applicable',
    `Sealed under the id ${SAMPLES_SECRET_ID} with another key than the one secrets.json holds for that id.`,
    seal(inner('valid'), wrong),
  );
  add(
    set,
    'sealed/malformed.json',
    'sealed',
    'MALFORMED',
    'not_applicable',
    'The IV is 16 bytes; A256GCM here takes 12.',
    edited(valid, (copy) => (copy['iv'] = b64uEncode(new Uint8Array(16).fill(0x5e)))),
  );
  add(set, 'sealed/unsupported.json', 'sealed', 'UNSUPPORTED', 'not_applicable', 'enc names A128GCM; only A256GCM is opened.', edited(valid, (copy) => (copy['enc'] = 'A128GCM')));
}

function envelopeSamples(crypto: CryptoProvider, set: SampleSet): void {
  const seeds = { requester: seedOf(0x13), operator: seedOf(0x14), service: seedOf(0x15) };
  const signers = {
    requester: { key_id: didKeyFromEd25519(crypto.ed25519PublicKey(seeds.requester)), seed: seeds.requester },
    operator: { key_id: 'did:web:operator.example.com', seed: seeds.operator },
    service: { key_id: 'did:svc:evroom:samples:service', seed: seeds.service },
  };
  addKey(set, ed25519Key(crypto, signers.requester.key_id, seeds.requester, 'envelope requester'));
  addKey(set, ed25519Key(crypto, signers.operator.key_id, seeds.operator, 'envelope operator'));
  addKey(set, ed25519Key(crypto, signers.service.key_id, seeds.service, 'envelope service'));
  const fields: JsonObject = {
    v: 'svc-receipt-v1',
    receipt_id: RECEIPT_ID_PREFIX + encodeUlid(Date.parse(SAMPLES_NOW), new Uint8Array(10).fill(0x0e)),
    request: { hash: `sha256:${hashOf(crypto, 'evroom sample request')}`, origin: 'eu', purpose: 'audit' },
    operator: { entity: 'Operator Example Ltd', region: 'eu-west', training_region: 'none' },
    response: { hash: `sha256:${hashOf(crypto, 'evroom sample response')}`, sealed: false },
    issued_at: SAMPLES_NOW,
  };
  const valid = signEnvelope(fields, signers, crypto);
  const forgedService = b64uEncode(crypto.ed25519Sign(envelopeDigest(fields, crypto.sha256), seedOf(FORGER_SEED_BYTE)));
  add(set, 'envelope/valid.json', 'envelope/svc-receipt-v1', 'PASS', 'trusted', 'Signed by requester (did:key), operator and service.', valid);
  add(
    set,
    'envelope/tampered.json',
    'envelope/svc-receipt-v1',
    'MISMATCH',
    'trusted',
    'response.sealed was changed after signing; no role\'s signature covers the content any more.',
    edited(valid, (copy) => (member(copy, 'response')['sealed'] = true)),
  );
  add(
    set,
    'envelope/forged.json',
    'envelope/svc-receipt-v1',
    'INVALID',
    'trusted',
    'The service signature was made by another key than the service key it names.',
    edited(valid, (copy) => (member(member(copy, 'signatures'), 'service')['sig_b64u'] = forgedService)),
  );
  add(
    set,
    'envelope/missing-role.json',
    'envelope/svc-receipt-v1',
    'INDETERMINATE',
    'trusted',
    'The operator signature is missing; a missing role is unavailable, never a pass.',
    edited(valid, (copy) => delete member(copy, 'signatures')['operator']),
  );
  add(
    set,
    'envelope/malformed.json',
    'envelope/svc-receipt-v1',
    'MALFORMED',
    'not_applicable',
    'signatures holds a fourth role, "auditor".',
    edited(valid, (copy) => (member(copy, 'signatures')['auditor'] = member(member(copy, 'signatures'), 'service'))),
  );
}

function wearableSamples(crypto: CryptoProvider, set: SampleSet): void {
  const serviceSeed = wearableExampleServiceSeed();
  addKey(set, ed25519Key(crypto, WEARABLE_EXAMPLE_KEY_ID, serviceSeed, 'wearable receipt service'));
  const issue = (overrides: JsonObject = {}, afterDeviceSigning: JsonObject = {}): JsonObject => {
    const fields = wearableExampleObservation(crypto) as unknown as JsonObject;
    Object.assign(fields, overrides);
    fields['device_signature'] = signObservation(fields as never, wearableExampleDeviceSeed(), crypto);
    Object.assign(fields, afterDeviceSigning);
    return issueWearable(fields, serviceSeed, WEARABLE_EXAMPLE_KEY_ID, crypto, { ts: WEARABLE_EXAMPLE_TS }) as unknown as JsonObject;
  };
  const valid = issue();
  const body = (copy: JsonObject): JsonObject => member(copy, 'signed_body');
  const forgedSignature = b64uEncode(crypto.ed25519Sign(crypto.sha256(utf8Encode(ruleD1Payload(valid))), seedOf(FORGER_SEED_BYTE)));
  add(
    set,
    'wearable/valid.json',
    'wearable/r2.0.0',
    'PASS',
    'trusted',
    'The docs\' worked example: heart rate 72 /min, sequence 42 after 41; outcome measurement_provenance_complete.',
    valid,
  );
  add(
    set,
    'wearable/outcome-partial.json',
    'wearable/r2.0.0',
    'PASS',
    'trusted',
    'Valid receipt whose sequence jumps from 41 to 45; outcome measurement_provenance_partial (sequence_gap).',
    issue({ sequence_no: 45 }),
  );
  add(
    set,
    'wearable/outcome-inconsistent.json',
    'wearable/r2.0.0',
    'PASS',
    'trusted',
    'Valid receipt of a heart rate in "bpm", not the registry\'s "/min"; outcome measurement_provenance_inconsistent.',
    issue({ unit: 'bpm' }),
  );
  add(
    set,
    'wearable/device-signature-invalid.json',
    'wearable/r2.0.0',
    'INVALID',
    'trusted',
    'Issued faithfully, but the device signed another value than the one sent; the device signature fails.',
    issue({}, { value: 150 }),
  );
  add(
    set,
    'wearable/tampered.json',
    'wearable/r2.0.0',
    'MISMATCH',
    'trusted',
    'The value was changed from 72 to 150 after issuance; digest, signatures and derived fields disagree.',
    edited(valid, (copy) => (body(copy)['value'] = 150)),
  );
  add(
    set,
    'wearable/derived-mismatch.json',
    'wearable/r2.0.0',
    'MISMATCH',
    'trusted',
    'Re-signed by the service with sequence_relation "gap" where the fields give "contiguous".',
    signRuleD1(edited(valid, (copy) => (body(copy)['sequence_relation'] = 'gap')), serviceSeed, crypto),
  );
  add(
    set,
    'wearable/forged.json',
    'wearable/r2.0.0',
    'INVALID',
    'trusted',
    'The service signature was made by another key than the service key it names.',
    edited(valid, (copy) => (copy['sig_b64u'] = forgedSignature)),
  );
  add(
    set,
    'wearable/malformed.json',
    'wearable/r2.0.0',
    'MALFORMED',
    'not_applicable',
    'A verdict flag claims clinical validity; every verdict flag must be false.',
    edited(valid, (copy) => (member(body(copy), 'verdict')['clinical_validity_proven'] = true)),
  );
}

function profileSamples(crypto: CryptoProvider, set: SampleSet): void {
  const [nano, standard, pq] = profileWorkedExamples(crypto);
  if (nano === undefined || standard === undefined || pq === undefined) throw new Error('the profile worked examples are missing');
  addKey(set, { ...exampleKey(nano.key), label: 'Sample key: nano issuer (did:key)' });
  addKey(set, { ...exampleKey(standard.key), label: 'Sample key: profile receipt service' });
  const serviceSeed = seedOf(0x53);
  const contentSha256 = hashOf(crypto, PROFILE_EXAMPLE_CONTENT);
  const idFor = (fill: number): string => RECEIPT_ID_PREFIX + encodeUlid(PROFILE_EXAMPLE_NOW.getTime(), new Uint8Array(10).fill(fill));
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
  const legacyPq = issueLegacyReceipt('pq', pqFields('Ed25519'), serviceSeed, PROFILE_EXAMPLE_KEY_ID, crypto, { now: PROFILE_EXAMPLE_NOW, id: idFor(0x05) });
  const forge = (document: JsonObject): string => {
    const unsigned = edited(document, (copy) => delete member(copy, 'receipt')['sig_b64u']);
    return b64uEncode(crypto.ed25519Sign(profileDigest(unsigned, crypto.sha256), seedOf(FORGER_SEED_BYTE)));
  };
  const series: { folder: string; format: ReportFormat; valid: JsonObject; what: string; tamper: (copy: JsonObject) => void; unsupported?: JsonObject }[] = [
    {
      folder: 'nano',
      format: 'profile/nano',
      valid: nano.document,
      what: 'The docs\' nano example, signed by a did:key (checkable offline).',
      tamper: (copy) => (copy['ok'] = false),
    },
    {
      folder: 'standard',
      format: 'profile/standard',
      valid: standard.document,
      what: 'The docs\' standard example with a settlement reference.',
      tamper: (copy) => (member(copy, 'hktn_context')['reputation_tier'] = 'established'),
    },
    {
      folder: 'pq',
      format: 'profile/pq',
      valid: pq.document,
      what: 'The docs\' pq example: posture declared, signed with Ed25519.',
      tamper: (copy) => (copy['auditor_verifier'] = false),
      unsupported: issueProfileReceipt('pq', pqFields('ML-DSA-65'), serviceSeed, PROFILE_EXAMPLE_KEY_ID, crypto, { now: PROFILE_EXAMPLE_NOW, id: idFor(0x06) }),
    },
    {
      folder: 'legacy-standard',
      format: 'legacy/proof_tier',
      valid: legacyStandard,
      what: 'A standard receipt as older issuers wrote it, with proof_tier.',
      tamper: (copy) => (member(copy, 'smsh')['sealed'] = true),
    },
    {
      folder: 'legacy-pq',
      format: 'legacy/proof_tier',
      valid: legacyPq,
      what: 'A pq receipt as older issuers wrote it, with proof_tier.',
      tamper: (copy) => (copy['pq_posture'] = 'enforced'),
      unsupported: issueLegacyReceipt('pq', pqFields('ML-DSA-65'), serviceSeed, PROFILE_EXAMPLE_KEY_ID, crypto, { now: PROFILE_EXAMPLE_NOW, id: idFor(0x07) }),
    },
  ];
  for (const { folder, format, valid, what, tamper, unsupported } of series) {
    add(set, `${folder}/valid.json`, format, 'PASS', 'trusted', what, valid);
    add(
      set,
      `${folder}/tampered.json`,
      format,
      'INVALID',
      'trusted',
      'A field was changed after signing; a profile receipt has no digest member, so the signature check is what fails.',
      edited(valid, tamper),
    );
    add(
      set,
      `${folder}/forged.json`,
      format,
      'INVALID',
      'trusted',
      'The signature was made by another key than the key the receipt names.',
      edited(valid, (copy) => (member(copy, 'receipt')['sig_b64u'] = forge(valid))),
    );
    add(
      set,
      `${folder}/malformed.json`,
      format,
      'MALFORMED',
      'not_applicable',
      'The receipt id is not rcp_ followed by a ULID.',
      edited(valid, (copy) => (member(copy, 'receipt')['id'] = 'receipt-1')),
    );
    if (unsupported !== undefined) {
      add(set, `${folder}/unsupported.json`, format, 'UNSUPPORTED', 'not_applicable', 'crypto_agile_metadata.current_alg names ML-DSA-65; profile receipts are verified with Ed25519 only.', unsupported);
    }
  }
}

function exampleKey(key: { key_id: string; algorithm: 'Ed25519'; public_key: string }): KeyEntry {
  return { key_id: key.key_id, algorithm: key.algorithm, public_key: b64uDecode(key.public_key) };
}

function typedSamples(crypto: CryptoProvider, set: SampleSet): void {
  const example = typedWorkedExample(crypto);
  const seed = seedOf(0x2a);
  const keyId = example.key_id;
  const witnessSeed = seedOf(0x2b);
  const witnessId = didKeyFromEd25519(crypto.ed25519PublicKey(witnessSeed));
  addKey(set, ed25519Key(crypto, keyId, seed, 'typed contract issuer (did:key)'));
  addKey(set, ed25519Key(crypto, witnessId, witnessSeed, 'sigr chain witness (did:key)'));
  const issuer = 'did:web:acme.example';
  const sign = (contractType: string, contractId: string, body: JsonObject, options: { algorithm?: string } = {}): JsonObject =>
    signTypedContract(
      { contract_type: contractType, contract_id: contractId, issued_at: SAMPLES_NOW, issuer, body, ...options },
      seed,
      keyId,
      crypto,
    );
  const demand: JsonObject = {
    demander: issuer,
    respondent: 'did:web:supplier.example',
    subject_sha256: hashOf(crypto, 'evroom sample subject'),
    required: ['receipt', 'anchor'],
    due_by: '2026-06-15T12:00:00.000Z',
  };
  const valid = example.contract;
  add(set, 'typed/valid.json', 'typed/authority.delegation', 'PASS', 'trusted', 'The docs\' worked example: a delegation of two scopes over 2026.', valid);
  const more: [string, string, JsonObject, string][] = [
    ['proof-demand', 'proof.demand', demand, 'A demand for two proofs, due two weeks after issue.'],
    [
      'imprimatur-clearance',
      'imprimatur.clearance',
      {
        artifact_sha256: hashOf(crypto, 'evroom sample artifact'),
        approver: issuer,
        policy_sha256: hashOf(crypto, 'evroom sample policy'),
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
          [hashOf(crypto, 'evroom sample statement 1'), hashOf(crypto, 'evroom sample statement 2')],
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
        expected_sha256: hashOf(crypto, 'evroom sample expected'),
        observed_sha256: hashOf(crypto, 'evroom sample observed'),
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
        origin_receipt_sha256: hashOf(crypto, 'evroom sample origin receipt'),
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
    add(set, `typed/valid-${kind}.json`, `typed/${contractType}`, 'PASS', 'trusted', note, sign(contractType, `${kind}-0001`, body));
  }
  add(
    set,
    'typed/rule-broken.json',
    'typed/proof.demand',
    'MISMATCH',
    'trusted',
    'A correctly signed proof demand due before it was issued: its semantic rule fails.',
    sign('proof.demand', 'proof-demand-0002', { ...demand, due_by: '2026-05-01T12:00:00.000Z' }),
  );
  add(
    set,
    'typed/tampered.json',
    'typed/authority.delegation',
    'MISMATCH',
    'trusted',
    'A scope was added after signing; payload_sha256 no longer matches.',
    edited(valid, (copy) => (member(copy, 'body')['scope'] = ['receipts:issue', 'receipts:verify', 'keys:rotate'])),
  );
  add(
    set,
    'typed/forged.json',
    'typed/authority.delegation',
    'INVALID',
    'trusted',
    'The signature was made by another key than the key the contract names.',
    edited(valid, (copy) => (copy['sig_b64u'] = b64uEncode(crypto.ed25519Sign(crypto.sha256(utf8Encode(ruleD1Payload(valid))), seedOf(FORGER_SEED_BYTE))))),
  );
  add(
    set,
    'typed/malformed.json',
    'typed/authority.delegation',
    'MALFORMED',
    'not_applicable',
    'The body carries a member its schema does not have.',
    edited(valid, (copy) => (member(copy, 'body')['note'] = 'added')),
  );
  add(
    set,
    'typed/unsupported.json',
    'typed/proof.demand',
    'UNSUPPORTED',
    'not_applicable',
    'algorithm names ES256; r1.0.0 contracts are verified with Ed25519 only.',
    sign('proof.demand', 'proof-demand-0003', demand, { algorithm: 'ES256' }),
  );
}

function typedPqSamples(crypto: CryptoProvider, set: SampleSet): void {
  const { publicKey, secretKey } = crypto.mldsa65KeyGen(seedOf(0x50));
  const forger = crypto.mldsa65KeyGen(seedOf(0xef));
  set.keys.push({ key_id: TYPED_PQ_EXAMPLE_KEY_ID, algorithm: 'ML-DSA-65', public_key: publicKey, label: 'Sample key: typed-pq issuer (ML-DSA-65)' });
  const fragments = TYPED_PQ_EXAMPLE_FRAGMENTS.map((fragment) => JSON.parse(JSON.stringify(fragment)) as JsonValue);
  const valid = signTypedPq(fragments, secretKey, publicKey, TYPED_PQ_EXAMPLE_KEY_ID, crypto);
  const forgedEnvelope = signTypedPq(fragments, forger.secretKey, forger.publicKey, TYPED_PQ_EXAMPLE_KEY_ID, crypto);
  secretKey.fill(0);
  forger.secretKey.fill(0);
  const envelope = (copy: JsonObject): JsonObject => member(copy, 'envelope');
  add(set, 'typed-pq/valid.json', 'typed-pq', 'PASS', 'trusted', 'The docs\' three fragments signed with ML-DSA-65, public key embedded.', valid);
  add(
    set,
    'typed-pq/tampered.json',
    'typed-pq',
    'MISMATCH',
    'trusted',
    'Fragment 2\'s retention was changed; its digest no longer matches fragment_digests[2].',
    edited(valid, (copy) => (((copy['fragments'] as JsonObject[])[2] as JsonObject)['retention_days'] = 30)),
  );
  add(
    set,
    'typed-pq/forged.json',
    'typed-pq',
    'INVALID',
    'trusted',
    'The signature was made by another ML-DSA-65 key than the embedded one.',
    edited(valid, (copy) => (envelope(copy)['signature'] = member(forgedEnvelope, 'envelope')['signature'] ?? null)),
  );
  add(
    set,
    'typed-pq/malformed.json',
    'typed-pq',
    'MALFORMED',
    'not_applicable',
    'The envelope carries a member the format does not have.',
    edited(valid, (copy) => (envelope(copy)['note'] = 'added')),
  );
  add(
    set,
    'typed-pq/unsupported.json',
    'typed-pq',
    'UNSUPPORTED',
    'not_applicable',
    'aggregation names "merkle"; only "linear" is executed.',
    edited(valid, (copy) => (envelope(copy)['aggregation'] = 'merkle')),
  );
}

function sampleReadme(set: SampleSet): string {
  const rows = set.files.map(
    (file) => `| \`${file.file}\` | ${file.format} | ${file.expected_status} | ${file.expected_trust} | ${file.note.replace(/\|/g, '\\|')} |`,
  );
  return [
    '# Evidence Room samples',
    '',
    'Labelled sample documents of every format `evroom verify` reads: a valid one and broken ones',
    '(tampered after signing, forged by an unknown key, malformed, unsupported), with the status',
    'each must get. Written by `evroom samples`; identical on every run.',
    '',
    'Verify them all (trust is `trusted` because keys.json is pinned with `--trust`):',
    '',
    '```sh',
    'evroom verify --trust keys.json --secret secrets.json */*.json',
    '```',
    '',
    'With `--keys keys.json` instead of `--trust`, every status is the same and trust is',
    '`unpinned` (cryptographically valid, issuer unknown) wherever it was `trusted`.',
    '',
    '- `keys.json`: the public keys of every sample signer (key file shape, PROTOCOL section 0).',
    '- `secrets.json`: the AES-256-GCM secret of the sealed samples.',
    '- `index.json`: this table as JSON: `[{file, format, expected_status, expected_trust, note}]`.',
    '',
    'Every seed behind these keys is public (they are fixed so the files are reproducible). The',
    'sample keys prove nothing outside the samples: never pin them in a real trust store.',
    'ML-DSA-65 documents are signed with FIPS 204\'s deterministic variant so they too are',
    'byte-identical on every run; verification is the same as for hedged signatures.',
    '',
    '| File | Format | Expected status | Expected trust | What it shows |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
