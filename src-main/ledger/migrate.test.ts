import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerError } from './errors';
import { checkMigrations } from './migrate';
import { LEDGER_APPLICATION_ID, MIGRATIONS, type Migration } from './migrations/index';
import { openLedger, openLedgerReadOnly } from './open-ledger';
import { makeTemporaryDirectory } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporaryFile(): string {
  const { directory, cleanup } = makeTemporaryDirectory();
  cleanups.push(cleanup);
  return path.join(directory, 'ledger.sqlite');
}

function errorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof LedgerError ? error.code : `not a LedgerError: ${String(error)}`;
  }
  return undefined;
}

function fileDigest(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

const initial = MIGRATIONS[0] as Migration;

describe('migrations', () => {
  it('creates every table on a fresh file and records the version', () => {
    const file = temporaryFile();
    const ledger = openLedger(file);
    cleanups.unshift(() => ledger.close());
    expect(ledger.schemaVersion).toBe(MIGRATIONS.length);
    const readable = ledger.readable;
    expect(readable.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(readable.pragma('application_id', { simple: true })).toBe(LEDGER_APPLICATION_ID);
    const tables = (
      readable.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    ).map((row) => row.name);
    for (const table of [
      'anchors',
      'audit_log',
      'bundles',
      'keys',
      'payment_cursors',
      'payments',
      'receipt_sources',
      'receipts',
      'receipts_fts',
    ]) {
      expect(tables).toContain(table);
    }
  });

  it('runs each migration once: re-opening applies nothing again and keeps the data', () => {
    const file = temporaryFile();
    let runs = 0;
    const counting: Migration = {
      version: 2,
      name: 'counting',
      up(database) {
        runs += 1;
        database.exec('CREATE TABLE extra (x INTEGER) STRICT');
      },
    };
    const list = [initial, counting];
    const first = openLedger(file, { migrations: list });
    first.writable.exec('INSERT INTO extra VALUES (7)');
    first.close();
    const second = openLedger(file, { migrations: list });
    expect(runs).toBe(1);
    expect(second.schemaVersion).toBe(2);
    expect(second.readable.prepare('SELECT x FROM extra').pluck().get()).toBe(7);
    second.close();
  });

  it('upgrades an older file step by step', () => {
    const file = temporaryFile();
    openLedger(file, { migrations: [initial] }).close();
    const second: Migration = {
      version: 2,
      name: 'second',
      up(database) {
        database.exec('CREATE TABLE second (x INTEGER) STRICT');
      },
    };
    const ledger = openLedger(file, { migrations: [initial, second] });
    expect(ledger.schemaVersion).toBe(2);
    ledger.close();
  });

  it('refuses a file newer than the code and leaves it untouched', () => {
    const file = temporaryFile();
    openLedger(file).close();
    const raw = new BetterSqlite3(file);
    raw.pragma('journal_mode = DELETE');
    raw.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    raw.close();
    const before = fileDigest(file);
    expect(errorCode(() => openLedger(file))).toBe('schema_too_new');
    expect(errorCode(() => openLedgerReadOnly(file))).toBe('schema_too_new');
    expect(fileDigest(file)).toBe(before);
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });

  it('checks the list for order, gaps and repeats', () => {
    const at = (version: number): Migration => ({ ...initial, version });
    expect(checkMigrations([])).toBe(0);
    expect(checkMigrations([at(1), at(2), at(3)])).toBe(3);
    expect(errorCode(() => checkMigrations([at(2)]))).toBe('bad_migrations');
    expect(errorCode(() => checkMigrations([at(1), at(1)]))).toBe('bad_migrations');
    expect(errorCode(() => checkMigrations([at(1), at(3)]))).toBe('bad_migrations');
    expect(errorCode(() => checkMigrations([at(2), at(1)]))).toBe('bad_migrations');
    expect(errorCode(() => checkMigrations([at(1.5)]))).toBe('bad_migrations');
  });

  it('refuses to open with a broken list before creating anything', () => {
    const file = temporaryFile();
    expect(errorCode(() => openLedger(file, { migrations: [{ ...initial, version: 2 }] }))).toBe('bad_migrations');
    expect(fs.existsSync(file)).toBe(false);
  });

  it('rolls a failing migration back completely', () => {
    const file = temporaryFile();
    const failing: Migration = {
      version: 2,
      name: 'failing',
      up(database) {
        database.exec('CREATE TABLE half_done (x INTEGER)');
        throw new Error('boom');
      },
    };
    expect(errorCode(() => openLedger(file, { migrations: [initial, failing] }))).toBe('migration_failed');
    const raw = new BetterSqlite3(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(1);
    expect(raw.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'half_done'").pluck().get()).toBe(0);
    raw.close();
  });

  it('refuses another program’s SQLite file and a file that is not SQLite', () => {
    const foreign = temporaryFile();
    const raw = new BetterSqlite3(foreign);
    raw.exec('CREATE TABLE contacts (name TEXT)');
    raw.close();
    const before = fileDigest(foreign);
    expect(errorCode(() => openLedger(foreign))).toBe('not_a_ledger');
    expect(fileDigest(foreign)).toBe(before);

    const text = temporaryFile();
    fs.writeFileSync(text, 'this is not a database, just some text that is long enough to have a header');
    expect(errorCode(() => openLedger(text))).toBe('not_a_ledger');
  });

  it('read-only open refuses a file that still needs migrating', () => {
    const file = temporaryFile();
    fs.writeFileSync(file, '');
    expect(errorCode(() => openLedgerReadOnly(file))).toBe('schema_outdated');
  });
});
