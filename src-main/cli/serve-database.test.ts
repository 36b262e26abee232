/**
 * `--database` on `evroom serve` and the admin commands, against a real PostgreSQL: validation
 * naming the flag or the variable, the embedded chain refused, the store named (never the
 * password), the node listed by /status, the key registry, an unreachable database as one line.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { EVROOM_BIN, startServeChild, stopServeChild } from '../test-support/serve-child';

function evroom(home: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [EVROOM_BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', EVROOM_DATABASE_URL: '', ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let server: TestPostgres;
let directory: string;
beforeAll(async () => {
  server = await startTestPostgres();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-serve-db-'));
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

/** A database URL with a password (trust authentication ignores it; it must never be printed). */
async function databaseUrl(): Promise<string> {
  return (await server.createDatabase()).replace('postgres@', 'postgres:s3cret-pw@');
}

describe('evroom serve --database', () => {
  it('refuses a URL that is not PostgreSQL, naming the flag or the variable; the flag wins', () => {
    const home = path.join(directory, 'usage');
    const flagged = evroom(home, ['serve', '--no-anchor', '--database', 'mysql://u:s3cret-pw@db/x']);
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toMatch(/^evroom: serve: --database must be a postgres:\/\/ or postgresql:\/\/ URL: /);
    expect(flagged.stderr).not.toContain('s3cret-pw');
    const fromEnv = evroom(home, ['serve', '--no-anchor'], { EVROOM_DATABASE_URL: 'not a url' });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('serve: EVROOM_DATABASE_URL must be a postgres:// or postgresql:// URL');
    const flagWins = evroom(home, ['tenants', 'list', '--database', 'http://x/y'], {
      EVROOM_DATABASE_URL: 'postgres://u@127.0.0.1:1/db',
    });
    expect(flagWins.stderr).toContain('tenants list: --database must be');
  });

  it('refuses the embedded chain: each node would anchor on a chain of its own', async () => {
    const result = evroom(path.join(directory, 'chain'), ['serve', '--port', '0', '--database', await databaseUrl()]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "evroom: serve: With --database, anchoring needs --chain-rpc: each node's embedded chain would be a chain of its own; pass --chain-rpc URL, or --no-anchor.",
    );
  });

  it('serves on the database, names it without the password, lists its node; another node with other keys is refused', async () => {
    const url = await databaseUrl();
    const home = path.join(directory, 'node-a');
    // The variable works as the flag does.
    const served = await startServeChild(home, ['--no-anchor'], { EVROOM_DATABASE_URL: url });
    try {
      const where = `127.0.0.1:${server.port}/${new URL(url).pathname.slice(1)}`;
      expect(served.stderr()).toContain(`store: postgres ${where}\n`);
      expect(served.stderr()).not.toContain('s3cret-pw');
      const status = (await (await fetch(`${served.url}/status`)).json()) as { nodes: { id: string }[] };
      expect(status.nodes).toHaveLength(1);

      const other = evroom(path.join(directory, 'node-c'), ['serve', '--port', '0', '--no-anchor', '--database', url]);
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(
        /serve: This node's signing key \(did:key:\w+\) is not the one the database's nodes use/,
      );
    } finally {
      await stopServeChild(served);
    }
    expect(served.stderr()).toContain('Stopped; the ledger and the database connections are closed.');
    expect(served.stderr()).not.toContain('s3cret-pw');

    // Rotating with --database registers the new key: the node starts again with it.
    const rotated = evroom(home, ['service', 'keys', 'rotate', '--database', url, '--json']);
    expect(rotated.code).toBe(0);
    const again = await startServeChild(home, ['--no-anchor', '--database', url]);
    await stopServeChild(again);
    expect(again.stderr()).not.toContain('refuse');
  });

  it('serve on SQLite names the ledger file', async () => {
    const home = path.join(directory, 'sqlite');
    const served = await startServeChild(home, ['--no-anchor']);
    await stopServeChild(served);
    expect(served.stderr()).toContain(`store: sqlite ${path.join(home, 'ledger.sqlite')}\n`);
  });
});

describe('admin commands with --database', () => {
  it('an unreachable database is one line naming host:port/db, exit 2, never the password', () => {
    for (const args of [
      ['tenants', 'list'],
      ['apikeys', 'list'],
      ['service', 'keys', 'rotate'],
    ]) {
      const result = evroom(path.join(directory, 'down'), [
        ...args,
        '--database',
        'postgres://evroom:s3cret-pw@127.0.0.1:1/evroom',
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^evroom: ${args.join(' ')}: The database at 127\\.0\\.0\\.1:1/evroom is unavailable: .*ECONNREFUSED`,
          ),
        ),
      ]);
      expect(result.stderr).not.toContain('s3cret-pw');
    }
  });

  it('tenants and apikeys act on the database, seen from another data folder', async () => {
    const url = await databaseUrl();
    const created = evroom(path.join(directory, 'admin-1'), [
      'tenants',
      'create',
      'acme',
      '--tier',
      'pro',
      '--database',
      url,
    ]);
    expect(created.code, created.stderr).toBe(0);
    const issued = evroom(path.join(directory, 'admin-1'), ['apikeys', 'issue', '--tenant', 'acme', '--json'], {
      EVROOM_DATABASE_URL: url,
    });
    expect(issued.code, issued.stderr).toBe(0);
    const { prefix } = JSON.parse(issued.stdout) as { prefix: string };
    // Another machine's data folder, the same database.
    const listed = evroom(path.join(directory, 'admin-2'), ['apikeys', 'list', '--json', '--database', url]);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { keys: { prefix: string }[] }).keys.map((key) => key.prefix)).toEqual([
      prefix,
    ]);
    const tenants = evroom(path.join(directory, 'admin-2'), ['tenants', 'list', '--json', '--database', url]);
    expect((JSON.parse(tenants.stdout) as { tenants: { id: string }[] }).tenants.map((t) => t.id)).toEqual(['acme']);
    // The data folder's own ledger has none of it.
    const local = evroom(path.join(directory, 'admin-2'), ['tenants', 'list', '--json']);
    expect((JSON.parse(local.stdout) as { tenants: unknown[] }).tenants).toEqual([]);
    for (const result of [created, issued, listed, tenants]) expect(result.stderr).not.toContain('s3cret-pw');
  });

  it('refuses --database where it is not taken, rather than ignoring it', () => {
    // A buyer's commands talk to a service, never to its database.
    const result = evroom(path.join(directory, 'admin-3'), ['apikeys', 'pickup', '--database', 'postgres://u@h/d']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('apikeys pickup: --database is not an option of apikeys pickup');
  });
});
