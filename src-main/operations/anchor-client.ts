/**
 * A client of an anchoring service (PROTOCOL section 8): `evroom anchor submit` and
 * `evroom anchor status`.
 *
 * - Submit sends only `{"canonical_sha256": b64u(SHA-256(JCS(receipt)))}` to
 *   `POST {api}/v1/anchor` with `Authorization: Bearer <API key>`; the receipt never leaves the
 *   machine. The answer must be the pending record of this digest (its URN ends with the
 *   digest's suffix), or it is refused.
 * - Status asks `GET {api}/v1/anchor/<URN, URL-encoded>` and checks that the answer is a
 *   record (pending or resolved) of the same digest.
 * - Error answers are PROTOCOL 10's `{"error": {"code", "message", "details"}}`; they become an
 *   {@link AnchorServiceError} that says what the service answered.
 *
 * Decisions where PROTOCOL is silent (docs/anchoring.md):
 * - the API URL is `http:` or `https:` without credentials, query or fragment; a key is never
 *   sent over plain `http:` except to a loopback host (127.0.0.1, ::1, localhost);
 * - redirects are not followed (a redirect could carry the key elsewhere);
 * - answers over 1 MiB are refused; each call times out after 30 s by default;
 * - `GET` sends the key too when one is given (the route may or may not need it).
 *
 * Talking to our own HTTP service (or anyone's) is not talking to a chain, so this module uses
 * Node's fetch; the API key is never put in a message, an error or a log.
 */
import { DomainError } from '../../src-shared/api/domain-error';
import { readFile, stat } from 'node:fs/promises';
import { readAnchorRecord } from '../../src-shared/anchor/proof';
import { anchorSuffix, parseAnchorUrn } from '../../src-shared/anchor/urn';
import { b64uEncode } from '../../src-shared/crypto/encoding';
import { JsonParseError, parseJsonBytes, toPlain } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { OperationError } from './errors';

/** Answers larger than this are not read (PROTOCOL 10 caps request bodies at 1 MiB). */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Default time limit of one call. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** An API key as the service issues it: `svc_<tier>_` and base64url characters. */
const API_KEY_PATTERN = /^svc_[a-z]+_[A-Za-z0-9_-]{1,256}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * The service answered with an error (PROTOCOL 10), or with something that is not the
 * protocol's answer. `status` is the HTTP status (0 when there was no answer).
 */
