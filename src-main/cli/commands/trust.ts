/**
 * `evroom trust pin|unpin|revoke|list|import|export`: the pinned-key trust store.
 *
 * Every change goes through the TrustStore, which checks it, writes it in one transaction with
 * its audit row, and changes nothing when it refuses. Every bad argument is a specific error
 * with exit 2.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { b64uEncode } from '../../../src-shared/crypto';
import { SIGNER_ROLES, type KeyAlgorithm, type KeyEntry, type SignerRole } from '../../../src-shared/verify/context';
import { decodeB64uField } from '../../../src-shared/verify/fields';
import { KeyFileError, parseKeyFile } from '../../../src-shared/verify/key-file';
import { KEY_ALGORITHMS, PUBLIC_KEY_LENGTH } from '../../../src-shared/verify/keys';
import {
  exportTrustKeys,
  importTrustKeys,
  pinKey,
  revokeKey,
  unpinKey,
  type Reevaluation,
} from '../../operations/trust';
import {
  checkOptionalRoles,
  TrustError,
  type AdvertisedKey,
  type PinInput,
  type TrustedKey,
  type TrustStore,
} from '../../trust/index';
import { CliError } from '../cli-error';
import { flag, optionValue, parseCommandArguments, type CommandSpec, type ParsedArguments } from '../arguments';
import { describeFsError, readTextFile } from '../read-input';
import { paint, writeLine, type Terminal } from '../terminal';
import { withCliWorkspace } from './ledger';

export const trustSpec: CommandSpec = {
  name: 'trust',
  summary: 'Pin, revoke and list the keys you trust',
  usage: 'evroom trust pin|unpin|revoke|list|import|export [options]',
  description: [
    'Only a pinned key makes a report’s trust "trusted". Keys that came with a bundle or a key',
    'file are listed apart as advertised: they verify signatures but are never trusted.',
    '  pin      pin a key (--key-id, --public-key, --algorithm) or one from a key file (--from-file)',
    '  unpin    remove a key from the trust store',
    '  revoke   keep a key but mark it revoked (its signatures then report "revoked")',
    '  list     the trust store, and the advertised keys apart',
    '  import   pin and revoke the keys of a key file, all or nothing',
    '  export   write the trust store as a key file',
    'Run `evroom trust SUBCOMMAND --help` for each one’s options. Every change is in the audit log.',
  ],
  options: {},
  exitCodes: ['0  done', '2  refused (nothing changed), usage or I/O error'],
  examples: [
    'evroom trust pin --key-id did:svc:acme:k1 --public-key 11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo --label "Acme service key"',
    'evroom trust revoke did:svc:acme:k1 --reason "key leaked"',
    'evroom trust pin --from-file pubkey.json --label "Typed signer"',
    'evroom trust export --out my-keys.json',
  ],
};

const pinSpec: CommandSpec = {
  name: 'trust pin',
  summary: 'Pin a key',
  usage:
    'evroom trust pin --key-id ID --public-key B64U [--algorithm ALG] [--label L] [--not-before TS] [--not-after TS] [--roles R,R]\n       evroom trust pin --from-file KEYFILE [--key-id ID] [--label L] [--not-before TS] [--not-after TS] [--roles R,R]',
  description: [
    'The public key is unpadded base64url. With --from-file the key comes from a key file: the only',
    'key in it, or the one --key-id names. --label, --not-before, --not-after and --roles override the file.',
    "A producer's one-key answer is a key file too (the typed signer's GET /pubkey: issuer, algorithm,",
    'publicKey_b64/publicKey_hex). A file that holds a private key is refused.',
    `With --roles the key is trusted only for those roles (${SIGNER_ROLES.join(', ')}); used in another`,
    'role its signature is not "trusted". Without it (and without "roles" in the file), every role.',
  ],
  options: {
    'key-id': {
      type: 'string',
      value: 'ID',
      help: 'any DID (did:web:…, did:hive:…, did:key:…) or a name such as test-key-001',
    },
    'public-key': { type: 'string', value: 'B64U', help: 'the public key, unpadded base64url' },
    algorithm: { type: 'string', value: 'ALG', help: `${KEY_ALGORITHMS.join(' or ')} (default Ed25519)` },
    label: { type: 'string', value: 'TEXT', help: 'a name for the key, shown with its reports' },
    'not-before': { type: 'string', value: 'TS', help: 'not valid before this instant (YYYY-MM-DDThh:mm:ssZ)' },
    'not-after': { type: 'string', value: 'TS', help: 'not valid after this instant' },
    'from-file': { type: 'string', value: 'KEYFILE', help: 'take the key from a key file' },
    roles: {
      type: 'string',
      value: 'R,R',
      help: `trust it only for these roles, comma-separated (${SIGNER_ROLES.join(', ')})`,
    },
  },
};

const unpinSpec: CommandSpec = {
  name: 'trust unpin',
  summary: 'Remove a key from the trust store',
  usage: 'evroom trust unpin KEY_ID',
  description: ['Its signatures then report trust "unpinned". The audit log keeps the whole entry.'],
  options: {},
};

const revokeSpec: CommandSpec = {
  name: 'trust revoke',
  summary: 'Mark a pinned key revoked',
  usage: 'evroom trust revoke KEY_ID [--reason TEXT]',
  description: ['The key stays in the store so that its signatures report "revoked", not "unpinned".'],
  options: { reason: { type: 'string', value: 'TEXT', help: 'why (kept in the store and the audit log)' } },
};

const listSpec: CommandSpec = {
  name: 'trust list',
  summary: 'List the trust store and the advertised keys',
  usage: 'evroom trust list [--json]',
  description: ['Pinned and revoked keys first; keys that came with bundles or key files listed apart.'],
  options: { json: { type: 'boolean', help: 'print {trusted, advertised} as one JSON object' } },
};

const importSpec: CommandSpec = {
  name: 'trust import',
  summary: 'Import a key file into the trust store',
  usage: 'evroom trust import KEYFILE',
  description: [
    'Each key is pinned or revoked as its "status" says (default pinned), for the "roles" it lists',
    '(every role without them). A key that conflicts with the store (other key bytes, or other',
    'roles than it is stored with) refuses the whole file.',
  ],
  options: {},
};

const exportSpec: CommandSpec = {
  name: 'trust export',
  summary: 'Write the trust store as a key file',
  usage: 'evroom trust export [--out FILE] [--force]',
  description: ['Without --out the key file is printed.'],
  options: {
    out: { type: 'string', value: 'FILE', help: 'write it to FILE' },
    force: { type: 'boolean', help: 'replace FILE when it exists' },
  },
};

/**
 * Runs `evroom trust`.
 *
 * @returns the exit code
 */
