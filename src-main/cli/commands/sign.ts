/**
 * `evroom sign FORMAT`: make a signed document of any supported format from your own fields.
 *
 * Decisions:
 * - INPUT is parsed strictly (PROTOCOL section 0) and each format's members are checked by
 *   name: an unknown member is refused, never dropped. Integers beyond 2^53 and decimals a
 *   double cannot hold exactly are refused too (except for classical, which signs number
 *   spellings as written), because JCS would sign a rounded value the user never wrote.
 * - Every document is verified, with the public keys of the keys that signed it, before it is
 *   written. A document that would not PASS (a schema break, a broken semantic rule, a key that
 *   does not match) is refused with the verifier's first error, so `evroom sign` never emits a
 *   document `evroom verify` rejects. INDETERMINATE (a role left unsigned) is written with a
 *   warning on stderr, since a later signer or key may complete it.
 * - Errors are one line each, exit 2, and nothing is written.
 * - Roles: `--key` is always the issuer: the service for envelope and wearable, the issuer
 *   otherwise. Envelope's other roles are `--requester-key` and `--operator-key`; wearable's
 *   device is `--device-key`. Sealed takes `--secret` (and `--key-id` to pick the secret)
 *   instead of a key.
 */
import { randomBytes } from 'node:crypto';
import { createNodeCryptoProvider } from '../../core/node-crypto-provider';
import { didKeyFromEd25519, hexEncode, utf8Decode, utf8Encode } from '../../../src-shared/crypto';
import type { CryptoProvider } from '../../../src-shared/crypto/provider';
import { signClassical } from '../../../src-shared/formats/classical';
import { signCountersigner } from '../../../src-shared/formats/countersigner';
import { signEnvelope, type EnvelopeSigner } from '../../../src-shared/formats/envelope';
import { issueLegacyReceipt, issueProfileReceipt, type ProfileFieldsByName } from '../../../src-shared/formats/profile';
import { sealDocument } from '../../../src-shared/formats/sealed';
import { buildSigrChain, isTypedContractType, signTypedContract, TYPED_CONTRACT_TYPES } from '../../../src-shared/formats/typed';
import { signTypedPq } from '../../../src-shared/formats/typed-pq';
import { issueWearable, signObservation, WearableInputError, type WearableCallerFields } from '../../../src-shared/formats/wearable';
import { formatJsonError, jcs, JsonParseError, parseJsonTree, pointerAppend, toPlain } from '../../../src-shared/json';
import type { JsonNode, JsonValue } from '../../../src-shared/json/types';
import type { KeyEntry, SecretEntry, VerifyContext } from '../../../src-shared/verify/context';
import { isJsonObject, quote, type JsonObject } from '../../../src-shared/verify/fields';
import { KeyFileError, parseSecretsFile } from '../../../src-shared/verify/key-file';
import { isKeyId } from '../../../src-shared/verify/keys';
import type { Report } from '../../../src-shared/verify/report';
import { isTimestamp, timestampToMillis } from '../../../src-shared/verify/timestamp';
import { verifyDocument } from '../../../src-shared/verify/verify';
import { formatJsonDocument } from '../../operations/format-document';
import { CliError } from '../cli-error';
import { mldsaSecretKey, publicKeyEntry, readPrivateKeyFile, writeFileSafely, type PrivateKey } from '../key-files';
import { readDocumentInput, readTextFile } from '../read-input';
import { flag, optionValue, parseCommandArguments, type CommandSpec } from '../arguments';
import { writeLine, type Terminal } from '../terminal';

/** The formats `evroom sign` makes, in help order. */
export const SIGN_FORMATS = [
  'classical',
  'countersigner',
  'sealed',
  'envelope',
  'wearable',
  'nano',
  'standard',
  'pq',
  'legacy-standard',
  'legacy-pq',
  'typed',
  'typed-pq',
] as const;

/** One format `evroom sign` makes. */
export type SignFormat = (typeof SIGN_FORMATS)[number];

