import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppApiResults } from '../../src-shared/api/contract';
import { createServiceControl, type AppServiceControl } from '../app/service-control';
import { apiKeys, tenants } from '../operations/service-admin';
import { openServiceStore } from '../operations/service-store';
import { openWorkspace } from '../operations/workspace';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { createAppApi, type AppApiDispatcher } from './app-api';

// The Service view on a PostgreSQL database (Settings, "Service database") through the app API
// with the shell's real service control, against a real PostgreSQL server: what the view writes
// is in that database (a second store on it sees it), the service started from the view issues
// over HTTP on it, a bad URL changes nothing, and the password never comes back.

const PASSWORD = 'hunter2-never-shown';
const BODY = JSON.stringify({ agent_did: 'did:web:agent.example.com', input: 'hello', content_type: 'text/plain' });

let server: TestPostgres;

beforeAll(async () => {
  server = await startTestPostgres();
});

afterAll(async () => {
  await server.stop();
});

describe('the Service view on PostgreSQL', () => {
  let home: string;
  let control: AppServiceControl;
  let api: AppApiDispatcher;
  let url: string;
  const call = <M extends keyof AppApiResults>(method: M, input?: unknown) =>
    api(method, input) as Promise<AppApiResults[M]>;
  /** Every answer of the app API, to check that none holds the password. */
  const answers: unknown[] = [];
  const logged: string[] = [];

  beforeEach(async () => {
    home = mkdtempSync(join(tmpdir(), 'evroom-service-postgres-'));
    control = createServiceControl(home);
    const inner = createAppApi({
      mode: 'web',
      dataDirectory: home,
      service: control,
      log: (line) => logged.push(line),
    });
    api = Object.assign(
      async (method: string, input: unknown) => {
        const answer = await inner(method, input);
        answers.push(answer);
        return answer;
      },
      { answer: inner.answer, desktop: inner.desktop, uploads: inner.uploads, close: inner.close },
    ) as AppApiDispatcher;
    // The harness's URL with a password (trust authentication ignores it).
    url = (await server.createDatabase()).replace('postgres://postgres@', `postgres://postgres:${PASSWORD}@`);
  });

  afterEach(async () => {
    await control.close();
    api.close();
    rmSync(home, { recursive: true, force: true });
    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(PASSWORD);
    for (const line of logged) expect(line).not.toContain(PASSWORD);
    answers.length = 0;
    logged.length = 0;
  });

  it('writes tenants and keys to the database, starts the service on it and issues over HTTP', async () => {
    expect((await call('service.status')).store).toEqual({ engine: 'sqlite', where: 'this workspace’s ledger' });
    const where = url.replace(/^postgres:\/\/[^@]*@/, '');
    const settings = await call('settings.set', { service_database: url });
    expect(settings.service_database).toBe(url.replace(`:${PASSWORD}@`, ':•••@'));
    expect((await call('settings.get')).service_database).toBe(settings.service_database);
    expect((await call('service.status')).store).toEqual({ engine: 'postgres', where });
    // The password is in the data folder, readable by its owner only.
    const file = join(home, 'service-database-url');
    expect(readFileSync(file, 'utf8').trim()).toBe(url);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(home, 'settings.json'), 'utf8')).not.toContain(PASSWORD);

    await call('tenants.create', { id: 'acme', tier: 'pro' });
    const { key, apiKey } = await call('apikeys.issue', { tenant: 'acme' });
    expect((await call('tenants.list')).map((tenant) => tenant.id)).toEqual(['acme']);

    // Another store on the same database (another node, or `evroom tenants list --database`) sees them.
    const otherHome = mkdtempSync(join(tmpdir(), 'evroom-service-postgres-other-'));
    const other = openWorkspace(otherHome);
    const store = await openServiceStore(other, url);
    try {
      expect((await tenants(store)).map((tenant) => tenant.id)).toEqual(['acme']);
      expect((await apiKeys(store, 'acme')).map((record) => record.prefix)).toEqual([apiKey.prefix]);
    } finally {
      await store.close();
      other.close();
      rmSync(otherHome, { recursive: true, force: true });
    }
    // The workspace's own ledger holds none of it.
    const local = openWorkspace(home);
    try {
      const sqlite = await openServiceStore(local);
      expect(await tenants(sqlite)).toEqual([]);
    } finally {
      local.close();
    }

    // The service started from the view runs on the database.
    const started = await call('service.start', {});
    expect(started).toMatchObject({ running: true, store: { engine: 'postgres', where } });
    const created = await fetch(`${started.url}/tenants/acme/receipts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: BODY,
    });
    expect(created.status).toBe(201);
    const [acme] = await call('tenants.list');
    expect(acme?.quota.used).toBe(1);

    // Its database cannot change under it.
    expect(await api.answer('settings.set', { service_database: null })).toMatchObject({
      ok: false,
      error: { code: 'service_running', details: [{ path: '/service_database' }] },
    });
    expect((await call('settings.get')).service_database).toBe(settings.service_database);
    await call('service.stop');

    // Back on the ledger: empty again, and the URL file gone.
    expect((await call('settings.set', { service_database: '' })).service_database).toBeNull();
    expect(existsSync(file)).toBe(false);
    expect(await call('tenants.list')).toEqual([]);
  });

  it('keeps the stored password when the masked URL comes back, and refuses a mask for another URL', async () => {
    const masked = (await call('settings.set', { service_database: url })).service_database!;
    expect(masked).toContain('•••');
    expect((await call('settings.set', { service_database: masked, theme: 'dark' })).service_database).toBe(masked);
    expect(readFileSync(join(home, 'service-database-url'), 'utf8').trim()).toBe(url);
    const elsewhere = masked.replace('127.0.0.1', 'db.example.com');
    expect(await api.answer('settings.set', { service_database: elsewhere, theme: 'light' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: expect.stringContaining('type the password again') },
    });
    expect(await call('settings.get')).toMatchObject({ theme: 'dark', service_database: masked });
    expect(readFileSync(join(home, 'service-database-url'), 'utf8').trim()).toBe(url);
  });

  it('refuses a URL that is not PostgreSQL, and changes nothing', async () => {
    await call('settings.set', { service_database: url });
    const before = await call('settings.get');
    for (const [bad, words] of [
      ['mysql://root@127.0.0.1/db', 'postgres:// or postgresql://'],
      ['http://127.0.0.1:5432/db', 'postgres:// or postgresql://'],
      ['postgres://', 'names no host'],
      ['postgres://u@host:99999/db', 'port'],
      ['postgres://u@ho st/db', 'space'],
      [42, 'service_database must be'],
    ] as const) {
      expect(await api.answer('settings.set', { service_database: bad, theme: 'dark' })).toMatchObject({
        ok: false,
        error: {
          code: 'invalid_request',
          message: expect.stringContaining(words),
          details: [{ path: '/service_database' }],
        },
      });
    }
    expect(await call('settings.get')).toEqual(before);
    expect(readFileSync(join(home, 'service-database-url'), 'utf8').trim()).toBe(url);
  });

  it('says clearly when the database cannot be reached, and changes nothing', async () => {
    // Port 1 on this machine: nothing listens there.
    const unreachable = url.replace(`:${server.port}/`, ':1/');
    expect(unreachable).not.toBe(url);
    await call('settings.set', { service_database: unreachable });
    for (const method of ['tenants.list', 'apikeys.list', 'service.payments'] as const) {
      const answer = await api.answer(method, {});
      expect(answer).toMatchObject({
        ok: false,
        error: { code: 'unavailable', message: expect.stringContaining('The database at 127.0.0.1:1/') },
      });
      const message = (answer as { error: { message: string } }).error.message;
      expect(message).not.toContain('\n');
      expect(message).not.toContain(PASSWORD);
    }
    expect(await api.answer('tenants.create', { id: 'acme', tier: 'pro' })).toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    });
    expect(await api.answer('service.start', {})).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect((await call('service.status')).running).toBe(false);
    // A server that answers but has no such database: told the same way, not an internal fault.
    await call('settings.set', { service_database: url.replace(/\/[^/]*$/, '/no_such_database') });
    for (const method of ['tenants.list', 'service.start'] as const)
      expect(await api.answer(method, {})).toMatchObject({
        ok: false,
        error: {
          code: 'unavailable',
          message: expect.stringMatching(
            /^The database at 127\.0\.0\.1:\d+\/no_such_database is unavailable: database "no_such_database" does not exist$/,
          ),
        },
      });
    expect(logged).toEqual([]);
    // Pointed back at a database that is up, the view works, and nothing was written anywhere.
    await call('settings.set', { service_database: url });
    expect(await call('tenants.list')).toEqual([]);
  });

  it('finishes a call in flight on the old database when the setting changes under it', async () => {
    await call('settings.set', { service_database: url });
    for (let index = 0; index < 40; index += 1) await call('tenants.create', { id: `t${index}`, tier: 'pro' });
    // The listing reads each tenant's quota use in turn; the setting changes and the next call
    // (on the data folder's ledger) retires the old database while the listing is still reading.
    const listing = api.answer('tenants.list', {});
    await call('settings.set', { service_database: null });
    expect(await call('tenants.list')).toEqual([]);
    const listed = await listing;
    expect(listed).toMatchObject({ ok: true });
    expect((listed as { result: unknown[] }).result).toHaveLength(40);
    // Pointed back, the database is opened again and still holds them.
    await call('settings.set', { service_database: url });
    expect(await call('tenants.list')).toHaveLength(40);
  });
});
