/**
 * The local key that signs exported bundles.
 *
 * Generated on the first export and kept in the data directory as
 * `keys/local-signing-key.json` (file mode 0600, folder 0700), a private key file in the one
 * format of src-main/core/private-key-file.ts: an Ed25519 key named by its did:key, labelled
 * {@link SIGNING_KEY_LABEL}, with `created_at`. The did:key can be decoded by any verifier
 * offline; exports also list it in keys/service-keys.json. A did:key is never `trusted` unless
 * the receiving side pins it: an import elsewhere reports it as trust `unpinned`.
 *
 * Data folders made before that format hold the key in an older shape of its own,
 * `{"key_id", "algorithm": "Ed25519", "public_key", "seed_b64u", "created_at"}`. Such a file is
 * still read, with its old checks, and then rewritten in the one format (same seed, same key id,
 * same created_at), atomically: a temporary file renamed over it, so a reader at any instant
 * sees one whole key file. Rewriting rather than leaving it keeps one format on disk for every
 * key (a user can hand the file to `evroom sign --key`, and later readers need no second
 * parser); the key itself does not change, so nothing signed before is affected. If the rewrite
 * fails (a read-only folder), the key is still used and the rewrite is tried again next time.
 *
 * The seed never leaves this module's callers: it is not logged, not audited, and callers wipe
 * it (`fill(0)`) after signing.
 */
import { DomainError } from '../../src-shared/api/domain-error';
import fs from 'node:fs';
import path from 'node:path';
import { didKeyFromEd25519, equalBytes } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto';
import { JsonParseError, parseJson } from '../../src-shared/json';
import { decodeB64uField } from '../../src-shared/verify/fields';
import { isTimestamp } from '../../src-shared/verify/timestamp';
import {
  createPrivateKey,
  parsePrivateKeyFile,
  PrivateKeyFileError,
  readPrivateKeyText,
  writePrivateKeyFile,
  type PrivateKey,
} from '../core/private-key-file';

/** Where the key lives inside the data directory. */
export const SIGNING_KEY_PATH = path.join('keys', 'local-signing-key.json');

/** The label the key file carries. */
export const SIGNING_KEY_LABEL = 'Evidence Room export signing key';

/** The local signing key: an Ed25519 private key. Wipe `seed` after use. */
export type LocalSigningKey = PrivateKey & { algorithm: 'Ed25519' };

/** The key file cannot be used; nothing was changed (a damaged file is never overwritten). */
export class SigningKeyError extends DomainError {
  override readonly code: 'signing_key_invalid' | 'signing_key_unreadable';
  constructor(code: 'signing_key_invalid' | 'signing_key_unreadable', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SigningKeyError';
    this.code = code;
  }
}

/** The members of the old shape, before the one private key file format. */
const LEGACY_MEMBERS = ['key_id', 'algorithm', 'public_key', 'seed_b64u', 'created_at'];

/** File problems that mean the file's content is unusable (rather than the file unreachable). */
const CONTENT_CODES = new Set(['empty', 'not_utf8', 'too_large', 'not_a_file']);

function invalid(file: string, why: string, cause?: unknown): SigningKeyError {
  return new SigningKeyError(
    'signing_key_invalid',
    `The local signing key ${file} cannot be used: ${why} Move it away to make a new one.`,
    {
      cause,
    },
  );
}

function unreadable(file: string, error: unknown): SigningKeyError {
  const reason = error instanceof PrivateKeyFileError ? error.reason : (error as Error).message;
  return new SigningKeyError(
    'signing_key_unreadable',
    `The local signing key ${file} cannot be read or written: ${reason}`,
    { cause: error },
  );
}

/** Whether the text is a JSON object in the old shape (no `evroom_private_key` member). */
function isLegacyShape(text: string): boolean {
  try {
    const value = parseJson(text);
    return (
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      !Object.hasOwn(value, 'evroom_private_key')
    );
  } catch (error) {
    if (error instanceof JsonParseError) return false;
    throw error;
  }
}