/** Options that only some formats take, and which. */
const FORMAT_OPTIONS: Readonly<Record<string, readonly SignFormat[]>> = {
  key: SIGN_FORMATS.filter((format) => format !== 'sealed'),
  'key-id': SIGN_FORMATS.filter((format) => format !== 'classical' && format !== 'countersigner'),
  secret: ['sealed'],
  'device-key': ['wearable'],
  'requester-key': ['envelope'],
  'operator-key': ['envelope'],
  'issued-at': ['envelope', 'wearable', 'nano', 'standard', 'pq', 'legacy-standard', 'legacy-pq', 'typed'],
};

/** The caller's members of each profile (PROTOCOL section 3), required and optional. */
const PROFILE_MEMBERS: Readonly<Record<'nano' | 'standard' | 'pq', { required: readonly string[]; optional: readonly string[] }>> = {
  nano: { required: ['ok', 'a', 'h', 't'], optional: [] },
  standard: { required: ['agent_did', 'content', 'smsh', 'hktn_context'], optional: ['settlement_reference'] },
  pq: { required: ['agent_did', 'content', 'crypto_agile_metadata', 'pq_posture', 'auditor_verifier'], optional: [] },
};

const TYPED_MEMBERS = { required: ['contract_type', 'body'], optional: ['contract_id', 'issuer', 'issued_at'] };

export const signSpec: CommandSpec = {
  name: 'sign',
  summary: 'Sign your own fields as a receipt of any supported format',
  usage: 'evroom sign FORMAT --key KEYFILE INPUT.json [--out FILE] [options]',
  description: [
    'Reads the fields in INPUT.json (a path, or - for standard input; strict JSON, unknown members',
    'are refused), signs them with the private key file from `evroom keys new`, verifies the result',
    'and writes it to standard output or --out. A document that would not verify is refused.',
    '',
    'FORMAT and what INPUT.json holds:',
    '  classical        the signed_payload object; number spellings are kept (1.50 stays 1.50)',
    '  countersigner    any JSON value; its JCS text is countersigned in a one-entry BLAKE3 log',
    '  sealed           a signed document to encrypt with AES-256-GCM: --secret FILE (and --key-id',
    '                   to pick the secret when FILE holds several), no --key',
    '  envelope         svc-receipt-v1 fields without "signatures" ("v" is added if missing);',
    '                   --key signs as service, --requester-key and --operator-key as those roles',
    '  wearable         the caller fields of spec 2.2 without device_signature; --device-key signs',
    '                   the observation (device_public_key is filled in), --key issues the receipt',
    '  nano             {ok, a, h, t}',
    '  standard         {agent_did, content: {sha256, type}, settlement_reference?, smsh, hktn_context}',
    '  pq               {agent_did, content, crypto_agile_metadata, pq_posture, auditor_verifier}',
    '  legacy-standard  as standard, written with proof_tier as older issuers did',
    '  legacy-pq        as pq, written with proof_tier',
    '  typed            {contract_type, body, contract_id?, issuer?, issued_at?}; issuer defaults to',
    '                   the key id; sigr.chain links given as {statement_sha256} are signed with --key',
    '  typed-pq         {fragments: [...]}; the key must be ML-DSA-65 (the public key is embedded)',
    '',
    '--issued-at applies to envelope, wearable (whole seconds: its ts is Unix seconds), the profile',
    'formats and typed; without it they are issued now.',
    '',
    'The key id written is the key file\'s unless --key-id names another. Every key is Ed25519',
    'except for typed-pq. Keys that sign a document are verified with their public key files:',
    '  evroom verify --keys NAME.public.json signed.json',
  ],
  options: {
    key: { type: 'string', value: 'KEYFILE', help: 'private key file of the issuer (the service, for envelope and wearable)' },
    out: { type: 'string', value: 'FILE', help: 'write the document here instead of standard output' },
    force: { type: 'boolean', help: 'replace an existing --out file' },
    'key-id': { type: 'string', value: 'ID', help: 'the key id to write (default: the key file\'s); for sealed, the secret id' },
    'device-key': { type: 'string', value: 'KEYFILE', help: 'wearable: the device\'s private key file' },
    'requester-key': { type: 'string', value: 'KEYFILE', help: 'envelope: the requester\'s private key file' },
    'operator-key': { type: 'string', value: 'KEYFILE', help: 'envelope: the operator\'s private key file' },
    secret: { type: 'string', value: 'FILE', help: 'sealed: a secrets file {"secrets": [{key_id, key}]}' },
    'issued-at': { type: 'string', value: 'TS', help: 'the issuing instant (default: now), e.g. 2026-06-01T12:00:00.000Z' },
  },
  exitCodes: ['0  the document was written', '2  usage, input, key or I/O error (nothing is written)'],
  examples: [
    'evroom keys new --alg ed25519 --out keys --label "Acme issuer"',
    'evroom sign classical --key keys/ed25519.private.json payload.json --out receipt.json',
    'evroom sign standard --key keys/ed25519.private.json fields.json --issued-at 2026-06-01T12:00:00.000Z',
    'evroom sign wearable --key keys/service.private.json --device-key keys/band.private.json observation.json',
    'evroom sign sealed --secret secrets.json --key-id tenant-1/2026 receipt.json --out sealed.json',
    'evroom sign typed-pq --key keys/ml-dsa-65.private.json fragments.json',
  ],
};

