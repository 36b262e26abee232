/**
 * The test PostgreSQL harness: a real server that starts, answers, survives a crash and a
 * restart, gives fresh databases, and leaves nothing behind once stopped.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable, startTestPostgres, type TestPostgres } from './postgres';

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs one statement with psql on the server (the harness's own binaries). */
function psql(url: string, sql: string): string {
  const bin = execFileSync('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1'], {
    encoding: 'utf8',
  }).trim();
  return execFileSync(`${bin}/psql`, [url, '-XAtqc', sql], { encoding: 'utf8' }).trim();
}

describe('startTestPostgres', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    expect(postgresAvailable(), 'apt-get install postgresql').toBe(true);
    pg = await startTestPostgres();
  });
  afterAll(() => pg?.stop());

  it('serves on 127.0.0.1 at its port with fsync off', async () => {
    expect(pg.url).toBe(`postgres://postgres@127.0.0.1:${pg.port}/postgres`);
    expect(await accepts(pg.port)).toBe(true);
    expect(psql(pg.url, 'SHOW fsync')).toBe('off');
    expect(psql(pg.url, 'SHOW listen_addresses')).toBe('127.0.0.1');
  });

  it('creates fresh databases, named or not', async () => {
    const a = await pg.createDatabase();
    const b = await pg.createDatabase('harness_named');
    expect(a).not.toBe(b);
    expect(b).toBe(`postgres://postgres@127.0.0.1:${pg.port}/harness_named`);
    psql(a, 'CREATE TABLE t (x int)');
    expect(psql(b, "SELECT count(*) FROM pg_tables WHERE tablename = 't'")).toBe('0');
    await expect(pg.createDatabase('Robert"); DROP')).rejects.toThrow(/not a plain database name/);
  });

  it('is down after kill, up again after start, with its data', async () => {
    const url = await pg.createDatabase();
    psql(url, 'CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)');
    await pg.kill();
    expect(await accepts(pg.port)).toBe(false);
    await pg.start();
    expect(psql(url, 'SELECT x FROM kept')).toBe('7');
    await pg.restart();
    expect(psql(url, 'SELECT x FROM kept')).toBe('7');
  });

  it('stops for good, idempotently, and removes its folder', async () => {
    const other = await startTestPostgres();
    expect(existsSync(other.dataDir)).toBe(true);
    await other.stop();
    await other.stop();
    expect(await accepts(other.port)).toBe(false);
    expect(existsSync(other.dataDir)).toBe(false);
    await expect(other.createDatabase()).rejects.toThrow(/stopped for good/);
  });

  it('leaves no server behind when the process that started it is killed with SIGKILL', async () => {
    const harness = fileURLToPath(new URL('./postgres.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { startTestPostgres } = await import(${JSON.stringify(harness)});
         const pg = await startTestPostgres();
         console.log(JSON.stringify({ port: pg.port, dataDir: pg.dataDir }));
         setInterval(() => undefined, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const started = await new Promise<{ port: number; dataDir: string }>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(JSON.parse(out) as { port: number; dataDir: string });
        });
        child.once('exit', () => reject(new Error('the child ended before its server started')));
      });
      expect(await accepts(started.port)).toBe(true);
      child.kill('SIGKILL');
      let gone = false;
      for (let tries = 0; tries < 100 && !gone; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        gone = !(await accepts(started.port)) && !existsSync(started.dataDir);
      }
      expect(gone).toBe(true);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
