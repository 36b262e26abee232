/**
 * The ledger's error type.
 *
 * Every failure the ledger reports to its callers (and through them to users) is a
 * `LedgerError` with a stable `code`, so the CLI and the app can print a specific sentence
 * rather than a SQLite stack trace. Wrong argument types and ranges stay `TypeError` and
 * `RangeError`, as everywhere in the project.
 */
import { DomainError } from '../../src-shared/api/domain-error';

/** Stable codes of {@link LedgerError}. */
export type LedgerErrorCode =
  /** The file's schema (`user_version`) is newer than this program: refuse to touch it. */
  | 'schema_too_new'
  /** A read-only open found a schema older than this program (it cannot migrate). */
  | 'schema_outdated'
  /** The migration list compiled into the program is out of order or has gaps. */
  | 'bad_migrations'
  /** A migration failed; its transaction was rolled back and the file is unchanged. */
  | 'migration_failed'
  /** The file is not an SQLite database (or is encrypted or damaged). */
  | 'not_a_ledger'
  /** The file or its directory cannot be opened, created or written. */
  | 'io_error'
  /** Another process held the database locked for longer than the busy timeout. */
  | 'busy'
  /** The ledger was already closed. */
  | 'closed'
  /** A paging cursor is malformed or belongs to another sort order. */
  | 'bad_cursor'
  /** A write broke a constraint of the schema (a CHECK, a foreign key, a uniqueness). */
  | 'constraint'
  /** Someone tried to change or remove an audit row. */
  | 'audit_append_only'
  /** A row the caller named does not exist. */
  | 'not_found'
  /** Any other SQLite failure. */
  | 'sqlite_error';

/**
 * A ledger failure with a stable machine code.
 *
 * @example
 * try { openLedger(file) } catch (error) {
 *   if (error instanceof LedgerError && error.code === 'schema_too_new') { ... }
 * }
 */
export class LedgerError extends DomainError {
  override readonly code: LedgerErrorCode;
  constructor(code: LedgerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LedgerError';
    this.code = code;
  }
}

interface SqliteLikeError {
  code: string;
  message: string;
}

function isSqliteError(error: unknown): error is SqliteLikeError {
  if (!(error instanceof Error)) return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_');
}

/**
 * Translate a better-sqlite3 error into a {@link LedgerError}; other errors pass unchanged.
 *
 * @param error - whatever was thrown
 * @param context - a few words naming what was being done, e.g. `inserting receipts`
 * @returns the error to rethrow
 */
export function toLedgerError(error: unknown, context: string): unknown {
  if (error instanceof LedgerError || !isSqliteError(error)) return error;
  const code = error.code;
  if (error.message.includes('audit_log is append-only')) {
    return new LedgerError('audit_append_only', 'The audit log is append-only: rows cannot be changed or removed.', {
      cause: error,
    });
  }
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code.startsWith('SQLITE_LOCKED')) {
    return new LedgerError('busy', `The ledger is locked by another process (${context}); try again.`, {
      cause: error,
    });
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_')) {
    return new LedgerError('not_a_ledger', `The file is not a readable ledger database (${context}).`, {
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_CONSTRAINT')) {
    return new LedgerError('constraint', `A ledger constraint was broken while ${context}: ${error.message}`, {
      cause: error,
    });
  }
  if (
    code.startsWith('SQLITE_CANTOPEN') ||
    code.startsWith('SQLITE_IOERR') ||
    code.startsWith('SQLITE_READONLY') ||
    code === 'SQLITE_PERM' ||
    code === 'SQLITE_FULL'
  ) {
    return new LedgerError(
      'io_error',
      `The ledger file could not be read or written while ${context}: ${error.message}`,
      {
        cause: error,
      },
    );
  }
  return new LedgerError('sqlite_error', `SQLite failed while ${context}: ${error.message}`, { cause: error });
}