/** What one format needs to sign. */
interface SignJob {
  format: SignFormat;
  crypto: CryptoProvider;
  /** INPUT as named on the command line, for messages. */
  inputName: string;
  inputText: string;
  inputTree: JsonNode;
  inputValue: JsonValue;
  key?: PrivateKey;
  /** The key id to write for `key`. */
  keyId?: string;
  deviceKey?: PrivateKey;
  requesterKey?: PrivateKey;
  operatorKey?: PrivateKey;
  secret?: SecretEntry;
  issuedAt?: string;
}

/** A signed document and what verifies it. */
interface SignedDocument {
  text: string;
  keys: KeyEntry[];
  secrets: SecretEntry[];
}

/**
 * Runs `evroom sign`.
 *
 * @param argv - The arguments after `sign`.
 * @param terminal - Where to write the document (without --out), warnings and errors.
 * @returns The exit code.
 * @throws CliError (exit 2) for every usage, input, key and I/O error.
 */
export async function runSign(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(signSpec, argv);
  const [formatName, inputName, ...extra] = parsed.positionals;
  if (formatName === undefined) {
    throw new CliError(`sign: name a FORMAT (${SIGN_FORMATS.join(', ')}) and an INPUT.json. See: evroom sign --help`);
  }
  if (!(SIGN_FORMATS as readonly string[]).includes(formatName)) {
    throw new CliError(`sign: unknown format '${formatName}'; formats: ${SIGN_FORMATS.join(', ')}`);
  }
  const format = formatName as SignFormat;
  const label = `sign ${format}`;
  if (inputName === undefined) throw new CliError(`${label}: name the INPUT.json file (or - for standard input). See: evroom sign --help`);
  if (extra.length > 0) throw new CliError(`${label}: unexpected argument ${extra[0] ?? ''}; give one INPUT file`);
  for (const [option, formats] of Object.entries(FORMAT_OPTIONS)) {
    if (parsed.values[option] !== undefined && !formats.includes(format)) {
      throw new CliError(`${label}: --${option} does not apply to ${format} (it applies to: ${formats.join(', ')})`);
    }
  }
  const keyFile = optionValue(parsed, 'key');
  if (format !== 'sealed' && keyFile === undefined) {
    throw new CliError(`${label}: --key KEYFILE is required (a private key file from evroom keys new)`);
  }
  if (format === 'sealed' && optionValue(parsed, 'secret') === undefined) {
    throw new CliError(`${label}: --secret FILE is required (a secrets file {"secrets": [{key_id, key}]})`);
  }
  const issuedAt = optionValue(parsed, 'issued-at');
  if (issuedAt !== undefined && !isTimestamp(issuedAt)) {
    throw new CliError(`${label}: --issued-at '${issuedAt}' is not a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z`);
  }

  const crypto = createNodeCryptoProvider();
  const warn = (line: string): void => writeLine(terminal.err, `evroom: ${line}`);
  const bytes = await readDocumentInput(inputName);
  const inputText = utf8Decode(bytes);
  const inputLabel = inputName === '-' ? 'standard input' : inputName;
  let inputTree: JsonNode;
  try {
    inputTree = parseJsonTree(inputText);
  } catch (error) {
    if (error instanceof JsonParseError) throw new CliError(`${label}: ${inputLabel}: ${formatJsonError(error)}`);
    throw error;
  }
  // Classical keeps number spellings; sealed encrypts the bytes as they are.
  if (format !== 'classical' && format !== 'sealed') refuseInexactNumbers(inputTree, `${label}: ${inputLabel}`);

  const job: SignJob = { format, crypto, inputName: inputLabel, inputText, inputTree, inputValue: toPlain(inputTree) };
  if (issuedAt !== undefined) job.issuedAt = issuedAt;
  // Every key read is wiped when the command ends, whatever happens after it is read.
  const keys: PrivateKey[] = [];
  const loadKey = async (option: string, what: string): Promise<PrivateKey | undefined> => {
    const name = optionValue(parsed, option);
    if (name === undefined) return undefined;
    const loaded = await readPrivateKeyFile(name, crypto, warn, what);
    keys.push(loaded);
    return loaded;
  };
  try {
    const key = await loadKey('key', 'key file');
    const deviceKey = await loadKey('device-key', 'device key file');
    const requesterKey = await loadKey('requester-key', 'requester key file');
    const operatorKey = await loadKey('operator-key', 'operator key file');
    for (const [entry, option] of [
      [key, 'key'],
      [deviceKey, 'device-key'],
      [requesterKey, 'requester-key'],
      [operatorKey, 'operator-key'],
    ] as const) {
      if (entry === undefined) continue;
      const wanted = format === 'typed-pq' && option === 'key' ? 'ML-DSA-65' : 'Ed25519';
      if (entry.algorithm !== wanted) {
        throw new CliError(
          `${label}: --${option} ${optionValue(parsed, option) ?? ''} holds an ${entry.algorithm} key; ${format} documents are signed with ${wanted}`,
        );
      }
    }
    if (key !== undefined) {
      job.key = key;
      job.keyId = effectiveKeyId(key, optionValue(parsed, 'key-id'), label);
    }
    if (deviceKey !== undefined) job.deviceKey = deviceKey;
    if (requesterKey !== undefined) job.requesterKey = requesterKey;
    if (operatorKey !== undefined) job.operatorKey = operatorKey;
    if (format === 'sealed') job.secret = await loadSecret(optionValue(parsed, 'secret') ?? '', optionValue(parsed, 'key-id'), label);

    const signed = signJob(job, label);
    checkSigned(signed, job, label, crypto, warn);
    const out = optionValue(parsed, 'out');
    if (out === undefined) {
      terminal.out.write(signed.text);
    } else {
      await writeFileSafely(out, signed.text, { force: flag(parsed, 'force') });
      writeLine(terminal.err, `evroom: wrote a ${format} document to ${out}`);
    }
    return 0;
  } finally {
    for (const key of keys) key.seed.fill(0);
  }
}

