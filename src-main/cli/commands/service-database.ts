/**
 * `--database URL` (or EVROOM_DATABASE_URL): the PostgreSQL database the service's commands work
 * on instead of the data folder's ledger (docs/deploy.md "The PostgreSQL store"). Shared by
 * `serve`, `tenants`, `apikeys` and `service keys`.
 */
import { describeDatabaseUrl, openServiceStore, type ServiceStore } from '../../operations/service-store';
import type { Workspace } from '../../operations/workspace';
import { CliError } from '../cli-error';
import { optionValue, type OptionSpec, type ParsedArguments } from '../arguments';
import { withCliWorkspace } from './ledger';

/** The environment variable `--database` defaults to. */
export const DATABASE_ENV = 'EVROOM_DATABASE_URL';

/** The `--database` option. */
export const DATABASE_OPTION: Record<string, OptionSpec> = {
  database: {
    type: 'string',
    value: 'URL',
    help: `the service's PostgreSQL database (postgres://user:password@host:port/db; default $${DATABASE_ENV}) instead of the data folder's ledger`,
  },
};

/** The help line every command with `--database` adds. */
export const DATABASE_HELP = `--database URL (or ${DATABASE_ENV}; the flag wins) works on a PostgreSQL database shared by several service nodes instead of the data folder's ledger; the password is never printed (docs/deploy.md).`;

/**
 * The database URL asked for: `--database`, else EVROOM_DATABASE_URL (an empty one is unset),
 * else undefined (the data folder's ledger).
 *
 * @throws CliError (exit 2) naming the flag or the variable when it is not a PostgreSQL URL
 */
export function databaseUrlOf(command: string, parsed: ParsedArguments): string | undefined {
  const flagged = optionValue(parsed, 'database');
  const fromEnv = process.env[DATABASE_ENV];
  const url = flagged ?? (fromEnv === undefined || fromEnv === '' ? undefined : fromEnv);
  if (url === undefined) return undefined;
  try {
    describeDatabaseUrl(url);
  } catch (error) {
    throw new CliError(
      `${command}: ${flagged !== undefined ? '--database' : DATABASE_ENV} must be a postgres:// or postgresql:// URL: ${(error as Error).message}`,
    );
  }
  return url;
}

/** How a store is named to the operator: `postgres host:port/db` or `sqlite FILE`. */
export function describeStore(databaseUrl: string | undefined, ledgerFile: string): string {
  return databaseUrl === undefined ? `sqlite ${ledgerFile}` : `postgres ${describeDatabaseUrl(databaseUrl)}`;
}

/**
 * Runs `run` on the service's store (the database, else the data folder's ledger) and the data
 * folder's workspace, and closes both. A database that cannot be reached is one line
 * (`COMMAND: The database at HOST:PORT/DB is unavailable: ...`, exit 2); so are refusals.
 */
export function withServiceStore<T>(
  command: string,
  databaseUrl: string | undefined,
  run: (store: ServiceStore, workspace: Workspace) => T,
): Promise<Awaited<T>> {
  return withCliWorkspace(command, async (workspace) => {
    const store = await openServiceStore(workspace, databaseUrl);
    try {
      return await run(store, workspace);
    } finally {
      await store.close();
    }
  });
}
