import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The bundled CLI as `npm ci` leaves it (scripts/build-cli.mjs, the `prepare` script) and as
// bin/evroom.mjs runs it: built into a copy of the checkout under out/ (symbolic links to the
// sources and node_modules, a copy of bin/evroom.mjs), so that this test neither races the CLI
// tests and benches that use out/cli nor leaves anything behind.
//
// Start-up time (issue 16) depends on what the entry loads: `evroom --help` must load no
// command, and `evroom verify` none of the heavy packages the other commands need. Speed
// itself is measured in bench/cli.ts; this test fails when someone imports a command, or one of
// these packages, statically again.

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Packages too heavy to load at start: the entry must reach none of them statically. */
const HEAVY = [
  'viem',
  'fastify',
  '@fastify/',
  'pdfkit',
  'better-sqlite3',
  'jszip',
  'ajv',
  'yauzl',
  'yazl',
  'playwright-core',
  'electron',
  'esbuild',
  'tsx',
];
/** What `evroom verify` needs none of (it needs the verifier and node:crypto; SQLite only for a ledger). */
const NOT_FOR_VERIFY = HEAVY;

let copy: string;
let home: string;
let bundle: string;

/** The files a bundle file imports statically (import ... from "x"), relative ones resolved. */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w${},\s*]+?from\s*)?["']([^"']+)["']/g)) {
    const specifier = match[1] as string;
    found.push(specifier.startsWith('.') ? join(dirname(file), specifier) : specifier);
  }
  return found;
}

/** Every bundle file and package a bundle file loads before it runs (its static closure). */
function staticClosure(file: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (current: string): void => {
    if (files.has(current)) return;
    files.add(current);
    for (const target of staticImports(current)) {
      if (target.startsWith('/')) visit(target);
      else packages.add(target);
    }
  };
  visit(file);
  return { files: [...files], packages: [...packages] };
}

function heavyIn(names: readonly string[], heavy: readonly string[]): string[] {
  return names.filter((name) =>
    heavy.some((prefix) => name === prefix || name.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)),
  );
}

/**
 * Runs the copy's bin/evroom.mjs with a module hook that logs every module Node resolves (ESM)
 * or loads (CommonJS, at exit).
 */
function evroom(args: readonly string[]): { code: number | null; stdout: string; stderr: string; loaded: string[] } {
  const log = join(copy, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, '');
  const result = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(join(copy, 'hooks', 'register.mjs')).href, join(copy, 'bin', 'evroom.mjs'), ...args],
    {
      cwd: copy,
      encoding: 'utf8',
      env: {
        ...process.env,
        EVROOM_HOME: home,
        EVROOM_LOAD_LOG: log,
        NO_COLOR: '1',
        FORCE_COLOR: undefined,
        EVROOM_FROM_SOURCE: undefined,
      },
    },
  );
  const loaded = readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, loaded };
}

/** The packages in node_modules that a run loaded. */
function packagesLoaded(loaded: readonly string[]): string[] {
  const names = new Set<string>();
  for (const entry of loaded) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(entry);
    if (match) names.add(match[1] as string);
  }
  return [...names];
}