function effectiveKeyId(key: PrivateKey, override: string | undefined, label: string): string {
  if (override === undefined) return key.key_id;
  if (!isKeyId(override)) throw new CliError(`${label}: --key-id '${override}' is not a key id (did:svc:<id>, did:web:<host>[:path] or did:key)`);
  if (override.startsWith('did:key:') && key.algorithm !== 'Ed25519') {
    throw new CliError(`${label}: --key-id cannot be a did:key for an ${key.algorithm} key (did:key names Ed25519 keys only)`);
  }
  if (override.startsWith('did:key:') && override !== didKeyFromEd25519(key.public_key)) {
    throw new CliError(`${label}: --key-id ${override} is the did:key of another key than the key file's`);
  }
  return override;
}

async function loadSecret(name: string, keyId: string | undefined, label: string): Promise<SecretEntry> {
  const text = await readTextFile(name, 'secret file');
  let secrets: SecretEntry[];
  try {
    secrets = parseSecretsFile(text);
  } catch (error) {
    if (error instanceof KeyFileError) throw new CliError(`secret file ${name}${error.path ? ` at ${error.path}` : ''}: ${error.message}`);
    throw error;
  }
  const ids = secrets.map((secret) => secret.key_id);
  if (keyId === undefined) {
    const [only, ...more] = secrets;
    if (only === undefined) throw new CliError(`${label}: secret file ${name} holds no secrets`);
    if (more.length > 0) throw new CliError(`${label}: secret file ${name} holds ${secrets.length} secrets; pick one with --key-id (${ids.join(', ')})`);
    return only;
  }
  const found = secrets.find((secret) => secret.key_id === keyId);
  if (found === undefined) throw new CliError(`${label}: secret file ${name} has no secret '${keyId}' (it has: ${ids.join(', ') || 'none'})`);
  return found;
}

