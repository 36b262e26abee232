/**
 * A throwaway PostgreSQL server for the tests of the PostgreSQL store: Debian's `postgresql`
 * package's binaries (`/usr/lib/postgresql/<newest>/bin`), `initdb` in a temporary folder (trust
 * authentication, no fsync), a free port on 127.0.0.1 with its socket in that folder. PostgreSQL
 * refuses to run as root, so when the tests run as root the server runs as the package's
 * `postgres` user (`runuser -u postgres --`), the folder handed to it.
 *
 * No server outlives its test process: {@link TestPostgres.stop} is idempotent and also runs
 * from the process's exit hooks, and a small watchdog stops the server and removes its folder
 * when the process that started it is gone (even killed with SIGKILL).
 *
 * Not used by the program itself.
 */
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running server of a test file. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (the maintenance database). */
  url: string;
  port: number;
  dataDir: string;
  /** A fresh empty database on this server: its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server for good and removes its folder (idempotent). */
  stop(): Promise<void>;
  /** Stops the server cleanly and starts it again on the same port. */
  restart(): Promise<void>;
  /** Stopped, not yet started again: an immediate shutdown, as a crash (connections cut, no checkpoint). */
  kill(): Promise<void>;
  /** Starts it again after {@link TestPostgres.kill} on the same port. */
  start(): Promise<void>;
}

const ROOT = '/usr/lib/postgresql';
const INSTALL_HINT =
  "PostgreSQL is not installed: the PostgreSQL store tests need Debian's `postgresql` package (apt-get install postgresql).";

/** The `bin` folder of the newest installed major version, or undefined. */
function binDir(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT)
    .filter((name) => /^\d+(\.\d+)?$/.test(name) && existsSync(join(ROOT, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(ROOT, versions[0], 'bin');
}

/** Whether Debian's PostgreSQL binaries are installed. */
export function postgresAvailable(): boolean {
  return binDir() !== undefined;
}

const asRoot = process.getuid?.() === 0;

/** The command line running `program` as the server's user. */
function asServerUser(program: string, args: readonly string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, [...args]];
}

/** Runs `program` as the server's user to its end, synchronously (the exit hooks cannot wait). */
function runSync(program: string, args: readonly string[]): void {
  const [command, argv] = asServerUser(program, args);
  const result = spawnSync(command, argv, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0)
    throw new Error(`${program} failed (${result.status ?? result.signal}): ${result.stderr}${result.stdout}`);
}

/** Runs `program` as the server's user to its end, leaving the event loop free meanwhile. */
function run(program: string, args: readonly string[]): Promise<void> {
  const [command, argv] = asServerUser(program, args);
  return new Promise((resolve, reject) => {
    execFile(command, argv, { encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${program} failed: ${error.message}\n${stderr}${stdout}`)) : resolve(),
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

const running = new Set<() => void>();
let hooked = false;

/** Stops every server still running when the process ends (synchronously: exit hooks cannot wait). */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  const stopAll = (): void => {
    for (const stop of [...running]) stop();
  };
  process.once('exit', stopAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.once(signal, () => {
      stopAll();
      process.kill(process.pid, signal);
    });
}

/**
 * Starts a server in a fresh temporary folder.
 *
 * @throws Error naming `apt-get install postgresql` when the binaries are missing
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  if (bin === undefined) throw new Error(INSTALL_HINT);
  const folder = mkdtempSync(join(tmpdir(), 'evroom-pg-'));
  const dataDir = join(folder, 'data');
  const logFile = join(folder, 'server.log');
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(folder, uid, gid);
  }
  const pgCtl = join(bin, 'pg_ctl');
  await run(join(bin, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
    '--no-instructions',
  ]);

  let port = 0;
  const options = (): string =>
    [
      `-p ${port}`,
      `-k ${folder}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
  const startServer = (): Promise<void> =>
    run(pgCtl, ['-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', options(), 'start']);
  const stopArgs = (mode: 'fast' | 'immediate'): string[] => ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop'];
  const isRunning = (): boolean => existsSync(join(dataDir, 'postmaster.pid'));

  // A port taken between the probe and the start: try another.
  for (let tries = 0; ; tries += 1) {
    port = await freePort();
    try {
      await startServer();
      break;
    } catch (error) {
      if (tries >= 4) {
        rmSync(folder, { recursive: true, force: true });
        const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
        throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`);
      }
    }
  }

  // The watchdog: when this process is gone (even SIGKILLed), stop the server and remove the folder.
  const [watchdogCommand, watchdogArgs] = asServerUser(pgCtl, ['-D', dataDir, '-m', 'immediate', 'stop']);
  const quote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;
  const watchdog = spawn(
    'sh',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ` +
        `${[watchdogCommand, ...watchdogArgs].map(quote).join(' ')} >/dev/null 2>&1; rm -rf ${quote(folder)}`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();

  let stopped = false;
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    running.delete(stopNow);
    try {
      if (isRunning()) runSync(pgCtl, stopArgs('immediate'));
    } finally {
      if (watchdog.pid !== undefined && watchdog.exitCode === null) {
        try {
          process.kill(watchdog.pid);
        } catch {
          // already gone
        }
      }
      rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
    }
  };
  running.add(stopNow);
  hookExit();

  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const alive = (): void => {
    if (stopped) throw new Error('this test PostgreSQL server was stopped for good');
  };
  return {
    url,
    port,
    dataDir,
    createDatabase: async (name) => {
      alive();
      const database = name ?? `t_${randomBytes(6).toString('hex')}`;
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) throw new Error(`not a plain database name: ${database}`);
      await run(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', database]);
      return `postgres://postgres@127.0.0.1:${port}/${database}`;
    },
    stop: () => {
      stopNow();
      return Promise.resolve();
    },
    restart: async () => {
      alive();
      if (isRunning()) await run(pgCtl, stopArgs('fast'));
      await startServer();
    },
    kill: async () => {
      alive();
      if (isRunning()) await run(pgCtl, stopArgs('immediate'));
    },
    start: async () => {
      alive();
      if (!isRunning()) await startServer();
    },
  };
}
