/**
 * The one mark of an error whose code and message are meant for the caller.
 *
 * Every door turns what it caught into the error envelope (`describeError` in
 * src-main/operations/errors.ts). Only a {@link DomainError} (an input the contract refuses, a
 * key file that cannot be used, a bundle the import refuses, a ledger that is busy, an operation's
 * refusal, ...) keeps its code and message there. Anything else, a TypeError from a defect
 * included, is a fault of ours: the caller sees `internal` with a generic message and a
 * correlation id, and only the door's log holds what happened.
 *
 * A library marks its errors by extending this class (it lives here, in the isomorphic layer, so
 * src-shared's errors can carry it as well as src-main's).
 */

/**
 * What kind of failure an error is, which each door maps to its own signal (HTTP status, exit
 * code).
 *
 * - `invalid_input`: the request itself is malformed (HTTP 400, exit 2).
 * - `not_found`: it names something that does not exist (404, exit 2).
 * - `forbidden`: the caller may not do this, e.g. its key's tier does not include it (403, exit 2).
 * - `refused`: well-formed, understood, and refused by a rule (422, exit 2).
 * - `conflict`: clashes with the current state, e.g. a key pinned with other bytes (409, exit 2).
 * - `too_large`: over a size limit (413, exit 2).
 * - `cancelled`: stopped on request (409, exit 2).
 * - `too_many`: a quota or rate is used up (429, exit 2).
 * - `unavailable`: something it needs is down for now, e.g. the service's database; try again
 *   shortly (503 with Retry-After, exit 2).
 * - `internal`: a fault of ours (500, exit 2).
 */
export type ErrorKind =
  | 'invalid_input'
  | 'not_found'
  | 'forbidden'
  | 'refused'
  | 'conflict'
  | 'too_large'
  | 'cancelled'
  | 'too_many'
  | 'unavailable'
  | 'internal';

/** One place a domain error points at, as the envelope's details carry it. */
export interface DomainErrorDetail {
  path: string;
  message: string;
}

/**
 * An error whose code and message go to the caller as they are.
 *
 * `message` is one sentence for people and must not hold secrets or internal detail. Subclasses
 * may say their {@link DomainError.kind} (otherwise the operations layer derives it from the
 * code) and their {@link DomainError.details}; a `path` (a JSON Pointer) or an `entry` (a zip
 * entry) member becomes the one detail when there are none.
 */
export abstract class DomainError extends Error {
  /** A stable machine-readable code (`unknown_key`, `zip_ratio_exceeded`, `invalid_request`). */
  abstract readonly code: string;
  /** What kind of failure this is; when absent, derived from the code. */
  declare readonly kind?: ErrorKind;
  /** Where the problems are, when the error lists them itself. */
  declare readonly details?: readonly DomainErrorDetail[];
}