export async function runTrust(argv: readonly string[], terminal: Terminal): Promise<number> {
  const [sub, ...rest] = argv;
  // Arguments are checked before the ledger is opened: a usage error changes nothing.
  switch (sub) {
    case 'pin': {
      const parsed = parseCommandArguments(pinSpec, rest);
      const entry = await pinInput(parsed);
      return withCliWorkspace('trust pin', (workspace) => {
        const { changed, key, reevaluation } = pinKey(workspace, entry);
        writeLine(
          terminal.out,
          changed ? `Pinned ${describe(key)}.` : `${key.key_id} was already pinned with this key; nothing changed.`,
        );
        reportReevaluation(terminal, reevaluation);
        return 0;
      });
    }
    case 'unpin': {
      const keyId = oneKeyId('trust unpin', parseCommandArguments(unpinSpec, rest));
      return withCliWorkspace('trust unpin', (workspace) => {
        const { reevaluation } = unpinKey(workspace, keyId);
        writeLine(terminal.out, `Unpinned ${keyId}; its signatures now report trust "unpinned".`);
        reportReevaluation(terminal, reevaluation);
        return 0;
      });
    }
    case 'revoke': {
      const parsed = parseCommandArguments(revokeSpec, rest);
      const keyId = oneKeyId('trust revoke', parsed);
      const reason = optionValue(parsed, 'reason');
      return withCliWorkspace('trust revoke', (workspace) => {
        const { reevaluation } = revokeKey(workspace, keyId, reason);
        writeLine(
          terminal.out,
          `Revoked ${keyId}${reason === undefined ? '' : ` (${reason})`}; its signatures now report trust "revoked".`,
        );
        reportReevaluation(terminal, reevaluation);
        return 0;
      });
    }
    case 'list': {
      const parsed = parseCommandArguments(listSpec, rest);
      noPositionals('trust list', parsed);
      return withCliWorkspace('trust list', (workspace) => list(workspace.trust, flag(parsed, 'json'), terminal));
    }
    case 'import': {
      const parsed = parseCommandArguments(importSpec, rest);
      const [file, ...extra] = parsed.positionals;
      if (file === undefined) throw new CliError('trust import: name the key file to import');
      if (extra.length > 0) throw new CliError(`trust import: name one key file, not ${parsed.positionals.length}`);
      const text = await readTextFile(file, 'key file');
      return withCliWorkspace('trust import', (workspace) => {
        const { counts, reevaluation } = importTrustKeys(workspace, text, { source: path.resolve(file) });
        writeLine(
          terminal.out,
          `Imported ${file}: ${counts.pinned} pinned, ${counts.revoked} revoked, ${counts.updated} updated, ${counts.unchanged} unchanged.`,
        );
        reportReevaluation(terminal, reevaluation);
        return 0;
      });
    }
    case 'export': {
      const parsed = parseCommandArguments(exportSpec, rest);
      noPositionals('trust export', parsed);
      const out = optionValue(parsed, 'out');
      const text = await withCliWorkspace('trust export', (workspace) => exportTrustKeys(workspace));
      if (out === undefined) {
        terminal.out.write(text);
        return 0;
      }
      try {
        await writeFile(out, text, { flag: flag(parsed, 'force') ? 'w' : 'wx', mode: 0o644 });
      } catch (error) {
        if ((error as { code?: string }).code === 'EEXIST')
          throw new CliError(`trust export: ${out} exists; choose another name or pass --force`);
        throw new CliError(`trust export: ${out}: ${describeFsError(error)}`);
      }
      writeLine(terminal.out, `Wrote the trust store to ${out}.`);
      return 0;
    }
    case undefined:
      throw new CliError(
        'trust: name a subcommand: pin, unpin, revoke, list, import or export. See: evroom trust --help',
      );
    default:
      parseCommandArguments(trustSpec, [sub]);
      throw new CliError(
        `trust: unknown subcommand '${sub}'; use pin, unpin, revoke, list, import or export. See: evroom trust --help`,
      );
  }
}