beforeAll(async () => {
  mkdirSync(join(ROOT, 'out'), { recursive: true });
  copy = mkdtempSync(join(ROOT, 'out', 'build-cli-test-'));
  home = mkdtempSync(join(tmpdir(), 'evroom-build-cli-home-'));
  for (const name of ['src-main', 'src-shared', 'resources', 'node_modules', 'package.json', 'package-lock.json']) {
    symlinkSync(join(ROOT, name), join(copy, name));
  }
  mkdirSync(join(copy, 'bin'));
  copyFileSync(join(ROOT, 'bin', 'evroom.mjs'), join(copy, 'bin', 'evroom.mjs'));
  mkdirSync(join(copy, 'hooks'));
  writeFileSync(
    join(copy, 'hooks', 'register.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      "import Module, { register } from 'node:module';",
      "register('./resolve.mjs', import.meta.url);",
      "process.on('exit', () => appendFileSync(process.env.EVROOM_LOAD_LOG, Object.keys(Module._cache).join('\\n') + '\\n'));",
    ].join('\n'),
  );
  writeFileSync(
    join(copy, 'hooks', 'resolve.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      'export async function resolve(specifier, context, next) {',
      '  const result = await next(specifier, context);',
      "  appendFileSync(process.env.EVROOM_LOAD_LOG, result.url + '\\n');",
      '  return result;',
      '}',
    ].join('\n'),
  );
  const { buildCli } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build-cli.mjs')).href)) as {
    buildCli(options: { directory: string }): Promise<number>;
  };
  bundle = join(copy, 'out', 'cli');
  await buildCli({ directory: bundle });
}, 180_000);

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('the bundled CLI', () => {
  it('has an entry that loads no command and no package statically, and a chunk per command', () => {
    const entry = staticClosure(join(bundle, 'evroom.js'));
    expect(entry.packages.filter((name) => !name.startsWith('node:'))).toEqual([]);
    const bytes = entry.files.reduce((sum, file) => sum + readFileSync(file).length, 0);
    // A few kilobytes today; a statically imported command brings tens to hundreds more.
    expect(bytes).toBeLessThan(32 * 1024);
    const chunks = readdirSync(bundle);
    for (const command of [
      'verify',
      'keys',
      'sign',
      'samples',
      'verifier',
      'app',
      'import',
      'export',
      'ledger',
      'trust',
      'report',
      'anchor',
      'serve',
      'accounts',
    ]) {
      expect(
        chunks.some((name) => new RegExp(`^${command}-[A-Z0-9]+\\.js$`).test(name)),
        command,
      ).toBe(true);
    }
  });

  it('loads none of the heavy packages statically for evroom verify', () => {
    const chunk = readdirSync(bundle).find((name) => /^verify-[A-Z0-9]+\.js$/.test(name));
    expect(chunk).toBeDefined();
    const verify = staticClosure(join(bundle, chunk as string));
    expect(heavyIn(verify.packages, NOT_FOR_VERIFY)).toEqual([]);
  });

  it('starts the app (web mode) without the @ethereumjs packages: the context pack checks load when a pack is checked', () => {
    // @ethereumjs (block headers, tries) is bundled, so its code is looked for, not its name.
    const ethereumjs = (file: string): boolean =>
      /\b(?:createBlockHeaderFromRLP|verifyMerkleProof)\b/.test(readFileSync(file, 'utf8'));
    const chunks = readdirSync(bundle).filter((name) => /^(?:app|web-mode)-[A-Z0-9]+\.js$/.test(name));
    expect(chunks).toHaveLength(2);
    for (const chunk of chunks) {
      const closure = staticClosure(join(bundle, chunk));
      expect(
        closure.files.filter(ethereumjs).map((file) => file.slice(bundle.length + 1)),
        chunk,
      ).toEqual([]);
    }
    // They are there, for the commands and the checks that load them.
    expect(readdirSync(bundle).some((name) => ethereumjs(join(bundle, name)))).toBe(true);
  });

  it('is what bin/evroom.mjs runs after a build: --help loads no package', () => {
    const run = evroom(['--help']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Evidence Room: verify receipts/);
    expect(run.loaded).toContain(pathToFileURL(join(bundle, 'evroom.js')).href);
    expect(run.loaded.filter((url) => url.includes('/src-main/'))).toEqual([]);
    expect(packagesLoaded(run.loaded)).toEqual([]);
  });

  it('runs evroom verify one.json from the bundle without viem, fastify, pdfkit or SQLite (no ledger in the data folder)', () => {
    const samples = evroom(['samples', '--out', join(copy, 'samples')]);
    expect(samples.code, samples.stderr).toBe(0);
    const run = evroom(['verify', join(copy, 'samples', 'classical', 'valid.json')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/status +PASS/);
    expect(run.loaded.some((url) => url.startsWith(pathToFileURL(join(bundle, 'verify-')).href))).toBe(true);
    expect(heavyIn(packagesLoaded(run.loaded), NOT_FOR_VERIFY)).toEqual([]);
  });

  it('falls back to the sources through tsx once an input changed, with the same output', () => {
    const bundled = evroom(['--help']);
    const inputsFile = join(bundle, 'inputs.json');
    const manifest = JSON.parse(readFileSync(inputsFile, 'utf8')) as { inputs: { path: string; size: number }[] };
    const changed = manifest.inputs.find((input) => input.path === 'package.json');
    expect(changed).toBeDefined();
    (changed as { size: number }).size += 1;
    writeFileSync(inputsFile, JSON.stringify(manifest));
    const fromSource = evroom(['--help']);
    expect(fromSource.code, fromSource.stderr).toBe(0);
    expect(packagesLoaded(fromSource.loaded)).toContain('tsx');
    expect(fromSource.loaded.some((url) => url.endsWith('/src-main/cli/main.ts'))).toBe(true);
    expect(fromSource.stdout).toBe(bundled.stdout);
  });
});