/** The old shape, with its old checks. */
function parseLegacyKey(text: string, file: string, crypto: CryptoProvider): LocalSigningKey {
  const object = parseJson(text) as Record<string, unknown>;
  for (const name of Object.keys(object))
    if (!LEGACY_MEMBERS.includes(name)) throw invalid(file, `unknown member "${name}".`);
  if (object.algorithm !== 'Ed25519') throw invalid(file, '"algorithm" must be "Ed25519".');
  const seed = decodeB64uField(object.seed_b64u as never, 32);
  if (seed === undefined) throw invalid(file, '"seed_b64u" must be 32 bytes as unpadded base64url.');
  const publicKey = crypto.ed25519PublicKey(seed);
  const listed = decodeB64uField(object.public_key as never, 32);
  if (listed === undefined || !equalBytes(listed, publicKey))
    throw invalid(file, '"public_key" is not the seed\'s public key.');
  if (object.key_id !== didKeyFromEd25519(publicKey))
    throw invalid(file, '"key_id" is not the did:key of the public key.');
  if (!isTimestamp(object.created_at)) throw invalid(file, '"created_at" must be a timestamp.');
  return {
    key_id: object.key_id,
    algorithm: 'Ed25519',
    public_key: publicKey,
    seed,
    label: SIGNING_KEY_LABEL,
    created_at: object.created_at,
  };
}

/** A key file in the one format, which must hold an Ed25519 key (manifests are signed with Ed25519). */
function parseKey(text: string, file: string, crypto: CryptoProvider): LocalSigningKey {
  let key: PrivateKey;
  try {
    key = parsePrivateKeyFile(text, crypto);
  } catch (error) {
    if (error instanceof PrivateKeyFileError)
      throw invalid(file, `${error.field === '' ? '' : `at ${error.field}: `}${error.reason}`, error);
    throw error;
  }
  if (key.algorithm !== 'Ed25519') {
    key.seed.fill(0);
    throw invalid(file, `it holds an ${key.algorithm} key; bundle manifests are signed with Ed25519.`);
  }
  return key as LocalSigningKey;
}

function tighten(file: string, wanted: number): void {
  if (process.platform === 'win32') return;
  const mode = fs.statSync(file).mode & 0o777;
  if ((mode & ~wanted) !== 0) fs.chmodSync(file, mode & wanted);
}

/**
 * Read the key file: the one format, or the old shape (then rewritten in the one format).
 *
 * @returns The key, or undefined when there is no key file yet.
 */
function readKey(file: string, crypto: CryptoProvider): LocalSigningKey | undefined {
  let text: string;
  try {
    ({ text } = readPrivateKeyText(file));
    tighten(file, 0o600);
  } catch (error) {
    if (error instanceof PrivateKeyFileError && error.code === 'not_found') return undefined;
    if (error instanceof PrivateKeyFileError && CONTENT_CODES.has(error.code))
      throw invalid(file, `it ${error.reason}.`, error);
    throw unreadable(file, error);
  }
  if (!isLegacyShape(text)) return parseKey(text, file, crypto);
  const key = parseLegacyKey(text, file, crypto);
  try {
    writePrivateKeyFile(file, key, { replace: true });
  } catch (error) {
    // Not fatal: the old file holds the same key and still works; the next load tries again.
    if (!(error instanceof PrivateKeyFileError)) throw error;
  }
  return key;
}

/**
 * Load the local signing key, creating it on first use.
 *
 * Creation is safe against a concurrent export: the key is written to a temporary file and
 * linked into place only if no key exists yet, so two processes end up with the same key.
 * A key file that others may read is tightened to 0600; a key file in the old shape is
 * rewritten in the one private key file format (see the module comment).
 *
 * @param dataDirectory - The data directory (resolveDataDirectory()).
 * @param crypto - The crypto provider (key generation and public key derivation).
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
  const existing = readKey(file, crypto);
  if (existing !== undefined) return { key: existing, created: false };
  const key = createPrivateKey('Ed25519', crypto, {
    label: SIGNING_KEY_LABEL,
    createdAt: options.now ?? new Date(),
  }) as LocalSigningKey;
  try {
    if (fs.existsSync(folder)) tighten(folder, 0o700);
    writePrivateKeyFile(file, key);
  } catch (error) {
    if (error instanceof PrivateKeyFileError && error.code === 'exists') {
      // Another export created the key first: use that one, never replace it.
      key.seed.fill(0);
      const winner = readKey(file, crypto);
      if (winner === undefined) throw unreadable(file, error);
      return { key: winner, created: false };
    }
    key.seed.fill(0);
    throw unreadable(file, error);
  }
  return { key, created: true };
}
