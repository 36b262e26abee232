/**
 * The private key file: the one format for every private key this program writes.
 *
 * `evroom keys new` writes it, `evroom sign` reads it, the export signing key in the data folder
 * (`keys/local-signing-key.json`) is kept in it, and the service signing keys and the auditor key
 * will be. A private key file is JSON, parsed strictly, with exactly these members:
 *
 * ```json
 * {
 *   "evroom_private_key": 1,
 *   "key_id": "did:key:z6Mk...",
 *   "algorithm": "Ed25519",
 *   "public_key": "<b64u>",
 *   "seed": "<b64u, 32 bytes>",
 *   "label": "optional text",
 *   "created_at": "optional TS"
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
 * - `created_at` (optional) is when the key was made. The export signing key had it in its old
 *   shape of its own, and it answers "since when has this key signed?" for any key; it is an
 *   optional member of version 1 rather than a second format. (An evroom from before it was added
 *   refuses a file that has it: such files are only written by keys this program makes for
 *   itself, which no older evroom reads.)
 * - Written atomically: the text goes to a temporary file (mode 0600, fsync) in the target's
 *   folder, which is then linked into place (refusing to replace a key, even against another
 *   process) or renamed over the old file. A missing folder is created 0700; an existing folder
 *   is left as its owner made it.
 * - Read from a regular file only, of at most {@link MAX_PRIVATE_KEY_FILE_BYTES}. Reading a file
 *   that group or others may read is allowed (a copied file should still work); the caller gets
 *   the mode and decides whether to warn or tighten it.
 * - Secret material never appears in an error message: problems name the member, not its value.
 */
import { DomainError } from '../../src-shared/api/domain-error';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { b64uEncode, didKeyFromEd25519, ed25519FromDidKey, equalBytes } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import { JsonParseError, parseJson, pointerAppend } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import type { KeyAlgorithm, KeyEntry } from '../../src-shared/verify/context';
import { decodeB64uField, describeType, isJsonObject, quote, type JsonObject } from '../../src-shared/verify/fields';
import { MAX_LABEL_LENGTH } from '../../src-shared/verify/key-file';
import { ISSUER_KEY_ID_RULE, isIssuerKeyId, KEY_ALGORITHMS, PUBLIC_KEY_LENGTH } from '../../src-shared/verify/keys';
import { isTimestamp } from '../../src-shared/verify/timestamp';

/** The version marker of the private key file format this code reads and writes. */
export const PRIVATE_KEY_FILE_VERSION = 1;

/** Seed length in bytes for both algorithms (RFC 8032 secret key; FIPS 204 xi). */
export const PRIVATE_KEY_SEED_LENGTH = 32;

/** The members of a private key file, in the order they are written. */
export const PRIVATE_KEY_MEMBERS = [
  'evroom_private_key',
  'key_id',
  'algorithm',
  'public_key',
  'seed',
  'label',
  'created_at',
] as const;

/** The largest private key file read: an ML-DSA-65 key file is under 3 KB. */
export const MAX_PRIVATE_KEY_FILE_BYTES = 64 * 1024;

const REQUIRED_MEMBERS = ['evroom_private_key', 'key_id', 'algorithm', 'public_key', 'seed'] as const;

/** A private key as held in memory: the seed and everything derived or named with it. */
export interface PrivateKey {
  key_id: string;
  algorithm: KeyAlgorithm;
  /** The 32-byte seed. Wipe it with `fill(0)` when done. */
  seed: Uint8Array;
  public_key: Uint8Array;
  label?: string;
  /** TS of the key's creation, when recorded. */
  created_at?: string;
}

/**
 * Why a private key file cannot be read, parsed or written.
 *
 * `code` is a strict-parse code (`invalid_seed`, `key_mismatch`, `duplicate_name`, ...) or a file
 * code (`not_found`, `not_a_file`, `too_large`, `empty`, `not_utf8`, `unreadable`, `exists`,
 * `unwritable`). The message never holds secret material.
 */
