/**
 * The service's errors: PROTOCOL section 10's body, `{"error": {code, message, details}}`, with
 * the envelope every door shares and the HTTP status of its kind.
 *
 * Nothing of an internal fault leaves the server: its message is "internal error (ref ID)", and
 * the original message and stack go to the request log only, under the same id.
 */
import type { ErrorDetail } from '../../src-shared/api/error-envelope';
import { describeError, HTTP_STATUS_OF_KIND, OperationError, type InternalFault } from '../operations/errors';

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

/** Fastify's own errors (body parsing, limits, routing) as PROTOCOL 10 codes. */
function frameworkError(error: {
  statusCode?: unknown;
  code?: unknown;
  message?: unknown;
}): { status: number; code: string; message: string } | undefined {
  const status = typeof error.statusCode === 'number' ? error.statusCode : undefined;
  const code = typeof error.code === 'string' ? error.code : '';
  if (status === 413 || code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return { status: 413, code: 'payload_too_large', message: 'The request body is larger than 1 MiB.' };
  if (status === 415 || code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return { status: 415, code: 'unsupported_media_type', message: 'The request body must be application/json.' };
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return { status: 400, code: 'invalid_request', message: 'The request body is empty; send a JSON document.' };
  if (code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH')
    return { status: 400, code: 'invalid_request', message: 'The Content-Length does not match the body.' };
  if (status === 429)
    return { status: 429, code: 'rate_limited', message: 'Too many requests from this address; wait and try again.' };
  if (status !== undefined && status >= 400 && status < 500 && code.startsWith('FST_')) {
    return {
      status,
      code: status === 404 ? 'not_found' : 'invalid_request',
      message: typeof error.message === 'string' ? error.message : 'The request is not valid.',
    };
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
      body: { error: { code: framework.code, message: framework.message, details: [] } },
    };
  // Fastify's schema validation: each problem with its JSON Pointer.
  const validation = (error as { validation?: { instancePath?: string; message?: string }[] } | null)?.validation;
  if (Array.isArray(validation)) {
    const details = validation.map((item) => ({
      path: item.instancePath ?? '',
      message: item.message ?? 'is not valid',
    }));
    return {
      status: 400,
      headers: {},
      body: { error: { code: 'invalid_request', message: 'The request does not fit the route’s schema.', details } },
    };
  }
  const { envelope, kind, internal } = describeError(error);
  return {
    status: HTTP_STATUS_OF_KIND[kind],
    headers: {},
    body: { error: envelope },
    ...(internal === undefined ? {} : { internal }),
  };
}
