import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import packageJson from './package.json' with { type: 'json' };

// electron-vite asks the installed electron package for its version to pick build targets.
// Where the optional electron dependency could not be installed (no binary download), tell it
// the version we pin instead, so the same bundles build on every machine.
process.env.ELECTRON_MAJOR_VER ??= packageJson.optionalDependencies.electron.split('.')[0];

// One codebase, three bundles: the Electron main process, its preload, and the renderer that
// both the Electron window and local web mode serve.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(import.meta.dirname, 'src-main/app/main.ts'),
          // The verification worker threads' entry (src-main/core/worker-pool.ts finds it).
          'verify-worker': resolve(import.meta.dirname, 'src-main/core/verify-worker.ts'),
          // The export worker's entry (src-main/core/worker-source.ts finds it; the HTTP service
          // writes tenants' evidence bundles on it).
          'export-worker': resolve(import.meta.dirname, 'src-main/evidence/export-worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: { input: { preload: resolve(import.meta.dirname, 'src-main/app/preload.ts') } },
    },
  },
  renderer: {
    root: 'src-renderer',
    base: './',
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      emptyOutDir: true,
      minify: true,
      rollupOptions: { input: { index: resolve(import.meta.dirname, 'src-renderer/index.html') } },
    },
  },
});
