/**
 * Private key files for the CLI: the format `evroom keys new` writes and `evroom sign` reads.
 *
 * The format itself (members, checks, reading, atomic writing) lives in
 * src-main/core/private-key-file.ts, the one module every part of the program uses for private
 * keys. This module keeps the CLI's names and contracts: {@link parsePrivateKeyFile} throws the
 * KeyFileError the key-file readers throw, and {@link readPrivateKeyFile} a CliError (exit 2)
 * naming the file as the command line named it, with a warning for a file others may read.
 * It also holds the CLI's generic file helpers ({@link writeFileSafely}, {@link ensureDirectory}).
 *
 * Secret material never appears in an error message or on the terminal.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import { KeyFileError } from '../../src-shared/verify/key-file';
import {
  parsePrivateKeyFile as parsePrivateKeyFileText,
  PrivateKeyFileError,
  readPrivateKeyFile as readPrivateKeyFileFromDisk,
  type PrivateKey,
} from '../core/private-key-file';
import { CliError } from './cli-error';
import { describeFsError } from './read-input';

export {
  createPrivateKey,
  mldsaSecretKey,
  PRIVATE_KEY_FILE_VERSION,
  PRIVATE_KEY_MEMBERS,
  PRIVATE_KEY_SEED_LENGTH,
  publicKeyEntry,
  serializePrivateKeyFile,
  type CreatePrivateKeyOptions,
  type PrivateKey,
} from '../core/private-key-file';

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
  try {
    return parsePrivateKeyFileText(text, crypto);
  } catch (error) {
    if (error instanceof PrivateKeyFileError) throw new KeyFileError(error.code, error.field, error.reason);
    throw error;
  }
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
  let read: { key: PrivateKey; mode: number };
  try {
    read = readPrivateKeyFileFromDisk(name, crypto);
  } catch (error) {
    if (error instanceof PrivateKeyFileError) {
      const where = error.field ? ` at ${error.field}` : '';
      throw new CliError(`${what} ${name}${where}: ${error.reason}`);
    }
    throw error;
  }
  if (process.platform !== 'win32' && (read.mode & 0o077) !== 0) {
    warn(
      `warning: ${what} ${name} may be read by other users (mode ${read.mode.toString(8).padStart(3, '0')}); run: chmod 600 ${name}`,
    );
  }
  return read.key;
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
