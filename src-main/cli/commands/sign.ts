/**
 * `evroom sign FORMAT`: make a signed document of any supported format from your own fields.
 *
 * The door of the issuance engine (src-main/operations/issue.ts): this file parses arguments,
 * reads the key, secret and input files, calls `issueDocument`, writes the document, and turns
 * each refusal into one line with the options' names. What a format takes and how it is built
 * lives in its own folder (src-shared/formats/<name>/issue.ts); the formats and which options
 * apply to each come from there, so a new format needs no change here.
 *
 * Decisions:
 * - Errors are one line each, exit 2, and nothing is written.
 * - INDETERMINATE (a role left unsigned) is written with a warning on stderr, since a later
 *   signer or key may complete it; anything else that would not PASS is refused.
 * - Roles: `--key` is always the issuer: the service for envelope and wearable, the issuer
 *   otherwise. Each other role of a format is `--<role>-key` (`--requester-key`,
 *   `--operator-key`, `--device-key`). Sealed takes `--secret` (and `--key-id` to pick the
 *   secret) instead of a key.
 */
import { utf8Decode } from '../../../src-shared/crypto';
import type { FormatIssuer, IssueKey } from '../../../src-shared/verify/format-module';
import { KeyFileError, parseSecretsFile } from '../../../src-shared/verify/key-file';
import { isTimestamp } from '../../../src-shared/verify/timestamp';
import type { SecretEntry } from '../../../src-shared/verify/context';
import { createNodeCryptoProvider } from '../../core/node-crypto-provider';
import { OperationError } from '../../operations/errors';
import { ISSUER_ROLE, issueDocument, issueFormats, readIssueFields } from '../../operations/issue';
import { CliError } from '../cli-error';
import { readPrivateKeyFile, writeFileSafely, type PrivateKey } from '../key-files';
import { readDocumentInput, readTextFile } from '../read-input';
import { flag, optionValue, parseCommandArguments, type CommandSpec, type OptionSpec } from '../arguments';
import { writeLine, type Terminal } from '../terminal';

/** The formats `evroom sign` makes, in help order: every issuer of the format registry. */
export const SIGN_FORMATS: readonly string[] = Object.freeze(issueFormats().map((issuer) => issuer.name));

/** One format `evroom sign` makes. */
export type SignFormat = string;

/** The role options, in the order help has always listed them; a new format's roles follow. */
const ROLE_OPTION_ORDER = ['device', 'requester', 'operator'];

function roleOption(role: string): string {
  return `${role}-key`;
}

/** Every role of every format, once, in help order. */
function signRoles(): { name: string; help: string }[] {
  const roles = new Map<string, string>();
  for (const issuer of issueFormats())
    for (const role of issuer.roles) if (!roles.has(role.name)) roles.set(role.name, role.help);
  const rank = (name: string): number =>
    ROLE_OPTION_ORDER.includes(name) ? ROLE_OPTION_ORDER.indexOf(name) : ROLE_OPTION_ORDER.length;
  return [...roles].map(([name, help]) => ({ name, help })).sort((a, b) => rank(a.name) - rank(b.name));
}

/** Options that only some formats take, and which. */
function formatOptions(): Record<string, readonly string[]> {
  const issuers = issueFormats();
  const which = (applies: (issuer: FormatIssuer) => boolean): string[] =>
    issuers.filter(applies).map((issuer) => issuer.name);
  const options: Record<string, readonly string[]> = {
    key: which((issuer) => issuer.keyAlgorithm !== undefined),
    'key-id': which((issuer) => issuer.keyId),
    secret: which((issuer) => issuer.secret),
  };
  for (const role of signRoles())
    options[roleOption(role.name)] = which((issuer) => issuer.roles.some((candidate) => candidate.name === role.name));
  options['issued-at'] = which((issuer) => issuer.issuedAt);
  return options;
}

/** `FORMAT and what INPUT.json holds`: each issuer's help, the name padded to one column. */
function formatHelpLines(): string[] {
  const width = Math.max(...issueFormats().map((issuer) => issuer.name.length)) + 2;
  return issueFormats().flatMap((issuer) =>
    issuer.help.map((line, index) => `  ${(index === 0 ? issuer.name : '').padEnd(width)}${line}`),
  );
}

