/**
 * The store a service test runs on: the workspace's SQLite ledger by default, or, when
 * `EVROOM_TEST_STORE=postgres` (the `http-postgres` test project, vitest.config.ts), a fresh
 * database on a real PostgreSQL server started once per test file's process. The HTTP suite so
 * runs whole on both stores (issue 27). Not used by the program itself.
 */
import {
  openServiceStore,
  workspaceServiceStore,
  type ServiceStore,
  type StoreEngine,
} from '../operations/service-store';
import type { Workspace } from '../operations/workspace';
import { startTestPostgres, type TestPostgres } from './postgres';

/** The engine this test process runs the service on. */
export const TEST_STORE_ENGINE: StoreEngine = process.env.EVROOM_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

let server: Promise<TestPostgres> | undefined;

/**
 * A store for a service over `workspace`: its SQLite store, or a store on a fresh PostgreSQL
 * database (the server starts on first use and stops with {@link stopTestStores} or the process).
 */
export async function testServiceStore(workspace: Workspace): Promise<ServiceStore> {
  if (TEST_STORE_ENGINE === 'sqlite') return workspaceServiceStore(workspace);
  server ??= startTestPostgres();
  const postgres = await server;
  return openServiceStore(workspace, await postgres.createDatabase());
}

/** Stops the PostgreSQL server of this process, if one was started (afterAll of a test file). */
export async function stopTestStores(): Promise<void> {
  const running = server;
  server = undefined;
  if (running !== undefined) await (await running).stop();
}
