/**
 * The one error shape every door answers with: the CLI's `--json` output, local web mode's HTTP
 * body, the desktop app's IPC answer and the HTTP service all carry `{code, message, details}`
 * (PROTOCOL section 10).
 *
 * `code` is stable and machine-readable (`unknown_key`, `zip_ratio_exceeded`, `invalid_request`);
 * `message` is one sentence for people; `details` lists where the problem is, each with a `path`
 * (a JSON Pointer into the input, or the zip entry concerned) and what is wrong there; `[]` when
 * the message says it all. An `internal` error (a fault of ours, never its text) carries a
 * correlation id in `ref`, also in its message, that the log line of the door that answered
 * carries too.
 */

/** One place a problem was found. */
export interface ErrorDetail {
  /** A JSON Pointer into the request or file (`/public_key`), or a zip entry's name. */
  path: string;
  message: string;
}

/** The error every transport carries. */
export interface ErrorEnvelope {
  code: string;
  message: string;
  details: ErrorDetail[];
  /** For `internal` errors only: the correlation id the door's log line carries. */
  ref?: string;
}

/**
 * Whether a value has the envelope's shape (used by transports that receive one as plain JSON).
 *
 * @param value - Anything.
 * @returns True when it has a string code and message and an object of details.
 */
export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { code?: unknown; message?: unknown; details?: unknown };
  return (
    typeof candidate.code === 'string' &&
    typeof candidate.message === 'string' &&
    Array.isArray(candidate.details) &&
    candidate.details.every(
      (detail: unknown) =>
        typeof detail === 'object' &&
        detail !== null &&
        typeof (detail as ErrorDetail).path === 'string' &&
        typeof (detail as ErrorDetail).message === 'string',
    )
  );
}
