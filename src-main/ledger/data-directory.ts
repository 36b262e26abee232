/**
 * Where the ledger lives.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LedgerError } from './errors';

/** The application's name as the desktop shows it (macOS and Windows folder names). */
export const APP_NAME = 'Evidence Room';
/** The folder name on Linux, where the XDG convention prefers lowercase names without spaces. */
export const APP_DIRECTORY_LINUX = 'evidence-room';
/** The ledger's file name inside the data directory. */
export const LEDGER_FILE_NAME = 'ledger.sqlite';

type Environment = Readonly<Record<string, string | undefined>>;

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.length > 0 ? value : undefined;
}

/**
 * The per-user data directory for this program, without touching the disk.
 *
 * `EVROOM_HOME`, when set and non-empty, wins (made absolute against the current directory).
 * Otherwise the platform's user-data directory, as Electron's `app.getPath('userData')` gives
 * it: Linux `$XDG_CONFIG_HOME/evidence-room` (a relative XDG_CONFIG_HOME is ignored, as the XDG
 * spec says) or `~/.config/evidence-room`; macOS `~/Library/Application Support/Evidence Room`;
 * Windows `%APPDATA%\Evidence Room` (or `~\AppData\Roaming\Evidence Room`).
 *
 * @param env - the environment (default `process.env`)
 * @param platform - a `process.platform` value (default the running one)
 * @returns an absolute path in the platform's own syntax
 */
export function userDataDirectory(
  env: Environment = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (typeof env !== 'object' || env === null) throw new TypeError('userDataDirectory: env must be an object');
  const pathApi = platform === 'win32' ? path.win32 : path.posix;
  const override = nonEmpty(env.EVROOM_HOME);
  if (override !== undefined) return pathApi.resolve(override);

  const home = (platform === 'win32' ? nonEmpty(env.USERPROFILE) : nonEmpty(env.HOME)) ?? os.homedir();
  switch (platform) {
    case 'darwin':
      return pathApi.join(home, 'Library', 'Application Support', APP_NAME);
    case 'win32': {
      const appData = nonEmpty(env.APPDATA) ?? pathApi.join(home, 'AppData', 'Roaming');
      return pathApi.join(appData, APP_NAME);
    }
    default: {
      const xdg = nonEmpty(env.XDG_CONFIG_HOME);
      const configHome = xdg !== undefined && pathApi.isAbsolute(xdg) ? xdg : pathApi.join(home, '.config');
      return pathApi.join(configHome, APP_DIRECTORY_LINUX);
    }
  }
}

/**
 * The data directory, created (mode 0700) when missing.
 *
 * The directory holds the ledger, which holds evidence and the trust store: nobody but the user
 * should list or read it. An existing directory is left as the user set it up.
 *
 * @param env - the environment (default `process.env`)
 * @param platform - a `process.platform` value (default the running one)
 * @returns the absolute path of an existing directory
 * @throws LedgerError `io_error` when it cannot be created, or exists and is not a directory
 */
export function resolveDataDirectory(
  env: Environment = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const directory = userDataDirectory(env, platform);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw dataDirectoryError(directory, error);
  }
  if (stat !== undefined && !stat.isDirectory()) {
    throw new LedgerError('io_error', `The data directory ${directory} exists but is not a directory.`);
  }
  if (stat === undefined) {
    try {
      fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
      // mkdir applies the umask, which can only remove bits; chmod makes the mode exact.
      if (platform !== 'win32') fs.chmodSync(directory, 0o700);
    } catch (error) {
      throw dataDirectoryError(directory, error);
    }
  }
  return directory;
}

function dataDirectoryError(directory: string, error: unknown): LedgerError {
  const reason = error instanceof Error ? error.message : String(error);
  return new LedgerError('io_error', `The data directory ${directory} cannot be created or read: ${reason}`, {
    cause: error,
  });
}

/**
 * The ledger file inside a data directory.
 *
 * @param dataDirectory - from {@link resolveDataDirectory}
 * @returns `<dataDirectory>/ledger.sqlite`
 */
export function ledgerFileIn(dataDirectory: string): string {
  if (typeof dataDirectory !== 'string' || dataDirectory.length === 0) {
    throw new TypeError('ledgerFileIn: dataDirectory must be a non-empty string');
  }
  return path.join(dataDirectory, LEDGER_FILE_NAME);
}
