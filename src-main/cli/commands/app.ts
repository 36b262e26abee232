/**
 * `evroom app`: the desktop app, or local web mode in any browser.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findElectronBinary } from '../../app/electron-binary';
import { resolveDataDirectory } from '../../ledger/data-directory';
import { CliError } from '../cli-error';
import { flag, optionValue, parseCommandArguments, type CommandSpec } from '../arguments';
import { writeLine, type Terminal } from '../terminal';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RENDERER_DIRECTORY = fileURLToPath(new URL('../../../out/renderer', import.meta.url));
const ELECTRON_MAIN = fileURLToPath(new URL('../../../out/main/index.js', import.meta.url));

export const appSpec: CommandSpec = {
  name: 'app',
  summary: 'Open the desktop app (or local web mode in a browser)',
  usage: 'evroom app [--web] [--port N] [--no-open]',
  description: [
    'Without --web, runs the Electron app when its binary is installed, and local web mode',
    'otherwise (saying so). Local web mode serves the same app on 127.0.0.1 only, behind a',
    'random session token; its first line of output is the URL to open. Stop it with Ctrl-C.',
    'The app must be built first (`npm run build`; `npm start` builds and runs it).',
  ],
  options: {
    web: { type: 'boolean', help: 'serve the app to a browser instead of opening a window' },
    port: { type: 'string', value: 'N', help: 'the port for web mode (default: any free port)' },
    'no-open': { type: 'boolean', help: 'do not open a browser (web mode)' },
  },
  examples: ['evroom app', 'evroom app --web --port 8080 --no-open'],
};

/**
 * Runs `evroom app`; in web mode it resolves when the server is stopped.
 */
export async function runApp(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(appSpec, argv);
  if (parsed.positionals.length > 0) throw new CliError(`app: unexpected argument ${parsed.positionals[0]}`);
  const port = parsePort(optionValue(parsed, 'port'));
  if (!flag(parsed, 'web')) {
    const electron = findElectronBinary();
    if (electron.path !== null) return runElectron(electron.path, terminal);
    writeLine(terminal.err, `Electron is not available here (${electron.reason}); starting local web mode instead.`);
  }
  return runWeb(port, !flag(parsed, 'no-open'), terminal);
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new CliError(`app: --port must be a whole number from 0 to 65535, not '${text}'`);
  return Number(text);
}

async function runElectron(binary: string, terminal: Terminal): Promise<number> {
  if (!existsSync(ELECTRON_MAIN))
    throw new CliError('app: the app is not built. Run `npm run build` (npm start does it for you).');
  writeLine(terminal.err, 'Starting the Evidence Room desktop app (Electron).');
  const child = spawn(binary, [REPO_ROOT], { stdio: 'inherit' });
  return new Promise((resolveExit) => {
    child.on('exit', (code) => resolveExit(code ?? 0));
    child.on('error', (error) => {
      writeLine(terminal.err, `evroom: could not start Electron: ${error.message}`);
      resolveExit(2);
    });
  });
}

async function runWeb(port: number, open: boolean, terminal: Terminal): Promise<number> {
  const dataDirectory = resolveDataDirectory();
  let server;
  try {
    // Loaded here, not at the top: web mode brings the HTTP service (Fastify, ajv), which every
    // other command would otherwise load at start.
    const { startLocalWebMode } = await import('../../app/web-mode');
    server = await startLocalWebMode({ dataDirectory, rendererDirectory: RENDERER_DIRECTORY, port });
  } catch (error) {
    throw new CliError(`app: ${error instanceof Error ? error.message : String(error)}`);
  }
  writeLine(terminal.out, `Evidence Room at ${server.url}`);
  writeLine(terminal.err, `Serving on 127.0.0.1 only; data folder ${dataDirectory}. Press Ctrl-C to stop.`);
  if (open) openBrowser(server.url);
  await new Promise<void>((resolveStop) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveStop();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  return 0;
}

/** Best effort: a missing opener (a headless machine) is not an error, the URL is printed. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // Nothing to do: the URL is on standard output.
  }
}
