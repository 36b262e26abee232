// `npm start`: build the app, then run it in Electron where the binary is installed and in
// local web mode otherwise (`evroom app` says which).
import { spawnSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

console.error('Building the app (electron-vite build)…');
const build = spawnSync(bin('electron-vite'), ['build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
if (build.status !== 0) {
  console.error('evroom: the build failed; see the messages above.');
  process.exit(build.status ?? 1);
}
const app = spawn(
  process.execPath,
  [fileURLToPath(new URL('../bin/evroom.mjs', import.meta.url)), 'app', ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => app.kill(signal));
app.on('exit', (code) => process.exit(code ?? 0));
