import { defineConfig } from 'vitest/config';

// Unit and integration tests: beside each module. The browser suite has its own config
// (e2e/vitest.config.ts) because it needs a built renderer and a Chromium.
//
// Two projects, both run by `npm run test:unit` (`--project <name>` runs one):
// - `unit`: every test, the service on the workspace's SQLite store;
// - `http-postgres`: the service's HTTP tests again, each service on a fresh database of a real
//   PostgreSQL server (EVROOM_TEST_STORE=postgres, src-main/test-support/service-store.ts), so
//   the whole HTTP suite runs on both stores (issue 27).
export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A temporary EVROOM_HOME for the whole run: no test touches the user's real data folder.
    globalSetup: ['scripts/test-home.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src-shared/**/*.test.ts', 'src-main/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'http-postgres',
          include: ['src-main/http/**/*.test.ts'],
          // Not again: errors.test.ts builds no service; the others name their engine themselves
          // (several nodes on one PostgreSQL, or both engines side by side) and run in `unit`.
          exclude: [
            'src-main/http/errors.test.ts',
            'src-main/http/service-nodes.test.ts',
            'src-main/http/evidence-postgres.test.ts',
            'src-main/http/tlog-routes-nodes.test.ts',
          ],
          env: { EVROOM_TEST_STORE: 'postgres' },
        },
      },
    ],
  },
});