function signJob(job: SignJob, label: string): SignedDocument {
  try {
    switch (job.format) {
      case 'classical':
        return signClassicalJob(job, label);
      case 'countersigner':
        return signCountersignerJob(job);
      case 'sealed':
        return signSealedJob(job, label);
      case 'envelope':
        return signEnvelopeJob(job, label);
      case 'wearable':
        return signWearableJob(job, label);
      case 'nano':
      case 'standard':
      case 'pq':
      case 'legacy-standard':
      case 'legacy-pq':
        return signProfileJob(job, job.format, label);
      case 'typed':
        return signTypedJob(job, label);
      case 'typed-pq':
        return signTypedPqJob(job, label);
    }
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError || error instanceof WearableInputError) {
      throw new CliError(`${label}: ${job.inputName}: ${oneLine(error.message)}`);
    }
    throw error;
  }
}

function requireKey(job: SignJob): { key: PrivateKey; keyId: string } {
  if (job.key === undefined || job.keyId === undefined) throw new CliError(`sign ${job.format}: --key is required`);
  return { key: job.key, keyId: job.keyId };
}

function signClassicalJob(job: SignJob, label: string): SignedDocument {
  const { key, keyId } = requireKey(job);
  if (job.inputTree.type !== 'object') throw new CliError(`${label}: ${job.inputName}: the signed_payload must be a JSON object`);
  const text = signClassical(job.inputText, key.seed, job.crypto);
  return { text: formatJsonDocument(text), keys: [{ ...publicKeyEntry(key), key_id: keyId }], secrets: [] };
}

function signCountersignerJob(job: SignJob): SignedDocument {
  const { key, keyId } = requireKey(job);
  const record = signCountersigner(jcs(job.inputValue), key.seed, job.crypto);
  return { text: formatJsonDocument(record), keys: [{ ...publicKeyEntry(key), key_id: keyId }], secrets: [] };
}

function signSealedJob(job: SignJob, label: string): SignedDocument {
  const secret = job.secret;
  if (secret === undefined) throw new CliError(`${label}: --secret is required`);
  // The plaintext must be a document a verifier recognizes; its own signatures are checked by
  // whoever opens it, with keys this command does not have.
  const inner = verifyDocument(job.inputText, context(job.crypto, [], [secret]));
  if (inner.status === 'MALFORMED') {
    const [first] = inner.errors;
    throw new CliError(
      `${label}: ${job.inputName} is not a document evroom verifies (${inner.format}, MALFORMED): ${first ? describeError(first) : 'no detail'}`,
    );
  }
  const sealed = sealDocument(utf8Encode(job.inputText), secret, job.crypto);
  return { text: formatJsonDocument(sealed), keys: [], secrets: [secret] };
}

