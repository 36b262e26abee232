/**
 * Local web mode: the renderer and the app API over HTTP on 127.0.0.1 only.
 *
 * The same renderer that runs in the Electron window is served to any browser. Static files are
 * public code; every /api call needs the random session token, which reaches the page only in
 * the URL fragment (never sent to the server in a request line or logged). The Host header is
 * checked so a DNS-rebinding page cannot talk to the server, and every response carries the
 * same strict CSP as the Electron window.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { MAX_UPLOAD_B64 } from '../../src-shared/api/contract';
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
 * The largest app API request body. Most calls are small; a bundle uploaded in web mode travels
 * as base64url inside `imports.start`, up to the contract's MAX_UPLOAD_B64 plus the JSON around it.
 */
export const MAX_API_BODY_BYTES = MAX_UPLOAD_B64 + 64 * 1024;

/** A handler for app API calls: method name and validated-later input in, JSON out. */
export type ApiHandler = (method: string, input: unknown) => Promise<unknown>;

export interface WebServerOptions {
  /** Folder of the built renderer (index.html and assets). */
  rendererDirectory: string;
  /** 0 picks a free port. */
  port: number;
  api: ApiHandler;
  /** A fixed token for tests; random otherwise. */
  token?: string;
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
  try {
    await stat(join(root, 'index.html'));
  } catch {
    throw new Error(`the app is not built: ${join(root, 'index.html')} is missing. Run \`npm run build\` (npm start does it for you).`);
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
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      sendError(response, 405, 'method_not_allowed', 'only GET is served here');
      return;
    }
    await serveStatic(response, url.pathname);
  }

  async function handleApi(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    // A page of another origin never calls the API, even one that learned the token: browsers
    // send Origin on every POST, and only the app's own pages may make one.
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) {
      sendError(response, 403, 'forbidden', 'app API calls come from the app’s own pages only');
      return;
    }
    const authorization = Buffer.from(request.headers.authorization ?? '');
    if (authorization.length !== tokenBytes.length || !timingSafeEqual(authorization, tokenBytes)) {
      sendError(response, 401, 'unauthorized', 'missing or wrong session token; open the URL the app printed');
      return;
    }
    if (request.method !== 'POST') {
      sendError(response, 405, 'method_not_allowed', 'app API calls are POST');
      return;
    }
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
      body = await readFile(file);
    } catch {
      // Client-side routes fall back to the app shell.
      body = await readFile(join(root, 'index.html'));
      response.writeHead(extname(relative) === '' ? 200 : 404, { 'content-type': HTML_TYPE, 'cache-control': 'no-store' });
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
        new Error(error.code === 'EADDRINUSE' ? `port ${options.port} is already in use; choose another with --port or omit it` : error.message),
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
