/**
 * The PostgreSQL pool and its migration runner against a real server (the test harness).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres';
import { LeaseLostError, StoreUnavailableError } from './errors';
import { SchemaTooNewError } from './pg-migrate';
import { PG_MIGRATIONS } from './pg-migrations/index';
import { assertFence, describePgUrl, openPgPool, type PgPool } from './pg-pool';

let server: TestPostgres;
const pools: PgPool[] = [];
beforeAll(async () => {
  server = await startTestPostgres();
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  await server?.stop();
});

async function open(url: string, options?: Parameters<typeof openPgPool>[1]): Promise<PgPool> {
  const pool = await openPgPool(url, options);
  pools.push(pool);
  return pool;
}

describe('describePgUrl', () => {
  it('names host:port/database and never the password', () => {
    expect(describePgUrl('postgres://evroom:s3cret@db.example:6543/service')).toBe('db.example:6543/service');
    expect(describePgUrl('postgresql://evroom:s3cret@db.example/service')).toBe('db.example:5432/service');
  });
  it('refuses what is not a PostgreSQL URL', () => {
    expect(() => describePgUrl('http://db.example/x')).toThrow(/not a PostgreSQL URL: it starts with http:/);
    expect(() => describePgUrl('db.example:5432')).toThrow(RangeError);
    expect(() => describePgUrl('nonsense')).toThrow(/not a URL/);
  });
});

describe('migrations', () => {
  it('migrates a fresh database once, even when several nodes start at once', async () => {
    const url = await server.createDatabase();
    const opened = await Promise.all([1, 2, 3, 4].map(() => open(url, { max: 2 })));
    const rows = await opened[0]!.read((reader) =>
      reader.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version'),
    );
    expect(rows.rows).toEqual(PG_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    const tables = await opened[1]!.read((reader) =>
      reader.query<{ tablename: string }>(
        "SELECT tablename FROM pg_tables WHERE tablename IN ('nodes', 'leases', 'service_keys') ORDER BY tablename",
      ),
    );
    expect(tables.rows.map((row) => row.tablename)).toEqual(['leases', 'nodes', 'service_keys']);
  });

  it('applies only what is missing, each migration in one transaction', async () => {
    const url = await server.createDatabase();
    const first = await open(url, {
      migrations: [
        ...PG_MIGRATIONS,
        { version: PG_MIGRATIONS.length + 1, name: 'extra', sql: 'CREATE TABLE extra (x INT)' },
      ],
    });
    const bad = {
      version: PG_MIGRATIONS.length + 2,
      name: 'bad',
      sql: 'CREATE TABLE half (x INT); SELECT nonsense_fn()',
    };
    const next = [
      ...PG_MIGRATIONS,
      { version: PG_MIGRATIONS.length + 1, name: 'extra', sql: 'CREATE TABLE extra (x INT)' },
      bad,
    ];
    await expect(openPgPool(url, { migrations: next })).rejects.toThrow(/nonsense_fn/);
    const { rows } = await first.read((reader) =>
      reader.query("SELECT (SELECT max(version) FROM schema_migrations) AS v, to_regclass('half') IS NULL AS no_half"),
    );
    expect(rows[0]).toEqual({ v: PG_MIGRATIONS.length + 1, no_half: true });
  });

  it('refuses a database migrated by a newer build, with a clear message', async () => {
    const url = await server.createDatabase();
    const pool = await open(url);
    await pool.write((writer) =>
      writer.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)"),
    );
    const attempt = openPgPool(url);
    await expect(attempt).rejects.toBeInstanceOf(SchemaTooNewError);
    await expect(attempt).rejects.toThrow(
      /schema is at version 99 \(future\), newer than this evroom knows .*Upgrade this node/,
    );
  });

  it('refuses a list with a gap (a defect of the build)', async () => {
    const url = await server.createDatabase();
    await expect(openPgPool(url, { migrations: [{ version: 2, name: 'x', sql: 'SELECT 1' }] })).rejects.toThrow(
      /migration 1 is missing/,
    );
  });
});

describe('transactions', () => {
  let pool: PgPool;
  beforeAll(async () => {
    pool = await open(await server.createDatabase());
    await pool.write((writer) => writer.query('CREATE TABLE t (id INT PRIMARY KEY, n BIGINT NOT NULL, b BYTEA)'));
  });

  it('reads cannot write', async () => {
    await expect(pool.read((reader) => reader.query('INSERT INTO t (id, n) VALUES (1, 1)'))).rejects.toThrow(
      /read-only transaction/,
    );
  });

  it('a write that throws writes nothing', async () => {
    await expect(
      pool.write(async (writer) => {
        await writer.query('INSERT INTO t (id, n) VALUES (2, 2)');
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    const { rowCount } = await pool.read((reader) => reader.query('SELECT 1 FROM t WHERE id = 2'));
    expect(rowCount).toBe(0);
  });

  it('answers BIGINT as numbers and BYTEA as bytes', async () => {
    await pool.write((writer) =>
      writer.query('INSERT INTO t (id, n, b) VALUES (3, $1, $2)', [1_764_000_000_123, Buffer.from([1, 2, 3])]),
    );
    const { rows } = await pool.read((reader) =>
      reader.query<{ n: number; b: Buffer; c: number }>(
        'SELECT n, b, (SELECT count(*) FROM t) AS c FROM t WHERE id = 3',
      ),
    );
    expect(rows[0]!.n).toBe(1_764_000_000_123);
    expect(rows[0]!.c).toBe(1);
    expect([...rows[0]!.b]).toEqual([1, 2, 3]);
    await expect(pool.read((reader) => reader.query('SELECT 9007199254740993::bigint AS big'))).rejects.toThrow(
      /beyond 2\^53/,
    );
  });

  it('retries a write that meets a serialization failure or a deadlock', async () => {
    let attempts = 0;
    await pool.write(async (writer) => {
      attempts += 1;
      if (attempts < 3)
        await writer.query(
          attempts === 1
            ? "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$"
            : "DO $$ BEGIN RAISE EXCEPTION 'deadlock' USING ERRCODE = '40P01'; END $$",
        );
      await writer.query('INSERT INTO t (id, n) VALUES (4, 4)');
    });
    expect(attempts).toBe(3);
    let forever = 0;
    await expect(
      pool.write(async (writer) => {
        forever += 1;
        await writer.query("DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$");
      }),
    ).rejects.toThrow('conflict');
    expect(forever).toBe(6);
  });

  it('serializable writes that truly conflict both land, one retried', async () => {
    await pool.write((writer) => writer.query('INSERT INTO t (id, n) VALUES (5, 0)'));
    let attempts = 0;
    let arrived = 0;
    let release: () => void = () => undefined;
    const bothRead = new Promise<void>((resolve) => (release = resolve));
    const increment = (): Promise<void> =>
      pool.write(
        async (writer) => {
          attempts += 1;
          const { rows } = await writer.query<{ n: number }>('SELECT n FROM t WHERE id = 5');
          arrived += 1;
          if (arrived === 2) release();
          if (arrived <= 2) await bothRead;
          await writer.query('UPDATE t SET n = $1 WHERE id = 5', [rows[0]!.n + 1]);
        },
        { isolation: 'serializable' },
      );
    await Promise.all([increment(), increment()]);
    const { rows } = await pool.read((reader) => reader.query<{ n: number }>('SELECT n FROM t WHERE id = 5'));
    expect(rows[0]!.n).toBe(2);
    expect(attempts).toBe(3);
  });
});

describe('assertFence', () => {
  it('passes with the current fence and throws LeaseLostError, writing nothing, with an old one', async () => {
    const pool = await open(await server.createDatabase());
    await pool.write((writer) =>
      writer.query("INSERT INTO leases (name, holder, fence, expires_at) VALUES ('anchoring', 'node-b', 3, 0)"),
    );
    await pool.write(async (writer) => {
      await assertFence(writer, { name: 'anchoring', holder: 'node-b', fence: 3, expiresAt: 0 });
      await writer.query("INSERT INTO service_keys VALUES ('ok', 'k', 0, 'node-b')");
    });
    const stale = pool.write(async (writer) => {
      await writer.query("INSERT INTO service_keys VALUES ('stale', 'k', 0, 'node-a')");
      await assertFence(writer, { name: 'anchoring', holder: 'node-a', fence: 2, expiresAt: 0 });
    });
    await expect(stale).rejects.toBeInstanceOf(LeaseLostError);
    await expect(stale).rejects.toThrow(/anchoring lease is no longer held with fence 2 \(now node-b, fence 3\)/);
    await expect(
      pool.write((writer) => assertFence(writer, { name: 'payments', holder: 'node-a', fence: 1, expiresAt: 0 })),
    ).rejects.toBeInstanceOf(LeaseLostError);
    const { rows } = await pool.read((reader) => reader.query<{ role: string }>('SELECT role FROM service_keys'));
    expect(rows.map((row) => row.role)).toEqual(['ok']);
  });
});

describe('the database down', () => {
  it('is StoreUnavailableError (no password in it), and the pool recovers when it is back', async () => {
    const url = (await server.createDatabase()).replace('postgres@', 'postgres:s3cret@');
    const pool = await open(url, { connectTimeoutMs: 2000 });
    await pool.write((writer) => writer.query('CREATE TABLE r (x INT)'));
    await server.kill();
    try {
      const write = pool.write((writer) => writer.query('INSERT INTO r VALUES (1)'));
      await expect(write).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(write).rejects.toThrow(`The database at 127.0.0.1:${server.port}/`);
      await expect(write).rejects.not.toThrow(/s3cret/);
      await expect(pool.read((reader) => reader.query('SELECT 1'))).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(openPgPool(url, { connectTimeoutMs: 2000 })).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await server.start();
    }
    await pool.write((writer) => writer.query('INSERT INTO r VALUES (2)'));
    const { rows } = await pool.read((reader) => reader.query<{ x: number }>('SELECT x FROM r'));
    expect(rows).toEqual([{ x: 2 }]);
  });

  it('a server gone while a transaction holds its connection between queries is no uncaught error', async () => {
    const pool = await open(await server.createDatabase());
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let began: () => void = () => undefined;
    const begun = new Promise<void>((resolve) => (began = resolve));
    const write = pool.write(async (writer) => {
      await writer.query('SELECT 1');
      began();
      await gate; // the connection is checked out, no query in flight
      await writer.query('SELECT 2');
    });
    const settled = write.then(
      () => 'committed',
      (error: unknown) => error,
    );
    await begun;
    await server.kill();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the connection's end arrives now
      release();
      expect(await settled).toBeInstanceOf(StoreUnavailableError);
    } finally {
      await server.start();
    }
    // The broken connection went back discarded: the next transaction works.
    await expect(pool.read((reader) => reader.query('SELECT 3 AS n'))).resolves.toMatchObject({ rows: [{ n: 3 }] });
  });

  it('a restart between transactions goes unnoticed (dropped idle connections are replaced)', async () => {
    const pool = await open(await server.createDatabase());
    await pool.read((reader) => reader.query('SELECT 1'));
    await server.restart();
    await expect(pool.read((reader) => reader.query<{ one: number }>('SELECT 1 AS one'))).resolves.toEqual({
      rows: [{ one: 1 }],
      rowCount: 1,
    });
  });
});
