/**
 * The browser reference verifier page: one self-contained HTML file, for `evroom verifier` and
 * (next) the HTTP service's `GET /verifier`.
 *
 * Where the page comes from:
 * - the built app (`electron-vite build` plus `vite build -c verifier.vite.config.ts`, which
 *   `npm run build` runs) has it at out/verifier/verifier.html, beside out/main;
 * - running from source (the CLI through tsx, tests), out/verifier/verifier.html is used when it
 *   is newer than every source it is built from, and otherwise built once, on demand, with
 *   vite (a development dependency, present wherever the sources are). So `npx evroom verifier`
 *   works straight after `npm ci` and never hands out a page older than the code.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OperationError } from './errors';

/** The page's file name under out/verifier/ (as verifier.vite.config.ts writes it). */
export const VERIFIER_PAGE_NAME = 'verifier.html';
/** The policy every served or written page carries; a page without it is refused. */
const REQUIRED_POLICY = "default-src 'none'";

/** The sources a page is built from, relative to the repository root. */
const PAGE_SOURCES = ['src-shared', 'src-renderer', 'verifier.vite.config.ts', 'package.json'];

let cached: Promise<string> | undefined;

/** Where the page and its sources are, for the code running now. */
function locations(): { built: string; sourceRoot: string | undefined } {
  // Bundled into out/main/index.js, this module's folder is out/main; from source it is
  // src-main/operations.
  const here = import.meta.dirname;
  const sourceRoot = join(here, '..', '..');
  const fromSource =
    existsSync(join(sourceRoot, 'verifier.vite.config.ts')) && existsSync(join(sourceRoot, 'src-main', 'operations'));
  return fromSource
    ? { built: join(sourceRoot, 'out', 'verifier', VERIFIER_PAGE_NAME), sourceRoot }
    : { built: join(here, '..', 'verifier', VERIFIER_PAGE_NAME), sourceRoot: undefined };
}

async function newestChange(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of await readdir(path, { withFileTypes: true })) {
    // Tests and generated schema declarations are not part of the page.
    if (entry.name.endsWith('.test.ts') || entry.name.endsWith('.test.tsx')) continue;
    newest = Math.max(newest, await newestChange(join(path, entry.name)));
  }
  return newest;
}

async function isFresh(page: string, sourceRoot: string): Promise<boolean> {
  if (!existsSync(page)) return false;
  const built = (await stat(page)).mtimeMs;
  for (const source of PAGE_SOURCES) {
    if ((await newestChange(join(sourceRoot, source))) > built) return false;
  }
  return true;
}

async function buildPage(sourceRoot: string): Promise<void> {
  // A variable specifier: bundlers of the main process must not pull vite into the app.
  const viteModule = 'vite';
  const vite = (await import(/* @vite-ignore */ viteModule)) as {
    build(config: { configFile: string; logLevel: string }): Promise<unknown>;
  };
  // Vite and React choose the production JSX runtime only when NODE_ENV is `production`; built
  // from a test runner (NODE_ENV=test) the page's code would call React's development runtime,
  // which the bundled production React lacks, and the page would not render. `npm run build`
  // builds for production; so does this, whatever the caller's NODE_ENV.
  const nodeEnv = process.env['NODE_ENV'];
  process.env['NODE_ENV'] = 'production';
  try {
    await vite.build({ configFile: join(sourceRoot, 'verifier.vite.config.ts'), logLevel: 'error' });
  } catch (error) {
    throw new OperationError(
      'internal',
      'verifier_build_failed',
      `The verifier page could not be built: ${(error as Error).message}`,
      { cause: error },
    );
  } finally {
    if (nodeEnv === undefined) delete process.env['NODE_ENV'];
    else process.env['NODE_ENV'] = nodeEnv;
  }
}

async function loadPage(): Promise<string> {
  const { built, sourceRoot } = locations();
  if (sourceRoot !== undefined && !(await isFresh(built, sourceRoot))) await buildPage(sourceRoot);
  let html: string;
  try {
    html = await readFile(built, 'utf8');
  } catch (error) {
    throw new OperationError(
      'internal',
      'verifier_missing',
      `The verifier page is missing (${built}); build the app with \`npm run build\`.`,
      { cause: error },
    );
  }
  // The page's safety rests on its policy: never hand out a page that lost it.
  if (!html.includes(REQUIRED_POLICY) || html.includes('__VERIFIER_CSP__')) {
    throw new OperationError(
      'internal',
      'verifier_invalid',
      `The verifier page at ${built} has no content security policy; rebuild it.`,
    );
  }
  return html;
}

/**
 * The reference verifier page's HTML.
 *
 * Built on demand from source when no fresh build exists (about 10 s), then kept for the life
 * of the process.
 *
 * @returns The page: one HTML file with every script, style and the worker inlined.
 * @throws OperationError internal `verifier_build_failed`, `verifier_missing` or
 *   `verifier_invalid` when no usable page can be had.
 */
export function verifierPage(): Promise<string> {
  cached ??= loadPage().catch((error: unknown) => {
    // A failure is not kept: the next call tries again.
    cached = undefined;
    throw error;
  });
  return cached;
}

/** The page as a server sends it: its UTF-8 bytes and the policy of its meta tag. */
export interface ServedVerifierPage {
  /** The page's UTF-8 encoding, made once: sent as they are, every time. */
  readonly bytes: Buffer;
  /** The policy the page's meta tag carries ({@link verifierPagePolicy}). */
  readonly policy: string;
}

let served: Promise<ServedVerifierPage> | undefined;

/**
 * The reference verifier page ready to serve, encoded and its policy read once for the life of
 * the process. The page is about 1 MB of text with characters beyond Latin-1, so V8 holds it as
 * 2 MB of two-byte text: sent as a string, each request built, flattened and encoded a new
 * 2 MB string, which under load was most of the service's allocation (bench/README.md, "The
 * soak's memory").
 *
 * @returns The page's bytes and policy.
 * @throws OperationError as {@link verifierPage} and {@link verifierPagePolicy}.
 */
export function servedVerifierPage(): Promise<ServedVerifierPage> {
  served ??= verifierPage()
    .then((page) => ({ bytes: Buffer.from(page, 'utf8'), policy: verifierPagePolicy(page) }))
    .catch((error: unknown) => {
      // A failure is not kept: the next call tries again.
      served = undefined;
      throw error;
    });
  return served;
}

/** The policy of a page's `<meta http-equiv="Content-Security-Policy">`. */
const POLICY_META = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/;

/**
 * The Content-Security-Policy the page carries in its meta tag, for a server to send as a header.
 *
 * @param page - The page {@link verifierPage} answered.
 * @returns The policy, `default-src 'none'; ...`.
 * @throws OperationError internal `verifier_invalid` when the page has no such tag.
 */
export function verifierPagePolicy(page: string): string {
  const policy = POLICY_META.exec(page)?.[1];
  if (policy === undefined || !policy.startsWith(REQUIRED_POLICY)) {
    throw new OperationError('internal', 'verifier_invalid', 'The verifier page has no content security policy.');
  }
  return policy;
}
