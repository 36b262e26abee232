// Bootstrap of the export worker thread from source (see src-main/core/worker-source.ts): a
// worker thread does not inherit the TypeScript loader of the thread that started it, so it
// registers tsx itself before importing the TypeScript worker module.
import { register } from 'tsx/esm/api';

register();
await import('./export-worker.ts');
