/**
 * `evroom keys new`: make a signing key pair as a private key file and a public key file.
 */
import { join } from 'node:path';
import { lstat, rm } from 'node:fs/promises';
import { createNodeCryptoProvider } from '../../core/node-crypto-provider';
import type { KeyAlgorithm } from '../../../src-shared/verify/context';
import { serializeKeyFile } from '../../../src-shared/verify/key-file';
import { CliError } from '../cli-error';
import {
  createPrivateKey,
  ensureDirectory,
  publicKeyEntry,
  serializePrivateKeyFile,
  writeFileSafely,
} from '../key-files';
import { flag, optionValue, parseCommandArguments, type CommandSpec } from '../arguments';
import { writeLine, type Terminal } from '../terminal';

/** The `--alg` values and the algorithm each names. */
const ALGORITHMS: Readonly<Record<string, KeyAlgorithm>> = { ed25519: 'Ed25519', 'ml-dsa-65': 'ML-DSA-65' };

/** File base names: letters, digits, dot, underscore and hyphen, not starting with a dot. */
const NAME_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

export const keysSpec: CommandSpec = {
  name: 'keys',
  summary: 'Create a signing key pair (Ed25519 or ML-DSA-65) as key files',
  usage:
    'evroom keys new --alg ed25519|ml-dsa-65 --out DIR [--name NAME] [--key-id ID] [--label TEXT] [--force] [--json]',
  description: [
    'Writes two files into DIR (created with mode 700 if missing):',
    '  NAME.private.json  the private key, mode 600. Keep it secret; evroom sign reads it.',
    '  NAME.public.json   the public key as a key file {"keys": [{key_id, algorithm, public_key,',
    '                     label?}]}: give it to verifiers for --keys, or pin it with --trust.',
    'NAME defaults to the algorithm (ed25519, ml-dsa-65). Existing files are never replaced',
    'without --force. No secret material is printed.',
    '',
    'Key ids: an Ed25519 key is named by its did:key (checkable offline) unless --key-id gives',
    'a did:svc:<id> or did:web:<host>[:path] name. ML-DSA-65 keys need --key-id: did:key names',
    'Ed25519 keys only.',
    '',
    'Private key file (strict JSON, no other members):',
    '  {"evroom_private_key": 1, "key_id": ID, "algorithm": "Ed25519" | "ML-DSA-65",',
    '   "public_key": b64u, "seed": b64u of 32 bytes, "label"?: text}',
    'The seed is the whole secret: the RFC 8032 Ed25519 private key, or the FIPS 204 ML-DSA-65',
    "key generation seed. public_key must be the seed's public key; readers check it.",
  ],
  options: {
    alg: { type: 'string', value: 'ALG', help: 'ed25519 or ml-dsa-65' },
    out: { type: 'string', value: 'DIR', help: 'the folder to write the two files into' },
    name: { type: 'string', value: 'NAME', help: 'file base name (default: the algorithm)' },
    'key-id': { type: 'string', value: 'ID', help: 'the key id (did:svc:... or did:web:...); required for ml-dsa-65' },
    label: { type: 'string', value: 'TEXT', help: 'a label for people, written into both files' },
    force: { type: 'boolean', help: 'replace existing key files' },
    json: { type: 'boolean', help: 'print {key_id, algorithm, private_key_file, public_key_file} as JSON' },
  },
  exitCodes: ['0  the key pair was written', '2  usage or I/O error (nothing is written)'],
  examples: [
    'evroom keys new --alg ed25519 --out ~/.evroom-keys --label "Acme issuer"',
    'evroom keys new --alg ml-dsa-65 --key-id did:svc:acme:pq1 --out keys --name acme-pq',
  ],
};

/**
 * Runs `evroom keys`.
 *
 * @param argv - The arguments after `keys`.
 * @param terminal - Where to print.
 * @returns The exit code.
 * @throws CliError (exit 2) for usage errors and files that cannot be written.
 */
export async function runKeys(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(keysSpec, argv);
  const [action, ...extra] = parsed.positionals;
  if (action === undefined)
    throw new CliError('keys: name an action: evroom keys new --alg ed25519 --out DIR. See: evroom keys --help');
  if (action !== 'new')
    throw new CliError(`keys: unknown action '${action}'; the action is new. See: evroom keys --help`);
  if (extra.length > 0) throw new CliError(`keys new: unexpected argument ${extra[0] ?? ''}. See: evroom keys --help`);

  const algorithmName = optionValue(parsed, 'alg');
  if (algorithmName === undefined) throw new CliError('keys new: --alg is required: ed25519 or ml-dsa-65');
  const algorithm = ALGORITHMS[algorithmName.toLowerCase()];
  if (algorithm === undefined)
    throw new CliError(`keys new: unknown --alg '${algorithmName}'; use ed25519 or ml-dsa-65`);
  const directory = optionValue(parsed, 'out');
  if (directory === undefined) throw new CliError('keys new: --out DIR is required (the folder for the key files)');
  const name = optionValue(parsed, 'name') ?? algorithmName.toLowerCase();
  if (!NAME_PATTERN.test(name)) {
    throw new CliError(
      `keys new: --name '${name}' is not a file base name (1-64 letters, digits, ".", "_" or "-", not starting with ".")`,
    );
  }
  const keyId = optionValue(parsed, 'key-id');
  if (algorithm === 'ML-DSA-65' && keyId === undefined) {
    throw new CliError(
      'keys new: an ML-DSA-65 key needs --key-id, a did:svc:<id> or did:web:<host>[:path] name (did:key names Ed25519 keys only)',
    );
  }
  const label = optionValue(parsed, 'label');
  const force = flag(parsed, 'force');

  const crypto = createNodeCryptoProvider();
  let key;
  try {
    key = createPrivateKey(algorithm, crypto, {
      ...(keyId !== undefined ? { keyId } : {}),
      ...(label !== undefined ? { label } : {}),
    });
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) throw new CliError(`keys new: ${error.message}`);
    throw error;
  }
  const privateFile = join(directory, `${name}.private.json`);
  const publicFile = join(directory, `${name}.public.json`);
  try {
    await ensureDirectory(directory, 0o700);
    // Both files are checked before either is written, so a refusal leaves nothing behind.
    if (!force) await refuseExisting([privateFile, publicFile]);
    await writeFileSafely(privateFile, serializePrivateKeyFile(key), { mode: 0o600, force });
    try {
      await writeFileSafely(publicFile, serializeKeyFile([publicKeyEntry(key)]), { mode: 0o644, force });
    } catch (error) {
      if (!force) await rm(privateFile, { force: true });
      throw error;
    }
  } finally {
    key.seed.fill(0);
  }

  if (flag(parsed, 'json')) {
    writeLine(
      terminal.out,
      JSON.stringify({ key_id: key.key_id, algorithm, private_key_file: privateFile, public_key_file: publicFile }),
    );
  } else {
    writeLine(terminal.out, `Created an ${algorithm} key pair.`);
    writeLine(terminal.out, `  key_id       ${key.key_id}`);
    writeLine(terminal.out, `  private key  ${privateFile}  (mode 600: keep it secret; evroom sign --key reads it)`);
    writeLine(terminal.out, `  public key   ${publicFile}  (share it: evroom verify --keys or --trust)`);
  }
  return 0;
}

async function refuseExisting(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    // lstat: a dangling symbolic link counts as existing, as the exclusive create would find.
    const exists = await lstat(path).then(
      () => true,
      () => false,
    );
    if (exists)
      throw new CliError(`keys new: ${path} already exists; pass --force to replace it (the old key is then lost)`);
  }
}
