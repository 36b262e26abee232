/**
 * PostgreSQL through node-postgres: one pool per service node, and the branded handles the
 * PostgreSQL adapters run their SQL on (STYLE "The database in one place": a read path cannot
 * write). docs/deploy.md ("The PostgreSQL store") says what the pool promises.
 *
 * - Every {@link PgPool.read} and {@link PgPool.write} is one transaction on one connection.
 * - A write that meets a serialization failure (40001) or a deadlock (40P01) runs again from the
 *   start, a few times; the function passed must therefore do nothing but SQL on its writer.
 * - A database that cannot be reached (refused, reset, shutting down, starting up, any 08xxx)
 *   is a {@link StoreUnavailableError}; PostgreSQL's atomicity means the transaction wrote nothing
 *   (except when the connection died while COMMIT was on its way: then it may have committed).
 * - BIGINT (and COUNT) columns come back as JavaScript numbers (ms times, counters, fences:
 *   all safe integers); a value beyond 2^53 is an error, never a silently rounded number.
 *   BYTEA comes back as a Buffer, as better-sqlite3 returns BLOBs.
 */
import pg from 'pg';
import type { Lease } from './cluster';
import { LeaseLostError, StoreUnavailableError } from './errors';
import { migratePg } from './pg-migrate';
import { PG_MIGRATIONS, type PgMigration } from './pg-migrations/index';
import { describePgUrl } from './pg-url';

export { describePgUrl } from './pg-url';

declare const readBrand: unique symbol;
declare const writeBrand: unique symbol;

/** What a query answers. */
export interface PgResult<Row> {
  rows: Row[];
  rowCount: number;
}

/** A connection inside a read-only transaction (`BEGIN READ ONLY`): it can only read. */
export interface PgReader {
  readonly [readBrand]: true;
  /** Runs one statement with `$1`… parameters. */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<PgResult<Row>>;
}

/** A connection inside a read-write transaction: everything it writes commits together or not at all. */
export interface PgWriter extends PgReader {
  readonly [writeBrand]: true;
}

/** How a transaction sees the others. */
export type PgIsolation = 'read committed' | 'repeatable read' | 'serializable';

/** The service node's pool. */
export interface PgPool {
  /**
   * Runs `fn` in one read-only transaction (default isolation repeatable read: one snapshot).
   *
   * @throws StoreUnavailableError when the database cannot be reached
   */
  read<T>(fn: (reader: PgReader) => Promise<T>, options?: { isolation?: PgIsolation }): Promise<T>;
  /**
   * Runs `fn` in one read-write transaction (default isolation read committed); retried from
   * the start, up to a few times, on a serialization failure or a deadlock, so `fn` must do
   * nothing but SQL on `writer`.
   *
   * @throws StoreUnavailableError when the database cannot be reached; whatever `fn` throws
   */
  write<T>(fn: (writer: PgWriter) => Promise<T>, options?: { isolation?: PgIsolation }): Promise<T>;
  /** Ends every connection (idempotent). */
  close(): Promise<void>;
}

/** Options of {@link openPgPool} (tests and the benchmark; the service takes the defaults). */
export interface PgPoolOptions {
  /** Connections at most (default 10). */
  max?: number;
  /** How long a connection attempt may take before the store is unavailable (default 5000 ms). */
  connectTimeoutMs?: number;
  /** The schema's migrations (default: every one this build knows). */
  migrations?: readonly PgMigration[];
}

const ISOLATIONS: readonly PgIsolation[] = ['read committed', 'repeatable read', 'serializable'];
/** Attempts of a write that keeps meeting serialization failures or deadlocks. */
const WRITE_ATTEMPTS = 6;

/** Whether an error of node-postgres means the database could not be reached (rule 7 of the brief). */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (
      [
        'ECONNREFUSED',
        'ECONNRESET',
        'ETIMEDOUT',
        'EPIPE',
        'ENOTFOUND',
        'EAI_AGAIN',
        'EHOSTUNREACH',
        'ENETUNREACH',
      ].includes(code)
    )
      return true;
    // admin_shutdown, crash_shutdown, cannot_connect_now, and the connection exceptions (08xxx)
    if (code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('08')) return true;
    // The database refuses this node (a wrong password, no such database or role): to a node
    // it is as unreachable, and the message (never the password) says why.
    if (code.startsWith('28') || code === '3D000') return true;
  }
  return /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed and is not queryable/i.test(
    error.message,
  );
}

function unavailable(where: string, error: unknown): StoreUnavailableError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`The database at ${where} is unavailable: ${reason}`, { cause: error });
}

/** BIGINT as a JavaScript number; beyond 2^53 is an error rather than a rounded value. */
function parseBigint(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`a BIGINT beyond 2^53 came back from PostgreSQL: ${text}`);
  return value;
}

const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? parseBigint
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

type Client = pg.PoolClient;

