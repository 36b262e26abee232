/**
 * Opening and closing the ledger file.
 *
 * One SQLite file in WAL mode, two connections: a write connection (migrations, every write,
 * transactions) and a read-only connection for everything that only reads. WAL lets the reader
 * see the last commit while a batch import is writing, and SQLITE_OPEN_READONLY makes the
 * readable handle unable to write even by mistake.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { brandReadable, brandWritable, transaction, type ReadableDB, type WritableDB } from './database';
import { LedgerError, toLedgerError } from './errors';
import { checkApplicationId, checkMigrations, migrate, refuseNewerSchema } from './migrate';
import { MIGRATIONS, type Migration } from './migrations/index';

/** How long a connection waits for another process's lock before failing with `busy`. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * Page cache per connection, in MiB. SQLite's default (2 MiB) is sized for phones; at a million
 * receipts the indexes are hundreds of MiB and a 64 MiB cache inserts about 40% faster
 * (measured, bench/ledger.ts). It is an upper bound, filled only as pages are read.
 */
export const DEFAULT_CACHE_MIB = 64;

/** Options of {@link openLedger}. */
export interface OpenLedgerOptions {
  /** Milliseconds to wait for a lock held by another process (default 5000). */
  busyTimeoutMs?: number;
  /** Page cache per connection in MiB (default 64). */
  cacheMiB?: number;
  /** The migration list; only tests pass anything but the default. */
  migrations?: readonly Migration[];
}

/** A ledger opened for reading only. */
export interface ReadOnlyLedger {
  /** The absolute path of the database file. */
  readonly file: string;
  /** The schema version (`user_version`) of the file. */
  readonly schemaVersion: number;
  /** The read-only connection; hand it to repository functions that read. */
  readonly readable: ReadableDB;
  /** True once {@link ReadOnlyLedger.close} ran. */
  readonly closed: boolean;
  /** Close every connection (runs `PRAGMA optimize` first). Calling it twice is harmless. */
  close(): void;
}

/** A ledger opened for reading and writing. */
export interface Ledger extends ReadOnlyLedger {
  /**
   * The write connection. Use it for single writes; group a batch with
   * {@link Ledger.runInTransaction}. Reads through it see the writer's own uncommitted rows.
   */
  readonly writable: WritableDB;
  /**
   * Run `fn` in one IMMEDIATE transaction on the write connection.
   *
   * Everything `fn` writes commits together or not at all: a throw (or a crash) leaves none of
   * it. Nested calls become savepoints. Batched imports call this once per batch.
   *
   * @throws whatever `fn` throws; LedgerError `busy` when another process holds the lock
   */
  runInTransaction<T>(fn: (database: WritableDB) => T): T;
}

function checkFileArgument(file: unknown, caller: string): string {
  if (typeof file !== 'string') throw new TypeError(`${caller}: file must be a string`);
  if (file.length === 0 || file === ':memory:') {
    throw new RangeError(`${caller}: file must name a file on disk`);
  }
  return path.resolve(file);
}

function checkCache(value: number | undefined): number {
  if (value === undefined) return DEFAULT_CACHE_MIB;
  if (!Number.isSafeInteger(value) || value < 1 || value > 4096) {
    throw new RangeError('openLedger: cacheMiB must be an integer from 1 to 4096');
  }
  return value;
}

function checkTimeout(value: number | undefined): number {
  if (value === undefined) return DEFAULT_BUSY_TIMEOUT_MS;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError('openLedger: busyTimeoutMs must be a non-negative integer');
  }
  return value;
}

/**
 * Create the file with mode 0600 before SQLite does (SQLite would use 0644 minus the umask),
 * and tighten an existing file that others could read. SQLite gives the -wal and -shm files
 * the main file's mode, so they follow.
 */
