/**
 * Private key files for the CLI: the format `evroom keys new` writes and `evroom sign` reads.
 *
 * A private key file is JSON, parsed strictly, with exactly these members:
 *
 * ```json
 * {
 *   "evroom_private_key": 1,
 *   "key_id": "did:key:z6Mk...",
 *   "algorithm": "Ed25519",
 *   "public_key": "<b64u>",
 *   "seed": "<b64u, 32 bytes>",
 *   "label": "optional text"
 * }
 * ```
 *
 * Decisions:
 * - Both algorithms store the 32-byte seed, never an expanded secret key: an Ed25519 seed is
 *   the RFC 8032 private key, and an ML-DSA-65 seed is FIPS 204's key generation seed xi, from
 *   which ML-DSA.KeyGen_internal derives the same key pair every time (32 bytes instead of 4032).
 * - `public_key` is redundant on purpose: the reader derives it from the seed and refuses a file
 *   where they disagree, so a damaged or hand-edited file fails loudly instead of signing with a
 *   key nobody can verify. It also lets a user see which public key the file holds.
 * - `key_id` follows PROTOCOL section 0. An Ed25519 key id defaults to the did:key of its public
 *   key (verifiable offline); a did:key id must encode the file's own key. ML-DSA-65 keys need
 *   a did:svc or did:web id, because did:key names Ed25519 keys only.
 * - The file is written with mode 0600 in a directory created 0700; reading one that group or
 *   others may read is allowed (a copied file should still work) but warned about on stderr.
 * - Secret material never appears in an error message or on the terminal.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { b64uEncode, didKeyFromEd25519, ed25519FromDidKey, equalBytes } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import { JsonParseError, parseJson, pointerAppend } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import type { KeyAlgorithm, KeyEntry } from '../../src-shared/verify/context';
import { decodeB64uField, describeType, isJsonObject, quote, type JsonObject } from '../../src-shared/verify/fields';
import { KeyFileError, MAX_LABEL_LENGTH } from '../../src-shared/verify/key-file';
import { isKeyId, KEY_ALGORITHMS, PUBLIC_KEY_LENGTH } from '../../src-shared/verify/keys';
import { CliError } from './cli-error';
import { describeFsError, readTextFile } from './read-input';

/** The version marker of the private key file format this code reads and writes. */
export const PRIVATE_KEY_FILE_VERSION = 1;

/** Seed length in bytes for both algorithms (RFC 8032 secret key; FIPS 204 xi). */
export const PRIVATE_KEY_SEED_LENGTH = 32;

/** The members of a private key file, in the order they are written. */
export const PRIVATE_KEY_MEMBERS = ['evroom_private_key', 'key_id', 'algorithm', 'public_key', 'seed', 'label'] as const;

const REQUIRED_MEMBERS = ['evroom_private_key', 'key_id', 'algorithm', 'public_key', 'seed'] as const;

/** A private key as held in memory: the seed and everything derived or named with it. */
export interface PrivateKey {
  key_id: string;
  algorithm: KeyAlgorithm;
  /** The 32-byte seed. Wipe it with `fill(0)` when done. */
  seed: Uint8Array;
  public_key: Uint8Array;
  label?: string;
}

/** Options of {@link createPrivateKey}. */
export interface CreatePrivateKeyOptions {
  /** The key id; default the did:key of an Ed25519 key. Required for ML-DSA-65. */
  keyId?: string;
  /** A label for people, copied into the public key file. */
  label?: string;
  /** The 32-byte seed; default fresh randomness from the provider. */
  seed?: Uint8Array;
}

/**
 * Make a private key: a seed (fresh unless given), its public key and its key id.
 *
 * @param algorithm - `Ed25519` or `ML-DSA-65`.
 * @param crypto - The provider that derives the public key (and supplies the randomness).
 * @param options - Key id, label and a fixed seed.
 * @returns The key.
 * @throws TypeError if the algorithm is unknown, the key id is not a key id, a did:key id is
 *   given (it is derived, never chosen), an ML-DSA-65 key has no key id, or the label is not a
 *   string of at most 256 characters.
 * @throws RangeError if a given seed is not 32 bytes.
 */
