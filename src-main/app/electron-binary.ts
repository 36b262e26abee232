/**
 * Finding the Electron binary, which may be absent: on machines that cannot reach Electron's
 * download host its install step fails quietly and the app runs in local web mode instead.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The path of an installed, runnable Electron binary, or null with the reason it is missing.
 */
export function findElectronBinary(): { path: string } | { path: null; reason: string } {
  const require = createRequire(import.meta.url);
  let binary: unknown;
  try {
    // The electron package's main export is the path of its downloaded binary; requiring it
    // throws when the download never happened.
    binary = require('electron');
  } catch {
    return { path: null, reason: 'the electron package or its binary is not installed' };
  }
  if (typeof binary !== 'string' || !existsSync(binary)) {
    return { path: null, reason: 'the Electron binary was not downloaded' };
  }
  return { path: binary };
}
