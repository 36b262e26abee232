/**
 * Local web mode: the renderer and the app API over HTTP on 127.0.0.1 only, on Fastify (the HTTP
 * stack of the service too).
 *
 * The same renderer that runs in the Electron window is served to any browser. Static files are
 * public code; every /api call needs the random session token, which reaches the page only in
 * the URL fragment (never sent to the server in a request line or logged), or the session cookie
 * the page gets for it. The Host header is
 * checked so a DNS-rebinding page cannot talk to the server, and every response carries the
 * Content-Security-Policy the shell gives (the Electron window's) and the other security headers.
 * API bodies are `application/json` (any letter case), read up to their limit and parsed by the
 * strict parser (src-main/operations/json-body.ts, which the service uses too).
 *
 * Files (a bundle to import) are not sent as base64 inside JSON: `POST /upload/<method>` takes
 * the raw bytes, with the same Origin, token and size checks as /api, streams them to a
 * temporary file (0600, in a 0700 folder of its own) and hands the file's path to the upload
 * handler, which removes it when done. Memory stays flat whatever the file's size.
 *
 * Tabs of one browser share a session: the page that opens with `#token=...` trades it once, at
 * `POST /session` (the bearer token, with the Host and Origin checks), for an HttpOnly,
 * SameSite=Strict cookie on Path=/ holding a separate random session secret of this process (never
 * the token). Afterwards /api and /upload take that cookie in place of the token, from a page of
 * the app's own origin only: the Origin header must be present and ours, the call a POST with a
 * JSON (or, for /upload, a raw-bytes) media type, so no other site can make one (CSRF). Both
 * secrets are compared in constant time; both die with the process, so a restart ends every
 * session. docs/security.md says the same for users.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { ErrorDetail, ErrorEnvelope } from '../../src-shared/api/error-envelope';
import { MAX_VERIFY_TEXT } from '../../src-shared/api/contract';
import { describeError, HTTP_STATUS_OF_KIND, internalLogLine } from '../operations/errors';
import { addJsonBodyParser, isJsonMediaType, parseJsonBody } from '../operations/json-body';

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

/**
 * A request path as RFC 3986 allows it: `/`-separated segments of unreserved characters,
 * sub-delimiters, `:` and `@`, and well-formed percent-encodings. Anything else (`//[`, a stray
 * `%`) is not a path of ours and is refused before routing.
 */
const REQUEST_PATH = /^\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;

/** The path where a page trades the session token for the session cookie. */
export const SESSION_PATH = '/session';

/**
 * The name of the session cookie of the server on `port`. Cookies are not kept apart by port, so
 * two apps on 127.0.0.1 (another data folder, another port) each have their own name.
 */
export function sessionCookieName(port: number): string {
  return `evroom_session_${port}`;
}

/**
 * Whether a presented secret equals the expected one, in time that depends on neither's content
 * nor length: both are hashed with SHA-256 and the digests compared with timingSafeEqual.
 *
 * @param presented - What the request carried (any length; empty never matches).
 * @param expected - The secret.
 */
export function secretsMatch(presented: string, expected: string): boolean {
  if (typeof presented !== 'string' || typeof expected !== 'string')
    throw new TypeError('secretsMatch expects two strings');
  const left = createHash('sha256').update(presented).digest();
  const right = createHash('sha256').update(expected).digest();
  return timingSafeEqual(left, right) && presented.length > 0;
}

/** The values of every cookie named `name` in a Cookie header (a name may come more than once). */
function cookieValues(header: string | undefined, name: string): string[] {
  if (header === undefined) return [];
  const values: string[] = [];
  for (const part of header.split(';')) {
    const equals = part.indexOf('=');
    if (equals === -1) continue;
    if (part.slice(0, equals).trim() === name) values.push(part.slice(equals + 1).trim());
  }
  return values;
}

/** What a page without a session (no token, no cookie, or one of an earlier run) is told. */
export const NO_SESSION_MESSAGE =
  'This tab has no session with the app: open the address the app printed (evroom app --web) in this browser';

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
  /**
   * The Content-Security-Policy sent with every answer: the window's, which the shell owns
   * (src-main/app/window-options.ts) and hands over.
   */
  contentSecurityPolicy: string;
  /** A fixed token for tests; random otherwise. */
  token?: string;
  /** Upload handlers by method name (`imports.start`); a method without one answers 404. */
  uploads?: Record<string, UploadHandler>;
  /** The largest upload in bytes; MAX_UPLOAD_BYTES when absent. */
  maxUploadBytes?: number;
  /** The largest app API body in bytes; MAX_API_BODY_BYTES when absent. */
  maxApiBodyBytes?: number;
  /**
   * Where the log line of an internal fault this server meets goes (its correlation id and
   * stack; never sent): an upload handler's or its own. The app API logs its own faults.
   * Default standard error.
   */
  log?: (line: string) => void;
}

