/**
 * The service's accounts through the operations, on both stores: tenants, keys, who a key
 * belongs to, a tenant's quota use; and, on PostgreSQL, a key revoked through one node refused
 * by another at once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { OperationError } from './errors';
import {
  apiKeys,
  authenticate,
  authenticateKey,
  createTenant,
  issueApiKey,
  revokeKeyByPrefix,
  tenantQuotaUse,
  tenants,
} from './service-admin';
import { openServiceStore, workspaceServiceStore, type ServiceStore } from './service-store';
import { openWorkspace, type Workspace } from './workspace';

let server: TestPostgres | undefined;

afterAll(async () => {
  await server?.stop();
});

/** A second node's store on the same database, or undefined on SQLite (one node). */
type SecondNode = (() => Promise<ServiceStore>) | undefined;

async function sqliteStores(workspace: Workspace): Promise<{ store: ServiceStore; second: SecondNode }> {
  return Promise.resolve({ store: workspaceServiceStore(workspace), second: undefined });
}

async function postgresStores(workspace: Workspace): Promise<{ store: ServiceStore; second: SecondNode }> {
  server ??= await startTestPostgres();
  const url = await server.createDatabase();
  return { store: await openServiceStore(workspace, url), second: () => openServiceStore(workspace, url) };
}

/** The refusal an operation threw: its kind, code and message. */
async function refusal(promise: Promise<unknown>): Promise<{ kind: string; code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OperationError) return { kind: error.kind, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the operation was not refused');
}

describe.each([
  ['sqlite', sqliteStores],
  ['postgres', postgresStores],
] as const)('the service accounts on %s', (_engine, open) => {
  let directory: string;
  let workspace: Workspace;
  let store: ServiceStore;
  const opened: ServiceStore[] = [];

  beforeEach(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-service-admin-'));
    workspace = openWorkspace(path.join(directory, 'home'));
    ({ store } = await open(workspace));
    opened.push(store);
  }, 60_000);
  afterEach(async () => {
    for (const each of opened.splice(0)) await each.close();
    workspace.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('creates tenants once and lists them; refuses a bad id, a bad tier, an id taken', async () => {
    expect(await createTenant(store, 'acme', 'pro')).toMatchObject({ id: 'acme', tier: 'pro' });
    await createTenant(store, 'globex', 'scale');
    expect(await refusal(createTenant(store, 'acme', 'free'))).toEqual({
      kind: 'conflict',
      code: 'conflict',
      message: 'The tenant acme exists already.',
    });
    expect((await refusal(createTenant(store, 'a b', 'pro'))).code).toBe('invalid_request');
    expect((await refusal(createTenant(store, 'initech', 'gold' as 'pro'))).code).toBe('invalid_request');
    expect((await tenants(store)).map((tenant) => [tenant.id, tenant.tier])).toEqual([
      ['acme', 'pro'],
      ['globex', 'scale'],
    ]);
  });

  it('issues a key shown once, knows whose it is, and refuses it once revoked', async () => {
    await createTenant(store, 'acme', 'pro');
    const { key, record } = await issueApiKey(store, 'acme', ['partner', 'partner']);
    expect(key).toMatch(/^svc_pro_[A-Za-z0-9_-]{32}$/);
    expect(record).toMatchObject({ tenant_id: 'acme', tier: 'pro', scopes: ['partner'], revoked_at: null });
    expect(key.startsWith(record.prefix)).toBe(true);
    expect((await authenticate(store, key))?.tenant.id).toBe('acme');
    expect(await authenticate(store, `${key}x`)).toBeUndefined();
    expect(await authenticate(store, '')).toBeUndefined();
    expect((await apiKeys(store, 'acme')).map((listed) => listed.prefix)).toEqual([record.prefix]);
    expect((await refusal(apiKeys(store, 'nobody'))).code).toBe('not_found');
    expect((await refusal(issueApiKey(store, 'nobody'))).code).toBe('not_found');
    expect((await refusal(issueApiKey(store, 'acme', ['admin']))).code).toBe('invalid_request');

    const revoked = await revokeKeyByPrefix(store, record.prefix);
    expect(revoked.revoked_at).not.toBeNull();
    expect(await authenticateKey(store, key, new Date())).toEqual({ unknown: true });
    expect((await refusal(revokeKeyByPrefix(store, 'svc_pro_nothere0'))).code).toBe('not_found');
    expect((await refusal(revokeKeyByPrefix(store, ''))).code).toBe('invalid_request');
    expect((await store.identity.listAudit({ direction: 'asc' })).map((row) => row.action)).toEqual([
      'tenant-create',
      'apikey-issue',
      'apikey-revoke',
    ]);
  });

  it('reports a tenant’s quota use: the counter for pro, nothing counted yet for scale', async () => {
    const pro = await createTenant(store, 'acme', 'pro');
    const scale = await createTenant(store, 'globex', 'scale');
    const now = new Date(Date.UTC(2026, 10, 26, 12));
    expect(await tenantQuotaUse(store, pro, now)).toEqual({ period: '2026-11', used: 0, limit: 50_000 });
    expect(await tenantQuotaUse(store, scale, now)).toEqual({ period: '2026-11', used: 0, limit: null });
    await expect(tenantQuotaUse(store, pro, new Date(Number.NaN))).rejects.toThrow(TypeError);
  });
});

describe('the service accounts on two nodes of one PostgreSQL database', () => {
  let directory: string;
  let workspace: Workspace;
  const opened: ServiceStore[] = [];

  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-service-admin-'));
    workspace = openWorkspace(path.join(directory, 'home'));
  });
  afterEach(async () => {
    for (const each of opened.splice(0)) await each.close();
    workspace.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('refuses on the second node, at once, a key revoked through the first', async () => {
    const { store, second } = await postgresStores(workspace);
    const other = await second!();
    opened.push(store, other);
    await createTenant(store, 'acme', 'scale');
    const { key, record } = await issueApiKey(store, 'acme');
    expect((await authenticate(other, key))?.key.prefix).toBe(record.prefix);
    await revokeKeyByPrefix(store, record.prefix);
    expect(await authenticate(other, key)).toBeUndefined();
  }, 60_000);
});
