/**
 * The app's settings: one small JSON file in the data directory.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { THEMES, type Limits, type Theme } from '../../src-shared/api/contract';
import { DEFAULT_ZIP_LIMITS } from '../evidence/limits';

export interface StoredSettings {
  theme: Theme;
  limits: Limits;
}

const FILE_NAME = 'settings.json';

/** The defaults: follow the system theme; the zip limits of src-main/evidence/limits.ts. */
export function defaultSettings(): StoredSettings {
  return {
    theme: 'system',
    limits: { maxEntries: DEFAULT_ZIP_LIMITS.maxEntries, maxBytes: DEFAULT_ZIP_LIMITS.maxBytes, maxRatio: DEFAULT_ZIP_LIMITS.maxRatio },
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
  const { theme, limits } = stored as { theme?: unknown; limits?: Record<string, unknown> };
  if (typeof theme === 'string' && (THEMES as readonly string[]).includes(theme)) settings.theme = theme as Theme;
  if (typeof limits === 'object' && limits !== null) {
    for (const name of ['maxEntries', 'maxBytes', 'maxRatio'] as const) {
      const value = limits[name];
      if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) settings.limits[name] = value;
    }
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