export interface RunningWebServer {
  url: string;
  port: number;
  token: string;
  server: Server;
  close(): Promise<void>;
}

/** A refusal with its status and the envelope's code, message and details. */
class WebError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  constructor(status: number, code: string, message: string, details: ErrorDetail[] = []) {
    super(message);
    this.name = 'WebError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** The upload went over its limit (told apart from a broken connection). */
class UploadTooLarge extends Error {}

/** An error answer's status and envelope: ours, Fastify's own (limits, media types), or describeError's. */
function errorAnswer(
  error: unknown,
  maxApiBodyBytes: number,
  log: (line: string) => void,
): { status: number; envelope: ErrorEnvelope } {
  if (error instanceof WebError) {
    return { status: error.status, envelope: { code: error.code, message: error.message, details: error.details } };
  }
  const facts = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; statusCode?: unknown };
  const code = typeof facts.code === 'string' ? facts.code : '';
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return refusal(413, 'payload_too_large', `the body exceeds ${maxApiBodyBytes} bytes`);
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return refusal(415, 'unsupported_media_type', 'app API bodies are application/json');
  if (code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH')
    return refusal(400, 'invalid_request', 'the body does not match its Content-Length');
  const status = facts.statusCode;
  if (code.startsWith('FST_') && typeof status === 'number' && status >= 400 && status < 500)
    return refusal(400, 'invalid_request', 'the request is not valid');
  // The one envelope, as IPC carries it; only the HTTP status is this transport's own.
  const { envelope, kind, internal } = describeError(error);
  if (internal !== undefined) log(`web mode: ${internalLogLine(internal)}`);
  return { status: HTTP_STATUS_OF_KIND[kind], envelope };
}

function refusal(status: number, code: string, message: string): { status: number; envelope: ErrorEnvelope } {
  return { status, envelope: { code, message, details: [] } };
}

/**
 * Starts the local web server on 127.0.0.1.
 *
 * @throws Error with a clear message when the renderer is not built or the port is taken
 */
export async function startWebServer(options: WebServerOptions): Promise<RunningWebServer> {
  const root = resolve(options.rendererDirectory);
  const maxUploadBytes = options.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  const maxApiBodyBytes = options.maxApiBodyBytes ?? MAX_API_BODY_BYTES;
  const policy = options.contentSecurityPolicy;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  if (typeof policy !== 'string' || policy.length === 0)
    throw new TypeError('startWebServer: contentSecurityPolicy must be the window’s policy');
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
  // The cookie's value: its own secret, so the token never sits in the browser's cookie jar.
  const sessionSecret = randomBytes(32).toString('base64url');
  let port = options.port;
  const security = Object.entries(securityHeaders(policy));
  /** The decoded method name of each /api and /upload request, checked before its body is read. */
  const methodOf = new WeakMap<FastifyRequest, string>();

  const app = Fastify({
    logger: false,
    bodyLimit: maxApiBodyBytes,
    exposeHeadRoutes: false,
    // close() ends every connection, keep-alive ones too.
    forceCloseConnections: true,
    // Every answer carries the security headers, also those Fastify gives before any hook runs.
    serverFactory: (handler) =>
      createServer((request: IncomingMessage, response: ServerResponse) => {
        for (const [name, value] of security) response.setHeader(name, value);
        handler(request, response);
      }),
    // Requests Node cannot parse (headers over its limit, broken framing, too slow) are answered
    // in the envelope too, with the security headers, and the connection closes.
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) socket.write(clientErrorAnswer(error, security));
      socket.destroy(error);
    },
    frameworkErrors: (_error, request, reply) => {
      send(request, reply, 400, {
        ok: false,
        error: { code: 'invalid_request', message: 'the request path is not valid', details: [] },
      });
    },
  });

  function send(request: FastifyRequest, reply: FastifyReply, status: number, body: unknown): FastifyReply {
    // A body not read whole is not drained: the connection closes after the answer.
    if (bodyLeft(request)) reply.header('connection', 'close');
    return reply.code(status).type(JSON_TYPE).header('cache-control', 'no-store').send(body);
  }

  app.setErrorHandler((error, request, reply) => {
    const { status, envelope } = errorAnswer(error, maxApiBodyBytes, log);
    return send(request, reply, status, { ok: false, error: envelope });
  });
  app.setNotFoundHandler((request, reply) =>
    send(request, reply, 404, { ok: false, error: { code: 'not_found', message: 'not found', details: [] } }),
  );

  // Every request: a path of ours, addressed to 127.0.0.1, and what its route takes, all before
  // any of its body is read. Callback style: no promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      admit(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });

  function admit(request: FastifyRequest): void {
    const target = request.raw.url ?? '';
    const query = target.indexOf('?');
    const path = query === -1 ? target : target.slice(0, query);
    if (!REQUEST_PATH.test(path)) throw new WebError(400, 'invalid_request', 'the request path is not a valid path');
    const host = request.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`)
      throw new WebError(403, 'forbidden', 'requests must be addressed to 127.0.0.1');
    const door = path.startsWith('/api/')
      ? 'api'
      : path.startsWith('/upload/')
        ? 'upload'
        : path === SESSION_PATH
          ? 'session'
          : undefined;
    if (door === undefined) {
      if (request.method !== 'GET' && request.method !== 'HEAD')
        throw new WebError(405, 'method_not_allowed', 'only GET is served here');
      return;
    }
    // A page of another origin never calls the API, even one that learned the token: browsers
    // send Origin on every POST, and only the app's own pages may make one.
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`)
      throw new WebError(403, 'forbidden', 'app API calls come from the app’s own pages only');
    // `Bearer TOKEN`, the scheme's name in any case (RFC 9110 section 11.1), compared in constant
    // time. Without one, the session cookie, from a page that says it is ours (a cookie rides on
    // any request the browser sends; the Origin header tells the app's own pages apart). The
    // session itself is had only for the token.
    const header = request.headers.authorization;
    if (header !== undefined || door === 'session') {
      if (!secretsMatch(/^bearer /i.test(header ?? '') ? (header ?? '').slice(7) : '', token))
        throw new WebError(401, 'unauthorized', `${NO_SESSION_MESSAGE}.`);
    } else {
      const cookies = cookieValues(request.headers.cookie, sessionCookieName(port));
      if (!cookies.some((value) => secretsMatch(value, sessionSecret)))
        throw new WebError(401, 'unauthorized', `${NO_SESSION_MESSAGE}.`);
      if (origin === undefined)
        throw new WebError(
          403,
          'forbidden',
          'a call with the session cookie must come from the app’s own page (Origin)',
        );
    }
    if (request.method !== 'POST') throw new WebError(405, 'method_not_allowed', 'app API calls are POST');
    const type = request.headers['content-type'];
    const limit = door === 'upload' ? maxUploadBytes : maxApiBodyBytes;
    if (door !== 'upload' && !isJsonMediaType(type))
      throw new WebError(415, 'unsupported_media_type', 'app API bodies are application/json');
    if (door === 'upload' && !UPLOAD_TYPES.has((type ?? '').split(';')[0]?.trim().toLowerCase() ?? ''))
      throw new WebError(
        415,
        'unsupported_media_type',
        'uploads are the file’s raw bytes, sent as application/octet-stream or application/zip',
      );
    // A declared length over the limit is refused at once, before any of the body is read.
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit)
      throw new WebError(
        413,
        'payload_too_large',
        door === 'upload' ? `the upload exceeds ${limit} bytes` : `the body exceeds ${limit} bytes`,
      );
    if (door === 'session') return;
    try {
      methodOf.set(request, decodeURIComponent(path.slice(door === 'api' ? '/api/'.length : '/upload/'.length)));
    } catch {
      throw new WebError(400, 'invalid_request', 'the method name in the path is not valid percent-encoding');
    }
  }

  // Bodies are parsed by the route that takes them, and by nothing at the top.
  app.removeAllContentTypeParsers();

  await app.register(async (scope) => {
    // An empty body (or only white space) is a call without input, as the transport has always taken it.
    addJsonBodyParser(scope, {
      bodyLimit: maxApiBodyBytes,
      read: (bytes) => (isBlank(bytes) ? undefined : parseJsonBody(bytes)),
    });
    // The token for the cookie. No Max-Age: the cookie ends with the browser session, and its
    // secret with this process. Not Secure: the page is http://127.0.0.1, which never leaves the
    // machine.
    scope.post(SESSION_PATH, async (request, reply) => {
      const body = request.body;
      const empty =
        body === undefined ||
        (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
      if (!empty) throw new WebError(400, 'invalid_request', 'the session request takes no input');
      reply.header('set-cookie', `${sessionCookieName(port)}=${sessionSecret}; HttpOnly; SameSite=Strict; Path=/`);
      return send(request, reply, 200, { ok: true, result: { session: 'cookie' } });
    });
    scope.all('/api/*', async (request, reply) => {
      const method = methodOf.get(request) ?? '';
      try {
        return send(request, reply, 200, { ok: true, result: await options.api(method, request.body) });
      } catch (error) {
        const { envelope, kind } = describeError(error);
        return send(request, reply, HTTP_STATUS_OF_KIND[kind], { ok: false, error: envelope });
      }
    });
  });

  await app.register(async (scope) => {
    // The bytes stay in the request stream: the route streams them to a file.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    scope.all('/upload/*', async (request, reply) => upload(request, reply));
  });

  async function upload(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const method = methodOf.get(request) ?? '';
    const handler = Object.hasOwn(options.uploads ?? {}, method) ? options.uploads?.[method] : undefined;
    if (handler === undefined) throw new WebError(404, 'not_found', `there is no upload for '${method}'`);
    const target = request.raw.url ?? '';
    const query = target.indexOf('?');
    const name = new URLSearchParams(query === -1 ? '' : target.slice(query + 1)).get('name') ?? 'uploaded file';
    // eslint-disable-next-line no-control-regex -- control characters are what this check refuses in a file name
    if (name.length === 0 || name.length > MAX_UPLOAD_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
      throw new WebError(400, 'invalid_request', 'the name query parameter is not a usable file name', [
        { path: '/name', message: `1 to ${MAX_UPLOAD_NAME} characters, no control characters` },
      ]);
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
      await pipeline(request.raw, limit, createWriteStream(file, { mode: 0o600, flags: 'wx' }));
    } catch (error) {
      cleanup();
      if (error instanceof UploadTooLarge)
        throw new WebError(413, 'payload_too_large', `the upload exceeds ${maxUploadBytes} bytes`);
      throw new WebError(400, 'invalid_request', 'the upload did not arrive whole');
    }
    try {
      return send(request, reply, 200, { ok: true, result: await handler(file, name, cleanup) });
    } catch (error) {
      cleanup();
      const { envelope, kind, internal } = describeError(error);
      if (internal !== undefined) log(`web mode upload ${method}: ${internalLogLine(internal)}`);
      return send(request, reply, HTTP_STATUS_OF_KIND[kind], { ok: false, error: envelope });
    }
  }

  app.all('/*', async (request, reply) => {
    const target = request.raw.url ?? '/';
    const query = target.indexOf('?');
    return serveStatic(reply, query === -1 ? target : target.slice(0, query));
  });

  async function serveStatic(reply: FastifyReply, pathname: string): Promise<FastifyReply> {
    let relative: string;
    try {
      relative = decodeURIComponent(pathname);
    } catch {
      throw new WebError(400, 'invalid_request', 'bad path encoding');
    }
    if (relative === '/' || relative === '') relative = '/index.html';
    const file = normalize(join(root, relative));
    if (file !== root && !file.startsWith(root + sep)) throw new WebError(404, 'not_found', 'not found');
    let body: Buffer;
    try {
      // A symlink (or a link in a parent folder) that leads out of the renderer's folder is not
      // followed: what is served is what lies inside it.
      const real = await realpath(file);
      if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new WebError(404, 'not_found', 'not found');
      body = await readFile(real);
    } catch (error) {
      if (error instanceof WebError) throw error;
      // Client-side routes fall back to the app shell.
      const shell = extname(relative) === '';
      return reply
        .code(shell ? 200 : 404)
        .type(HTML_TYPE)
        .header('cache-control', 'no-store')
        .send(shell ? await readFile(join(root, 'index.html')) : 'not found');
    }
    return reply
      .code(200)
      .type(MIME[extname(file)] ?? 'application/octet-stream')
      .header('cache-control', file.endsWith('index.html') ? 'no-store' : 'max-age=3600')
      .send(body);
  }

  try {
    await app.listen({ port: options.port, host: '127.0.0.1' });
  } catch (error) {
    await app.close();
    throw new Error(
      (error as NodeJS.ErrnoException).code === 'EADDRINUSE'
        ? `port ${options.port} is already in use; choose another with --port or omit it`
        : (error as Error).message,
    );
  }
  const address = app.server.address();
  port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://127.0.0.1:${port}/#token=${token}`,
    port,
    token,
    server: app.server,
    close: () => app.close(),
  };
}

/** The whole HTTP answer to a request Node could not parse, in the app API's envelope. */
function clientErrorAnswer(error: NodeJS.ErrnoException, security: [string, string][]): string {
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'the request headers are larger than the server takes']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'the request did not arrive in time']
        : [400, 'Bad Request', 'the request is not valid HTTP'];
  const body = JSON.stringify({ ok: false, error: { code: 'invalid_request', message, details: [] } });
  const headers = [
    `HTTP/1.1 ${status} ${reason}`,
    `content-type: ${JSON_TYPE}`,
    `content-length: ${Buffer.byteLength(body)}`,
    'cache-control: no-store',
    'connection: close',
    ...security.map(([name, value]) => `${name}: ${value}`),
  ];
  return `${headers.join('\r\n')}\r\n\r\n${body}`;
}

/** Whether a body is empty or JSON white space only (space, tab, line feed, carriage return). */
function isBlank(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  return true;
}

/** Whether the request announced a body that has not been read to its end. */
function bodyLeft(request: FastifyRequest): boolean {
  if (request.raw.complete) return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The security headers of every answer. */
function securityHeaders(policy: string): Record<string, string> {
  return {
    'content-security-policy': policy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'x-frame-options': 'DENY',
  };
}