function roleOptions(): Record<string, OptionSpec> {
  const options: Record<string, OptionSpec> = {};
  for (const role of signRoles())
    options[roleOption(role.name)] = { type: 'string', value: 'KEYFILE', help: role.help };
  return options;
}

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
    ...formatHelpLines(),
    '',
    '--issued-at applies to envelope, wearable (whole seconds: its ts is Unix seconds), the profile',
    'formats, typed, countersigner (its countersigner_time) and typed-pq (its issued_at, which the',
    'signature does not cover); without it they are issued now.',
    '',
    "The key id written is the key file's unless --key-id names another. Every key is Ed25519",
    'except for typed-pq, whose ML-DSA-65 key is written inline and no key id at all. Keys that sign',
    'a document are verified with their public key files:',
    '  evroom verify --keys NAME.public.json signed.json',
  ],
  options: {
    key: {
      type: 'string',
      value: 'KEYFILE',
      help: 'private key file of the issuer (the service, for envelope and wearable)',
    },
    out: { type: 'string', value: 'FILE', help: 'write the document here instead of standard output' },
    force: { type: 'boolean', help: 'replace an existing --out file' },
    'key-id': {
      type: 'string',
      value: 'ID',
      help: "the key id to write (default: the key file's); for sealed, the secret id",
    },
    ...roleOptions(),
    secret: { type: 'string', value: 'FILE', help: 'sealed: a secrets file {"secrets": [{key_id, key}]}' },
    'issued-at': {
      type: 'string',
      value: 'TS',
      help: 'the issuing instant (default: now), e.g. 2026-06-01T12:00:00.000Z',
    },
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

/** How a refusal reads on the command line: the label, the input's name and the options' names. */
interface Wording {
  label: string;
  inputName: string;
  secretFile: string | undefined;
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
  const issuer = issueFormats().find((candidate) => candidate.name === formatName);
  if (issuer === undefined)
    throw new CliError(`sign: unknown format '${formatName}'; formats: ${SIGN_FORMATS.join(', ')}`);
  const format = issuer.name;
  const label = `sign ${format}`;
  if (inputName === undefined)
    throw new CliError(`${label}: name the INPUT.json file (or - for standard input). See: evroom sign --help`);
  if (extra.length > 0) throw new CliError(`${label}: unexpected argument ${extra[0] ?? ''}; give one INPUT file`);
  for (const [option, formats] of Object.entries(formatOptions())) {
    if (parsed.values[option] !== undefined && !formats.includes(format)) {
      throw new CliError(`${label}: --${option} does not apply to ${format} (it applies to: ${formats.join(', ')})`);
    }
  }
  const keyFile = optionValue(parsed, 'key');
  if (issuer.keyAlgorithm !== undefined && keyFile === undefined) {
    throw new CliError(`${label}: --key KEYFILE is required (a private key file from evroom keys new)`);
  }
  const secretFile = optionValue(parsed, 'secret');
  if (issuer.secret && secretFile === undefined) {
    throw new CliError(`${label}: --secret FILE is required (a secrets file {"secrets": [{key_id, key}]})`);
  }
  const issuedAt = optionValue(parsed, 'issued-at');
  if (issuedAt !== undefined && !isTimestamp(issuedAt)) {
    throw new CliError(`${label}: --issued-at '${issuedAt}' is not a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z`);
  }

  const crypto = createNodeCryptoProvider();
  const warn = (line: string): void => writeLine(terminal.err, `evroom: ${line}`);
  const wording: Wording = { label, inputName: inputName === '-' ? 'standard input' : inputName, secretFile };
  const inputText = utf8Decode(await readDocumentInput(inputName));
  // Read (and refuse) the fields before any key is read, so a bad INPUT is reported first.
  const fields = withCliWording(wording, () => readIssueFields(format, inputText));

  // Every key read is wiped when the command ends, whatever happens after it is read.
  const keys: PrivateKey[] = [];
  try {
    const signers: Record<string, IssueKey> = {};
    const roleOptionNames: [role: string, option: string, what: string][] = [
      [ISSUER_ROLE, 'key', 'key file'],
      ...signRoles().map((role): [string, string, string] => [
        role.name,
        roleOption(role.name),
        `${role.name} key file`,
      ]),
    ];
    for (const [role, option, what] of roleOptionNames) {
      const name = optionValue(parsed, option);
      if (name === undefined) continue;
      const loaded = await readPrivateKeyFile(name, crypto, warn, what);
      keys.push(loaded);
      signers[role] = loaded;
    }
    for (const [role, option] of roleOptionNames) {
      const entry = signers[role];
      if (entry === undefined) continue;
      const wanted = role === ISSUER_ROLE ? (issuer.keyAlgorithm ?? 'Ed25519') : 'Ed25519';
      if (entry.algorithm !== wanted) {
        throw new CliError(
          `${label}: --${option} ${optionValue(parsed, option) ?? ''} holds an ${entry.algorithm} key; ${format} documents are signed with ${wanted}`,
        );
      }
    }
    const secrets = secretFile === undefined ? [] : await loadSecrets(secretFile);
    const keyId = optionValue(parsed, 'key-id');
    const result = withCliWording(wording, () =>
      issueDocument({
        format,
        fields,
        signers,
        secrets,
        crypto,
        ...(issuedAt === undefined ? {} : { issuedAt }),
        ...(keyId === undefined ? {} : { keyId }),
      }),
    );
    for (const warning of result.warnings) warn(`warning: ${warning}`);
    const out = optionValue(parsed, 'out');
    if (out === undefined) {
      terminal.out.write(result.text);
    } else {
      await writeFileSafely(out, result.text, { force: flag(parsed, 'force') });
      writeLine(terminal.err, `evroom: wrote a ${format} document to ${out}`);
    }
    return 0;
  } finally {
    for (const key of keys) key.seed.fill(0);
  }
}

async function loadSecrets(name: string): Promise<SecretEntry[]> {
  const text = await readTextFile(name, 'secret file');
  try {
    return parseSecretsFile(text);
  } catch (error) {
    if (error instanceof KeyFileError)
      throw new CliError(`secret file ${name}${error.path ? ` at ${error.path}` : ''}: ${error.message}`);
    throw error;
  }
}

/** Run an operation step and say its refusals in the command line's words. */
function withCliWording<T>(wording: Wording, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof OperationError) throw new CliError(cliMessage(error, wording));
    throw error;
  }
}

