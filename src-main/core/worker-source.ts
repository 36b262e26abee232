/**
 * Where a worker thread's code comes from: the verification workers' and the export worker's.
 *
 * - In the built Electron app, electron-vite emits `verify-worker.js` beside the bundled main
 *   process: the worker starts from that file. In a package the main process runs from inside
 *   the asar archive, which worker threads cannot start scripts from, so electron-builder
 *   unpacks the worker beside it (asarUnpack in electron-builder.yml) and it starts from there.
 * - From source (the CLI through tsx, tests, benchmarks) the worker is TypeScript. Starting it
 *   through tsx's loader costs each worker a loader thread, about 30 MB and a second of CPU to
 *   compile its modules. Instead the worker module and everything it imports are bundled once
 *   per process with esbuild, in memory (about a tenth of a second; nothing is written to disk,
 *   so the code is always the current source), and each worker evaluates that bundle.
 * - Should bundling fail (esbuild missing or broken), the worker starts through the tsx
 *   bootstrap `verify-worker.mjs`, as before: slower, same behaviour.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, BuildResult } from 'esbuild';

/** A worker's code: a file to start, or CommonJS source to evaluate. */
export type WorkerSource = { kind: 'file'; url: URL } | { kind: 'code'; code: string };

const BUILT_WORKER = new URL('./verify-worker.js', import.meta.url);
const WORKER_MODULE = new URL('./verify-worker.ts', import.meta.url);
/** The tsx bootstrap, used when bundling fails (exported for its test). */
export const TSX_BOOTSTRAP = new URL('./verify-worker.mjs', import.meta.url);

/** The export worker's entry, built beside the bundle like the verification worker's. */
const BUILT_EXPORT_WORKER = new URL('./export-worker.js', import.meta.url);
/** From source: the tsx bootstrap of src-main/evidence/export-worker.ts (exported for its test). */
export const EXPORT_TSX_BOOTSTRAP = new URL('../evidence/export-worker.mjs', import.meta.url);

let bundled: string | null | undefined;

/**
 * Where a file of the app lives once unpacked from the asar archive.
 *
 * @param url - A file URL, possibly inside `app.asar`.
 * @returns The same file under `app.asar.unpacked`, or the URL unchanged outside an archive.
 * @throws TypeError if `url` is not a file URL.
 */
export function unpackedFromAsar(url: URL): URL {
  if (!(url instanceof URL) || url.protocol !== 'file:') throw new TypeError('unpackedFromAsar expects a file URL');
  return new URL(url.href.replace(/\/app\.asar\//, '/app.asar.unpacked/'));
}

/**
 * The verification worker's code for this process (see the module comment).
 *
 * @returns The built file, the bundled source, or the tsx bootstrap.
 */
export function verifyWorkerSource(): WorkerSource {
  const builtWorker = unpackedFromAsar(BUILT_WORKER);
  if (import.meta.url.endsWith('.js') && existsSync(fileURLToPath(builtWorker)))
    return { kind: 'file', url: builtWorker };
  if (bundled === undefined) bundled = bundleWorker();
  return bundled === null ? { kind: 'file', url: TSX_BOOTSTRAP } : { kind: 'code', code: bundled };
}

/**
 * The export worker's code (src-main/evidence/export-worker.ts): the built file beside the
 * bundle, or from source the tsx bootstrap. It is not bundled in memory like the verification
 * worker: it opens the ledger, whose native module is found relative to the module that loads
 * it, and an in-memory bundle has no location. A process starts one export worker and keeps it,
 * so the bootstrap's cost (about a second of CPU, from source only) is paid once.
 *
 * @returns The built file, or the tsx bootstrap.
 */
export function exportWorkerSource(): WorkerSource {
  const builtWorker = unpackedFromAsar(BUILT_EXPORT_WORKER);
  if (import.meta.url.endsWith('.js') && existsSync(fileURLToPath(builtWorker)))
    return { kind: 'file', url: builtWorker };
  return { kind: 'file', url: EXPORT_TSX_BOOTSTRAP };
}

interface Esbuild {
  buildSync(options: BuildOptions & { write: false }): BuildResult & { outputFiles: { text: string }[] };
}

function bundleWorker(): string | null {
  try {
    // Loaded only here: the built app never bundles at run time and does not ship esbuild.
    const esbuild = createRequire(import.meta.url)('esbuild') as Esbuild;
    const result = esbuild.buildSync({
      entryPoints: [fileURLToPath(WORKER_MODULE)],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      legalComments: 'none',
    });
    const text = result.outputFiles[0]?.text;
    return typeof text === 'string' && text.length > 0 ? text : null;
  } catch {
    return null;
  }
}
