#!/usr/bin/env node
// Bundles the `evroom` CLI (src-main/cli/main.ts) and its verification worker into out/cli with
// esbuild, so that bin/evroom.mjs starts in a few tenths of a second instead of compiling
// TypeScript through tsx on every run. It runs as the package's `prepare` script (after every
// `npm install` / `npm ci` in the repository) and as `npm run build:cli`.
//
// - out/cli/evroom.js: the CLI, one ESM file. npm packages are bundled too (fewer files to
//   load), except those that are native, large and loaded only by some commands, or that read
//   files of their own at run time (EXTERNAL below): they stay in node_modules.
// - out/cli/verify-worker.js and out/cli/export-worker.js: the worker threads' entries;
//   worker-source.ts finds them beside the bundle.
// - out/cli/inputs.json: every source file the bundles were made from, with its size, mtime
//   and SHA-256. bin/evroom.mjs checks it at start and runs the sources through tsx instead
//   when any of them changed, so an edited checkout never runs stale code.
//
// Modules that find files relative to themselves (import.meta.url, import.meta.dirname: the
// report fonts, the verifier page, the app's bundles) keep finding them: in each source module
// both are rewritten to the module's own location, relative to the bundle. worker-source.ts is
// the exception: it looks for the built worker beside the running bundle, as it does in the
// Electron build.
//
// A failed build never fails `npm install`: it prints why and bin/evroom.mjs uses tsx.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the bundles go (out/ is ignored by git; electron-builder.yml leaves out/cli out). */
export const CLI_BUNDLE_DIRECTORY = join(ROOT, 'out', 'cli');
const ENTRIES = {
  evroom: 'src-main/cli/main.ts',
  'verify-worker': 'src-main/core/verify-worker.ts',
  'export-worker': 'src-main/evidence/export-worker.ts',
};
/** Packages loaded from node_modules at run time rather than bundled (see the header). */
const EXTERNAL = [
  'better-sqlite3',
  'electron',
  'esbuild',
  'tsx',
  'fastify',
  '@fastify/*',
  'pdfkit',
  'viem',
  'viem/*',
  '@foundry-rs/*',
  'playwright-core',
];
/** The one module whose import.meta.url must stay the bundle's own (see the header). */
const KEEP_META = join(ROOT, 'src-main', 'core', 'worker-source.ts');

/** Rewrites import.meta.url / import.meta.dirname in each source module to its own location. */
function ownLocationPlugin(outDirectory) {
  return {
    name: 'own-location',
    setup(build) {
      build.onLoad({ filter: /\.(ts|tsx|mts)$/ }, (args) => {
        if (args.path.includes(`${join('node_modules', '')}`)) return undefined;
        const source = readFileSync(args.path, 'utf8');
        if (args.path === KEEP_META || !source.includes('import.meta.')) return { contents: source, loader: 'ts' };
        const fromBundle = relative(outDirectory, args.path).split('\\').join('/');
        const url = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
        const directory = `__evroomDirname(new URL(${JSON.stringify(fromBundle)}, import.meta.url))`;
        const contents = source.replace(/import\.meta\.url\b/g, url).replace(/import\.meta\.dirname\b/g, directory);
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** Lets bundled CommonJS packages require Node's built-ins, and gives the rewrite its helper. */
const BANNER = [
  "import { createRequire as __evroomCreateRequire } from 'node:module';",
  "import { dirname as __evroomPathDirname } from 'node:path';",
  "import { fileURLToPath as __evroomFileURLToPath } from 'node:url';",
  'const require = __evroomCreateRequire(import.meta.url);',
  'const __evroomDirname = (url) => __evroomPathDirname(__evroomFileURLToPath(url));',
].join('\n');

function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * Builds the bundles into a fresh folder and swaps it in, so a CLI starting meanwhile sees
 * either the old bundles or the new ones, never half of them.
 *
 * @param options.directory where the bundles go (default out/cli; scripts/build-cli.test.ts
 *   builds elsewhere so as not to race the CLI tests and benches that use out/cli)
 * @returns the number of source files bundled
 */
export async function buildCli({ directory = CLI_BUNDLE_DIRECTORY } = {}) {
  const esbuild = await import('esbuild');
  const staging = `${directory}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: ENTRIES,
      outdir: staging,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: EXTERNAL,
      banner: { js: BANNER },
      plugins: [ownLocationPlugin(directory)],
      metafile: true,
      logLevel: 'silent',
      legalComments: 'none',
      // Less text to parse at every start. Names stay (error names, stack traces with EVROOM_DEBUG).
      minifyWhitespace: true,
      minifySyntax: true,
      // Modules imported lazily stay lazy, chunks of their own: each command (src-main/cli/main.ts
      // loads it when it runs, so `evroom --help` loads none), the HTTP service, the PDF writer.
      splitting: true,
      chunkNames: '[name]-[hash]',
    });
    // package.json (the version printed) and package-lock.json (which packages are installed)
    // count as inputs too.
    const inputs = [...new Set([...Object.keys(result.metafile.inputs), 'package.json', 'package-lock.json'])]
      .filter((path) => !path.startsWith('<'))
      .sort()
      .map((path) => {
        const absolute = join(ROOT, path);
        const info = statSync(absolute);
        return { path, size: info.size, mtimeMs: info.mtimeMs, sha256: sha256(absolute) };
      });
    writeFileSync(join(staging, 'inputs.json'), `${JSON.stringify({ node: process.version, inputs }, null, 0)}\n`);
    rmSync(directory, { recursive: true, force: true });
    renameSync(staging, directory);
    return inputs.length;
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  try {
    const count = await buildCli();
    console.log(
      `evroom CLI bundled from ${count} files into ${relative(ROOT, CLI_BUNDLE_DIRECTORY)} in ${Math.round(performance.now() - started)} ms`,
    );
  } catch (error) {
    // Never fail the install: bin/evroom.mjs runs the sources through tsx without the bundle.
    console.warn(
      `evroom CLI not bundled (bin/evroom.mjs will use tsx, slower to start): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
