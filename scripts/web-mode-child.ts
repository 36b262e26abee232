/**
 * Local web mode in a process of its own, for the offline proof and other tests that watch a
 * process from outside (strace, kill -9): `node --import tsx scripts/web-mode-child.ts DATA_DIR`.
 *
 * It serves the real composition (src-main/app/web-mode.ts) over DATA_DIR with a one-page
 * stand-in renderer (the unit suite runs before the build), prints one JSON line
 * `{"pid": N, "port": N, "token": "..."}` and stops cleanly on SIGTERM.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalWebMode } from '../src-main/app/web-mode';

const dataDirectory = process.argv[2];
if (dataDirectory === undefined) {
  console.error('usage: web-mode-child.ts DATA_DIR');
  process.exit(2);
}
const renderer = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-web-child-'));
fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>Evidence Room (test page)</title>');
const running = await startLocalWebMode({ dataDirectory, rendererDirectory: renderer, port: 0 });
console.log(
  JSON.stringify({ pid: process.pid, port: running.port, token: new URL(running.url).hash.slice('#token='.length) }),
);
process.on('SIGTERM', () => {
  void running.close().then(() => {
    fs.rmSync(renderer, { recursive: true, force: true });
    process.exit(0);
  });
});
