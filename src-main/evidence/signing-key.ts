/**
 * The local key that signs exported bundles.
 *
 * Generated on the first export and kept in the data directory as
 * `keys/local-signing-key.json` (file mode 0600, folder 0700):
 * `{"key_id": "did:key:z6Mk...", "algorithm": "Ed25519", "public_key": b64u, "seed_b64u": b64u,
 * "created_at": TS}`. The key id is the did:key of the public key, so any verifier can decode
 * it offline; exports also list it in keys/service-keys.json. A did:key is never `trusted`
 * unless the receiving side pins it: an import elsewhere reports it as trust `unpinned`.
 *
 * The seed never leaves this module's callers: it is not logged, not audited, and callers wipe
 * it (`fill(0)`) after signing.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { b64uEncode, didKeyFromEd25519, equalBytes } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto';
import { JsonParseError, parseJson } from '../../src-shared/json';
import { decodeB64uField } from '../../src-shared/verify/fields';
import { isTimestamp } from '../../src-shared/verify/timestamp';

/** Where the key lives inside the data directory. */
export const SIGNING_KEY_PATH = path.join('keys', 'local-signing-key.json');

/** The local signing key. */
export interface LocalSigningKey {
  key_id: string;
  algorithm: 'Ed25519';
  public_key: Uint8Array;
  /** The 32-byte secret seed. Wipe it after use. */
  seed: Uint8Array;
  /** TS of creation. */
  created_at: string;
}

/** The key file cannot be used; nothing was changed (the file is never overwritten). */
export class SigningKeyError extends Error {
  readonly code: 'signing_key_invalid' | 'signing_key_unreadable';
  constructor(code: 'signing_key_invalid' | 'signing_key_unreadable', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SigningKeyError';
    this.code = code;
  }
}

const MEMBERS = ['key_id', 'algorithm', 'public_key', 'seed_b64u', 'created_at'];

function parseKey(text: string, file: string, crypto: CryptoProvider): LocalSigningKey {
  const broken = (why: string): SigningKeyError =>
    new SigningKeyError('signing_key_invalid', `The local signing key ${file} cannot be used: ${why} Move it away to make a new one.`);
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    if (error instanceof JsonParseError) throw broken(`it is not strict JSON (${error.code}).`);
    throw error;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw broken('it is not a JSON object.');
  const object = value as Record<string, unknown>;
  for (const name of Object.keys(object)) if (!MEMBERS.includes(name)) throw broken(`unknown member "${name}".`);
  if (object.algorithm !== 'Ed25519') throw broken('"algorithm" must be "Ed25519".');
  const seed = decodeB64uField(object.seed_b64u as never, 32);
  if (seed === undefined) throw broken('"seed_b64u" must be 32 bytes as unpadded base64url.');
  const publicKey = crypto.ed25519PublicKey(seed);
  const listed = decodeB64uField(object.public_key as never, 32);
  if (listed === undefined || !equalBytes(listed, publicKey)) throw broken('"public_key" is not the seed\'s public key.');
  if (object.key_id !== didKeyFromEd25519(publicKey)) throw broken('"key_id" is not the did:key of the public key.');
  if (!isTimestamp(object.created_at)) throw broken('"created_at" must be a timestamp.');
  return { key_id: object.key_id, algorithm: 'Ed25519', public_key: publicKey, seed, created_at: object.created_at };
}

function tighten(file: string, wanted: number): void {
  if (process.platform === 'win32') return;
  const mode = fs.statSync(file).mode & 0o777;
  if ((mode & ~wanted) !== 0) fs.chmodSync(file, mode & wanted);
}

/**
 * Load the local signing key, creating it on first use.
 *
 * Creation is safe against a concurrent export: the key is written to a temporary file and
 * linked into place only if no key exists yet, so two processes end up with the same key.
 * A key file that others may read is tightened to 0600.
 *
 * @param dataDirectory - The data directory (resolveDataDirectory()).
 * @param crypto - The crypto provider (public key derivation).
 * @param options - `now`: the creation instant (default now).
 * @returns The key and whether it was created now.
 * @throws SigningKeyError signing_key_invalid (the file is damaged: it is left as it is) or
 *   signing_key_unreadable (the file or folder cannot be read or written).
 */
export function loadOrCreateSigningKey(
  dataDirectory: string,
  crypto: CryptoProvider,
  options: { now?: Date } = {},
): { key: LocalSigningKey; created: boolean } {
  if (typeof dataDirectory !== 'string' || dataDirectory.length === 0) {
    throw new TypeError('loadOrCreateSigningKey: dataDirectory must be a path');
  }
  const file = path.join(dataDirectory, SIGNING_KEY_PATH);
  const folder = path.dirname(file);
  const unreadable = (error: unknown): SigningKeyError =>
    new SigningKeyError('signing_key_unreadable', `The local signing key ${file} cannot be read or written: ${(error as Error).message}`, {
      cause: error,
    });
  try {
    const text = fs.readFileSync(file, 'utf8');
    tighten(file, 0o600);
    return { key: parseKey(text, file, crypto), created: false };
  } catch (error) {
    if (error instanceof SigningKeyError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadable(error);
  }
  const seed = new Uint8Array(randomBytes(32));
  const publicKey = crypto.ed25519PublicKey(seed);
  const key: LocalSigningKey = {
    key_id: didKeyFromEd25519(publicKey),
    algorithm: 'Ed25519',
    public_key: publicKey,
    seed,
    created_at: (options.now ?? new Date()).toISOString(),
  };
  const text = `${JSON.stringify(
    {
      key_id: key.key_id,
      algorithm: key.algorithm,
      public_key: b64uEncode(publicKey),
      seed_b64u: b64uEncode(seed),
      created_at: key.created_at,
    },
    null,
    2,
  )}\n`;
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    tighten(folder, 0o700);
    const descriptor = fs.openSync(temporary, 'wx', 0o600);
    try {
      fs.writeSync(descriptor, text);
      fs.fsyncSync(descriptor);
    } finally {
      fs.closeSync(descriptor);
    }
    try {
      // link() fails when the name exists: the first key written wins and is never replaced.
      fs.linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      seed.fill(0);
      return { key: parseKey(fs.readFileSync(file, 'utf8'), file, crypto), created: false };
    }
  } catch (error) {
    if (error instanceof SigningKeyError) throw error;
    throw unreadable(error);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  return { key, created: true };
}