function noPositionals(command: string, parsed: ParsedArguments): void {
  if (parsed.positionals.length > 0) throw new CliError(`${command}: unexpected argument "${parsed.positionals[0]}"`);
}

function oneKeyId(command: string, parsed: ParsedArguments): string {
  const [keyId, ...extra] = parsed.positionals;
  if (keyId === undefined) throw new CliError(`${command}: name the key id`);
  if (extra.length > 0) throw new CliError(`${command}: name one key id, not ${parsed.positionals.length}`);
  return keyId;
}

async function pinInput(parsed: ParsedArguments): Promise<PinInput> {
  noPositionals('trust pin', parsed);
  const fromFile = optionValue(parsed, 'from-file');
  const keyId = optionValue(parsed, 'key-id');
  const overrides = {
    label: optionValue(parsed, 'label'),
    not_before: optionValue(parsed, 'not-before'),
    not_after: optionValue(parsed, 'not-after'),
    roles: rolesOption(optionValue(parsed, 'roles')),
  };
  let entry: KeyEntry;
  if (fromFile !== undefined) {
    if (optionValue(parsed, 'public-key') !== undefined || optionValue(parsed, 'algorithm') !== undefined) {
      throw new CliError(
        'trust pin: --from-file takes the key and its algorithm from the file; drop --public-key and --algorithm',
      );
    }
    const text = await readTextFile(fromFile, 'key file');
    let entries: KeyEntry[];
    try {
      entries = parseKeyFile(text);
    } catch (error) {
      if (error instanceof KeyFileError) {
        throw new CliError(
          `trust pin: key file ${fromFile}${error.path === '' ? '' : ` at ${error.path}`}: ${error.message}`,
        );
      }
      throw error;
    }
    const chosen = keyId === undefined ? entries : entries.filter((candidate) => candidate.key_id === keyId);
    if (chosen.length !== 1) {
      throw new CliError(
        keyId === undefined
          ? `trust pin: key file ${fromFile} holds ${entries.length} keys; name one with --key-id (or use trust import for all)`
          : `trust pin: key file ${fromFile} has no key ${keyId}`,
      );
    }
    entry = chosen[0] as KeyEntry;
    if (entry.status === 'revoked') {
      throw new CliError(
        `trust pin: key file ${fromFile} marks ${entry.key_id} revoked; use trust import to import revocations`,
      );
    }
  } else {
    if (keyId === undefined)
      throw new CliError('trust pin: name the key with --key-id ID (and --public-key), or use --from-file KEYFILE');
    const publicKeyText = optionValue(parsed, 'public-key');
    if (publicKeyText === undefined) throw new CliError('trust pin: give the public key with --public-key B64U');
    const algorithm = (optionValue(parsed, 'algorithm') ?? 'Ed25519') as KeyAlgorithm;
    if (!KEY_ALGORITHMS.includes(algorithm)) {
      throw new CliError(`trust pin: --algorithm must be ${KEY_ALGORITHMS.join(' or ')}, got "${algorithm}"`);
    }
    const publicKey = decodeB64uField(publicKeyText, PUBLIC_KEY_LENGTH[algorithm]);
    if (publicKey === undefined) {
      throw new CliError(
        `trust pin: --public-key must be ${PUBLIC_KEY_LENGTH[algorithm]} bytes (${algorithm}) as unpadded base64url`,
      );
    }
    entry = { key_id: keyId, algorithm, public_key: publicKey };
  }
  const input: PinInput = { key_id: entry.key_id, algorithm: entry.algorithm, public_key: entry.public_key };
  const label = overrides.label ?? entry.label;
  const notBefore = overrides.not_before ?? entry.not_before;
  const notAfter = overrides.not_after ?? entry.not_after;
  if (label !== undefined) input.label = label;
  if (notBefore !== undefined) input.not_before = notBefore;
  if (notAfter !== undefined) input.not_after = notAfter;
  const roles = overrides.roles ?? entry.roles;
  if (roles !== undefined) input.roles = roles;
  return input;
}