function prepareFile(file: string): void {
  try {
    fs.writeFileSync(file, '', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new LedgerError('io_error', `The ledger file ${file} cannot be created: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw new LedgerError('io_error', `The ledger path ${file} is not a file.`);
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) fs.chmodSync(file, stat.mode & 0o700);
  }
}

/** better-sqlite3's constructor, once loaded (see sqlite). */
let sqliteConstructor: typeof BetterSqlite3 | undefined;

/**
 * better-sqlite3, loaded on the first open rather than when this module is imported.
 *
 * Loading the native module costs tens of milliseconds, and `evroom verify` imports the ledger
 * for its trust store yet opens it only when the data folder has one (issue 16: start-up).
 */
function sqlite(): typeof BetterSqlite3 {
  sqliteConstructor ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return sqliteConstructor;
}

function connect(file: string, readonly: boolean, timeout: number, cacheMiB: number): BetterSqlite3.Database {
  let database: BetterSqlite3.Database;
  try {
    database = new (sqlite())(file, { readonly, fileMustExist: true, timeout });
  } catch (error) {
    throw toLedgerError(error, `opening ${file}`);
  }
  try {
    // A ledger file may come from elsewhere: do not let its schema call functions with side
    // effects (triggers and views may use only innocuous built-ins).
    database.pragma('trusted_schema = OFF');
    // Because foreign key support is not enabled by default!
    database.pragma('foreign_keys = ON');
    // A negative cache_size is in KiB; the value is a checked integer.
    database.pragma(`cache_size = -${cacheMiB * 1024}`);
    // Reading the schema is the first real read: it fails here, clearly, for a non-SQLite file.
    database.prepare('SELECT count(*) FROM sqlite_schema').get();
  } catch (error) {
    database.close();
    throw toLedgerError(error, `opening ${file}`);
  }
  return database;
}

function optimizeAndClose(database: BetterSqlite3.Database): void {
  if (!database.open) return;
  try {
    // Cheap: analyses only tables whose statistics are stale, so the planner keeps choosing
    // the paging indexes as the ledger grows.
    if (!database.readonly) database.pragma('optimize');
  } finally {
    database.close();
  }
}

/**
 * Open (creating when missing) the ledger file and migrate it to the newest schema.
 *
 * Sets WAL mode, `synchronous = FULL` (a committed import survives a power cut),
 * `foreign_keys = ON`, `trusted_schema = OFF`, the busy timeout and a 64 MiB page cache; runs
 * pending migrations;
 * then opens a second, read-only connection. A new file is created with mode 0600.
 *
 * @param file - path of the database file; its directory must exist
 * @param options - busy timeout; migrations (tests only)
 * @returns the open ledger; call `close()` when done
 * @throws LedgerError `schema_too_new` (file from a newer program: untouched), `not_a_ledger`,
 *   `bad_migrations`, `migration_failed`, `io_error`, `busy`
 */
export function openLedger(file: string, options: OpenLedgerOptions = {}): Ledger {
  const absolute = checkFileArgument(file, 'openLedger');
  const timeout = checkTimeout(options.busyTimeoutMs);
  const cacheMiB = checkCache(options.cacheMiB);
  const migrations = options.migrations ?? MIGRATIONS;
  const latest = checkMigrations(migrations);
  prepareFile(absolute);

  const writer = connect(absolute, false, timeout, cacheMiB);
  let reader: BetterSqlite3.Database | undefined;
  try {
    const writable = brandWritable(writer);
    checkApplicationId(writable);
    // Refuse a newer schema before anything writes to the file, WAL switch included.
    refuseNewerSchema(writable, latest);
    const mode = writer.pragma('journal_mode = WAL', { simple: true }) as string;
    if (mode.toLowerCase() !== 'wal') {
      throw new LedgerError('io_error', `The ledger could not switch to WAL mode (got "${mode}").`);
    }
    writer.pragma('synchronous = FULL');
    const { to } = migrate(writable, migrations);
    // Recommended for long-lived connections: analyse what needs it, within a time budget.
    writer.pragma('optimize = 0x10002');
    reader = connect(absolute, true, timeout, cacheMiB);
    const readable = brandReadable(reader);
    const readerConnection = reader;
    let closed = false;
    return {
      file: absolute,
      schemaVersion: to,
      readable,
      writable,
      get closed() {
        return closed;
      },
      runInTransaction<T>(fn: (database: WritableDB) => T): T {
        if (closed) throw new LedgerError('closed', 'The ledger is closed.');
        return transaction(writable, fn);
      },
      close(): void {
        if (closed) return;
        closed = true;
        try {
          optimizeAndClose(readerConnection);
        } finally {
          optimizeAndClose(writer);
        }
      },
    };
  } catch (error) {
    reader?.close();
    writer.close();
    throw toLedgerError(error, `opening ${absolute}`);
  }
}

/**
 * Open an existing ledger for reading only (a report, a second window, an export).
 *
 * It cannot migrate, so the file must already have exactly this program's schema.
 *
 * @param file - path of an existing ledger
 * @returns the open read-only ledger
 * @throws LedgerError `schema_too_new`, `schema_outdated`, `not_a_ledger`, `io_error`
 */
export function openLedgerReadOnly(file: string, options: Omit<OpenLedgerOptions, 'migrations'> = {}): ReadOnlyLedger {
  const absolute = checkFileArgument(file, 'openLedgerReadOnly');
  const timeout = checkTimeout(options.busyTimeoutMs);
  const cacheMiB = checkCache(options.cacheMiB);
  const latest = checkMigrations(MIGRATIONS);
  const reader = connect(absolute, true, timeout, cacheMiB);
  try {
    const readable = brandReadable(reader);
    checkApplicationId(readable);
    const version = refuseNewerSchema(readable, latest);
    if (version < latest) {
      throw new LedgerError(
        'schema_outdated',
        `The ledger has schema ${version} and needs upgrading to ${latest}; open it once for writing.`,
      );
    }
    let closed = false;
    return {
      file: absolute,
      schemaVersion: version,
      readable,
      get closed() {
        return closed;
      },
      close(): void {
        if (closed) return;
        closed = true;
        reader.close();
      },
    };
  } catch (error) {
    reader.close();
    throw toLedgerError(error, `opening ${absolute}`);
  }
}

/**
 * Page cache of a snapshot's connection, in MiB. An export reads each page about once, in order,
 * so a larger cache buys no speed (20,000 receipts: the same time with 1 and 8 MiB, within the
 * host's noise), and each snapshot fills and frees its own: with 8 MiB the service's soak, which
 * asks for evidence all the time, grew its threads' malloc arenas by 154 MB in a minute, with
 * 1 MiB by 6 MB.
 */
const SNAPSHOT_CACHE_MIB = 1;

/**
 * A read-only view of the ledger as it is at this moment, kept until it is closed: every read
 * through it sees that state, whatever is committed meanwhile (WAL's snapshot isolation). For
 * long reads that must be consistent with themselves, like an export of a ledger that is still
 * being written: a tenant's evidence while the service issues receipts would otherwise chase its
 * own tail, and counts and contents could disagree.
 *
 * It is a connection of its own, so the ledger's shared reader keeps seeing new commits. Close
 * it as soon as the reading is done: while it is open, checkpoints cannot move the WAL past its
 * snapshot, so the WAL file grows with whatever is written meanwhile.
 *
 * @param file - the path of an open ledger (its `file`)
 * @returns the view; call `close()` when done
 * @throws LedgerError as {@link openLedgerReadOnly}
 */
export function openReadSnapshot(
  file: string,
  options: Omit<OpenLedgerOptions, 'migrations' | 'cacheMiB'> = {},
): ReadOnlyLedger {
  const view = openLedgerReadOnly(file, { ...options, cacheMiB: SNAPSHOT_CACHE_MIB });
  const reader = view.readable;
  try {
    // A deferred transaction takes its snapshot at its first read: one row, not a count, which
    // would walk a whole index of a large ledger.
    reader.exec('BEGIN');
    reader.prepare('SELECT 1 FROM receipts LIMIT 1').get();
  } catch (error) {
    view.close();
    throw toLedgerError(error, `reading ${view.file}`);
  }
  let closed = false;
  return {
    file: view.file,
    schemaVersion: view.schemaVersion,
    readable: reader,
    get closed() {
      return closed;
    },
    close(): void {
      if (closed) return;
      closed = true;
      try {
        if (reader.inTransaction) reader.exec('COMMIT');
      } finally {
        view.close();
      }
    },
  };
}
