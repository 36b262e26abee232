/**
 * The identity domain's conformance: the same cases on SQLite (a real ledger file) and on
 * PostgreSQL (a real server from the test harness); two stores on one database (two nodes) on
 * PostgreSQL only.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres';
import { auditRowHash, GENESIS_SHA256 } from '../audit-log';
import { openLedger, type Ledger } from '../open-ledger';
import { insertReceipts } from '../receipts';
import { consumeQuota } from '../service-state';
import type { ServiceStore } from './index';
import type { AuditEntry, IdentityStore, NewApiKey } from './identity';
import { postgresServiceStore, sqliteServiceStore } from './open-store';
import { openPgPool, type PgPool } from './pg-pool';

const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest());
const hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** One engine's store, and what the tests seed beneath the identity domain (issuance's rows). */
interface Engine {
  store: ServiceStore;
  /** A receipt the service issued for `tenantId` (issued_at null: unknown). */
  seedReceipt(tenantId: string, issuedAt: number | null): Promise<void>;
  /** `used` uses counted for a quota subject in a period. */
  seedQuota(subject: string, period: string, used: number): Promise<void>;
  /** A second store on the same database (a second node); PostgreSQL only. */
  secondNode?(): Promise<ServiceStore>;
  close(): Promise<void>;
}