export class PrivateKeyFileError extends DomainError {
  override readonly code: string;
  /** The file concerned; `''` when parsing text that came from elsewhere. */
  readonly path: string;
  /** JSON Pointer (RFC 6901) to the offending member; `''` for the whole file. */
  readonly field: string;
  /** The reason without the file and member, for callers that name the file their own way. */
  readonly reason: string;
  constructor(code: string, reason: string, options: { path?: string; field?: string; cause?: unknown } = {}) {
    const file = options.path ?? '';
    const field = options.field ?? '';
    const where = `${file}${field === '' ? '' : `${file === '' ? '' : ' '}at ${field}`}`;
    super(
      where === '' ? reason : `${where}: ${reason}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'PrivateKeyFileError';
    this.code = code;
    this.path = file;
    this.field = field;
    this.reason = reason;
  }

  /** The same problem, naming the file it was found in. */
  inFile(file: string): PrivateKeyFileError {
    return new PrivateKeyFileError(this.code, this.reason, { path: file, field: this.field, cause: this.cause });
  }
}

/** Options of {@link createPrivateKey}. */
export interface CreatePrivateKeyOptions {
  /** The key id; default the did:key of an Ed25519 key. Required for ML-DSA-65. */
  keyId?: string;
  /** A label for people, copied into the public key file. */
  label?: string;
  /** The 32-byte seed; default fresh randomness from the provider. */
  seed?: Uint8Array;
  /** Record the creation instant as `created_at`. */
  createdAt?: Date;
}

/**
 * The public key of a seed.
 *
 * @param algorithm - `Ed25519` or `ML-DSA-65`.
 * @param seed - The 32-byte seed.
 * @param crypto - The provider.
 * @returns The public key (32 or 1952 bytes).
 * @throws TypeError for an unknown algorithm or a seed that is not bytes; RangeError for a seed
 *   that is not 32 bytes.
 */
export function derivePublicKey(algorithm: KeyAlgorithm, seed: Uint8Array, crypto: CryptoProvider): Uint8Array {
  if (!KEY_ALGORITHMS.includes(algorithm)) throw new TypeError(`Unknown key algorithm ${quote(String(algorithm))}`);
  if (!(seed instanceof Uint8Array)) throw new TypeError('The seed must be a Uint8Array');
  if (seed.length !== PRIVATE_KEY_SEED_LENGTH)
    throw new RangeError(`The seed must be ${PRIVATE_KEY_SEED_LENGTH} bytes, got ${seed.length}`);
  if (algorithm === 'Ed25519') return crypto.ed25519PublicKey(seed);
  const { publicKey, secretKey } = crypto.mldsa65KeyGen(seed);
  secretKey.fill(0);
  return publicKey;
}

/**
 * Make a private key: a seed (fresh unless given), its public key and its key id.
 *
 * @param algorithm - `Ed25519` or `ML-DSA-65`.
 * @param crypto - The provider that derives the public key (and supplies the randomness).
 * @param options - Key id, label, a fixed seed, the creation instant to record.
 * @returns The key.
 * @throws TypeError if the algorithm is unknown, the key id is not a key id, a did:key id is
 *   given (it is derived, never chosen), an ML-DSA-65 key has no key id, the label is not a
 *   string of at most 256 characters, or createdAt is not a valid Date.
 * @throws RangeError if a given seed is not 32 bytes.
 */
export function createPrivateKey(
  algorithm: KeyAlgorithm,
  crypto: CryptoProvider,
  options: CreatePrivateKeyOptions = {},
): PrivateKey {
  if (!KEY_ALGORITHMS.includes(algorithm)) throw new TypeError(`Unknown key algorithm ${quote(String(algorithm))}`);
  const { keyId, label, createdAt } = options;
  if (label !== undefined && (typeof label !== 'string' || label.length > MAX_LABEL_LENGTH)) {
    throw new TypeError(`A label is a string of at most ${MAX_LABEL_LENGTH} characters`);
  }
  if (createdAt !== undefined && (!(createdAt instanceof Date) || !Number.isFinite(createdAt.getTime()))) {
    throw new TypeError('createdAt must be a valid Date');
  }
  if (keyId !== undefined) {
    if (!isIssuerKeyId(keyId)) {
      throw new TypeError(
        `${quote(String(keyId))} is not an issuing key id: use did:svc:<id> or did:web:<host>[:path]`,
      );
    }
    if (keyId.startsWith('did:key:')) {
      throw new TypeError('A did:key id is derived from the key itself; leave out the key id to get one');
    }
  } else if (algorithm === 'ML-DSA-65') {
    throw new TypeError(
      'An ML-DSA-65 key needs a key id (did:svc:<id> or did:web:<host>): did:key names Ed25519 keys only',
    );
  }
  const seed = options.seed ?? crypto.randomBytes(PRIVATE_KEY_SEED_LENGTH);
  const publicKey = derivePublicKey(algorithm, seed, crypto);
  const key: PrivateKey = {
    key_id: keyId ?? didKeyFromEd25519(publicKey),
    algorithm,
    seed: Uint8Array.from(seed),
    public_key: publicKey,
  };
  if (label !== undefined) key.label = label;
  if (createdAt !== undefined) key.created_at = createdAt.toISOString();
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
  if (typeof key !== 'object' || key === null || !(key.seed instanceof Uint8Array))
    throw new TypeError('serializePrivateKeyFile expects a private key');
  const file: JsonObject = {
    evroom_private_key: PRIVATE_KEY_FILE_VERSION,
    key_id: key.key_id,
    algorithm: key.algorithm,
    public_key: b64uEncode(key.public_key),
    seed: b64uEncode(key.seed),
  };
  if (key.label !== undefined) file['label'] = key.label;
  if (key.created_at !== undefined) file['created_at'] = key.created_at;
  return `${JSON.stringify(file, null, 2)}\n`;
}

function formatError(code: string, field: string, reason: string): PrivateKeyFileError {
  return new PrivateKeyFileError(code, reason, { field });
}

/**
 * Parse a private key file strictly.
 *
 * @param text - The file's text.
 * @param crypto - The provider that re-derives the public key from the seed.
 * @returns The key.
 * @throws TypeError if `text` is not a string.
 * @throws PrivateKeyFileError naming the first problem and its JSON Pointer in `field` (`/seed`,
 *   `/key_id`, ...); the message never quotes the seed.
 */
export function parsePrivateKeyFile(text: string, crypto: CryptoProvider): PrivateKey {
  if (typeof text !== 'string') throw new TypeError('parsePrivateKeyFile expects the file text as a string');
  let root: JsonValue;
  try {
    root = parseJson(text);
  } catch (error) {
    // The parser's message names the position and the problem, never the text around it.
    if (error instanceof JsonParseError) throw formatError(error.code, error.path, `Not strict JSON: ${error.message}`);
    throw error;
  }
  if (!isJsonObject(root))
    throw formatError('invalid_type', '', `Expected an object at the top level, got ${describeType(root)}.`);
  if (Object.hasOwn(root, 'keys') && !Object.hasOwn(root, 'evroom_private_key')) {
    throw formatError(
      'public_key_file',
      '',
      'This is a public key file ({"keys": [...]}); signing needs the private key file (NAME.private.json) that `evroom keys new` wrote.',
    );
  }
  for (const name of REQUIRED_MEMBERS) {
    if (!Object.hasOwn(root, name))
      throw formatError('missing_property', `/${name}`, `Required member "${name}" is missing.`);
  }
  for (const name of Object.keys(root)) {
    if (!(PRIVATE_KEY_MEMBERS as readonly string[]).includes(name)) {
      throw formatError('unknown_property', pointerAppend('', name), `Unknown member ${quote(name)}.`);
    }
  }
  if (root['evroom_private_key'] !== PRIVATE_KEY_FILE_VERSION) {
    throw formatError(
      'unsupported_version',
      '/evroom_private_key',
      `"evroom_private_key" must be ${PRIVATE_KEY_FILE_VERSION}, the only version this evroom reads.`,
    );
  }
  const algorithm = root['algorithm'];
  if (typeof algorithm !== 'string' || !(KEY_ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw formatError('invalid_algorithm', '/algorithm', `"algorithm" must be one of ${KEY_ALGORITHMS.join(', ')}.`);
  }
  const keyAlgorithm = algorithm as KeyAlgorithm;
  const keyId = root['key_id'];
  if (typeof keyId !== 'string' || !isIssuerKeyId(keyId)) {
    throw formatError('invalid_key_id', '/key_id', `"key_id" cannot name an issuing key. ${ISSUER_KEY_ID_RULE}`);
  }
  if (keyAlgorithm === 'ML-DSA-65' && keyId.startsWith('did:key:')) {
    throw formatError(
      'invalid_key_id',
      '/key_id',
      'An ML-DSA-65 key cannot have a did:key id (did:key names Ed25519 keys).',
    );
  }
  const seed = decodeB64uField(root['seed'], PRIVATE_KEY_SEED_LENGTH);
  if (seed === undefined) {
    throw formatError(
      'invalid_seed',
      '/seed',
      `"seed" must be ${PRIVATE_KEY_SEED_LENGTH} bytes as unpadded base64url.`,
    );
  }
  const length = PUBLIC_KEY_LENGTH[keyAlgorithm];
  const publicKey = decodeB64uField(root['public_key'], length);
  if (publicKey === undefined) {
    throw formatError(
      'invalid_public_key',
      '/public_key',
      `"public_key" must be ${length} bytes (${keyAlgorithm}) as unpadded base64url.`,
    );
  }
  if (!equalBytes(derivePublicKey(keyAlgorithm, seed, crypto), publicKey)) {
    throw formatError(
      'key_mismatch',
      '/public_key',
      '"public_key" is not the public key of "seed": the file is damaged or was edited.',
    );
  }
  if (keyId.startsWith('did:key:') && !equalBytes(ed25519FromDidKey(keyId), publicKey)) {
    throw formatError(
      'did_key_mismatch',
      '/key_id',
      'A did:key id names its own Ed25519 public key; this one names another key.',
    );
  }
  const key: PrivateKey = { key_id: keyId, algorithm: keyAlgorithm, seed, public_key: publicKey };
  const label = root['label'];
  if (label !== undefined) {
    if (typeof label !== 'string' || label.length > MAX_LABEL_LENGTH) {
      throw formatError(
        'invalid_label',
        '/label',
        `"label" must be a string of at most ${MAX_LABEL_LENGTH} characters.`,
      );
    }
    key.label = label;
  }
  const createdAt = root['created_at'];
  if (createdAt !== undefined) {
    if (!isTimestamp(createdAt))
      throw formatError(
        'invalid_created_at',
        '/created_at',
        '"created_at" must be a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z.',
      );
    key.created_at = createdAt;
  }
  return key;
}

function fileReason(error: unknown): { code: string; reason: string } {
  const code = (error as { code?: string } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return { code: 'not_found', reason: 'no such file' };
    case 'EACCES':
    case 'EPERM':
      return { code: 'unreadable', reason: 'permission denied' };
    case 'EISDIR':
      return { code: 'not_a_file', reason: 'is a directory, not a file' };
    case 'ENOTDIR':
      return { code: 'not_found', reason: 'a part of the path is not a directory' };
    case 'ELOOP':
      return { code: 'unreadable', reason: 'too many symbolic links' };
    default:
      return { code: 'unreadable', reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The text of a private key file: a regular file, not empty, not too large, UTF-8.
 *
 * @param file - The path.
 * @returns The text and the file's permission bits.
 * @throws PrivateKeyFileError not_found, unreadable, not_a_file, too_large, empty, not_utf8.
 */
export function readPrivateKeyText(file: string): { text: string; mode: number } {
  if (typeof file !== 'string' || file.length === 0) throw new TypeError('readPrivateKeyText expects a file path');
  let descriptor: number;
  try {
    // O_NONBLOCK: a FIFO in the key's place must be refused, not waited on.
    descriptor = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const { code, reason } = fileReason(error);
    throw new PrivateKeyFileError(code, reason, { path: file, cause: error });
  }
  try {
    const info = fs.fstatSync(descriptor);
    if (info.isDirectory()) throw new PrivateKeyFileError('not_a_file', 'is a directory, not a file', { path: file });
    if (!info.isFile()) throw new PrivateKeyFileError('not_a_file', 'is not a regular file', { path: file });
    if (info.size > MAX_PRIVATE_KEY_FILE_BYTES) {
      throw new PrivateKeyFileError(
        'too_large',
        `is ${info.size} bytes; a private key file is at most ${MAX_PRIVATE_KEY_FILE_BYTES}`,
        { path: file },
      );
    }
    const bytes = fs.readFileSync(descriptor);
    if (bytes.length === 0) throw new PrivateKeyFileError('empty', 'is empty', { path: file });
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new PrivateKeyFileError('not_utf8', 'is not UTF-8 text', { path: file });
    } finally {
      bytes.fill(0);
    }
    return { text, mode: info.mode & 0o777 };
  } catch (error) {
    if (error instanceof PrivateKeyFileError) throw error;
    const { code, reason } = fileReason(error);
    throw new PrivateKeyFileError(code, reason, { path: file, cause: error });
  } finally {
    fs.closeSync(descriptor);
  }
}

/**
 * Read and parse a private key file.
 *
 * @param file - The path.
 * @param crypto - The provider that re-derives the public key.
 * @returns The key and the file's permission bits (the caller may warn when group or others
 *   can read it, or tighten them).
 * @throws PrivateKeyFileError with `path` set, for a file that cannot be read or parsed.
 */
export function readPrivateKeyFile(file: string, crypto: CryptoProvider): { key: PrivateKey; mode: number } {
  const { text, mode } = readPrivateKeyText(file);
  try {
    return { key: parsePrivateKeyFile(text, crypto), mode };
  } catch (error) {
    if (error instanceof PrivateKeyFileError) throw error.inFile(file);
    throw error;
  }
}

/** Options of {@link writePrivateKeyFile}. */
export interface WritePrivateKeyFileOptions {
  /** Replace an existing file (atomically). Default: refuse with `exists`. */
  replace?: boolean;
}

/**
 * Write a private key file atomically with mode 0600, creating a missing folder with mode 0700.
 *
 * The text goes to a temporary file beside the target, created 0600 and synced, then is linked
 * into place (without `replace`: fails if a file is there, even one another process just wrote)
 * or renamed over the target (with `replace`). No reader ever sees half a key.
 *
 * @param file - The target path.
 * @param key - The key.
 * @param options - `replace`.
 * @throws PrivateKeyFileError exists (without replace) or unwritable.
 */
export function writePrivateKeyFile(file: string, key: PrivateKey, options: WritePrivateKeyFileOptions = {}): void {
  if (typeof file !== 'string' || file.length === 0) throw new TypeError('writePrivateKeyFile expects a file path');
  const text = serializePrivateKeyFile(key);
  const folder = path.dirname(file);
  const temporary = path.join(folder, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    if (!fs.existsSync(folder)) {
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
      // mkdir's mode is filtered by the umask; a new key folder is exactly 0700.
      if (process.platform !== 'win32') fs.chmodSync(folder, 0o700);
    }
    const descriptor = fs.openSync(temporary, 'wx', 0o600);
    try {
      // The umask may have narrowed the mode; make it exactly 0600.
      if (process.platform !== 'win32') fs.fchmodSync(descriptor, 0o600);
      fs.writeSync(descriptor, text);
      fs.fsyncSync(descriptor);
    } finally {
      fs.closeSync(descriptor);
    }
    if (options.replace === true) {
      fs.renameSync(temporary, file);
    } else {
      try {
        // link() fails when the name exists: an existing key is never replaced by accident.
        fs.linkSync(temporary, file);
      } catch (error) {
        if ((error as { code?: string }).code === 'EEXIST') {
          throw new PrivateKeyFileError(
            'exists',
            'already exists; a private key file is never replaced without asking',
            { path: file },
          );
        }
        throw error;
      }
    }
  } catch (error) {
    if (error instanceof PrivateKeyFileError) throw error;
    throw new PrivateKeyFileError('unwritable', `cannot be written: ${fileReason(error).reason}`, {
      path: file,
      cause: error,
    });
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}