export function createPrivateKey(algorithm: KeyAlgorithm, crypto: CryptoProvider, options: CreatePrivateKeyOptions = {}): PrivateKey {
  if (!KEY_ALGORITHMS.includes(algorithm)) throw new TypeError(`Unknown key algorithm ${quote(String(algorithm))}`);
  const { keyId, label } = options;
  if (label !== undefined && (typeof label !== 'string' || label.length > MAX_LABEL_LENGTH)) {
    throw new TypeError(`A label is a string of at most ${MAX_LABEL_LENGTH} characters`);
  }
  if (keyId !== undefined) {
    if (!isKeyId(keyId)) {
      throw new TypeError(`${quote(String(keyId))} is not a key id: use did:svc:<id> or did:web:<host>[:path]`);
    }
    if (keyId.startsWith('did:key:')) {
      throw new TypeError('A did:key id is derived from the key itself; leave out the key id to get one');
    }
  } else if (algorithm === 'ML-DSA-65') {
    throw new TypeError('An ML-DSA-65 key needs a key id (did:svc:<id> or did:web:<host>): did:key names Ed25519 keys only');
  }
  const seed = options.seed ?? crypto.randomBytes(PRIVATE_KEY_SEED_LENGTH);
  if (!(seed instanceof Uint8Array)) throw new TypeError('The seed must be a Uint8Array');
  if (seed.length !== PRIVATE_KEY_SEED_LENGTH) throw new RangeError(`The seed must be ${PRIVATE_KEY_SEED_LENGTH} bytes, got ${seed.length}`);
  const publicKey = derivePublicKey(algorithm, seed, crypto);
  const key: PrivateKey = {
    key_id: keyId ?? didKeyFromEd25519(publicKey),
    algorithm,
    seed: Uint8Array.from(seed),
    public_key: publicKey,
  };
  if (label !== undefined) key.label = label;
  return key;
}

/**
 * The ML-DSA-65 secret key (4032 bytes) of a private key's seed.
 *
 * @param key - An ML-DSA-65 private key.
 * @param crypto - The provider.
 * @returns The expanded secret key; wipe it with `fill(0)` after signing.
 * @throws TypeError if the key is not an ML-DSA-65 key.
 */
export function mldsaSecretKey(key: PrivateKey, crypto: CryptoProvider): Uint8Array {
  if (key.algorithm !== 'ML-DSA-65') throw new TypeError(`${key.key_id} is an ${key.algorithm} key, not ML-DSA-65`);
  return crypto.mldsa65KeyGen(key.seed).secretKey;
}

/**
 * The public half of a private key, as a key file entry.
 *
 * @param key - The private key.
 * @returns `{key_id, algorithm, public_key, label?}`.
 */
export function publicKeyEntry(key: PrivateKey): KeyEntry {
  const entry: KeyEntry = { key_id: key.key_id, algorithm: key.algorithm, public_key: Uint8Array.from(key.public_key) };
  if (key.label !== undefined) entry.label = key.label;
  return entry;
}

/**
 * Write a private key as a private key file.
 *
 * @param key - The key.
 * @returns The file text, two-space indented, ending with a newline.
 */
export function serializePrivateKeyFile(key: PrivateKey): string {
  const file: JsonObject = {
    evroom_private_key: PRIVATE_KEY_FILE_VERSION,
    key_id: key.key_id,
    algorithm: key.algorithm,
    public_key: b64uEncode(key.public_key),
    seed: b64uEncode(key.seed),
  };
  if (key.label !== undefined) file['label'] = key.label;
  return `${JSON.stringify(file, null, 2)}\n`;
}

/**
 * Parse a private key file strictly.
 *
 * @param text - The file's text.
 * @param crypto - The provider that re-derives the public key from the seed.
 * @returns The key.
 * @throws TypeError if `text` is not a string.
 * @throws KeyFileError naming the first problem and its JSON Pointer (`/seed`, `/key_id`, ...);
 *   the message never quotes the seed.
 */
