/**
 * The app's settings: one small JSON file in the data directory, and the Service view's database
 * URL in a file of its own (it may hold a password: 0600, never answered to the renderer in clear).
 */
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_CONFIRMATIONS,
  MAX_CONFIRMATIONS,
  THEMES,
  databaseUrlProblem,
  isRpcUrl,
  type ChainSettings,
  type Limits,
  type Theme,
} from '../../src-shared/api/contract';
import { DEFAULT_ZIP_LIMITS } from '../evidence/limits';

export interface StoredSettings {
  theme: Theme;
  limits: Limits;
  /** The chain RPC the anchors view checks steps 2-3 against (none by default). */
  chain: ChainSettings;
}

const FILE_NAME = 'settings.json';

/** The defaults: follow the system theme; the zip limits of src-main/evidence/limits.ts; no chain RPC. */
export function defaultSettings(): StoredSettings {
  return {
    theme: 'system',
    limits: {
      maxEntries: DEFAULT_ZIP_LIMITS.maxEntries,
      maxBytes: DEFAULT_ZIP_LIMITS.maxBytes,
      maxRatio: DEFAULT_ZIP_LIMITS.maxRatio,
    },
    chain: { rpc_url: null, confirmations: DEFAULT_CONFIRMATIONS },
  };
}

/**
 * Reads the settings; a missing, unreadable or invalid file gives the defaults for whatever it
 * gets wrong (settings are preferences, and a damaged file must not stop the app).
 */
export function readSettings(dataDirectory: string): StoredSettings {
  const settings = defaultSettings();
  const file = join(dataDirectory, FILE_NAME);
  if (!existsSync(file)) return settings;
  let stored: unknown;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return settings;
  }
  if (typeof stored !== 'object' || stored === null) return settings;
  const { theme, limits, chain } = stored as {
    theme?: unknown;
    limits?: Record<string, unknown>;
    chain?: Record<string, unknown>;
  };
  if (typeof theme === 'string' && (THEMES as readonly string[]).includes(theme)) settings.theme = theme as Theme;
  if (typeof limits === 'object' && limits !== null) {
    for (const name of ['maxEntries', 'maxBytes', 'maxRatio'] as const) {
      const value = limits[name];
      if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) settings.limits[name] = value;
    }
  }
  if (typeof chain === 'object' && chain !== null) {
    if (isRpcUrl(chain.rpc_url)) settings.chain.rpc_url = chain.rpc_url;
    const confirmations = chain.confirmations;
    if (
      typeof confirmations === 'number' &&
      Number.isInteger(confirmations) &&
      confirmations >= 1 &&
      confirmations <= MAX_CONFIRMATIONS
    )
      settings.chain.confirmations = confirmations;
  }
  return settings;
}

/** Writes the settings atomically (a crash leaves the old file or the new one). */
export function writeSettings(dataDirectory: string, settings: StoredSettings): void {
  const file = join(dataDirectory, FILE_NAME);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

const DATABASE_FILE_NAME = 'service-database-url';

/**
 * The Service view's PostgreSQL URL (with its password), or null for the workspace's ledger. A
 * file that holds no valid URL counts as none.
 */
export function readServiceDatabaseUrl(dataDirectory: string): string | null {
  const file = join(dataDirectory, DATABASE_FILE_NAME);
  if (!existsSync(file)) return null;
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
  return text === '' || databaseUrlProblem(text) !== undefined ? null : text;
}

/**
 * Stores the Service view's database URL (0600, atomically), or removes it (null: the ledger).
 *
 * @param url - A URL `databaseUrlProblem` accepts, or null.
 */
export function writeServiceDatabaseUrl(dataDirectory: string, url: string | null): void {
  const file = join(dataDirectory, DATABASE_FILE_NAME);
  if (url === null) {
    rmSync(file, { force: true });
    return;
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${url}\n`, { mode: 0o600 });
  // The mode above applies only to a new file (and the umask): make sure.
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}