function cliMessage(error: OperationError, { label, inputName, secretFile }: Wording): string {
  const details = error.facts;
  const path = typeof details['path'] === 'string' ? details['path'] : undefined;
  const secrets = `secret file ${secretFile ?? ''}`;
  switch (error.code) {
    case 'issued_at_twice':
      return `${label}: give issued_at once: in ${inputName} or with --issued-at`;
    case 'device_signature_missing':
      return `${label}: --device-key KEYFILE is required to sign the observation (or give a device_signature made on the device in ${inputName})`;
    case 'device_signature_given':
      return `${label}: ${inputName} at /device_signature: leave it out when --device-key signs the observation`;
    case 'device_key_mismatch':
      return `${label}: ${inputName} at /device_public_key: it is not the public key of --device-key`;
    case 'issued_at_not_whole_second':
      return `${label}: --issued-at must be a whole second for a wearable receipt (its ts is Unix seconds)`;
    case 'not_a_document':
      return `${label}: ${inputName} is not a document evroom verifies (${String(details['format'])}, MALFORMED): ${String(details['reason'])}`;
    case 'inexact_number':
      return `${label}: ${inputName} at ${path || '/'}: ${error.message}`;
    case 'invalid_key_id':
      return `${label}: --key-id ${JSON.stringify(String(details['key_id']).slice(0, 80))} cannot name an issuing key (did:svc:<id>, did:web:<host>[:path] or an Ed25519 did:key)`;
    case 'did_key_algorithm':
      return `${label}: --key-id cannot be a did:key for an ${String(details['algorithm'])} key (did:key names Ed25519 keys only)`;
    case 'did_key_other_key':
      return `${label}: --key-id ${String(details['key_id'])} is the did:key of another key than the key file's`;
    case 'no_secret':
      return `${label}: ${secrets} holds no secrets`;
    case 'secret_ambiguous':
      return `${label}: ${secrets} holds ${String(details['count'])} secrets; pick one with --key-id (${String(details['ids'])})`;
    case 'unknown_secret':
      return `${label}: ${secrets} has no secret '${String(details['key_id'])}' (it has: ${String(details['ids']) || 'none'})`;
    default:
      break;
  }
  if (details['parse_error'] === true) return `${label}: ${inputName}: ${error.message}`;
  if (error.kind === 'invalid_input' && path !== undefined)
    return `${label}: ${inputName}${path ? ` at ${path}` : ''}: ${error.message}`;
  return `${label}: ${error.message}`;
}
