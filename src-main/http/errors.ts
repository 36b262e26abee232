/**
 * The service's errors: PROTOCOL section 10's body, `{"error": {code, message, details}}`, with
 * the envelope every door shares and the HTTP status of its kind.
 *
 * Nothing of an internal fault leaves the server: its message is "internal error (ref ID)", and
 * the original message and stack go to the request log only, under the same id.
 */
import type { ErrorDetail } from '../../src-shared/api/error-envelope';
import { describeError, HTTP_STATUS_OF_KIND, OperationError, type InternalFault } from '../operations/errors';
import { StoreUnavailableError } from '../operations/service-store';

/** What a client is told when the service's database is down (never where the database is). */
export const STORE_UNAVAILABLE_MESSAGE = 'The service’s database is unavailable for the moment; try again shortly.';

/** An error the service answers with a specific status and code (401, 403, 429, ...). */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;
  constructor(
    statusCode: number,
    code: string,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.code = code;
    this.details = options.details ?? [];
    this.headers = options.headers ?? {};
  }
}

/** The body of every error answer. */
export interface ServiceErrorBody {
  error: { code: string; message: string; details: ErrorDetail[]; ref?: string };
}

/** One problem Fastify's schema validation (of a path parameter or the query) found. */
interface ValidationProblem {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * A validation problem as a detail named by the request's own path (docs/service.md, "Errors"):
 * a query parameter `?name`, a path parameter `/name` (a JSON Pointer into the route's
 * parameters). Bodies are checked by the routes (body.ts), whose details are JSON Pointers into
 * the body.
 */
function validationDetail(problem: ValidationProblem, part: unknown): ErrorDetail {
  const params = problem.params ?? {};
  const named =
    typeof params['missingProperty'] === 'string'
      ? `/${params['missingProperty']}`
      : typeof params['additionalProperty'] === 'string'
        ? `/${params['additionalProperty']}`
        : (problem.instancePath ?? '');
  const name = named.replace(/^\//, '');
  const path = part === 'querystring' ? `?${name}` : named;
  let message = problem.message ?? 'is not valid';
  if (problem.keyword === 'enum' && Array.isArray(params['allowedValues']))
    message = `must be one of ${params['allowedValues'].join(', ')}`;
  else if (problem.keyword === 'pattern') message = 'is not in the form the route takes';
  else if (problem.keyword === 'additionalProperties') message = 'is not a parameter this route takes';
  return { path, message };
}

/** The status of Node's HTTP parser errors, which arrive before any route (clientError). */
function clientError(code: string): { status: number; code: string; message: string } | undefined {
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, code: 'headers_too_large', message: 'The request’s headers are larger than 16 KiB.' };
  // RFC 9110 section 9.1: a method the server does not recognize is 501.
  if (code === 'HPE_INVALID_METHOD')
    return { status: 501, code: 'not_implemented', message: 'The request method is not one this service knows.' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, code: 'request_timeout', message: 'The request did not arrive in time.' };
  if (code.startsWith('HPE_'))
    return { status: 400, code: 'invalid_request', message: 'The request is not valid HTTP/1.1.' };
  return undefined;
}

/**
 * Fastify's own errors (URLs, routing, body parsing, limits, path and query validation) and
 * Node's HTTP parser errors, as PROTOCOL 10 codes, with the details of a validation.
 */
function frameworkError(error: {
  statusCode?: unknown;
  code?: unknown;
  message?: unknown;
  validation?: unknown;
  validationContext?: unknown;
}): { status: number; code: string; message: string; details: ErrorDetail[] } | undefined {
  const status = typeof error.statusCode === 'number' ? error.statusCode : undefined;
  const code = typeof error.code === 'string' ? error.code : '';
  const plain = (status: number, code: string, message: string) => ({ status, code, message, details: [] });
  if (Array.isArray(error.validation)) {
    const details = (error.validation as ValidationProblem[]).map((problem) =>
      validationDetail(problem, error.validationContext),
    );
    return {
      status: 400,
      code: 'invalid_request',
      message: `The request does not fit the route: ${details.map((detail) => `${detail.path} ${detail.message}`).join('; ')}.`,
      details,
    };
  }
  const parser = clientError(code);
  if (parser !== undefined) return { ...parser, details: [] };
  if (code === 'FST_ERR_BAD_URL')
    return plain(400, 'invalid_request', 'The URL does not decode: each % must begin an escape of UTF-8 (%XX).');
  if (code === 'FST_ERR_MAX_PARAM_LENGTH')
    return plain(414, 'uri_too_long', 'A segment of the URL’s path is longer than any this service takes.');
  if (status === 413 || code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return plain(413, 'payload_too_large', 'The request body is larger than 1 MiB.');
  if (status === 415 || code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return plain(415, 'unsupported_media_type', 'The request body must be application/json.');
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return plain(400, 'invalid_request', 'The request body is empty; send a JSON document.');
  if (code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH')
    return plain(400, 'invalid_request', 'The Content-Length does not match the body.');
  if (status === 429) return plain(429, 'rate_limited', 'Too many requests from this address; wait and try again.');
  if (status !== undefined && status >= 400 && status < 500 && code.startsWith('FST_')) {
    return plain(
      status,
      status === 404 ? 'not_found' : 'invalid_request',
      typeof error.message === 'string' ? error.message : 'The request is not valid.',
    );
  }
  return undefined;
}

/**
 * Any error as the status, headers and body the service answers.
 *
 * @returns the status, extra headers, the body, and for internal faults what to log (the body
 *   carries only `internal error (ref ID)` and `ref`: the log line must carry the same id)
 */
export function errorAnswer(error: unknown): {
  status: number;
  headers: Record<string, string>;
  body: ServiceErrorBody;
  internal?: InternalFault;
} {
  // The database down (PostgreSQL restarting, unreachable): nothing was written; the client
  // tries again. The database's address stays in the operator's log, not the answer.
  if (error instanceof StoreUnavailableError)
    return {
      status: 503,
      headers: { 'retry-after': '1' },
      body: { error: { code: 'unavailable', message: STORE_UNAVAILABLE_MESSAGE, details: [] } },
    };
  if (error instanceof HttpError) {
    return {
      status: error.statusCode,
      headers: error.headers,
      body: { error: { code: error.code, message: error.message, details: error.details } },
    };
  }
  const framework =
    typeof error === 'object' && error !== null && !(error instanceof OperationError)
      ? frameworkError(error as Record<string, unknown>)
      : undefined;
  if (framework)
    return {
      status: framework.status,
      headers: {},
      body: { error: { code: framework.code, message: framework.message, details: framework.details } },
    };
  const { envelope, kind, internal } = describeError(error);
  return {
    status: HTTP_STATUS_OF_KIND[kind],
    headers: {},
    body: { error: envelope },
    ...(internal === undefined ? {} : { internal }),
  };
}
