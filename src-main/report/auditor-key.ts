/**
 * The workstation's auditor key: the Ed25519 key that signs audit reports (PROTOCOL 12).
 *
 * Made on first use and kept in the data folder as `keys/auditor-key.json` (file 0600, folder
 * 0700): `{"key_id": "did:key:z6Mk...", "algorithm": "Ed25519", "public_key": b64u,
 * "seed_b64u": b64u, "created_at": TS}`. Its key id is its did:key, so anyone verifies a report
 * offline; nobody trusts it until they pin it. A key apart from the export signing key, so an
 * auditor can hand out (or rotate) one without the other.
 *
 * One function, {@link withAuditorKey}, loads or creates the key, lends the seed to the caller
 * and wipes it afterwards; when the private key files are unified (src-main/core), only this
 * module changes.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { b64uEncode, didKeyFromEd25519, equalBytes, type CryptoProvider } from '../../src-shared/crypto';
import { JsonParseError, parseJson } from '../../src-shared/json';
import { decodeB64uField } from '../../src-shared/verify/fields';
import { isTimestamp } from '../../src-shared/verify/timestamp';

/** Where the key lives inside the data folder. */
export const AUDITOR_KEY_PATH = path.join('keys', 'auditor-key.json');

/** The auditor key's public half, and whether this call made it. */
export interface AuditorKeyInfo {
  key_id: string;
  public_key: Uint8Array;
  created: boolean;
}

/** The key file cannot be used; nothing was changed (the file is never overwritten). */
export class AuditorKeyError extends Error {
  readonly code: 'auditor_key_invalid' | 'auditor_key_unreadable';
  constructor(code: 'auditor_key_invalid' | 'auditor_key_unreadable', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuditorKeyError';
    this.code = code;
  }
}

const MEMBERS = ['key_id', 'algorithm', 'public_key', 'seed_b64u', 'created_at'];

function parseKeyFile(text: string, file: string, crypto: CryptoProvider): { seed: Uint8Array; public_key: Uint8Array; key_id: string } {
  const broken = (why: string): AuditorKeyError =>
    new AuditorKeyError('auditor_key_invalid', `The auditor key ${file} cannot be used: ${why} Move it away to make a new one.`);
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
  if (listed === undefined || !equalBytes(listed, publicKey)) {
    seed.fill(0);
    throw broken('"public_key" is not the seed\'s public key.');
  }
  if (object.key_id !== didKeyFromEd25519(publicKey) || !isTimestamp(object.created_at)) {
    seed.fill(0);
    throw broken('"key_id" must be the did:key of the public key and "created_at" a timestamp.');
  }
  return { seed, public_key: publicKey, key_id: object.key_id };
}

function tighten(file: string, wanted: number): void {
  if (process.platform === 'win32') return;
  const mode = fs.statSync(file).mode & 0o777;
  if ((mode & ~wanted) !== 0) fs.chmodSync(file, mode & wanted);
}

function loadOrCreate(dataDirectory: string, crypto: CryptoProvider, now: Date): { seed: Uint8Array; public_key: Uint8Array; key_id: string; created: boolean } {
  const file = path.join(dataDirectory, AUDITOR_KEY_PATH);
  const unreadable = (error: unknown): AuditorKeyError =>
    new AuditorKeyError('auditor_key_unreadable', `The auditor key ${file} cannot be read or written: ${(error as Error).message}`, { cause: error });
  try {
    const text = fs.readFileSync(file, 'utf8');
    tighten(file, 0o600);
    return { ...parseKeyFile(text, file, crypto), created: false };
  } catch (error) {
    if (error instanceof AuditorKeyError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadable(error);
  }
  const seed = new Uint8Array(randomBytes(32));
  const publicKey = crypto.ed25519PublicKey(seed);
  const keyId = didKeyFromEd25519(publicKey);
  const text = `${JSON.stringify({ key_id: keyId, algorithm: 'Ed25519', public_key: b64uEncode(publicKey), seed_b64u: b64uEncode(seed), created_at: now.toISOString() }, null, 2)}\n`;
  const folder = path.dirname(file);
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
      return { ...parseKeyFile(fs.readFileSync(file, 'utf8'), file, crypto), created: false };
    }
  } catch (error) {
    seed.fill(0);
    if (error instanceof AuditorKeyError) throw error;
    throw unreadable(error);
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  return { seed, public_key: publicKey, key_id: keyId, created: true };
}

/**
 * Load (or on first use make) the auditor key, lend its seed to `use`, then wipe the seed.
 *
 * @param dataDirectory - The data folder.
 * @param crypto - The crypto provider (public key derivation).
 * @param use - Signs with the seed; must not keep it.
 * @param options - `now`: the creation instant of a new key (default now).
 * @returns What `use` returned, and the key's public half.
 * @throws AuditorKeyError auditor_key_invalid (a damaged file, left as it is) or
 *   auditor_key_unreadable.
 */
export function withAuditorKey<T>(
  dataDirectory: string,
  crypto: CryptoProvider,
  use: (seed: Uint8Array, key: AuditorKeyInfo) => T,
  options: { now?: Date } = {},
): { result: T; key: AuditorKeyInfo } {
  if (typeof dataDirectory !== 'string' || dataDirectory.length === 0) throw new TypeError('withAuditorKey: dataDirectory must be a path');
  if (typeof use !== 'function') throw new TypeError('withAuditorKey: use must be a function');
  const loaded = loadOrCreate(dataDirectory, crypto, options.now ?? new Date());
  const key: AuditorKeyInfo = { key_id: loaded.key_id, public_key: loaded.public_key, created: loaded.created };
  try {
    return { result: use(loaded.seed, key), key };
  } finally {
    loaded.seed.fill(0);
  }
}
