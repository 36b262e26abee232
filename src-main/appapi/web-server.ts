/**
 * Local web mode: the renderer and the app API over HTTP on 127.0.0.1 only.
 *
 * The same renderer that runs in the Electron window is served to any browser. Static files are
 * public code; every /api call needs the random session token, which reaches the page only in
 * the URL fragment (never sent to the server in a request line or logged). The Host header is
 * checked so a DNS-rebinding page cannot talk to the server, and every response carries the
 * same strict CSP as the Electron window.
 *
 * Files (a bundle to import) are not sent as base64 inside JSON: `POST /upload/<method>` takes
 * the raw bytes, with the same Origin, token and size checks as /api, streams them to a
 * temporary file (0600, in a 0700 folder of its own) and hands the file's path to the upload
 * handler, which removes it when done. Memory stays flat whatever the file's size.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MAX_VERIFY_TEXT } from '../../src-shared/api/contract';
import { REPORT_STYLE } from '../../src-shared/formats/report';
import { describeError, HTTP_STATUS_OF_KIND } from '../operations/errors';

/**
 * The hash source of the audit report page's one stylesheet: the Reports view previews a report
 * in a sandboxed srcdoc iframe, which inherits this policy, so exactly that inline style is
 * allowed (src-renderer/index.html repeats it; a test keeps the two equal to the stylesheet).
 */
export const REPORT_STYLE_SOURCE = `'sha256-${createHash('sha256').update(REPORT_STYLE, 'utf8').digest('base64')}'`;

/** The Content-Security-Policy of every page we serve (and of the Electron window). */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' ${REPORT_STYLE_SOURCE}`,
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const HTML_TYPE = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

