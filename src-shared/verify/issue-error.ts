/**
 * The one error an issuer throws for caller fields it refuses.
 */

/**
 * Caller input an issuer refuses: a stable `code` for programs, a JSON Pointer `path` into the
 * caller's fields (`''` when the refusal is about the fields as a whole or about the request),
 * and a message for people. Nothing was signed.
 */
export class IssueInputError extends Error {
  /** A stable code, e.g. `unknown_member`, `missing_member`, `inexact_number`. */
  readonly code: string;
  /** JSON Pointer into the caller's fields, `''` for the whole. */
  readonly path: string;

  /**
   * @param code - The stable code.
   * @param path - The JSON Pointer of the refused member or value (`''` for the whole).
   * @param message - What is wrong, for people, without the path (doors add it their way).
   */
  constructor(code: string, path: string, message: string) {
    super(message);
    this.name = 'IssueInputError';
    this.code = code;
    this.path = path;
  }
}
