#!/usr/bin/env node
// The `evroom` command. The CLI is TypeScript (src-main/cli). `npm install` / `npm ci` bundles
// it into out/cli/evroom.js (scripts/build-cli.mjs, the package's `prepare` script), which
// starts in a few tenths of a second. When that bundle is missing, or any file it was made
// from has changed since (size, then SHA-256 when the mtime moved), the sources run through
// tsx instead, which compiles them on the fly: slower to start, never stale.
// EVROOM_FROM_SOURCE=1 forces tsx.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

const ROOT = new URL('../', import.meta.url);
const BUNDLE = new URL('out/cli/evroom.js', ROOT);
const INPUTS = new URL('out/cli/inputs.json', ROOT);

/** Whether one input is as it was when bundled. */
function unchanged(input) {
  const file = new URL(input.path, ROOT);
  const info = statSync(file);
  if (info.size !== input.size) return false;
  // A checkout or a copy moves mtimes without changing content: only then is the file read.
  return (
    info.mtimeMs === input.mtimeMs || createHash('sha256').update(readFileSync(file)).digest('hex') === input.sha256
  );
}

/**
 * Whether out/cli was built from the files as they are now. Packages in node_modules are not
 * checked one by one: they change only through npm, which runs the `prepare` script again, and
 * package-lock.json (checked) changes with them.
 *
 * Synchronous on purpose: a few hundred stat calls take a few milliseconds in a loop, and
 * several times that as promises (the check is on the start-up path of every command).
 */
function bundleIsFresh() {
  try {
    const manifest = JSON.parse(readFileSync(INPUTS, 'utf8'));
    const inputs = manifest.inputs.filter((input) => !input.path.startsWith('node_modules/'));
    return inputs.length > 0 && inputs.every(unchanged);
  } catch {
    return false;
  }
}

let runCli;
if (process.env.EVROOM_FROM_SOURCE !== '1') {
  // The bundle's entry is read on libuv's threads while this one checks; loading it
  // has no effect beyond defining its modules, so a stale one is simply not run. (The entry is
  // small: each command is a chunk of its own, loaded when it runs.)
  const loading = import(BUNDLE.href).catch(() => undefined);
  const fresh = bundleIsFresh();
  const bundle = await loading;
  if (fresh && bundle !== undefined) runCli = bundle.runCli;
}
if (runCli === undefined) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runCli } = await import('../src-main/cli/main.ts'));
}
// A reader that goes away (`evroom ledger list | head`) ends the command quietly, with the exit
// status of a command a closed pipe stops (128 + SIGPIPE), rather than with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(141);
  });
}
process.exitCode = await runCli(process.argv.slice(2));