/**
 * `--roles requester,service`: distinct role names, checked before the ledger is opened.
 *
 * @throws CliError naming the offending name
 */
function rolesOption(value: string | undefined): SignerRole[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((name) => name.trim());
  if (names.some((name) => name.length === 0)) {
    throw new CliError(
      `trust pin: --roles takes role names separated by commas (${SIGNER_ROLES.join(', ')}), got "${value}"`,
    );
  }
  try {
    return checkOptionalRoles(names);
  } catch (error) {
    if (error instanceof TrustError) throw new CliError(`trust pin: --roles: ${error.message}`);
    throw error;
  }
}

/** Says how many stored receipts a trust change judged again (nothing when there were none). */
function reportReevaluation(terminal: Terminal, reevaluation: Reevaluation): void {
  if (reevaluation.reverified === 0) return;
  const receipts = reevaluation.reverified === 1 ? 'receipt' : 'receipts';
  writeLine(
    terminal.out,
    `Re-judged ${reevaluation.reverified} stored ${receipts} signed by it; ${reevaluation.changed} changed.`,
  );
}

function describe(key: TrustedKey): string {
  const parts = [key.key_id, key.algorithm];
  if (key.label !== undefined) parts.push(`“${key.label}”`);
  if (key.not_before !== undefined || key.not_after !== undefined)
    parts.push(`valid ${key.not_before ?? '…'} to ${key.not_after ?? '…'}`);
  if (key.roles !== undefined) parts.push(`for ${key.roles.join(', ')} only`);
  return parts.join(', ');
}

function trustedJson(key: TrustedKey): Record<string, unknown> {
  return { ...key, public_key: b64uEncode(key.public_key) };
}

function advertisedJson(key: AdvertisedKey): Record<string, unknown> {
  return { ...key, public_key: b64uEncode(key.public_key) };
}

/** Longest key shown whole (an Ed25519 key is 43 characters of base64url). */
const WHOLE_KEY_CHARS = 64;

/**
 * A public key as the list shows it: whole when short; an ML-DSA-65 key (2,603 characters) as
 * its two ends, its size and its SHA-256, which `--json` and `trust export` give whole.
 */
function shownKey(publicKey: Uint8Array): string {
  const text = b64uEncode(publicKey);
  if (text.length <= WHOLE_KEY_CHARS) return text;
  const digest = createHash('sha256').update(publicKey).digest('hex');
  return `${text.slice(0, 24)}…${text.slice(-8)} (${publicKey.length} bytes, SHA-256 ${digest})`;
}

function list(trust: TrustStore, json: boolean, terminal: Terminal): number {
  const trusted = trust.list();
  const advertised = trust.listAdvertised();
  if (json) {
    writeLine(
      terminal.out,
      JSON.stringify({ trusted: trusted.map(trustedJson), advertised: advertised.map(advertisedJson) }),
    );
    return 0;
  }
  writeLine(terminal.out, paint(terminal.color, 'bold', `Trust store (${trusted.length})`));
  if (trusted.length === 0) writeLine(terminal.out, '  (empty: no key is trusted)');
  for (const key of trusted) {
    const status =
      key.status === 'revoked' ? paint(terminal.color, 'red', 'revoked') : paint(terminal.color, 'green', 'pinned ');
    const reason = key.revocation_reason === undefined ? '' : ` (${key.revocation_reason})`;
    writeLine(terminal.out, `  ${status}  ${describe(key)}${reason}`);
    writeLine(terminal.out, `           ${paint(terminal.color, 'dim', shownKey(key.public_key))}`);
  }
  writeLine(terminal.out);
  writeLine(
    terminal.out,
    paint(terminal.color, 'bold', `Advertised keys (${advertised.length}): they verify signatures, never trust`),
  );
  if (advertised.length === 0) writeLine(terminal.out, '  (none)');
  for (const key of advertised) {
    const warning = key.contradictsTrustStore ? paint(terminal.color, 'red', '  CONTRADICTS THE TRUST STORE') : '';
    writeLine(terminal.out, `  ${key.key_id}, ${key.algorithm}, from ${key.source}${warning}`);
  }
  return 0;
}