function signEnvelopeJob(job: SignJob, label: string): SignedDocument {
  const { key, keyId } = requireKey(job);
  const fields = expectObject(job, label);
  if (Object.hasOwn(fields, 'signatures')) {
    throw new CliError(`${label}: ${job.inputName} at /signatures: leave "signatures" out; signing writes it`);
  }
  const envelope: JsonObject = {};
  if (!Object.hasOwn(fields, 'v')) envelope['v'] = 'svc-receipt-v1';
  for (const [name, value] of Object.entries(fields)) defineMember(envelope, name, value);
  if (envelope['v'] !== 'svc-receipt-v1') throw new CliError(`${label}: ${job.inputName} at /v: "v" must be "svc-receipt-v1"`);
  if (job.issuedAt !== undefined) {
    if (Object.hasOwn(fields, 'issued_at')) throw new CliError(`${label}: give issued_at once: in ${job.inputName} or with --issued-at`);
    envelope['issued_at'] = job.issuedAt;
  }
  const signers: Partial<Record<'requester' | 'operator' | 'service', EnvelopeSigner>> = {
    service: { key_id: keyId, seed: key.seed },
  };
  const keys: KeyEntry[] = [{ ...publicKeyEntry(key), key_id: keyId }];
  if (job.requesterKey !== undefined) {
    signers.requester = { key_id: job.requesterKey.key_id, seed: job.requesterKey.seed };
    keys.push(publicKeyEntry(job.requesterKey));
  }
  if (job.operatorKey !== undefined) {
    signers.operator = { key_id: job.operatorKey.key_id, seed: job.operatorKey.seed };
    keys.push(publicKeyEntry(job.operatorKey));
  }
  return { text: formatJsonDocument(signEnvelope(envelope, signers, job.crypto)), keys, secrets: [] };
}

function signWearableJob(job: SignJob, label: string): SignedDocument {
  const { key, keyId } = requireKey(job);
  const fields = copyObject(expectObject(job, label));
  const device = job.deviceKey;
  if (device === undefined) {
    if (!Object.hasOwn(fields, 'device_signature')) {
      throw new CliError(
        `${label}: --device-key KEYFILE is required to sign the observation (or give a device_signature made on the device in ${job.inputName})`,
      );
    }
  } else {
    if (Object.hasOwn(fields, 'device_signature')) {
      throw new CliError(`${label}: ${job.inputName} at /device_signature: leave it out when --device-key signs the observation`);
    }
    const devicePublicKey = hexEncode(device.public_key);
    if (!Object.hasOwn(fields, 'device_public_key')) fields['device_public_key'] = devicePublicKey;
    else if (fields['device_public_key'] !== devicePublicKey) {
      throw new CliError(`${label}: ${job.inputName} at /device_public_key: it is not the public key of --device-key`);
    }
  }
  const options = job.issuedAt === undefined ? {} : { ts: wearableSecond(job.issuedAt, label) };
  if (device !== undefined) {
    // Check the caller fields first, so a bad field is reported by its path rather than as a
    // failure to build the observation message.
    fields['device_signature'] = 'A'.repeat(86);
    issueWearable(fields, key.seed, keyId, job.crypto, options);
    fields['device_signature'] = signObservation(fields as unknown as WearableCallerFields, device.seed, job.crypto);
  }
  const receipt = issueWearable(fields, key.seed, keyId, job.crypto, options);
  return { text: formatJsonDocument(receipt as unknown as JsonObject), keys: [{ ...publicKeyEntry(key), key_id: keyId }], secrets: [] };
}

function wearableSecond(issuedAt: string, label: string): number {
  const millis = timestampToMillis(issuedAt);
  if (millis % 1000 !== 0) throw new CliError(`${label}: --issued-at must be a whole second for a wearable receipt (its ts is Unix seconds)`);
  return millis / 1000;
}

function signProfileJob(job: SignJob, format: 'nano' | 'standard' | 'pq' | 'legacy-standard' | 'legacy-pq', label: string): SignedDocument {
  const { key, keyId } = requireKey(job);
  const profile = format === 'legacy-standard' ? 'standard' : format === 'legacy-pq' ? 'pq' : format;
  const fields = expectObject(job, label);
  checkMembers(fields, PROFILE_MEMBERS[profile].required, PROFILE_MEMBERS[profile].optional, job, label);
  const options = job.issuedAt === undefined ? {} : { now: new Date(timestampToMillis(job.issuedAt)) };
  const document =
    format === 'legacy-standard' || format === 'legacy-pq'
      ? issueLegacyReceipt(profile as 'standard' | 'pq', fields as unknown as ProfileFieldsByName['standard'], key.seed, keyId, job.crypto, options)
      : issueProfileReceipt(profile, fields as unknown as ProfileFieldsByName[typeof profile], key.seed, keyId, job.crypto, options);
  return { text: formatJsonDocument(document), keys: [{ ...publicKeyEntry(key), key_id: keyId }], secrets: [] };
}