export function parsePrivateKeyFile(text: string, crypto: CryptoProvider): PrivateKey {
  if (typeof text !== 'string') throw new TypeError('parsePrivateKeyFile expects the file text as a string');
  let root: JsonValue;
  try {
    root = parseJson(text);
  } catch (error) {
    if (error instanceof JsonParseError) throw new KeyFileError(error.code, error.path, `Not strict JSON: ${error.message}`);
    throw error;
  }
  if (!isJsonObject(root)) throw new KeyFileError('invalid_type', '', `Expected an object at the top level, got ${describeType(root)}.`);
  if (Object.hasOwn(root, 'keys') && !Object.hasOwn(root, 'evroom_private_key')) {
    throw new KeyFileError(
      'public_key_file',
      '',
      'This is a public key file ({"keys": [...]}); signing needs the private key file (NAME.private.json) that `evroom keys new` wrote.',
    );
  }
  for (const name of REQUIRED_MEMBERS) {
    if (!Object.hasOwn(root, name)) throw new KeyFileError('missing_property', `/${name}`, `Required member "${name}" is missing.`);
  }
  for (const name of Object.keys(root)) {
    if (!(PRIVATE_KEY_MEMBERS as readonly string[]).includes(name)) {
      throw new KeyFileError('unknown_property', pointerAppend('', name), `Unknown member ${quote(name)}.`);
    }
  }
  if (root['evroom_private_key'] !== PRIVATE_KEY_FILE_VERSION) {
    throw new KeyFileError(
      'unsupported_version',
      '/evroom_private_key',
      `"evroom_private_key" must be ${PRIVATE_KEY_FILE_VERSION}, the only version this evroom reads.`,
    );
  }
  const algorithm = root['algorithm'];
  if (typeof algorithm !== 'string' || !(KEY_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new KeyFileError('invalid_algorithm', '/algorithm', `"algorithm" must be one of ${KEY_ALGORITHMS.join(', ')}.`);
  }
  const keyAlgorithm = algorithm as KeyAlgorithm;
  const keyId = root['key_id'];
  if (!isKeyId(keyId)) {
    throw new KeyFileError('invalid_key_id', '/key_id', '"key_id" must be did:svc:<id>, did:web:<host>[:path] or a decodable did:key.');
  }
  if (keyAlgorithm === 'ML-DSA-65' && keyId.startsWith('did:key:')) {
    throw new KeyFileError('invalid_key_id', '/key_id', 'An ML-DSA-65 key cannot have a did:key id (did:key names Ed25519 keys).');
  }
  const seed = decodeB64uField(root['seed'], PRIVATE_KEY_SEED_LENGTH);
  if (seed === undefined) {
    throw new KeyFileError('invalid_seed', '/seed', `"seed" must be ${PRIVATE_KEY_SEED_LENGTH} bytes as unpadded base64url.`);
  }
  const length = PUBLIC_KEY_LENGTH[keyAlgorithm];
  const publicKey = decodeB64uField(root['public_key'], length);
  if (publicKey === undefined) {
    throw new KeyFileError('invalid_public_key', '/public_key', `"public_key" must be ${length} bytes (${keyAlgorithm}) as unpadded base64url.`);
  }
  if (!equalBytes(derivePublicKey(keyAlgorithm, seed, crypto), publicKey)) {
    throw new KeyFileError('key_mismatch', '/public_key', '"public_key" is not the public key of "seed": the file is damaged or was edited.');
  }
  if (keyId.startsWith('did:key:') && !equalBytes(ed25519FromDidKey(keyId), publicKey)) {
    throw new KeyFileError('did_key_mismatch', '/key_id', 'A did:key id names its own Ed25519 public key; this one names another key.');
  }
  const key: PrivateKey = { key_id: keyId, algorithm: keyAlgorithm, seed, public_key: publicKey };
  const label = root['label'];
  if (label !== undefined) {
    if (typeof label !== 'string' || label.length > MAX_LABEL_LENGTH) {
      throw new KeyFileError('invalid_label', '/label', `"label" must be a string of at most ${MAX_LABEL_LENGTH} characters.`);
    }
    key.label = label;
  }
  return key;
}

/**
 * Read a private key file named on the command line.
 *
 * @param name - The path.
 * @param crypto - The provider.
 * @param warn - Receives one line when the file may be read by group or others.
 * @param what - How the file is named in messages, e.g. `key file` or `device key file`.
 * @returns The key.
 * @throws CliError (exit 2) naming the file, the member and what is wrong.
 */
export async function readPrivateKeyFile(
  name: string,
  crypto: CryptoProvider,
  warn: (line: string) => void,
  what = 'key file',
): Promise<PrivateKey> {
  const text = await readTextFile(name, what);
  let key: PrivateKey;
  try {
    key = parsePrivateKeyFile(text, crypto);
  } catch (error) {
    if (error instanceof KeyFileError) {
      const where = error.path ? ` at ${error.path}` : '';
      throw new CliError(`${what} ${name}${where}: ${error.message}`);
    }
    throw error;
  }
  if (process.platform !== 'win32') {
    const mode = (await stat(name)).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      warn(`warning: ${what} ${name} may be read by other users (mode ${mode.toString(8).padStart(3, '0')}); run: chmod 600 ${name}`);
    }
  }
  return key;
}