async function makeSqlite(): Promise<Engine> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-identity-'));
  const ledger: Ledger = openLedger(path.join(directory, 'ledger.sqlite'));
  return {
    store: sqliteServiceStore(ledger, sha256),
    seedReceipt(tenantId, issuedAt) {
      const raw = randomBytes(32);
      insertReceipts(ledger.writable, [
        {
          receipt_sha256: createHash('sha256').update(raw).digest('hex'),
          raw,
          report: { json: '{}', format: 'profile/standard', status: 'PASS', trust: { status: 'trusted' } },
          issued_at: issuedAt,
          source: { kind: 'service', ref: `tenant:${tenantId}` },
        },
      ]);
      return Promise.resolve();
    },
    seedQuota(subject, period, used) {
      for (let count = 0; count < used; count += 1) consumeQuota(ledger.writable, subject, period, 1_000_000);
      return Promise.resolve();
    },
    close() {
      ledger.close();
      fs.rmSync(directory, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

let server: TestPostgres | undefined;

async function makePg(): Promise<Engine> {
  server ??= await startTestPostgres();
  const url = await server.createDatabase();
  const store = await postgresServiceStore(url, sha256);
  // The rows beneath the identity domain are issuance's; the tests seed them with plain SQL.
  const seeder: PgPool = await openPgPool(url, { max: 1 });
  const others: ServiceStore[] = [];
  return {
    store,
    async seedReceipt(tenantId, issuedAt) {
      const raw = randomBytes(32);
      await seeder.write((writer) =>
        writer.query(
          `INSERT INTO issued_receipts (receipt_sha256, raw, ref, format, status, report_json, issued_at, stored_at)
           VALUES ($1, $2, $3, 'profile/standard', 'PASS', '{}', $4, $5)`,
          [createHash('sha256').update(raw).digest('hex'), raw, `tenant:${tenantId}`, issuedAt, Date.now()],
        ),
      );
    },
    async seedQuota(subject, period, used) {
      await seeder.write((writer) =>
        writer.query('INSERT INTO quota_usage (subject, period, used) VALUES ($1, $2, $3)', [subject, period, used]),
      );
    },
    async secondNode() {
      const other = await postgresServiceStore(url, sha256);
      others.push(other);
      return other;
    },
    async close() {
      for (const other of others) await other.close();
      await seeder.close();
      await store.close();
    },
  };
}

afterAll(async () => {
  await server?.stop();
});

/** A key of `tenant` as the operations mint it (the tests need only distinct hashes and prefixes). */
function newKey(tenant: { id: string; tier: NewApiKey['tier'] }, n: number, at = 1_700_000_000_000 + n): NewApiKey {
  return {
    key_sha256: hex(`${tenant.id}-${n}`),
    prefix: `svc_${tenant.tier}_${String(n).padStart(8, '0')}`,
    tenant_id: tenant.id,
    tier: tenant.tier,
    scopes: [],
    at,
  };
}

/** Every audit row, oldest first. */
async function allAudit(identity: IdentityStore): Promise<AuditEntry[]> {
  return identity.listAudit({ direction: 'asc', limit: 1000 });
}

/** Rows 1..n linked from the genesis hash, each hash the hash of its own fields. */
function expectChain(rows: readonly AuditEntry[]): void {
  let previous = GENESIS_SHA256;
  rows.forEach((row, index) => {
    expect(row.id).toBe(index + 1);
    expect(row.prev_sha256).toBe(previous);
    expect(row.row_sha256).toBe(auditRowHash(row));
    previous = row.row_sha256;
  });
}

describe.each([
  ['sqlite', makeSqlite],
  ['postgres', makePg],
] as const)('identity store on %s', (_engine, make) => {
  let engine: Engine;
  let identity: IdentityStore;

  beforeEach(async () => {
    engine = await make();
    identity = engine.store.identity;
  }, 60_000);
  afterEach(async () => {
    await engine.close();
  });

  it('records a tenant once, with its audit row in the same write, and lists tenants by id', async () => {
    const created = await identity.createTenant({ id: 'globex', tier: 'scale', at: 1_700_000_000_000 });
    expect(created).toEqual({ id: 'globex', tier: 'scale', created_at: 1_700_000_000_000 });
    await identity.createTenant({ id: 'acme', tier: 'pro', at: 1_700_000_000_001 });
    expect(await identity.createTenant({ id: 'acme', tier: 'free', at: 1_700_000_000_002 })).toBeUndefined();
    expect(await identity.getTenant('acme')).toEqual({ id: 'acme', tier: 'pro', created_at: 1_700_000_000_001 });
    expect(await identity.getTenant('nobody')).toBeUndefined();
    expect((await identity.listTenants()).map((tenant) => tenant.id)).toEqual(['acme', 'globex']);
    const audit = await allAudit(identity);
    expect(audit.map((row) => [row.action, row.subject, row.details])).toEqual([
      ['tenant-create', 'globex', { tier: 'scale' }],
      ['tenant-create', 'acme', { tier: 'pro' }],
    ]);
    expectChain(audit);
  });

  it('refuses a bad tenant id or tier and writes nothing', async () => {
    await expect(identity.createTenant({ id: 'no spaces', tier: 'pro', at: 1 })).rejects.toThrow(RangeError);
    await expect(identity.createTenant({ id: 'x'.repeat(65), tier: 'pro', at: 1 })).rejects.toThrow(RangeError);
    await expect(identity.createTenant({ id: 'acme', tier: 'gold' as 'pro', at: 1 })).rejects.toThrow(RangeError);
    expect(await identity.listTenants()).toEqual([]);
    expect(await allAudit(identity)).toEqual([]);
  });

  it('stores keys by hash, lists them oldest first, and finds a key with its tenant', async () => {
    const acme = { id: 'acme', tier: 'pro' as const };
    const globex = { id: 'globex', tier: 'scale' as const };
    await identity.createTenant({ ...acme, at: 1 });
    await identity.createTenant({ ...globex, at: 2 });
    const first = await identity.issueApiKey({ ...newKey(acme, 1), scopes: ['partner'] });
    expect(first).toEqual({
      prefix: 'svc_pro_00000001',
      tenant_id: 'acme',
      tier: 'pro',
      scopes: ['partner'],
      created_at: 1_700_000_000_001,
      revoked_at: null,
    });
    await identity.issueApiKey(newKey(globex, 2));
    await identity.issueApiKey(newKey(acme, 3));
    expect((await identity.listApiKeys()).map((key) => key.prefix)).toEqual([
      'svc_pro_00000001',
      'svc_scale_00000002',
      'svc_pro_00000003',
    ]);
    expect((await identity.listApiKeys('acme')).map((key) => key.prefix)).toEqual([
      'svc_pro_00000001',
      'svc_pro_00000003',
    ]);
    expect(await identity.listApiKeys('nobody')).toEqual([]);
    expect(await identity.findKeyHolder(hex('acme-1'))).toEqual({
      key: first,
      tenant: { id: 'acme', tier: 'pro', created_at: 1 },
    });
    expect(await identity.findKeyHolder(hex('unknown'))).toBeUndefined();
    const issued = (await allAudit(identity)).filter((row) => row.action === 'apikey-issue');
    expect(issued.map((row) => [row.subject, row.details])).toEqual([
      ['svc_pro_00000001', { tenant: 'acme', tier: 'pro', scopes: ['partner'] }],
      ['svc_scale_00000002', { tenant: 'globex', tier: 'scale', scopes: [] }],
      ['svc_pro_00000003', { tenant: 'acme', tier: 'pro', scopes: [] }],
    ]);
  });

  it('stores no key, and no audit row, for an unknown tenant, a tier not the tenant’s, or a hash or prefix taken', async () => {
    const acme = { id: 'acme', tier: 'pro' as const };
    await identity.createTenant({ ...acme, at: 1 });
    await identity.issueApiKey(newKey(acme, 1));
    const before = await allAudit(identity);
    expect(await identity.issueApiKey(newKey({ id: 'nobody', tier: 'pro' }, 2))).toBeUndefined();
    await expect(identity.issueApiKey(newKey({ id: 'acme', tier: 'free' }, 3))).rejects.toThrow(RangeError);
    await expect(identity.issueApiKey({ ...newKey(acme, 4), prefix: 'svc_pro_00000001' })).rejects.toThrow();
    await expect(identity.issueApiKey({ ...newKey(acme, 5), key_sha256: hex('acme-1') })).rejects.toThrow();
    await expect(identity.issueApiKey({ ...newKey(acme, 6), key_sha256: 'not hex' })).rejects.toThrow(RangeError);
    expect((await identity.listApiKeys()).map((key) => key.prefix)).toEqual(['svc_pro_00000001']);
    expect(await allAudit(identity)).toEqual(before);
  });

  it('revokes a key by prefix, keeps the first revocation time, and audits each revocation', async () => {
    const acme = { id: 'acme', tier: 'pro' as const };
    await identity.createTenant({ ...acme, at: 1 });
    await identity.issueApiKey(newKey(acme, 1, 10));
    const revoked = await identity.revokeApiKey('svc_pro_00000001', 20);
    expect(revoked).toMatchObject({ prefix: 'svc_pro_00000001', tenant_id: 'acme', revoked_at: 20 });
    expect((await identity.revokeApiKey('svc_pro_00000001', 30))?.revoked_at).toBe(20);
    expect((await identity.findKeyHolder(hex('acme-1')))?.key.revoked_at).toBe(20);
    const auditBefore = await allAudit(identity);
    expect(await identity.revokeApiKey('svc_pro_nothere0', 40)).toBeUndefined();
    expect(await allAudit(identity)).toEqual(auditBefore);
    expect(
      auditBefore.filter((row) => row.action === 'apikey-revoke').map((row) => [row.subject, row.at, row.details]),
    ).toEqual([
      ['svc_pro_00000001', 20, { tenant: 'acme' }],
      ['svc_pro_00000001', 30, { tenant: 'acme' }],
    ]);
  });

  it('reads quota use per subject and period', async () => {
    expect(await identity.quotaUsed('tenant:acme', '2026-11')).toBe(0);
    await engine.seedQuota('tenant:acme', '2026-11', 3);
    await engine.seedQuota('tenant:acme', '2026-10', 7);
    await engine.seedQuota('ip:127.0.0.1', '2026-11-26', 2);
    expect(await identity.quotaUsed('tenant:acme', '2026-11')).toBe(3);
    expect(await identity.quotaUsed('tenant:acme', '2026-10')).toBe(7);
    expect(await identity.quotaUsed('ip:127.0.0.1', '2026-11-26')).toBe(2);
    expect(await identity.quotaUsed('tenant:globex', '2026-11')).toBe(0);
  });

  it('counts the receipts issued for a tenant in [from, to), by issued_at', async () => {
    const from = Date.UTC(2026, 10, 1);
    const to = Date.UTC(2026, 11, 1);
    await identity.createTenant({ id: 'acme', tier: 'scale', at: 1 });
    await engine.seedReceipt('acme', from);
    await engine.seedReceipt('acme', to - 1);
    await engine.seedReceipt('acme', to);
    await engine.seedReceipt('acme', from - 1);
    await engine.seedReceipt('acme', null);
    await engine.seedReceipt('globex', from + 5);
    expect(await identity.countTenantReceipts('acme', from, to)).toBe(2);
    expect(await identity.countTenantReceipts('globex', from, to)).toBe(1);
    expect(await identity.countTenantReceipts('initech', from, to)).toBe(0);
  });

  it('appends audit rows to one hash chain and pages them both ways', async () => {
    for (let n = 1; n <= 5; n += 1)
      await identity.appendAudit({ action: 'service-key-rotate', subject: `k${n}`, details: { n }, at: 100 + n });
    await identity.appendAudit({ action: 'note-taken', subject: '', details: null, at: 200 });
    const rows = await allAudit(identity);
    expectChain(rows);
    expect(rows[5]).toMatchObject({ id: 6, action: 'note-taken', details: null, details_json: 'null', at: 200 });
    expect((await identity.listAudit({ limit: 2 })).map((row) => row.id)).toEqual([6, 5]);
    expect((await identity.listAudit({ afterId: 5, limit: 2 })).map((row) => row.id)).toEqual([4, 3]);
    expect((await identity.listAudit({ direction: 'asc', afterId: 2, limit: 2 })).map((row) => row.id)).toEqual([3, 4]);
    await expect(identity.appendAudit({ action: 'Bad Action', subject: '' })).rejects.toThrow(RangeError);
    await expect(identity.listAudit({ limit: 0 })).rejects.toThrow(RangeError);
    expect(await allAudit(identity)).toHaveLength(6);
  });
});

describe('identity store on postgres, two nodes on one database', () => {
  let engine: Engine;

  beforeEach(async () => {
    engine = await makePg();
  }, 60_000);
  afterEach(async () => {
    await engine.close();
  });

  it('refuses at once, through the second node, a key revoked through the first', async () => {
    const a = engine.store.identity;
    const b = (await engine.secondNode!()).identity;
    await a.createTenant({ id: 'acme', tier: 'pro', at: 1 });
    await a.issueApiKey(newKey({ id: 'acme', tier: 'pro' }, 1, 10));
    expect((await b.findKeyHolder(hex('acme-1')))?.key.revoked_at).toBeNull();
    await a.revokeApiKey('svc_pro_00000001', 20);
    expect((await b.findKeyHolder(hex('acme-1')))?.key.revoked_at).toBe(20);
  });

  it('creates a tenant once when two nodes race for its id', async () => {
    const a = engine.store.identity;
    const b = (await engine.secondNode!()).identity;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) => (n % 2 === 0 ? a : b).createTenant({ id: 'acme', tier: 'pro', at: n })),
    );
    expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    expect(await a.listAudit()).toHaveLength(1);
  });

  it('keeps one gapless audit chain when two nodes append at once', async () => {
    const a = engine.store.identity;
    const b = (await engine.secondNode!()).identity;
    await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        (n % 2 === 0 ? a : b).appendAudit({ action: 'note-taken', subject: `n${n}`, at: 1000 + n }),
      ),
    );
    const rows = await allAudit(b);
    expect(rows).toHaveLength(40);
    expectChain(rows);
    expect(new Set(rows.map((row) => row.subject)).size).toBe(40);
  });
});
