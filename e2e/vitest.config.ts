import { defineConfig } from 'vitest/config';

// End-to-end tests: real Chromium (Debian's, driven by playwright-core) against the app in
// local web mode. One file at a time: each starts its own server and browser.
export default defineConfig({
  test: {
    root: '.',
    include: ['e2e/**/*.e2e.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // A temporary EVROOM_HOME for the whole run: no test touches the user's real data folder.
    globalSetup: ['scripts/test-home.ts'],
  },
});