function signTypedJob(job: SignJob, label: string): SignedDocument {
  const { key, keyId } = requireKey(job);
  const fields = expectObject(job, label);
  checkMembers(fields, TYPED_MEMBERS.required, TYPED_MEMBERS.optional, job, label);
  const contractType = fields['contract_type'];
  if (!isTypedContractType(contractType)) {
    throw new CliError(`${label}: ${job.inputName} at /contract_type: must be one of ${TYPED_CONTRACT_TYPES.join(', ')}`);
  }
  const body = fields['body'];
  if (!isJsonObject(body)) throw new CliError(`${label}: ${job.inputName} at /body: the body must be a JSON object`);
  if (job.issuedAt !== undefined && Object.hasOwn(fields, 'issued_at')) {
    throw new CliError(`${label}: give issued_at once: in ${job.inputName} or with --issued-at`);
  }
  const signedBody = contractType === 'sigr.chain' ? signSigrLinks(body, key, keyId, job, label) : body;
  const contract = signTypedContract(
    {
      contract_type: contractType,
      contract_id: (fields['contract_id'] as string | undefined) ?? `${contractType.replace('.', '-')}-${randomBytes(8).toString('hex')}`,
      issued_at: (fields['issued_at'] as string | undefined) ?? job.issuedAt ?? new Date().toISOString(),
      issuer: (fields['issuer'] as string | undefined) ?? keyId,
      body: signedBody,
    },
    key.seed,
    keyId,
    job.crypto,
  );
  return { text: formatJsonDocument(contract), keys: [{ ...publicKeyEntry(key), key_id: keyId }], secrets: [] };
}

/**
 * sigr.chain links given as `{statement_sha256}` are chained and signed with the key; links that
 * already carry `sig_b64u` are kept as given. A mix is refused: a chain cannot be half rebuilt.
 */
function signSigrLinks(body: JsonObject, key: PrivateKey, keyId: string, job: SignJob, label: string): JsonObject {
  const links = body['links'];
  if (!Array.isArray(links) || links.length === 0) return body;
  const unsigned = links.filter((link) => isJsonObject(link) && !Object.hasOwn(link, 'sig_b64u'));
  if (unsigned.length === 0) return body;
  if (unsigned.length !== links.length) {
    throw new CliError(`${label}: ${job.inputName} at /body/links: give every link as {statement_sha256} to have them signed, or every link signed`);
  }
  const statements = links.map((link, index) => {
    const object = link as JsonObject;
    const extra = Object.keys(object).find((name) => name !== 'statement_sha256');
    if (extra !== undefined || typeof object['statement_sha256'] !== 'string') {
      throw new CliError(
        `${label}: ${job.inputName} at /body/links/${index}: an unsigned link is {statement_sha256} only${extra ? ` (found ${quote(extra)})` : ''}`,
      );
    }
    return object['statement_sha256'];
  });
  const signed = buildSigrChain(statements, statements.map(() => ({ key_id: keyId, seed: key.seed })), job.crypto);
  return { ...body, links: signed };
}

function signTypedPqJob(job: SignJob, label: string): SignedDocument {
  const { key, keyId } = requireKey(job);
  const fields = expectObject(job, label);
  checkMembers(fields, ['fragments'], [], job, label);
  const fragments = fields['fragments'];
  if (!Array.isArray(fragments)) throw new CliError(`${label}: ${job.inputName} at /fragments: must be an array of JSON values`);
  const secretKey = mldsaSecretKey(key, job.crypto);
  try {
    const document = signTypedPq(fragments, secretKey, key.public_key, keyId, job.crypto);
    return { text: formatJsonDocument(document), keys: [{ ...publicKeyEntry(key), key_id: keyId }], secrets: [] };
  } finally {
    secretKey.fill(0);
  }
}

/**
 * Verify what was signed with the keys that signed it; refuse anything that would not verify.
 */
