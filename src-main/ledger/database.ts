/**
 * Branded database handles and the few helpers that run queries on them.
 *
 * Following Signal Desktop, a function that only reads takes a {@link ReadableDB} and a function
 * that writes takes a {@link WritableDB}; the brands make it a type error to hand a read path
 * something it could write with. The ledger goes one step further: its readable handle is a
 * separate connection opened with SQLITE_OPEN_READONLY, so even raw SQL on it cannot write.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { LedgerError, toLedgerError } from './errors';
import type { SqlQuery, SqlValue } from './sql';

declare const readableBrand: unique symbol;
declare const writableBrand: unique symbol;

/** A connection that may be read from (and, as far as the types know, nothing else). */
export type ReadableDB = BetterSqlite3.Database & { readonly [readableBrand]: true };
/** A connection that may also be written to. Every WritableDB is also a ReadableDB. */
export type WritableDB = ReadableDB & { readonly [writableBrand]: true };

/** The result of a write: rows changed and the last inserted rowid. */
export interface WriteResult {
  changes: number;
  lastInsertRowid: number;
}

/**
 * Brand a connection as readable. Only the ledger's opener calls this.
 *
 * @internal
 */
export function brandReadable(database: BetterSqlite3.Database): ReadableDB {
  return database as ReadableDB;
}

/**
 * Brand a connection as writable. Only the ledger's opener calls this.
 *
 * @internal
 */
export function brandWritable(database: BetterSqlite3.Database): WritableDB {
  return database as WritableDB;
}

// Prepared statements are cached per connection: preparing is about as costly as a small
// insert, and an import runs the same few statements a million times. The texts are written
// by the program, so the set is small; the cap only guards against a future mistake.
const STATEMENT_CACHE_LIMIT = 256;
const statementCaches = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement<SqlValue[]>>>();

function prepare(database: BetterSqlite3.Database, text: string): BetterSqlite3.Statement<SqlValue[]> {
  if (!database.open) throw new LedgerError('closed', 'The ledger is closed.');
  let cache = statementCaches.get(database);
  if (cache === undefined) {
    cache = new Map();
    statementCaches.set(database, cache);
  }
  let statement = cache.get(text);
  if (statement === undefined) {
    if (cache.size >= STATEMENT_CACHE_LIMIT) cache.clear();
    statement = database.prepare<SqlValue[]>(text);
    cache.set(text, statement);
  }
  return statement;
}

function describe(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 48);
}

/**
 * Run a query and return every row.
 *
 * @param database - any readable handle
 * @param query - from the `sql` template
 * @returns the rows as plain objects
 * @throws LedgerError when SQLite fails
 */
export function queryAll<Row>(database: ReadableDB, query: SqlQuery): Row[] {
  const [text, params] = query;
  try {
    return prepare(database, text).all(...params) as Row[];
  } catch (error) {
    throw toLedgerError(error, describe(text));
  }
}

/**
 * Run a query and return its first row, if any.
 *
 * @throws LedgerError when SQLite fails
 */
export function queryOne<Row>(database: ReadableDB, query: SqlQuery): Row | undefined {
  const [text, params] = query;
  try {
    return prepare(database, text).get(...params) as Row | undefined;
  } catch (error) {
    throw toLedgerError(error, describe(text));
  }
}

/**
 * Run a statement that writes.
 *
 * @param database - a writable handle
 * @returns rows changed and the last inserted rowid
 * @throws LedgerError when SQLite fails (a broken constraint is code `constraint`)
 */
export function execute(database: WritableDB, query: SqlQuery): WriteResult {
  const [text, params] = query;
  try {
    const result = prepare(database, text).run(...params);
    return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
  } catch (error) {
    throw toLedgerError(error, describe(text));
  }
}

/**
 * Run `fn` inside one transaction on a writable handle.
 *
 * The outermost call opens an IMMEDIATE transaction (it takes the write lock at once, so two
 * processes never deadlock upgrading a read lock); a nested call becomes a savepoint. When `fn`
 * throws, everything it wrote is rolled back and the error is rethrown.
 *
 * @param database - a writable handle
 * @param fn - the work; it receives the same handle
 * @returns what `fn` returns
 * @throws whatever `fn` throws; LedgerError when SQLite fails to begin or commit
 */
export function transaction<T>(database: WritableDB, fn: (database: WritableDB) => T): T {
  if (typeof fn !== 'function') throw new TypeError('transaction: fn must be a function');
  if (!database.open) throw new LedgerError('closed', 'The ledger is closed.');
  const wrapped = database.transaction(() => fn(database));
  try {
    return database.inTransaction ? wrapped() : wrapped.immediate();
  } catch (error) {
    throw toLedgerError(error, 'running a transaction');
  }
}

/**
 * The `EXPLAIN QUERY PLAN` of a query, one line per step (for tests and benchmarks).
 *
 * @returns the `detail` column of each plan row, in order
 */
export function explainQueryPlan(database: ReadableDB, query: SqlQuery): string[] {
  const [text, params] = query;
  const rows = database.prepare<SqlValue[]>(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[];
  return rows.map((row) => row.detail);
}

/**
 * A number that changes whenever any connection (this process's writer or another process)
 * has committed since it was last read on this connection (`PRAGMA data_version`), and the
 * writes this connection made itself. Callers cache what they read from the ledger against it.
 *
 * @returns an opaque string to compare for equality
 */
export function ledgerGeneration(database: ReadableDB): string {
  // A prepared statement: `pragma()` prepares anew on each call, which cost more than reading
  // the trust store this guards on a busy service.
  let statement = dataVersionStatements.get(database);
  if (statement === undefined) {
    statement = database.prepare('PRAGMA data_version').pluck();
    dataVersionStatements.set(database, statement);
  }
  return `${String(statement.get())}:${database.inTransaction ? 'tx' : ''}`;
}

const dataVersionStatements = new WeakMap<ReadableDB, BetterSqlite3.Statement>();
