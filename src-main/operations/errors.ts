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
import { randomBytes } from 'node:crypto';
import { DomainError, type ErrorKind } from '../../src-shared/api/domain-error';
import type { ErrorEnvelope } from '../../src-shared/api/error-envelope';

export type { ErrorKind } from '../../src-shared/api/domain-error';

/** The HTTP status of each kind. */
export const HTTP_STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  invalid_input: 400,
  not_found: 404,
  forbidden: 403,
  refused: 422,
  conflict: 409,
  too_large: 413,
  cancelled: 409,
  too_many: 429,
  unavailable: 503,
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
export class OperationError extends DomainError {
  override readonly code: string;
  override readonly kind: ErrorKind;
  override readonly details: Details;
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

/** What a door keeps of an internal fault for its log; never sent. */
export interface InternalFault {
  /** The correlation id, also in the envelope the caller got. */
  ref: string;
  /** The original message. */
  message: string;
  /** The stack, when there is one. */
  stack: string | undefined;
}

/** The correlation id of each fault already described (one fault, one id, however often it is described). */
const REFS = new WeakMap<object, string>();

/** The generic message an internal fault is answered with. */
export const INTERNAL_MESSAGE = 'internal error';

/**
 * Any thrown value as the envelope and its kind.
 *
 * A {@link DomainError} (an {@link OperationError}, an input the contract refuses, a library's
 * refusal: TrustError, LedgerError, BundleError, ...) carries its code and message. Anything
 * else, a TypeError or RangeError included, is a fault of ours: the envelope is `internal` with
 * the message `internal error (ref ID)` and the correlation id in `ref`, and `internal` holds
 * the original message and stack for the door's log line, which must carry the same id. The
 * same error object described again gets the same id.
 *
 * @param error - What was caught.
 * @returns The envelope, its kind, and for internal faults what to log.
 */
export function describeError(error: unknown): { envelope: ErrorEnvelope; kind: ErrorKind; internal?: InternalFault } {
  if (error instanceof DomainError) {
    const code = error.code;
    const kind: ErrorKind =
      error.kind ?? (NOT_FOUND_CODES.has(code) ? 'not_found' : CONFLICT_CODES.has(code) ? 'conflict' : 'refused');
    const details = error.details
      ? error.details.map((detail) => ({ path: detail.path, message: detail.message }))
      : domainDetails(error);
    return { envelope: { code, message: error.message, details }, kind };
  }
  let ref = typeof error === 'object' && error !== null ? REFS.get(error) : undefined;
  if (ref === undefined) {
    ref = randomBytes(8).toString('hex');
    if (typeof error === 'object' && error !== null) REFS.set(error, ref);
  }
  return {
    envelope: { code: 'internal', message: `${INTERNAL_MESSAGE} (ref ${ref})`, details: [], ref },
    kind: 'internal',
    internal: {
      ref,
      message: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    },
  };
}

/**
 * The log line of an internal fault: its correlation id, then its stack (or message).
 *
 * @param fault - From {@link describeError}.
 * @returns One entry for a log (several lines when there is a stack).
 */
export function internalLogLine(fault: InternalFault): string {
  const stack = fault.stack !== undefined && fault.stack.includes(fault.message) ? fault.stack : undefined;
  return `internal error ref ${fault.ref}: ${stack ?? fault.message}`;
}
