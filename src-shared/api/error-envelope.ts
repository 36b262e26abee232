/**
 * The one error shape every door answers with: the CLI's `--json` output, local web mode's HTTP
 * body, the desktop app's IPC rejection and the HTTP service all carry `{code, message, details}`.
 *
 * `code` is stable and machine-readable (`unknown_key`, `zip_ratio_exceeded`, `invalid_request`);
 * `message` is one sentence for people; `details` holds the structured facts a caller may act on
 * (the zip entry concerned, a JSON Pointer, the field that was wrong), `{}` when there are none.
 */

/** The error every transport carries. */
export interface ErrorEnvelope {
  code: string;
  message: string;
  details: Record<string, string | number | boolean | null>;
}

/** The codes whose meaning every door shares (each domain adds its own, e.g. `unknown_key`). */
export const COMMON_ERROR_CODES = ['invalid_request', 'not_found', 'cancelled', 'internal'] as const;

/**
 * Whether a value has the envelope's shape (used by transports that receive one as plain JSON).
 *
 * @param value - Anything.
 * @returns True when it has a string code and message and an object of details.
 */
export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.code === 'string' &&
    typeof candidate.message === 'string' &&
    typeof candidate.details === 'object' &&
    candidate.details !== null &&
    !Array.isArray(candidate.details)
  );
}