const MIME: Record<string, string> = {
  '.html': HTML_TYPE,
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': JSON_TYPE,
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The largest app API request body. Bundles travel through /upload, not JSON, so the largest
 * JSON call is `verify` with its longest text, every character escaped (`\u0000`: 6 bytes), plus
 * the JSON around it.
 */
export const MAX_API_BODY_BYTES = 6 * MAX_VERIFY_TEXT + 64 * 1024;

/**
 * The largest file `POST /upload/<method>` takes by default (1 GiB). The import then applies the
 * zip limits of the settings on top.
 */
export const MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;

/** The media types an upload may declare: the bytes are taken as they are. */
const UPLOAD_TYPES = new Set(['application/octet-stream', 'application/zip', 'application/x-zip-compressed']);

/** The longest file name an upload may carry (the contract's limit for `imports.start`'s name). */
const MAX_UPLOAD_NAME = 512;

/** A handler for app API calls: method name and validated-later input in, JSON out. */
export type ApiHandler = (method: string, input: unknown) => Promise<unknown>;

/**
 * Handles one uploaded file, already on disk. It owns the file from then on and must call
 * `cleanup` (which removes the file and its folder) when it no longer needs it, also on failure;
 * throwing an error answers with the error envelope, as /api does.
 */
export type UploadHandler = (file: string, name: string, cleanup: () => void) => Promise<unknown>;

export interface WebServerOptions {
  /** Folder of the built renderer (index.html and assets). */
  rendererDirectory: string;
  /** 0 picks a free port. */
  port: number;
  api: ApiHandler;
  /** A fixed token for tests; random otherwise. */
  token?: string;
  /** Upload handlers by method name (`imports.start`); a method without one answers 404. */
  uploads?: Record<string, UploadHandler>;
  /** The largest upload in bytes; MAX_UPLOAD_BYTES when absent. */
  maxUploadBytes?: number;
}

export interface RunningWebServer {
  url: string;
  port: number;
  token: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Starts the local web server on 127.0.0.1.
 *
 * @throws Error with a clear message when the renderer is not built or the port is taken
 */
export async function startWebServer(options: WebServerOptions): Promise<RunningWebServer> {
  const root = resolve(options.rendererDirectory);
  const maxUploadBytes = options.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  let realRoot: string;
  try {
    await stat(join(root, 'index.html'));
    realRoot = await realpath(root);
  } catch {
    throw new Error(
      `the app is not built: ${join(root, 'index.html')} is missing. Run \`npm run build\` (npm start does it for you).`,
    );
  }
  const token = options.token ?? randomBytes(32).toString('base64url');
  const tokenBytes = Buffer.from(`Bearer ${token}`);
  let port = options.port;

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) sendError(response, 500, 'internal', 'internal error');
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    setSecurityHeaders(response);
    const host = request.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      sendError(response, 403, 'forbidden', 'requests must be addressed to 127.0.0.1');
      return;
    }
    const url = new URL(request.url ?? '/', `http://${host}`);
    if (url.pathname.startsWith('/api/')) {
      await handleApi(request, response, url);
      return;
    }
    if (url.pathname.startsWith('/upload/')) {
      await handleUpload(request, response, url);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      sendError(response, 405, 'method_not_allowed', 'only GET is served here');
      return;
    }
    await serveStatic(response, url.pathname);
  }

  /** The Origin, token and method checks /api and /upload share; false when it answered already. */
  function admitted(request: IncomingMessage, response: ServerResponse): boolean {
    // A page of another origin never calls the API, even one that learned the token: browsers
    // send Origin on every POST, and only the app's own pages may make one.
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) {
      sendError(response, 403, 'forbidden', 'app API calls come from the app’s own pages only');
      return false;
    }
    const authorization = Buffer.from(request.headers.authorization ?? '');
    if (authorization.length !== tokenBytes.length || !timingSafeEqual(authorization, tokenBytes)) {
      sendError(response, 401, 'unauthorized', 'missing or wrong session token; open the URL the app printed');
      return false;
    }
    if (request.method !== 'POST') {
      sendError(response, 405, 'method_not_allowed', 'app API calls are POST');
      return false;
    }
    return true;
  }

  async function handleApi(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    if (!admitted(request, response)) return;
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      sendError(response, 415, 'unsupported_media_type', 'app API bodies are application/json');
      return;
    }
    // A declared length over the limit is refused at once, before any of the body is read.
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) > MAX_API_BODY_BYTES) {
      response.setHeader('connection', 'close');
      sendError(response, 413, 'payload_too_large', `the body exceeds ${MAX_API_BODY_BYTES} bytes`);
      return;
    }
    let method: string;
    try {
      method = decodeURIComponent(url.pathname.slice('/api/'.length));
    } catch {
      sendError(response, 400, 'invalid_request', 'the method name in the path is not valid percent-encoding');
      return;
    }
    let input: unknown;
    try {
      input = await readJsonBody(request);
    } catch (error) {
      sendError(response, 400, 'invalid_request', error instanceof Error ? error.message : 'bad body');
      return;
    }
    try {
      sendJson(response, 200, { ok: true, result: await options.api(method, input) });
    } catch (error) {
      // The one envelope, as IPC carries it; only the HTTP status is this transport's own.
      const { envelope, kind } = describeError(error);
      sendJson(response, HTTP_STATUS_OF_KIND[kind], { ok: false, error: envelope });
    }
  }

  async function handleUpload(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    if (!admitted(request, response)) return;
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!UPLOAD_TYPES.has(type)) {
      sendError(
        response,
        415,
        'unsupported_media_type',
        'uploads are the file’s raw bytes, sent as application/octet-stream or application/zip',
      );
      return;
    }
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxUploadBytes) {
      response.setHeader('connection', 'close');
      sendError(response, 413, 'payload_too_large', `the upload exceeds ${maxUploadBytes} bytes`);
      return;
    }
    let method: string;
    try {
      method = decodeURIComponent(url.pathname.slice('/upload/'.length));
    } catch {
      sendError(response, 400, 'invalid_request', 'the method name in the path is not valid percent-encoding');
      return;
    }
    const handler = Object.hasOwn(options.uploads ?? {}, method) ? options.uploads?.[method] : undefined;
    if (handler === undefined) {
      sendError(response, 404, 'not_found', `there is no upload for '${method}'`);
      return;
    }
    const name = url.searchParams.get('name') ?? 'uploaded file';
    // eslint-disable-next-line no-control-regex -- control characters are what this check refuses in a file name
    if (name.length === 0 || name.length > MAX_UPLOAD_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
      sendJson(response, 400, {
        ok: false,
        error: {
          code: 'invalid_request',
          message: 'the name query parameter is not a usable file name',
          details: [{ path: '/name', message: `1 to ${MAX_UPLOAD_NAME} characters, no control characters` }],
        },
      });
      return;
    }
    const directory = await mkdtemp(join(tmpdir(), 'evroom-upload-'));
    const file = join(directory, 'upload.bin');
    let removed = false;
    const cleanup = (): void => {
      if (removed) return;
      removed = true;
      void rm(directory, { recursive: true, force: true });
    };
    let received = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        if (received > maxUploadBytes) callback(new UploadTooLarge());
        else callback(null, chunk);
      },
    });
    try {
      await pipeline(request, limit, createWriteStream(file, { mode: 0o600, flags: 'wx' }));
    } catch (error) {
      cleanup();
      if (error instanceof UploadTooLarge) {
        response.setHeader('connection', 'close');
        sendError(response, 413, 'payload_too_large', `the upload exceeds ${maxUploadBytes} bytes`);
      } else if (!response.headersSent && !request.destroyed) {
        sendError(response, 400, 'invalid_request', 'the upload did not arrive whole');
      } else {
        response.destroy();
      }
      return;
    }
    try {
      sendJson(response, 200, { ok: true, result: await handler(file, name, cleanup) });
    } catch (error) {
      cleanup();
      const { envelope, kind } = describeError(error);
      sendJson(response, HTTP_STATUS_OF_KIND[kind], { ok: false, error: envelope });
    }
  }

  async function serveStatic(response: ServerResponse, pathname: string): Promise<void> {
    let relative: string;
    try {
      relative = decodeURIComponent(pathname);
    } catch {
      sendError(response, 400, 'invalid_request', 'bad path encoding');
      return;
    }
    if (relative === '/' || relative === '') relative = '/index.html';
    const file = normalize(join(root, relative));
    if (file !== root && !file.startsWith(root + sep)) {
      sendError(response, 404, 'not_found', 'not found');
      return;
    }
    let body: Buffer;
    try {
      // A symlink (or a link in a parent folder) that leads out of the renderer's folder is not
      // followed: what is served is what lies inside it.
      const real = await realpath(file);
      if (real !== realRoot && !real.startsWith(realRoot + sep)) {
        sendError(response, 404, 'not_found', 'not found');
        return;
      }
      body = await readFile(real);
    } catch {
      // Client-side routes fall back to the app shell.
      body = await readFile(join(root, 'index.html'));
      response.writeHead(extname(relative) === '' ? 200 : 404, {
        'content-type': HTML_TYPE,
        'cache-control': 'no-store',
      });
      response.end(extname(relative) === '' ? body : 'not found');
      return;
    }
    response.writeHead(200, {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'cache-control': file.endsWith('index.html') ? 'no-store' : 'max-age=3600',
    });
    response.end(body);
  }

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      rejectListen(
        new Error(
          error.code === 'EADDRINUSE'
            ? `port ${options.port} is already in use; choose another with --port or omit it`
            : error.message,
        ),
      );
    });
    server.listen(options.port, '127.0.0.1', () => resolveListen());
  });
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://127.0.0.1:${port}/#token=${token}`,
    port,
    token,
    server,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

function setSecurityHeaders(response: ServerResponse): void {
  response.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  response.setHeader('x-content-type-options', 'nosniff');
  response.setHeader('referrer-policy', 'no-referrer');
  response.setHeader('cross-origin-opener-policy', 'same-origin');
  response.setHeader('cross-origin-resource-policy', 'same-origin');
  response.setHeader('x-frame-options', 'DENY');
}

function sendError(response: ServerResponse, status: number, code: string, message: string): void {
  sendJson(response, status, { ok: false, error: { code, message, details: [] } });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': JSON_TYPE, 'cache-control': 'no-store' });
  response.end(text);
}

/** The upload went over its limit (told apart from a broken connection). */
class UploadTooLarge extends Error {}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const type = request.headers['content-type'] ?? '';
  if (!type.startsWith('application/json')) throw new Error('the body must be application/json');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request) {
    total += (chunk as Buffer).length;
    if (total > MAX_API_BODY_BYTES) throw new Error(`the body exceeds ${MAX_API_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('the body is not valid JSON');
  }
}
