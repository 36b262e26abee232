/**
 * The operations layer's errors, and the one translation of any error into the envelope.
 *
 * Operations throw {@link OperationError} for what the caller got wrong or asked for that cannot
 * be done; the libraries below them throw their own domain errors (TrustError, LedgerError,
 * BundleError, ...). Every door (CLI, app API over IPC and HTTP, the HTTP service) turns whatever
 * it caught into `{code, message, details}` with {@link describeError} and only then decides its
 * own rendering: an exit code, an HTTP status, an IPC rejection. So one action gives one code
 * through every door.
 */
import type { ErrorEnvelope } from '../../src-shared/api/error-envelope';

/**
 * What kind of failure an error is, which each door maps to its own signal (HTTP status, exit
 * code).
 *
 * - `invalid_input`: the request itself is malformed (HTTP 400, exit 2).
 * - `not_found`: it names something that does not exist (404, exit 2).
 * - `refused`: well-formed, understood, and refused by a rule (422, exit 2).
 * - `conflict`: clashes with the current state, e.g. a key pinned with other bytes (409, exit 2).
 * - `too_large`: over a size limit (413, exit 2).
 * - `cancelled`: stopped on request (409, exit 2).
 * - `too_many`: a quota or rate is used up (429, exit 2).
 * - `internal`: a fault of ours; its message is not shown to remote callers (500, exit 2).
 */
export type ErrorKind =
  'invalid_input' | 'not_found' | 'refused' | 'conflict' | 'too_large' | 'cancelled' | 'too_many' | 'internal';

/** The HTTP status of each kind. */
export const HTTP_STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid_input: 400,
  not_found: 404,
  refused: 422,
  conflict: 409,
  too_large: 413,
  cancelled: 409,
  too_many: 429,
  internal: 500,
};

type Details = ErrorEnvelope['details'];

/** Facts a door may use to word an error its own way (the CLI's option names, say); not sent. */
export type ErrorFacts = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * A failure an operation reports to its caller, with a stable code. Nothing was changed.
 *
 * `details` go into the envelope; `facts` stay with the door. A `facts.path` (a JSON Pointer)
 * becomes the one detail when no details are given.
 */
export class OperationError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  readonly details: Details;
  readonly facts: ErrorFacts;
  constructor(
    kind: ErrorKind,
    code: string,
    message: string,
    options: { details?: Details; facts?: ErrorFacts; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OperationError';
    this.kind = kind;
    this.code = code;
    this.facts = options.facts ?? {};
    const path = this.facts['path'];
    this.details = options.details ?? (typeof path === 'string' ? [{ path, message }] : []);
  }
}

/** Codes of domain errors that mean "conflicts with the current state". */
const CONFLICT_CODES = new Set(['key_conflict', 'already_pinned', 'key_revoked', 'already_revoked', 'busy']);
/** Codes of domain errors that mean "names something that is not there". */
const NOT_FOUND_CODES = new Set(['unknown_key', 'not_found']);
/** Domain error classes (by name, so no door has to import every library) whose messages are for people. */
const DOMAIN_ERRORS = new Set([
  'TrustError',
  'LedgerError',
  'BundleError',
  'ExportError',
  'KeyFileError',
  'SigningKeyError',
  'AnchorsFileError',
  'WearableInputError',
  'PrivateKeyFileError',
  'AuditorKeyError',
]);

/**
 * Where a domain error points, as details: a zip `entry` (with the JSON Pointer inside it when
 * the error has one, as manifest errors do), else the JSON Pointer `path` of a key file or an
 * input.
 */
function domainDetails(error: Error): Details {
  const facts = error as unknown as { entry?: unknown; path?: unknown };
  const entry = typeof facts.entry === 'string' ? facts.entry : undefined;
  const pointer = typeof facts.path === 'string' ? facts.path : undefined;
  if (entry !== undefined) return [{ path: pointer ? `${entry}#${pointer}` : entry, message: error.message }];
  if (pointer !== undefined) return [{ path: pointer, message: error.message }];
  return [];
}

/**
 * Any thrown value as the envelope and its kind.
 *
 * Errors of ours carry their code and message. A TypeError or RangeError thrown by an exported
 * function's input checks is `invalid_request`. Anything else is `internal`, and its message is
 * kept only in `internalMessage` for local logs: a remote caller sees "internal error".
 *
 * @param error - What was caught.
 * @returns The envelope, its kind, and for internal faults the original message.
 */
export function describeError(error: unknown): { envelope: ErrorEnvelope; kind: ErrorKind; internalMessage?: string } {
  if (error instanceof OperationError) {
    return { envelope: { code: error.code, message: error.message, details: error.details }, kind: error.kind };
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (error.name === 'ApiInputError') {
      return {
        envelope: { code: 'invalid_request', message: error.message, details: domainDetails(error) },
        kind: 'invalid_input',
      };
    }
    if (DOMAIN_ERRORS.has(error.name) && typeof code === 'string') {
      const kind: ErrorKind = NOT_FOUND_CODES.has(code)
        ? 'not_found'
        : CONFLICT_CODES.has(code)
          ? 'conflict'
          : 'refused';
      return { envelope: { code, message: error.message, details: domainDetails(error) }, kind };
    }
    if (error.name === 'ImportCancelledError') {
      return { envelope: { code: 'cancelled', message: error.message, details: [] }, kind: 'cancelled' };
    }
    if (error instanceof TypeError || error instanceof RangeError) {
      return { envelope: { code: 'invalid_request', message: error.message, details: [] }, kind: 'invalid_input' };
    }
    return {
      envelope: { code: 'internal', message: 'internal error', details: [] },
      kind: 'internal',
      internalMessage: error.message,
    };
  }
  return {
    envelope: { code: 'internal', message: 'internal error', details: [] },
    kind: 'internal',
    internalMessage: String(error),
  };
}
