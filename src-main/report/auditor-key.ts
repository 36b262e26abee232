/**
 * The workstation's auditor key: the Ed25519 key that signs audit reports (PROTOCOL 12).
 *
 * Made on first use and kept in the data folder as `keys/auditor-key.json` (file 0600, folder
 * 0700) in the one private key file format every key of this program uses
 * (src-main/core/private-key-file.ts). Its key id is its did:key, so anyone verifies a report
 * offline; nobody trusts it until they pin it. A key apart from the export signing key, so an
 * auditor can hand out (or rotate) one without the other.
 *
 * One function, {@link withAuditorKey}, loads or creates the key, lends the seed to the caller
 * and wipes it afterwards.
 */
import { DomainError } from '../../src-shared/api/domain-error';
import fs from 'node:fs';
import path from 'node:path';
import { didKeyFromEd25519, type CryptoProvider } from '../../src-shared/crypto';
import {
  createPrivateKey,
  PrivateKeyFileError,
  readPrivateKeyFile,
  writePrivateKeyFile,
} from '../core/private-key-file';

/** Where the key lives inside the data folder. */
export const AUDITOR_KEY_PATH = path.join('keys', 'auditor-key.json');

/** The auditor key's public half, and whether this call made it. */
export interface AuditorKeyInfo {
  key_id: string;
  public_key: Uint8Array;
  created: boolean;
}

/** The key file cannot be used; nothing was changed (the file is never overwritten). */
export class AuditorKeyError extends DomainError {
  override readonly code: 'auditor_key_invalid' | 'auditor_key_unreadable';
  constructor(code: 'auditor_key_invalid' | 'auditor_key_unreadable', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuditorKeyError';
    this.code = code;
  }
}

const LABEL = 'Evidence Room auditor key';

function loadOrCreate(
  dataDirectory: string,
  crypto: CryptoProvider,
  now: Date,
): { seed: Uint8Array; public_key: Uint8Array; key_id: string; created: boolean } {
  const file = path.join(dataDirectory, AUDITOR_KEY_PATH);
  const refused = (error: unknown): AuditorKeyError => {
    if (error instanceof PrivateKeyFileError && !['unreadable', 'unwritable', 'not_found'].includes(error.code)) {
      return new AuditorKeyError(
        'auditor_key_invalid',
        `The auditor key ${file} cannot be used: ${error.reason} Move it away to make a new one.`,
        { cause: error },
      );
    }
    return new AuditorKeyError(
      'auditor_key_unreadable',
      `The auditor key ${file} cannot be read or written: ${(error as Error).message}`,
      { cause: error },
    );
  };
  const read = (): { seed: Uint8Array; public_key: Uint8Array; key_id: string; created: boolean } => {
    const { key } = readPrivateKeyFile(file, crypto);
    if (key.algorithm !== 'Ed25519' || key.key_id !== didKeyFromEd25519(key.public_key)) {
      key.seed.fill(0);
      throw new AuditorKeyError(
        'auditor_key_invalid',
        `The auditor key ${file} cannot be used: it must be an Ed25519 key named by its did:key. Move it away to make a new one.`,
      );
    }
    return { seed: key.seed, public_key: key.public_key, key_id: key.key_id, created: false };
  };
  try {
    if (fs.existsSync(file)) return read();
    // The one private key file format (src-main/core/private-key-file.ts), written 0600 in a
    // 0700 folder; a key another process wrote first wins and is read instead.
    const key = createPrivateKey('Ed25519', crypto, { label: LABEL, createdAt: now });
    try {
      writePrivateKeyFile(file, key);
    } catch (error) {
      key.seed.fill(0);
      if (error instanceof PrivateKeyFileError && error.code === 'exists') return read();
      throw error;
    }
    return { seed: key.seed, public_key: key.public_key, key_id: key.key_id, created: true };
  } catch (error) {
    if (error instanceof AuditorKeyError) throw error;
    throw refused(error);
  }
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
  if (typeof dataDirectory !== 'string' || dataDirectory.length === 0)
    throw new TypeError('withAuditorKey: dataDirectory must be a path');
  if (typeof use !== 'function') throw new TypeError('withAuditorKey: use must be a function');
  const loaded = loadOrCreate(dataDirectory, crypto, options.now ?? new Date());
  const key: AuditorKeyInfo = { key_id: loaded.key_id, public_key: loaded.public_key, created: loaded.created };
  try {
    return { result: use(loaded.seed, key), key };
  } finally {
    loaded.seed.fill(0);
  }
}