/** Options of {@link writeFileSafely}. */
export interface WriteFileOptions {
  /** The file mode; also applied to a replaced file. Default 0o644. */
  mode?: number;
  /** Replace an existing file (atomically, through a temporary file and a rename). */
  force?: boolean;
}

/**
 * Write a file without ever leaving a half-written one, refusing to replace an existing file
 * unless `force` is set.
 *
 * Without `force` the file is created exclusively (no race with another writer); with it, the text
 * goes to a temporary file in the same folder, created with the final mode, which then replaces
 * the target in one rename.
 *
 * @param path - The file to write.
 * @param text - Its contents.
 * @param options - Mode and force.
 * @throws CliError (exit 2) naming the file: it exists (without force), or the write failed.
 */
export async function writeFileSafely(path: string, text: string, options: WriteFileOptions = {}): Promise<void> {
  const mode = options.mode ?? 0o644;
  const target = options.force ? join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`) : path;
  let handle;
  try {
    handle = await open(target, 'wx', mode);
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') {
      throw new CliError(`${path}: already exists; pass --force to replace it`);
    }
    throw new CliError(`${path}: cannot write: ${describeFsError(error)}`);
  }
  try {
    await handle.writeFile(text, 'utf8');
    // The umask may have narrowed or (for 0o644) kept the mode; make it exactly what was asked.
    await handle.chmod(mode);
    await handle.close();
    handle = undefined;
    if (target !== path) await rename(target, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(target, { force: true }).catch(() => undefined);
    throw new CliError(`${path}: cannot write: ${describeFsError(error)}`);
  }
}

/**
 * Make sure a folder exists, creating it (and its parents) with the given mode when missing.
 *
 * @param path - The folder.
 * @param mode - The mode of a created folder (an existing folder keeps its own).
 * @throws CliError (exit 2) when the path is a file or cannot be created.
 */
export async function ensureDirectory(path: string, mode: number): Promise<void> {
  try {
    const info = await stat(path);
    if (!info.isDirectory()) throw new CliError(`${path}: is not a folder`);
    return;
  } catch (error) {
    if (error instanceof CliError) throw error;
    if ((error as { code?: string }).code !== 'ENOENT') throw new CliError(`${path}: ${describeFsError(error)}`);
  }
  try {
    await mkdir(path, { recursive: true, mode });
    // mkdir's mode is filtered by the umask; a key folder must be exactly what was asked.
    await chmod(path, mode);
  } catch (error) {
    throw new CliError(`${path}: cannot create the folder: ${describeFsError(error)}`);
  }
}

function derivePublicKey(algorithm: KeyAlgorithm, seed: Uint8Array, crypto: CryptoProvider): Uint8Array {
  if (algorithm === 'Ed25519') return crypto.ed25519PublicKey(seed);
  const { publicKey, secretKey } = crypto.mldsa65KeyGen(seed);
  secretKey.fill(0);
  return publicKey;
}