function checkSigned(signed: SignedDocument, job: SignJob, label: string, crypto: CryptoProvider, warn: (line: string) => void): void {
  const report = verifyDocument(signed.text, context(crypto, signed.keys, signed.secrets));
  if (job.format === 'sealed') {
    // The seal itself must open; the plaintext's signatures need keys this command never saw.
    if (report.inner === undefined) throw new CliError(`${label}: the sealed document does not open with its own secret (${report.status})`);
    return;
  }
  if (report.status === 'PASS') return;
  if (report.status === 'INDETERMINATE') {
    const open = report.checks.filter((check) => check.status === 'unavailable');
    for (const check of open) warn(`warning: ${check.id} is unavailable: ${check.detail ?? 'not checked'}`);
    warn(`warning: the document verifies as INDETERMINATE until ${open.length === 1 ? 'that check is' : 'those checks are'} available`);
    return;
  }
  const [first] = report.errors;
  throw new CliError(`${label}: the signed document would not verify (${report.status}): ${first ? describeError(first) : firstFailure(report)}`);
}

function context(crypto: CryptoProvider, advertised: KeyEntry[], secrets: SecretEntry[]): VerifyContext {
  return { crypto, pinned: [], advertised, secrets, now: new Date() };
}

function describeError(error: { path: string; message: string }): string {
  return oneLine(error.path ? `${error.path}: ${error.message}` : error.message);
}

function firstFailure(report: Report): string {
  const check = report.checks.find((candidate) => candidate.status === 'fail' || candidate.status === 'unsupported');
  return check ? `${check.id}: ${check.detail ?? check.status}` : 'no detail';
}

function expectObject(job: SignJob, label: string): JsonObject {
  if (!isJsonObject(job.inputValue)) throw new CliError(`${label}: ${job.inputName}: expected a JSON object of ${job.format} fields`);
  return job.inputValue;
}

function checkMembers(value: JsonObject, required: readonly string[], optional: readonly string[], job: SignJob, label: string): void {
  const allowed = [...required, ...optional];
  for (const name of Object.keys(value)) {
    if (!allowed.includes(name)) {
      throw new CliError(
        `${label}: ${job.inputName} at ${pointerAppend('', name)}: unknown member ${quote(name)}; ${job.format} takes ${allowed.join(', ')}`,
      );
    }
  }
  for (const name of required) {
    if (!Object.hasOwn(value, name)) {
      throw new CliError(`${label}: ${job.inputName} at ${pointerAppend('', name)}: the required member "${name}" is missing`);
    }
  }
}

function copyObject(value: JsonObject): JsonObject {
  const copy: JsonObject = {};
  for (const [name, member] of Object.entries(value)) defineMember(copy, name, member);
  return copy;
}

function defineMember(object: JsonObject, name: string, value: JsonValue): void {
  // A member named __proto__ stays an own data member, never the prototype.
  Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
}

function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it replaces
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');
}

/**
 * Refuse numbers that JCS would sign as another value than the one written: integers beyond
 * 2^53 and decimals with more digits than a double holds. `1.50` is fine (the same number as
 * `1.5`); `12345678901234567890` is not (it would be signed as 12345678901234567000).
 */
function refuseInexactNumbers(node: JsonNode, where: string, path = ''): void {
  if (node.type === 'number') {
    if (decimalKey(node.lexeme) !== decimalKey(String(node.value))) {
      throw new CliError(
        `${where} at ${path || '/'}: the number ${node.lexeme} cannot be signed exactly (JSON signing uses IEEE doubles); write it as a string`,
      );
    }
  } else if (node.type === 'array') {
    node.items.forEach((item, index) => refuseInexactNumbers(item, where, pointerAppend(path, String(index))));
  } else if (node.type === 'object') {
    for (const [name, value] of node.members) refuseInexactNumbers(value, where, pointerAppend(path, name));
  }
}

/** A decimal number's value as `sign digits e exponent`, without leading or trailing zeros. */
function decimalKey(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null) return text;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`;
  const leading = digits.length - digits.replace(/^0+/, '').length;
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '');
  if (significant === '') return '0';
  // The value is 0.<digits> x 10^(whole.length + exponent); dropping leading zeros moves the point.
  const scale = whole.length + Number(exponent) - leading;
  return `${sign}${significant}e${scale}`;
}