function handle<H>(client: Client): H {
  return {
    query: async (text: string, params?: readonly unknown[]) => {
      const result = await client.query(text, params as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
  } as H;
}

function checkIsolation(isolation: PgIsolation): string {
  if (!ISOLATIONS.includes(isolation)) throw new RangeError(`unknown isolation level: ${String(isolation)}`);
  return isolation.toUpperCase();
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Opens the pool and brings the schema up to date (pg-migrate.ts).
 *
 * @param url - `postgres://user:password@host:port/database` (never logged with its password).
 * @throws RangeError when `url` is not a PostgreSQL URL; StoreUnavailableError when the database
 *   cannot be reached; Error when the database's schema is newer than this build
 */
export async function openPgPool(url: string, options: PgPoolOptions = {}): Promise<PgPool> {
  const where = describePgUrl(url);
  const max = options.max ?? 10;
  if (!Number.isSafeInteger(max) || max < 1 || max > 1000) throw new RangeError('openPgPool: max must be 1 to 1000');
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    application_name: 'evroom',
    types,
  });
  // An idle connection the server dropped (a restart) is reported here; the pool discards it and
  // the next transaction opens a new one. Without a listener the process would crash.
  pool.on('error', () => undefined);

  /** A connection; connection failures become StoreUnavailableError. */
  const connect = async (): Promise<Client> => {
    try {
      return await pool.connect();
    } catch (error) {
      throw isConnectionFailure(error) ? unavailable(where, error) : error;
    }
  };

  /**
   * One transaction: BEGIN, fn, COMMIT. A connection that broke is discarded, not returned to
   * the pool. A stale pooled connection found dead at BEGIN (nothing sent yet) is retried once.
   */
  const transaction = async <T>(begin: string, fn: (client: Client) => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt += 1) {
      const client = await connect();
      let broken: Error | undefined;
      // A connection that drops while checked out (the server restarting between two statements)
      // is reported as an 'error' event, which would crash the process unheard; the next
      // statement then fails as a connection failure, and the connection is discarded.
      const dropped = (error: Error): void => {
        broken = error;
      };
      client.on('error', dropped);
      try {
        try {
          await client.query(begin);
        } catch (error) {
          if (isConnectionFailure(error)) {
            broken = error as Error;
            if (attempt === 0) continue;
            throw unavailable(where, error);
          }
          throw error;
        }
        try {
          const result = await fn(client);
          await client.query('COMMIT');
          return result;
        } catch (error) {
          if (isConnectionFailure(error)) {
            broken = error as Error;
            throw unavailable(where, error);
          }
          try {
            await client.query('ROLLBACK');
          } catch (rollbackError) {
            broken = rollbackError as Error;
          }
          throw error;
        }
      } finally {
        client.off('error', dropped);
        client.release(broken);
      }
    }
  };

  const migrations = options.migrations ?? PG_MIGRATIONS;
  try {
    const client = await connect();
    let broken: Error | undefined;
    const dropped = (error: Error): void => {
      broken = error;
    };
    client.on('error', dropped);
    try {
      await migratePg(client, migrations);
    } catch (error) {
      if (isConnectionFailure(error)) {
        broken = error as Error;
        throw unavailable(where, error);
      }
      throw error;
    } finally {
      client.off('error', dropped);
      client.release(broken);
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }

  let closed: Promise<void> | undefined;
  return {
    read: (fn, { isolation = 'repeatable read' } = {}) =>
      transaction(`BEGIN ISOLATION LEVEL ${checkIsolation(isolation)} READ ONLY`, (client) =>
        fn(handle<PgReader>(client)),
      ),
    write: async (fn, { isolation = 'read committed' } = {}) => {
      const begin = `BEGIN ISOLATION LEVEL ${checkIsolation(isolation)} READ WRITE`;
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await transaction(begin, (client) => fn(handle<PgWriter>(client)));
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          if ((code === '40001' || code === '40P01') && attempt < WRITE_ATTEMPTS) {
            await sleep(Math.random() * 5 * 2 ** attempt);
            continue;
          }
          throw error;
        }
      }
    },
    close: () => (closed ??= pool.end()),
  };
}

/**
 * Inside a write under a lease: throws LeaseLostError (so the transaction writes nothing) unless
 * `lease.fence` is still the lease's current fence (cluster.ts). The lease's row stays share-locked
 * to the end of the transaction, so no other node can take the lease before it commits.
 */
export async function assertFence(writer: PgWriter, lease: Lease): Promise<void> {
  const { rows } = await writer.query<{ fence: number; holder: string }>(
    'SELECT fence, holder FROM leases WHERE name = $1 FOR SHARE',
    [lease.name],
  );
  const row = rows[0];
  if (row === undefined || row.fence !== lease.fence || row.holder !== lease.holder)
    throw new LeaseLostError(
      `The ${lease.name} lease is no longer held with fence ${lease.fence}` +
        (row === undefined ? '' : ` (now ${row.holder}, fence ${row.fence})`),
    );
}
