import { afterEach, describe, expect, it } from 'vitest';
import { execute, explainQueryPlan, queryAll, queryOne, transaction } from './database';
import { LedgerError } from './errors';
import type { Ledger } from './open-ledger';
import { sql } from './sql';
import { makeTemporaryLedger } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): Ledger {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  made.ledger.writable.exec('CREATE TABLE t (x INTEGER NOT NULL CHECK (x >= 0)) STRICT');
  return made.ledger;
}

function values(ledger: Ledger): number[] {
  return queryAll<{ x: number }>(ledger.readable, sql`SELECT x FROM t ORDER BY x`).map((row) => row.x);
}

describe('database helpers', () => {
  it('runs parameterised reads and writes', () => {
    const ledger = temporary();
    expect(execute(ledger.writable, sql`INSERT INTO t (x) VALUES (${5})`)).toEqual({ changes: 1, lastInsertRowid: 1 });
    expect(queryOne<{ x: number }>(ledger.readable, sql`SELECT x FROM t WHERE x = ${5}`)).toEqual({ x: 5 });
    expect(queryOne(ledger.readable, sql`SELECT x FROM t WHERE x = ${6}`)).toBeUndefined();
  });

  it('turns SQLite failures into LedgerErrors with a code', () => {
    const ledger = temporary();
    try {
      execute(ledger.writable, sql`INSERT INTO t (x) VALUES (${-1})`);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(LedgerError);
      expect((error as LedgerError).code).toBe('constraint');
    }
    try {
      queryAll(ledger.readable, sql`SELECT nope FROM t`);
      expect.unreachable();
    } catch (error) {
      expect((error as LedgerError).code).toBe('sqlite_error');
    }
  });

  it('nests transactions as savepoints: an inner failure undoes only the inner work', () => {
    const ledger = temporary();
    transaction(ledger.writable, (database) => {
      execute(database, sql`INSERT INTO t (x) VALUES (${1})`);
      expect(() =>
        transaction(database, (inner) => {
          execute(inner, sql`INSERT INTO t (x) VALUES (${2})`);
          throw new Error('inner');
        }),
      ).toThrow('inner');
      execute(database, sql`INSERT INTO t (x) VALUES (${3})`);
    });
    expect(values(ledger)).toEqual([1, 3]);
  });

  it('an outer failure undoes the inner work too', () => {
    const ledger = temporary();
    expect(() =>
      transaction(ledger.writable, (database) => {
        transaction(database, (inner) => execute(inner, sql`INSERT INTO t (x) VALUES (${1})`));
        throw new Error('outer');
      }),
    ).toThrow('outer');
    expect(values(ledger)).toEqual([]);
  });

  it('explains query plans', () => {
    const ledger = temporary();
    expect(explainQueryPlan(ledger.readable, sql`SELECT x FROM t WHERE x = ${1}`)).toEqual(['SCAN t']);
  });
});
