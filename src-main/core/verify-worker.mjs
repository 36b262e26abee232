// Bootstrap of a verification worker thread (see worker-pool.ts). A worker thread does not
// inherit the TypeScript loader of the thread that started it, so it registers tsx itself (as
// bin/evroom.mjs does for the main thread) before importing the TypeScript worker module.
import { register } from 'tsx/esm/api';

register();
await import('./verify-worker.ts');
