// `npm run dist`: package the desktop app with electron-builder (electron-builder.yml): an
// AppImage and a .deb on Linux, a dmg on macOS, an NSIS installer on Windows.
//
// electron-builder needs Electron's prebuilt binaries for the target (and, for AppImage and
// .deb, its own tools), which it downloads from GitHub unless they are in its cache. Where
// neither is possible it would retry for minutes; this script checks first and says so in one
// line, exit 1. The build and electron-builder each run under a time limit, so `npm run dist`
// never hangs.
//
// electron-builder is not a dependency: it is fetched on demand with `npx --yes
// electron-builder@VERSION` (from the npm registry), because as a devDependency it adds 212
// packages (about 20 s here, and Windows installer binaries) to every `npm install` for a step
// only releases need (see README).
//
// Environment: ELECTRON_MIRROR (another download host, as electron-builder reads it),
// ELECTRON_CACHE (electron-builder's cache folder), EVROOM_DIST_TIMEOUT_SECONDS (default 1200).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ELECTRON_BUILDER_VERSION = '26.17.0';
const PROBE_TIMEOUT_MS = 10_000;
const BUILD_TIMEOUT_MS = 10 * 60_000;

const root = fileURLToPath(new URL('..', import.meta.url));
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const electronVersion = packageJson.optionalDependencies?.electron;

/** Prints one line and exits 1. */
function fail(message) {
  console.error(`evroom dist: ${message}`);
  process.exit(1);
}

function limitSeconds() {
  const text = process.env.EVROOM_DIST_TIMEOUT_SECONDS ?? '1200';
  const seconds = Number(text);
  if (!Number.isSafeInteger(seconds) || seconds < 1)
    fail(`EVROOM_DIST_TIMEOUT_SECONDS must be a positive whole number of seconds, not "${text}"`);
  return seconds;
}

/** electron-builder's cache folder, as @electron/get computes it. */
function electronCache() {
  if (process.env.ELECTRON_CACHE) return process.env.ELECTRON_CACHE;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'electron');
  if (process.platform === 'win32')
    return join(process.env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'electron', 'Cache');
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'electron');
}

/** Whether Electron's zip for this platform is cached (either layout @electron/get has used). */
function electronCached(zipName) {
  const cache = electronCache();
  if (!existsSync(cache)) return false;
  if (existsSync(join(cache, zipName))) return true;
  // Newer @electron/get keeps each download in a folder named by a hash of its URL.
  return readdirSync(cache).some((folder) => existsSync(join(cache, folder, zipName)));
}

/** Whether a URL answers at all within the probe time (any HTTP status counts). */
async function reachable(url) {
  try {
    await fetch(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return { ok: true };
  } catch (error) {
    const reason =
      error?.cause?.code ??
      (error?.name === 'TimeoutError' ? `no answer in ${PROBE_TIMEOUT_MS / 1000} s` : error?.message);
    return { ok: false, reason };
  }
}

/** Runs a command with a time limit; resolves its exit code, or fails the script on timeout. */
function run(command, args, timeoutMs, what) {
  return new Promise((resolveRun) => {
    const child = spawn(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      fail(`${what} did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped`);
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      fail(`${what} could not start: ${error.message}`);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolveRun(code ?? (signal ? 1 : 0));
    });
  });
}

async function main() {
  const timeoutMs = limitSeconds() * 1000;
  if (typeof electronVersion !== 'string' || !/^\d+\.\d+\.\d+$/.test(electronVersion)) {
    fail('package.json must pin optionalDependencies.electron to an exact version');
  }
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  const platform = process.platform === 'win32' ? 'win32' : process.platform;
  const zipName = `electron-v${electronVersion}-${platform}-${arch}.zip`;
  const mirror = process.env.ELECTRON_MIRROR ?? 'https://github.com/electron/electron/releases/download/';
  const url = `${mirror.endsWith('/') ? mirror : `${mirror}/`}v${electronVersion}/${zipName}`;
  if (!electronCached(zipName)) {
    const probe = await reachable(url);
    if (!probe.ok) {
      fail(
        `cannot package: Electron ${electronVersion}'s binaries (${zipName}) are not in ${electronCache()} and ${new URL(url).host} cannot be reached (${probe.reason}); run it where GitHub is reachable, or put the zip in that folder.`,
      );
    }
  }
  // better-sqlite3 is rebuilt for Electron's Node ABI, against Electron's headers.
  const headersCached = existsSync(join(homedir(), '.electron-gyp', electronVersion));
  if (!headersCached) {
    const headers = `https://www.electronjs.org/headers/v${electronVersion}/node-v${electronVersion}-headers.tar.gz`;
    const probe = await reachable(headers);
    if (!probe.ok)
      fail(
        `cannot package: Electron ${electronVersion}'s headers (to rebuild better-sqlite3) are not in ~/.electron-gyp and ${new URL(headers).host} cannot be reached (${probe.reason}).`,
      );
  }
  console.error('evroom dist: building (npm run build)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const built = await run(npm, ['run', 'build', '--silent'], BUILD_TIMEOUT_MS, 'the build');
  if (built !== 0) fail('the build failed; see the messages above');
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  console.error(`evroom dist: packaging with electron-builder ${ELECTRON_BUILDER_VERSION} (fetched on demand)…`);
  const packaged = await run(
    npx,
    [
      '--yes',
      `electron-builder@${ELECTRON_BUILDER_VERSION}`,
      '--config',
      'electron-builder.yml',
      `-c.electronVersion=${electronVersion}`,
      '--publish',
      'never',
      ...process.argv.slice(2),
    ],
    timeoutMs,
    'electron-builder',
  );
  if (packaged !== 0) fail(`electron-builder failed (exit ${packaged}); see the messages above`);
  console.error('evroom dist: done; the packages are in dist/');
}

await main();
