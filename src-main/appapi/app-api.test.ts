import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_VERIFY_KEY_FILE_TEXT, type AppApiResults } from '../../src-shared/api/contract';
import { b64Decode, b64uEncode, createPortableProvider } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { buildSamples, sampleOutputs } from '../operations/samples';
import { issueProfile } from '../operations/service-issue';
import { loadServiceKeys } from '../operations/service-keys';
import { openWorkspace } from '../operations/workspace';
import { createAppApi, type AppApiDispatcher } from './app-api';
import type { ServiceControl } from './service-control';

// The app API as both transports reach it: untrusted method names and inputs in, over a real
// ledger in a temporary data folder.
const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(9);

describe('app API', () => {
  let home: string;
  let api: AppApiDispatcher;
  const call = <M extends keyof AppApiResults>(method: M, input?: unknown) =>
    api(method, input) as Promise<AppApiResults[M]>;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'evroom-appapi-'));
    api = createAppApi({ mode: 'web', dataDirectory: home });
  });

  afterEach(() => {
    api.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('refuses unknown methods and inputs that do not fit the contract', async () => {
    await expect(api('frobnicate', {})).rejects.toMatchObject({ code: 'not_found', kind: 'not_found' });
    expect(await api.answer('frobnicate', {})).toEqual({
      ok: false,
      error: { code: 'not_found', message: "unknown app API method 'frobnicate'", details: [] },
    });
    expect(await api.answer(42, {})).toMatchObject({ ok: false, error: { code: 'not_found' } });
    await expect(api('overview', { extra: 1 })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('unknown member "extra"'),
    });
    await expect(api('receipts.get', { id: 'one' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(api('receipts.list', { filters: { status: 'GOOD' } })).rejects.toMatchObject({
      message: expect.stringContaining('status must be one of'),
    });
    // An instant the ledger cannot hold (before 1970) is the input's fault, said at the door.
    for (const name of ['from', 'to']) {
      expect(await api.answer('receipts.list', { filters: { [name]: '1969-12-31T23:59:59Z' } })).toEqual({
        ok: false,
        error: {
          code: 'invalid_request',
          message: `filters.${name} must be 1970-01-01T00:00:00Z or later`,
          details: [{ path: `/filters/${name}`, message: `filters.${name} must be 1970-01-01T00:00:00Z or later` }],
        },
      });
    }
    await expect(api('trust.pin', { key_id: 'did:svc:x', algorithm: 'RSA', public_key: 'AA' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(api('imports.start', {})).rejects.toMatchObject({
      message: expect.stringContaining('data is required'),
    });
    // The renderer cannot name a path of this machine to import (a dialog's choice goes through
    // the desktop shell, not the contract).
    await expect(api('imports.start', { path: '/dev/zero' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('unknown member "path"'),
    });
  });

  it('verifies without storing, then saves once however often it is saved', async () => {
    const text = signClassical('{"sequence":1,"amount":"2.00"}', seed, crypto);
    const checked = await call('verify', { text });
    expect(checked.report.status).toBe('PASS');
    expect(checked.saved).toBeUndefined();
    expect((await call('overview')).receipts).toBe(0);
    const first = await call('verify', { text, save: true, name: 'a.json' });
    const second = await call('verify', { text, save: true, name: 'b.json' });
    expect(first.saved).toMatchObject({ created: true });
    expect(second.saved).toEqual({ id: first.saved?.id, created: false });
    const detail = await call('receipts.get', { id: first.saved?.id });
    expect(detail.raw).toBe(text);
    expect(detail.signed[0]?.text).toBe('{"amount":"2.00","sequence":1}');
    expect(detail.sources.map((source) => source.ref).sort()).toEqual(['a.json', 'b.json']);
    await expect(api('receipts.get', { id: 999 })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('re-judges stored receipts when their key is pinned, revoked and unpinned', async () => {
    const text = signClassical('{"sequence":2}', seed, crypto);
    const { saved } = await call('verify', { text, save: true });
    const row = async () => (await call('receipts.list', {})).rows.find((candidate) => candidate.id === saved?.id);
    expect((await row())?.trust).toBe('unpinned');
    const issuer = (await row())?.issuer_key_id;
    expect(issuer).toMatch(/^did:key:z6Mk/);
    await call('trust.pin', {
      key_id: 'did:svc:test:issuer',
      algorithm: 'Ed25519',
      public_key: b64uEncode(crypto.ed25519PublicKey(seed)),
      label: 'Test issuer',
    });
    expect((await row())?.trust).toBe('trusted');
    expect((await call('receipts.list', { filters: { trust: 'trusted' } })).rows).toHaveLength(1);
    await call('trust.revoke', { key_id: 'did:svc:test:issuer', reason: 'test' });
    expect((await row())?.trust).toBe('revoked');
    await call('trust.unpin', { key_id: 'did:svc:test:issuer' });
    expect((await row())?.trust).toBe('unpinned');
    const audit = await call('trust.audit', {});
    expect(audit.map((entry) => entry.action)).toEqual(['unpin', 'revoke', 'pin']);
  });

  it('re-judges stored documents that carry their ML-DSA-65 key inline and name no key id', async () => {
    // Real producer documents (test-vectors/): a typed-PQ attestation and a SiGR chain, each
    // signed by its own inline key; only the pinned key's documents change.
    const vectors = (path: string) => readFileSync(new URL(`../../test-vectors/${path}`, import.meta.url), 'utf8');
    const attestation = vectors('typed-pq/linear-valid.json');
    const chain = vectors('sigr-chain/linear-valid.json');
    const typed = (await call('verify', { text: attestation, save: true })).saved?.id;
    const sigr = (await call('verify', { text: chain, save: true })).saved?.id;
    const trustOf = async (id: number | undefined) =>
      (await call('receipts.list', {})).rows.find((candidate) => candidate.id === id)?.trust;
    expect([await trustOf(typed), await trustOf(sigr)]).toEqual(['unpinned', 'unpinned']);
    const inline = (JSON.parse(attestation) as { envelope: { public_key: string } }).envelope.public_key;
    await call('trust.pin', {
      key_id: 'did:hive:typed-demo',
      algorithm: 'ML-DSA-65',
      public_key: b64uEncode(b64Decode(inline)),
      label: 'Typed signer',
    });
    expect([await trustOf(typed), await trustOf(sigr)]).toEqual(['trusted', 'unpinned']);
    await call('trust.revoke', { key_id: 'did:hive:typed-demo', reason: 'test' });
    expect(await trustOf(typed)).toBe('revoked');
    await call('trust.unpin', { key_id: 'did:hive:typed-demo' });
    expect(await trustOf(typed)).toBe('unpinned');
  });

  it('pins a key for roles: validated at the door, listed with them, and stored receipts judged by them', async () => {
    const text = signClassical('{"sequence":3,"amount":"1.00"}', seed, crypto);
    await call('verify', { text, save: true, name: 'roles.json' });
    const row = async () => (await call('receipts.list', {})).rows[0];
    const publicKey = b64uEncode(crypto.ed25519PublicKey(seed));
    const base = { key_id: 'did:svc:test:roles', algorithm: 'Ed25519', public_key: publicKey };
    const refused: [unknown, string][] = [
      [[], '/roles'],
      ['service', '/roles'],
      [['signer'], '/roles/0'],
      [['service', 'service'], '/roles/1'],
    ];
    for (const [roles, path] of refused) {
      await expect(api('trust.pin', { ...base, roles })).rejects.toMatchObject({ code: 'invalid_request', path });
    }
    expect((await call('trust.list')).pinned).toEqual([]);
    // A classical receipt signs as the service: a key pinned for requester and operator only does not make it trusted.
    const pinned = await call('trust.pin', { ...base, roles: ['operator', 'requester'] });
    expect(pinned.roles).toEqual(['requester', 'operator']);
    expect((await call('trust.list')).pinned).toEqual([
      expect.objectContaining({ key_id: 'did:svc:test:roles', roles: ['requester', 'operator'] }),
    ]);
    expect((await row())?.trust).toBe('unpinned');
    await expect(api('trust.pin', { ...base, roles: ['service'] })).rejects.toMatchObject({
      code: 'already_pinned',
      path: '/roles',
    });
    await call('trust.unpin', { key_id: 'did:svc:test:roles' });
    const forService = await call('trust.pin', { ...base, roles: ['service'] });
    expect(forService.roles).toEqual(['service']);
    expect((await row())?.trust).toBe('trusted');
    await call('trust.unpin', { key_id: 'did:svc:test:roles' });
    expect((await call('trust.pin', base)).roles).toBeUndefined();
  });

  it('loads the built-in samples as demo data, once', async () => {
    const loaded = await call('samples.load');
    expect(loaded.state).toBe('done');
    const overview = await call('overview');
    expect(overview.receipts).toBe(loaded.receiptsTotal);
    expect(Object.keys(overview.byStatus).length).toBeGreaterThan(3);
    expect(overview.attention.length).toBeGreaterThan(0);
    await call('samples.load');
    expect((await call('overview')).receipts).toBe(loaded.receiptsTotal);
    const { advertised } = await call('trust.list');
    expect(advertised.length).toBeGreaterThan(0);
    expect((await call('trust.list')).pinned).toEqual([]);
  });

  it('exports from the desktop menu to the file the user chose, and imports it back through the menu', async () => {
    const text = signClassical('{"sequence":3}', seed, crypto);
    await call('verify', { text, save: true });
    const elsewhere = mkdtempSync(join(tmpdir(), 'evroom-chosen-'));
    try {
      const chosen = join(elsewhere, 'my evidence.zip');
      const exported = await api.desktop.exportTo(chosen);
      expect(exported).toEqual({ path: chosen, receipts: 1 });
      expect(existsSync(chosen)).toBe(true);
      expect(existsSync(join(home, 'exports'))).toBe(false);
      // Through the contract the renderer names a file only: a path is flattened into exports/.
      const viaContract = await call('exports.create', { name: join(elsewhere, 'sneaky.zip') });
      expect(viaContract.path).toBe(join(home, 'exports', 'sneaky.zip'));
      const job = api.desktop.importFile(chosen);
      let progress = await call('imports.progress', { jobId: job.jobId });
      for (let tries = 0; tries < 400 && progress.state === 'running'; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        progress = await call('imports.progress', { jobId: job.jobId });
      }
      expect(progress).toMatchObject({
        state: 'done',
        fileName: 'my evidence.zip',
        result: { receipts: 1, receiptsKnown: 1, receiptsNew: 0 },
      });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('keeps settings in the data folder and validates them', async () => {
    expect((await call('settings.get')).theme).toBe('system');
    await call('settings.set', { theme: 'dark', limits: { maxEntries: 1000 } });
    api.close();
    api = createAppApi({ mode: 'web', dataDirectory: home });
    const settings = await call('settings.get');
    expect(settings).toMatchObject({ theme: 'dark', dataDirectory: home, limits: { maxEntries: 1000 } });
    await expect(api('settings.set', { theme: 'purple' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(api('settings.set', { limits: { maxRatio: 0 } })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('refuses service, tenant and key inputs that do not fit, naming the field', async () => {
    expect(await api.answer('tenants.create', { id: 'acme corp', tier: 'pro' })).toEqual({
      ok: false,
      error: {
        code: 'invalid_request',
        message: 'id must be 1 to 64 characters from A-Z a-z 0-9 . _ -',
        details: [{ path: '/id', message: 'id must be 1 to 64 characters from A-Z a-z 0-9 . _ -' }],
      },
    });
    expect(await api.answer('tenants.create', { id: 'x'.repeat(65), tier: 'pro' })).toMatchObject({
      ok: false,
      error: { details: [{ path: '/id' }] },
    });
    expect(await api.answer('tenants.create', { id: 'acme', tier: 'gold' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', details: [{ path: '/tier' }] },
    });
    await expect(api('tenants.create', { id: 'acme', tier: 'pro', quota: 5 })).rejects.toMatchObject({
      message: expect.stringContaining('unknown member "quota"'),
    });
    expect(await api.answer('apikeys.issue', { tenant: 'acme', scopes: ['admin'] })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', details: [{ path: '/scopes' }] },
    });
    await expect(api('apikeys.issue', { tenant: 'acme', scopes: ['partner', 'partner'] })).rejects.toMatchObject({
      message: 'scopes names partner twice',
    });
    await expect(api('apikeys.issue', { tenant: 'acme', scopes: 'partner' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(api('apikeys.issue', {})).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'tenant must be a string',
    });
    await expect(api('apikeys.list', { tenant: '../etc' })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await api.answer('apikeys.revoke', { prefix: 'svc_pro_' + 'A'.repeat(30) })).toMatchObject({
      ok: false,
      error: { details: [{ path: '/prefix' }] },
    });
    await expect(api('apikeys.revoke', { prefix: 'DROP TABLE' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('key prefix'),
    });
    expect(await api.answer('service.start', { port: 70000 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', details: [{ path: '/port' }] },
    });
    await expect(api('service.start', { port: 80.5 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(api('service.stop', { now: true })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('refuses to run the service without the shell’s service control', async () => {
    for (const method of ['service.status', 'service.start', 'service.stop'] as const) {
      expect(await api.answer(method, {})).toEqual({
        ok: false,
        error: { code: 'service_unavailable', message: expect.stringContaining('evroom serve'), details: [] },
      });
      await expect(api(method, {})).rejects.toMatchObject({ kind: 'refused' });
    }
    const buy = { tier: 'pro', contact: 'buyer@example.com', annual: false, account: 0 };
    expect(await api.answer('service.buyKey', buy)).toMatchObject({
      ok: false,
      error: { code: 'service_unavailable' },
    });
  });

  it('lists payments from the ledger without the service, and checks a purchase before anything else', async () => {
    expect(await call('service.payments')).toEqual([]);
    expect(await call('service.payments', { limit: 5 })).toEqual([]);
    expect(await api.answer('service.payments', { limit: 0 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', details: [{ path: '/limit' }] },
    });
    const buy = { tier: 'pro', contact: 'buyer@example.com', annual: false, account: 0 };
    for (const [input, path, words] of [
      [{ ...buy, contact: 'nobody' }, '/contact', 'must be an e-mail address, a domain name'],
      [{ ...buy, tier: 'enterprise' }, '/tier', 'enterprise is sold by contact'],
      [{ ...buy, account: 12 }, '/account', 'account must be between 0 and 9'],
      [{ ...buy, annual: 'no' }, '/annual', 'annual must be true'],
      [{ ...buy, issuer_did: 'me' }, '/issuer_did', 'issuer_did must be a DID'],
    ] as const) {
      // The input is refused at the door, before the service is even asked about.
      expect(await api.answer('service.buyKey', input)).toMatchObject({
        ok: false,
        error: { code: 'invalid_request', message: expect.stringContaining(words), details: [{ path }] },
      });
    }
  });

  it('buys a key only while the service runs on the embedded development chain', async () => {
    const buy = { tier: 'pro', contact: 'buyer@example.com', annual: false, account: 0 };
    // The shell's control as the app API sees it, in each state it can report.
    let reported: ReturnType<ServiceControl['status']> = { running: false, requests: [] };
    const control: ServiceControl = {
      start: () => Promise.reject(new Error('not started in this test')),
      stop: () => Promise.resolve(),
      status: () => reported,
    };
    const withService = createAppApi({ mode: 'web', dataDirectory: home, service: control });
    try {
      expect(await withService.answer('service.buyKey', buy)).toMatchObject({
        ok: false,
        error: { code: 'service_not_running', message: expect.stringContaining('Start the service first') },
      });
      reported = { running: true, url: 'http://127.0.0.1:1', port: 1, requests: [] };
      expect(await withService.answer('service.buyKey', buy)).toMatchObject({
        ok: false,
        error: { code: 'not_development_chain', message: expect.stringContaining('runs without a chain') },
      });
      const chain = {
        network: 'base-mainnet',
        chainId: 8453,
        embedded: false,
        token: `0x${'1'.repeat(40)}`,
        treasury: `0x${'2'.repeat(40)}`,
        rpcUrl: 'https://user:secret@rpc.example.com/v3/abc',
      };
      reported = { ...reported, payments: chain };
      expect(await withService.answer('service.buyKey', buy)).toMatchObject({
        ok: false,
        error: {
          code: 'not_development_chain',
          message: expect.stringContaining('takes payments on base-mainnet, not on the embedded development chain'),
        },
      });
      // Another chain's RPC URL may hold credentials: the status names the chain, never its URL.
      const status = await withService('service.status', {});
      expect(status).toMatchObject({ payments: { network: 'base-mainnet', embedded: false } });
      expect(JSON.stringify(status)).not.toContain('secret');
      expect(JSON.stringify(status)).not.toContain('rpc.example.com');
    } finally {
      withService.close();
    }
  });

  it('creates tenants, issues a key shown once, lists it by prefix and revokes it', async () => {
    expect(await call('tenants.list')).toEqual([]);
    const acme = await call('tenants.create', { id: 'acme', tier: 'pro' });
    const month = new Date().toISOString().slice(0, 7);
    expect(acme).toEqual({
      id: 'acme',
      tier: 'pro',
      created_at: expect.any(Number),
      quota: { period: month, used: 0, limit: 50_000 },
    });
    await call('tenants.create', { id: 'bigco', tier: 'enterprise' });
    await call('tenants.create', { id: 'tiny', tier: 'free' });
    expect(await api.answer('tenants.create', { id: 'acme', tier: 'free' })).toEqual({
      ok: false,
      error: {
        code: 'conflict',
        message: 'The tenant acme exists already.',
        details: [{ path: '/id', message: 'exists already' }],
      },
    });

    const issued = await call('apikeys.issue', { tenant: 'acme', scopes: ['partner'] });
    expect(issued.key).toMatch(/^svc_pro_[A-Za-z0-9_-]{32}$/);
    expect(issued.apiKey).toEqual({
      prefix: issued.key.slice(0, 16),
      tenant_id: 'acme',
      tier: 'pro',
      scopes: ['partner'],
      created_at: expect.any(Number),
      revoked_at: null,
      state: 'active',
    });
    await call('apikeys.issue', { tenant: 'bigco' });
    expect(await api.answer('apikeys.issue', { tenant: 'nobody' })).toMatchObject({
      ok: false,
      error: { code: 'not_found', details: [{ path: '/tenant' }] },
    });

    // The key itself is never listed again: only its prefix.
    const listed = await call('apikeys.list', {});
    expect(listed.map((key) => [key.tenant_id, key.tier, key.state])).toEqual([
      ['acme', 'pro', 'active'],
      ['bigco', 'enterprise', 'active'],
    ]);
    expect(JSON.stringify(listed)).not.toContain(issued.key);
    expect((await call('apikeys.list', { tenant: 'bigco' })).map((key) => key.prefix)).toEqual([listed[1]?.prefix]);
    await expect(api('apikeys.list', { tenant: 'nobody' })).rejects.toMatchObject({ code: 'not_found' });

    const revoked = await call('apikeys.revoke', { prefix: issued.apiKey.prefix });
    expect(revoked).toMatchObject({ prefix: issued.apiKey.prefix, state: 'revoked', revoked_at: expect.any(Number) });
    expect((await call('apikeys.list', { tenant: 'acme' }))[0]?.state).toBe('revoked');
    expect(await api.answer('apikeys.revoke', { prefix: 'svc_pro_zzzzzzzz' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    const actions = (await call('trust.audit', {})).map((entry) => entry.action);
    expect(actions).toEqual([]);
  });

  it('shows each tenant’s quota use in the current period from the ledger the service writes', async () => {
    await call('tenants.create', { id: 'acme', tier: 'pro' });
    await call('tenants.create', { id: 'tiny', tier: 'free' });
    await call('tenants.create', { id: 'bigco', tier: 'scale' });
    // Issue as the service does, through its own connection to the same data folder.
    const service = openWorkspace(home);
    try {
      const keys = loadServiceKeys(service);
      const now = new Date();
      const request = { agent_did: 'did:web:agent.example.com', input: 'hello', content_type: 'text/plain' };
      const month = now.toISOString().slice(0, 7);
      const day = now.toISOString().slice(0, 10);
      for (let index = 0; index < 2; index += 1)
        await issueProfile(
          service,
          keys.active,
          'standard',
          { ...request, input: `hello ${index}` },
          { now, ref: 'tenant:acme', quota: { subject: 'tenant:acme', period: month, limit: 50_000 } },
        );
      await issueProfile(service, keys.active, 'standard', request, {
        now,
        ref: 'tenant:tiny',
        quota: { subject: 'tenant:tiny', period: day, limit: 100 },
      });
      for (let index = 0; index < 3; index += 1)
        await issueProfile(
          service,
          keys.active,
          'nano',
          { ...request, input: `big ${index}` },
          { now, ref: 'tenant:bigco' },
        );
      keys.active.seed.fill(0);
      const byId = new Map((await call('tenants.list')).map((tenant) => [tenant.id, tenant.quota]));
      expect(byId.get('acme')).toEqual({ period: month, used: 2, limit: 50_000 });
      expect(byId.get('tiny')).toEqual({ period: day, used: 1, limit: 100 });
      // Unlimited: nothing is counted against a quota, so its use is the receipts issued this month.
      expect(byId.get('bigco')).toEqual({ period: month, used: 3, limit: null });
    } finally {
      service.close();
    }
  });

  it('opens a sealed document with a secrets file given for the call, and refuses a file it cannot use, naming it, changing nothing', async () => {
    const samples = buildSamples();
    const sealed = samples.files.find((file) => file.file === 'sealed/valid.json')!.text;
    const outputs = sampleOutputs(samples);
    const secretsText = outputs.find((output) => output.file === 'secrets.json')!.text;
    const keysText = outputs.find((output) => output.file === 'keys.json')!.text;
    const secret = samples.secrets[0]!;

    // Without the secret: not opened, and the report says which secret it needs.
    const closed = await call('verify', { text: sealed });
    expect(closed.report.status).toBe('INDETERMINATE');
    expect(closed.report.inner).toBeUndefined();
    expect(JSON.stringify(closed.report)).toContain('secret_unavailable');

    // With it: decrypted and the inner document verified; with the trust file, trusted.
    const opened = await call('verify', {
      text: sealed,
      secrets: { name: 'secrets.json', text: secretsText },
      trust: { name: 'keys.json', text: keysText },
    });
    expect(opened.report.status).toBe('PASS');
    expect(opened.report.inner?.format).toBe('classical');
    expect(opened.report.trust.status).toBe('trusted');
    const advertised = await call('verify', {
      text: sealed,
      secrets: { name: 's.json', text: secretsText },
      keys: { name: 'k.json', text: keysText },
    });
    expect(advertised.report.trust.status).not.toBe('trusted');

    // Another secret under the same id: the specific error of the sealed format.
    const wrongKey = JSON.stringify({
      secrets: [{ key_id: secret.key_id, key: b64uEncode(new Uint8Array(32).fill(7)) }],
    });
    const wrong = await call('verify', { text: sealed, secrets: { name: 'wrong.json', text: wrongKey } });
    expect(wrong.report.status).not.toBe('PASS');
    expect(JSON.stringify(wrong.report)).toContain('authentication failed');

    // Files that cannot be used: a specific error naming the file and the place, and with save
    // nothing is stored.
    const bad: [string, unknown, RegExp][] = [
      [
        'secrets',
        { name: 'short.json', text: JSON.stringify({ secrets: [{ key_id: 'x', key: 'AAAA' }] }) },
        /^secrets file “short\.json” at \/secrets\/0\/key: "key" must be 32 bytes/,
      ],
      ['secrets', { name: 'broken.json', text: '{"secrets": [' }, /^secrets file “broken\.json”.*Not strict JSON/],
      [
        'keys',
        { name: 'keys.json', text: '{"keys": [{"key_id": "did:svc:a"}]}' },
        /^key file “keys\.json” at \/keys\/0/,
      ],
      ['trust', { name: 'secrets.json', text: secretsText }, /^trust file “secrets\.json”/],
      ['secrets', { name: 'a.json', text: 42 }, /^secrets\.text must be the file's text/],
      ['secrets', { name: '', text: secretsText }, /^secrets\.name must be the file's name/],
      ['secrets', { name: 'a\u001b.json', text: secretsText }, /control/],
      ['secrets', { name: 'a.json', text: secretsText, extra: 1 }, /unknown member "extra"/],
      ['secrets', 'secrets.json', /^secrets must be an object/],
      ['secrets', { name: 'big.json', text: ' '.repeat(MAX_VERIFY_KEY_FILE_TEXT + 1) }, /larger than/],
    ];
    for (const [kind, file, message] of bad) {
      const answer = await api.answer('verify', { text: sealed, save: true, [kind]: file });
      expect(answer.ok, String(message)).toBe(false);
      if (answer.ok) continue;
      expect(answer.error.code).toBe('invalid_request');
      expect(answer.error.message).toMatch(message);
      expect(answer.error.details[0]?.path).toMatch(new RegExp(`^/${kind}`));
      // No secret in any message.
      expect(answer.error.message).not.toContain(b64uEncode(secret.key));
    }
    // A trust file pins for one verification only: the ledger judges trust by its trust store.
    const pinnedForSave = await api.answer('verify', {
      text: sealed,
      save: true,
      secrets: { name: 'secrets.json', text: secretsText },
      trust: { name: 'keys.json', text: keysText },
    });
    expect(pinnedForSave).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', details: [{ path: '/trust' }] },
    });
    expect((await call('overview')).receipts).toBe(0);

    // One key id, one key: a key file that gives a pinned key id another key is refused.
    const pinnedId = samples.keys[0]!.key_id;
    await call('trust.pin', {
      key_id: pinnedId,
      algorithm: 'Ed25519',
      public_key: b64uEncode(crypto.ed25519PublicKey(new Uint8Array(32).fill(3))),
    });
    const conflict = await api.answer('verify', {
      text: sealed,
      save: true,
      keys: { name: 'keys.json', text: keysText },
    });
    expect(conflict).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_request',
        message: expect.stringContaining('names different keys in the trust store and in the key file “keys.json”'),
      },
    });
    expect((await call('overview')).receipts).toBe(0);

    // Saved with the secret, the ledger keeps the opened report.
    const saved = await call('verify', {
      text: sealed,
      save: true,
      secrets: { name: 'secrets.json', text: secretsText },
    });
    expect(saved.saved).toMatchObject({ created: true });
    expect((await call('receipts.get', { id: saved.saved?.id })).status).toBe('PASS');
  });
});
