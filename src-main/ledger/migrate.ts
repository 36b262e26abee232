/**
 * The migration runner.
 *
 * The schema version lives in SQLite's `user_version`. Opening runs every migration newer than
 * the file, each in its own transaction together with its `user_version` update, and refuses a
 * file whose version is newer than the newest migration this program knows (an older program
 * must never write to a newer schema).
 */
import { LedgerError } from './errors';
import { transaction, type ReadableDB, type WritableDB } from './database';
import { LEDGER_APPLICATION_ID, MIGRATIONS, type Migration } from './migrations/index';

/**
 * Check that a migration list is numbered 1, 2, 3, ... in order with no gaps or repeats.
 *
 * @param migrations - the list to check
 * @returns the newest version in the list (0 for an empty list)
 * @throws LedgerError `bad_migrations` naming the first entry out of place
 */
export function checkMigrations(migrations: readonly Migration[]): number {
  if (!Array.isArray(migrations)) throw new TypeError('checkMigrations: migrations must be an array');
  migrations.forEach((migration, index) => {
    const expected = index + 1;
    if (!Number.isSafeInteger(migration.version) || migration.version !== expected) {
      throw new LedgerError(
        'bad_migrations',
        `Migration list is broken: entry ${index} ("${migration.name}") has version ${String(migration.version)}, expected ${expected}.`,
      );
    }
    if (typeof migration.up !== 'function') {
      throw new LedgerError('bad_migrations', `Migration ${expected} ("${migration.name}") has no up function.`);
    }
  });
  return migrations.length;
}

/**
 * The schema version recorded in the file (`PRAGMA user_version`).
 *
 * @param database - any handle
 * @returns 0 for a new, empty file
 */
export function readSchemaVersion(database: ReadableDB): number {
  return database.pragma('user_version', { simple: true }) as number;
}

/**
 * Refuse a file that is some other program's SQLite database.
 *
 * A ledger carries our `application_id`. A file with no application id and no tables is new
 * (an empty file is a valid empty database) and may be initialised; anything else is not ours,
 * and migrating it would add our tables to someone else's data.
 *
 * @throws LedgerError `not_a_ledger`
 */
export function checkApplicationId(database: ReadableDB): void {
  const applicationId = database.pragma('application_id', { simple: true }) as number;
  if (applicationId === LEDGER_APPLICATION_ID) return;
  const tables = database.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number };
  if (applicationId === 0 && tables.n === 0 && readSchemaVersion(database) === 0) return;
  throw new LedgerError(
    'not_a_ledger',
    `The file is an SQLite database but not an Evidence Room ledger (application_id ${applicationId}).`,
  );
}

/**
 * Refuse a file whose schema is newer than this program knows.
 *
 * @param database - any handle
 * @param latest - the newest version this program has a migration for
 * @returns the file's version, when it is not newer
 * @throws LedgerError `schema_too_new`
 */
export function refuseNewerSchema(database: ReadableDB, latest: number): number {
  const version = readSchemaVersion(database);
  if (version > latest) {
    throw new LedgerError(
      'schema_too_new',
      `The ledger was written by a newer version of Evidence Room (schema ${version}; this program knows up to ${latest}). Update the program; the file was not changed.`,
    );
  }
  return version;
}

/**
 * Bring a database up to the newest schema.
 *
 * Each pending migration runs in its own IMMEDIATE transaction; the version is re-read under
 * that lock, so two processes opening the same new file cannot both apply a step.
 *
 * @param database - the write connection
 * @param migrations - the list (tests pass their own); checked first
 * @returns the versions before and after
 * @throws LedgerError `bad_migrations`, `schema_too_new`, or `migration_failed` (that step
 *   rolled back, earlier steps kept)
 */
export function migrate(
  database: WritableDB,
  migrations: readonly Migration[] = MIGRATIONS,
): { from: number; to: number } {
  const latest = checkMigrations(migrations);
  const from = refuseNewerSchema(database, latest);
  for (const migration of migrations.slice(from)) {
    try {
      transaction(database, () => {
        if (readSchemaVersion(database) >= migration.version) return;
        migration.up(database);
        // The version comes from the checked list (a safe integer), never from input.
        database.pragma(`user_version = ${migration.version}`);
      });
    } catch (error) {
      if (error instanceof LedgerError && error.code === 'busy') throw error;
      throw new LedgerError(
        'migration_failed',
        `Migration ${migration.version} ("${migration.name}") failed and was rolled back: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  const to = readSchemaVersion(database);
  if (to > latest) {
    // Another process, running a newer program, migrated the file while we waited for the lock.
    throw new LedgerError(
      'schema_too_new',
      `The ledger was just upgraded by a newer version of Evidence Room (schema ${to}; this program knows up to ${latest}).`,
    );
  }
  return { from, to };
}
