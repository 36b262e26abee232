/**
 * A failure the user can fix: bad arguments, an unreadable file, an invalid key file.
 *
 * The CLI prints its message as one line (no stack trace) and exits with `exitCode`,
 * 2 for usage and I/O errors (PROTOCOL section 1).
 */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
