import { defineConfig } from 'vitest/config';

// Unit and integration tests: beside each module. The browser suite has its own config
// (e2e/vitest.config.ts) because it needs a built renderer and a Chromium.
export default defineConfig({
  test: {
    include: ['src-shared/**/*.test.ts', 'src-main/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A temporary EVROOM_HOME for the whole run: no test touches the user's real data folder.
    globalSetup: ['scripts/test-home.ts'],
  },
});