export class AnchorServiceError extends DomainError {
  /** HTTP status, or 0 when the service could not be reached. */
  readonly status: number;
  /** The service's error code (`unauthorized`, ...), or ours (`service_unreachable`, ...). */
  override readonly code: string;
  /** The service's details, as it sent them (path and message each). */
  override readonly details: { path: string; message: string }[];
  constructor(status: number, code: string, message: string, details: { path: string; message: string }[] = []) {
    super(message);
    this.name = 'AnchorServiceError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** A record as the service returned it, with its form. */
export interface ServiceAnchorRecord {
  status: 'pending' | 'resolved';
  /** The record exactly as parsed (plain JSON). */
  record: { [name: string]: JsonValue };
}

/** Where and how to call. */
export interface AnchorServiceOptions {
  /** The service's base URL, e.g. `https://api.example.com` (a path prefix is kept). */
  apiUrl: string;
  /** Per call; default {@link DEFAULT_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/**
 * Checks an API base URL and returns it without a trailing slash.
 *
 * @param apiUrl - The URL given by the user.
 * @param withKey - Whether an API key will be sent to it (plain http only to loopback then).
 * @returns The normalized base URL.
 * @throws OperationError `invalid_api_url` (invalid_input) saying what is wrong.
 */
export function checkApiUrl(apiUrl: string, withKey: boolean): string {
  const refuse = (why: string): never => {
    throw new OperationError('invalid_input', 'invalid_api_url', `The API URL ${JSON.stringify(apiUrl)} ${why}.`);
  };
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    return refuse('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse(`must be http or https, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '') refuse('must not carry a user name or password');
  if (url.search !== '' || url.hash !== '') refuse('must not have a query or a fragment');
  if (withKey && url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    refuse(
      'is plain http to another machine; an API key is sent only over https (or http to 127.0.0.1, ::1, localhost)',
    );
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * Reads an API key file: the key (`svc_<tier>_...`) on one line. The file must not be readable
 * or writable by group or others (as for every key file of this program).
 *
 * @param file - Its path.
 * @returns The key. It must never be printed or logged.
 * @throws OperationError (invalid_input) naming the file and what is wrong; never the key.
 */
export async function readApiKeyFile(file: string): Promise<string> {
  const refuse = (code: string, why: string): never => {
    throw new OperationError('invalid_input', code, `The API key file ${file} ${why}.`);
  };
  let mode = 0;
  let bytes: Buffer | undefined;
  try {
    const info = await stat(file);
    if (!info.isFile()) refuse('key_file_unreadable', 'is not a regular file');
    if (info.size > 4096) refuse('key_file_invalid', 'is too large to hold an API key');
    mode = info.mode;
    bytes = await readFile(file);
  } catch (error) {
    if (error instanceof OperationError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    refuse(
      'key_file_unreadable',
      `cannot be read (${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'error')})`,
    );
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    refuse(
      'key_file_exposed',
      `may be read by other users (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${file}`,
    );
  }
  const text = (bytes as Buffer).toString('utf8').replace(/\r?\n$/, '');
  if (!API_KEY_PATTERN.test(text))
    refuse('key_file_invalid', 'must hold one API key (svc_<tier>_ and base64url characters) and nothing else');
  return text;
}

async function readAnswer(response: Response): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw new AnchorServiceError(
      response.status,
      'answer_too_large',
      `The service's answer is ${declared} bytes; answers over ${MAX_ANSWER_BYTES} bytes are not read.`,
    );
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body !== null) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (total > MAX_ANSWER_BYTES) {
        await response.body.cancel().catch(() => undefined);
        throw new AnchorServiceError(
          response.status,
          'answer_too_large',
          `The service's answer is over ${MAX_ANSWER_BYTES} bytes; not read.`,
        );
      }
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks);
}

function parseAnswer(bytes: Uint8Array): JsonValue | undefined {
  try {
    return toPlain(parseJsonBytes(bytes));
  } catch (error) {
    if (error instanceof JsonParseError) return undefined;
    throw error;
  }
}

/** The error of a non-2xx answer: PROTOCOL 10's envelope when it is one. */
function errorOfAnswer(status: number, body: JsonValue | undefined): AnchorServiceError {
  const envelope = typeof body === 'object' && body !== null && !Array.isArray(body) ? body['error'] : undefined;
  if (
    typeof envelope === 'object' &&
    envelope !== null &&
    !Array.isArray(envelope) &&
    typeof envelope['code'] === 'string' &&
    typeof envelope['message'] === 'string'
  ) {
    const rawDetails = Array.isArray(envelope['details']) ? envelope['details'] : [];
    const details = rawDetails
      .filter(
        (item): item is { [name: string]: JsonValue } =>
          typeof item === 'object' && item !== null && !Array.isArray(item),
      )
      .map((item) => ({
        path: typeof item['path'] === 'string' ? item['path'] : '',
        message: typeof item['message'] === 'string' ? item['message'] : '',
      }));
    const where =
      details.length > 0 ? ` (${details.map((detail) => `${detail.path || '/'}: ${detail.message}`).join('; ')})` : '';
    return new AnchorServiceError(
      status,
      envelope['code'],
      `The service answered ${status} ${envelope['code']}: ${envelope['message']}${where}`,
      details,
    );
  }
  return new AnchorServiceError(
    status,
    'unexpected_answer',
    `The service answered HTTP ${status} without PROTOCOL 10's error body.`,
  );
}

/**
 * Whether a text has the form of an API key as the service issues it (`svc_<tier>_...`).
 *
 * @param text - The text (never printed).
 */
export function isApiKey(text: string): boolean {
  return typeof text === 'string' && API_KEY_PATTERN.test(text);
}

/**
 * One call to the service, the rules of this module applied (no redirect, 1 MiB, time limit,
 * PROTOCOL 10 errors): the answer's status, bytes, content type and strict-JSON body (undefined
 * when it is not JSON). For the other clients of the service (logs).
 *
 * @throws AnchorServiceError for no answer, a redirect, an error answer or one over 1 MiB
 */
export async function serviceCall(
  url: string,
  init: RequestInit,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<{ status: number; body: JsonValue | undefined; bytes: Uint8Array; contentType: string }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const detail =
      typeof cause?.code === 'string'
        ? cause.code
        : typeof cause?.message === 'string'
          ? cause.message
          : (error as Error).message;
    const why = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : detail;
    throw new AnchorServiceError(
      0,
      'service_unreachable',
      `The service at ${new URL(url).origin} could not be reached: ${why}.`,
    );
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => undefined);
    throw new AnchorServiceError(
      response.status,
      'redirected',
      `The service answered ${response.status}, a redirect to ${response.headers.get('location') ?? 'nowhere'}; redirects are not followed (give the final URL).`,
    );
  }
  const bytes = await readAnswer(response);
  const body = parseAnswer(bytes);
  if (response.status < 200 || response.status >= 300) throw errorOfAnswer(response.status, body);
  return { status: response.status, body, bytes, contentType: response.headers.get('content-type') ?? '' };
}

async function call(
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<{ status: number; body: JsonValue | undefined }> {
  const { status, body } = await serviceCall(url, init, timeoutMs);
  return { status, body };
}

/**
 * `GET {base}{path}` without a key: the answer's status and strict-JSON body (undefined when it
 * is not JSON). For the other clients of the service (payments).
 *
 * @throws AnchorServiceError for no answer, a redirect, an error answer or one over 1 MiB
 */
export function serviceGet(
  base: string,
  path: string,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<{ status: number; body: JsonValue | undefined }> {
  return call(`${base}${path}`, { method: 'GET', headers: { accept: 'application/json' } }, timeoutMs);
}

function checkRecord(status: number, body: JsonValue | undefined, suffix: string): ServiceAnchorRecord {
  if (body === undefined)
    throw new AnchorServiceError(
      status,
      'unexpected_answer',
      `The service answered ${status} with a body that is not strict JSON.`,
    );
  const read = readAnchorRecord(body);
  if (read.status === 'invalid') {
    throw new AnchorServiceError(
      status,
      'unexpected_answer',
      `The service's answer is not an anchor record: at ${read.path || '/'}: ${read.message}`,
    );
  }
  if (read.record.suffix !== suffix) {
    throw new AnchorServiceError(
      status,
      'unexpected_answer',
      `The service answered with the record ${read.record.svc_anchor}, which is not for this digest (suffix ${suffix}).`,
    );
  }
  return { status: read.status, record: body as { [name: string]: JsonValue } };
}

/**
 * Submits a receipt's digest for anchoring: `POST {api}/v1/anchor`.
 *
 * @param options - The service, the API key and the digest.
 * @returns The pending record the service answered (202 in PROTOCOL 8; any 2xx is read).
 * @throws OperationError (invalid_input) for a bad URL or digest; AnchorServiceError for an error
 *   answer, no answer, or an answer that is not this digest's pending record.
 */
export async function submitAnchor(
  options: AnchorServiceOptions & { apiKey: string; digest: Uint8Array },
): Promise<ServiceAnchorRecord> {
  if (!(options.digest instanceof Uint8Array) || options.digest.length !== 32)
    throw new RangeError('submitAnchor expects the 32-byte digest');
  if (typeof options.apiKey !== 'string' || !API_KEY_PATTERN.test(options.apiKey))
    throw new RangeError('submitAnchor expects an API key svc_<tier>_...');
  const base = checkApiUrl(options.apiUrl, true);
  const { status, body } = await call(
    `${base}/v1/anchor`,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ canonical_sha256: b64uEncode(options.digest) }),
    },
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  // PROTOCOL 8 answers a submission with the pending record; a resolved one (the digest was
  // anchored before) is accepted as it is: both name this digest.
  return checkRecord(status, body, anchorSuffix(options.digest));
}

/**
 * Asks for an anchor's record: `GET {api}/v1/anchor/<urn>`.
 *
 * @param options - The service, the URN (pending or resolved) and optionally an API key.
 * @returns The record (pending, or resolved with its proof).
 * @throws OperationError (invalid_input) for a bad URL or URN; AnchorServiceError for an error
 *   answer, no answer, or an answer that is not a record of the same digest.
 */
export async function anchorStatus(
  options: AnchorServiceOptions & { urn: string; apiKey?: string },
): Promise<ServiceAnchorRecord> {
  const parsed = parseAnchorUrn(options.urn);
  if (parsed === undefined) {
    throw new OperationError(
      'invalid_input',
      'invalid_anchor_urn',
      `${JSON.stringify(options.urn)} is not an anchor URN (urn:svc:anchor:pending:<batch_id>:<suffix> or urn:svc:anchor:<network>:<block_height>:<tx_hash>:<suffix>).`,
    );
  }
  if (options.apiKey !== undefined && !API_KEY_PATTERN.test(options.apiKey))
    throw new RangeError('anchorStatus expects an API key svc_<tier>_...');
  const base = checkApiUrl(options.apiUrl, options.apiKey !== undefined);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
  const { status, body } = await call(
    `${base}/v1/anchor/${encodeURIComponent(options.urn)}`,
    { method: 'GET', headers },
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  return checkRecord(status, body, parsed.suffix);
}
