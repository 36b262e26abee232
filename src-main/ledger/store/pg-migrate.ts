/**
 * Brings a PostgreSQL database's schema up to date: the numbered migrations of
 * pg-migrations/index.ts, each in one transaction, recorded in `schema_migrations`.
 *
 * Several nodes may start at once on one database: the runner holds a session advisory lock
 * while it looks and migrates, so one node migrates and the others find the work done. A
 * database migrated by a newer build (a version this build does not know) is refused: running
 * old code on a newer schema could write what the new code no longer reads.
 */
import { DomainError, type ErrorKind } from '../../../src-shared/api/domain-error';
import type { PgMigration } from './pg-migrations/index';

/** What the runner needs of a connection (node-postgres's client). */
export interface MigrationClient {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** The advisory lock key of the migration runner (any constant no other code uses). */
export const MIGRATION_LOCK_KEY = 270_127_001;

/** The database's schema is newer than this build: upgrade this node. */
export class SchemaTooNewError extends DomainError {
  override readonly name = 'SchemaTooNewError';
  override readonly code = 'schema_too_new';
  override readonly kind: ErrorKind = 'refused';
}

/**
 * Checks that the list is ascending from 1 with no gaps, each with a name and SQL.
 *
 * @throws Error naming the first bad entry (a defect of the build, not of the database)
 */
export function checkMigrationList(migrations: readonly PgMigration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1)
      throw new Error(
        `PostgreSQL migration ${index + 1} is missing or out of order (found ${migration.version} there)`,
      );
    if (!/^[a-z0-9-]+$/.test(migration.name) || migration.sql.trim() === '')
      throw new Error(`PostgreSQL migration ${migration.version} needs a kebab-case name and SQL`);
  });
}

/**
 * Runs every migration the database lacks, in order, each in one transaction.
 *
 * @returns the versions applied now (empty when the schema was up to date)
 * @throws SchemaTooNewError when the database holds a version this build does not know;
 *   whatever PostgreSQL throws (the failed migration wrote nothing, the earlier ones stay)
 */
export async function migratePg(client: MigrationClient, migrations: readonly PgMigration[]): Promise<number[]> {
  checkMigrationList(migrations);
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
    const { rows } = await client.query('SELECT version, name FROM schema_migrations ORDER BY version');
    const known = migrations.length;
    const newest = rows.reduce((max, row) => Math.max(max, Number(row['version'])), 0);
    if (newest > known) {
      const row = rows.find((candidate) => Number(candidate['version']) === newest);
      throw new SchemaTooNewError(
        `The database's schema is at version ${newest} (${String(row?.['name'])}), newer than this evroom knows (${known}): ` +
          'another node runs a newer evroom. Upgrade this node; it never writes to a schema it does not know.',
      );
    }
    const done = new Set(rows.map((row) => Number(row['version'])));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          Date.now(),
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
      applied.push(migration.version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
  }
}
