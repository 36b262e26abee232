import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode, hexEncode, utf8Encode } from '../../src-shared/crypto';
import { wearableWorkedExample } from '../../src-shared/formats/wearable/example';
import type { JsonObject } from '../../src-shared/verify/fields';
import { ruleD1Payload } from '../../src-shared/verify/signature';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { createTenant, issueApiKey, revokeKeyByPrefix } from '../operations/service-admin';
import type { ServiceStore } from '../operations/service-store';
import { loadServiceKeys, rotateServiceKey } from '../operations/service-keys';
import { verifierPage, verifierPagePolicy } from '../operations/verifier-page';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { stopTestStores, TEST_STORE_ENGINE, testServiceStore } from '../test-support/service-store';
import { APP_VERSION } from '../version';
import { buildService, type Service, type ServiceOptions } from './service';

// The service over real HTTP on 127.0.0.1, on a real ledger in a temporary data folder, its
// store the ledger's or a fresh PostgreSQL database (EVROOM_TEST_STORE, vitest.config.ts).

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const node = createNodeCryptoProvider();

interface Running {
  service: Service;
  base: string;
  workspace: Workspace;
  store: ServiceStore;
  home: string;
  close(): Promise<void>;
}

async function start(directory: string, name: string, options: Partial<ServiceOptions> = {}): Promise<Running> {
  const home = path.join(directory, name);
  const workspace = openWorkspace(home);
  const keys = loadServiceKeys(workspace);
  const store = await testServiceStore(workspace);
  const service = await buildService({
    workspace,
    store,
    signer: {
      key_id: keys.active.key_id,
      seed: keys.active.seed,
      public_key: keys.active.public_key,
      listed: keys.listed,
    },
    ...options,
  });
  const address = await service.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    service,
    base: address,
    workspace,
    store,
    home,
    close: async () => {
      await service.close();
      await store.close();
      workspace.close();
    },
  };
}

async function call(
  base: string,
  method: string,
  route: string,
  options: { key?: string; body?: unknown; raw?: string; type?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers['content-type'] = options.type ?? 'application/json';
  const response = await fetch(`${base}${route}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json: json as Record<string, unknown>, text };
}

function evroom(home: string, args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

afterAll(stopTestStores);

const EMIT = { agent_did: 'did:web:agent.example.com', input: 'Hello, service.', content_type: 'text/plain' };

describe('the HTTP service', () => {
  let directory: string;
  let running: Running;
  let proKey: string;
  let scaleKey: string;
  let otherKey: string;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-service-'));
    running = await start(directory, 'main');
    await createTenant(running.store, 'acme', 'pro');
    await createTenant(running.store, 'globex', 'scale');
    proKey = (await issueApiKey(running.store, 'acme')).key;
    scaleKey = (await issueApiKey(running.store, 'globex')).key;
    otherKey = (await issueApiKey(running.store, 'globex')).key;
  });
  afterAll(async () => {
    await running.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('issues receipts of every kind that `evroom verify` passes with the keys from /v1/keys', async () => {
    const issued: [string, unknown][] = [];
    for (const profile of ['nano', 'standard', 'pq']) {
      const answer = await call(running.base, 'POST', `/v1/receipt/emit?profile=${profile}`, {
        key: proKey,
        body: EMIT,
      });
      expect(answer.status, answer.text).toBe(201);
      issued.push([`emit-${profile}`, answer.json]);
    }
    const free = await call(running.base, 'POST', '/v1/receipt/free', {
      body: { input: 'free text', purpose: 'a test' },
    });
    expect(free.status, free.text).toBe(201);
    issued.push(['free', free.json]);
    const tenant = await call(running.base, 'POST', '/tenants/acme/receipts', {
      key: proKey,
      body: { ...EMIT, settlement_reference: { rail: 'stablecoin', chain_id: 8453, asset: 'USDC' } },
    });
    expect(tenant.status, tenant.text).toBe(201);
    expect(tenant.json.anchor).toBeNull();
    issued.push(['tenant', tenant.json.receipt]);
    const wearable = await call(running.base, 'POST', '/v1/wearable/receipts', {
      key: proKey,
      body: wearableWorkedExample(node).callerFields,
    });
    expect(wearable.status, wearable.text).toBe(201);
    issued.push(['wearable', wearable.json]);

    const keys = await call(running.base, 'GET', '/v1/keys');
    expect(keys.status).toBe(200);
    expect(keys.json.note).toMatch(/confers no trust/);
    const keysFile = path.join(directory, 'keys.json');
    fs.writeFileSync(keysFile, keys.text);
    const files = issued.map(([name, document]) => {
      const file = path.join(directory, `${name}.json`);
      fs.writeFileSync(file, JSON.stringify(document));
      return file;
    });
    const verified = evroom(path.join(directory, 'verifier-home'), ['verify', '--json', '--keys', keysFile, ...files]);
    expect(verified.stderr).toBe('');
    const reports = verified.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: string; trust: { status: string }; format: string });
    expect(reports.map((report) => [report.format, report.status])).toEqual([
      ['profile/nano', 'PASS'],
      ['profile/standard', 'PASS'],
      ['profile/pq', 'PASS'],
      ['profile/nano', 'PASS'],
      ['profile/standard', 'PASS'],
      ['wearable/r2.0.0', 'PASS'],
    ]);
    // Advertised keys check signatures; they are never trust.
    expect(reports.every((report) => report.trust.status === 'unpinned')).toBe(true);
    expect(verified.code).toBe(0);
    // The same documents through the service's own verify route.
    for (const [, document] of issued) {
      const answer = await call(running.base, 'POST', '/v1/receipt/verify', { body: document });
      expect(answer.status).toBe(200);
      expect(answer.json.status).toBe('PASS');
    }
  }, 60_000);

  it('signs /status under Rule D1 with a listed key', async () => {
    const status = await call(running.base, 'GET', '/status');
    expect(status.status).toBe(200);
    const document = status.json as JsonObject;
    expect(document.endpoints).toEqual(
      expect.arrayContaining([
        { route: 'POST /v1/receipt/verify', status: 'up' },
        { route: 'GET /tenants/:id/evidence', status: 'up' },
      ]),
    );
    const digest = node.sha256(utf8Encode(ruleD1Payload(document)));
    expect(hexEncode(digest)).toBe(document.payload_sha256);
    const keys = (await call(running.base, 'GET', '/v1/keys')).json as {
      keys: { key_id: string; public_key: string }[];
    };
    const key = keys.keys.find((entry) => entry.key_id === document.key_id);
    expect(key).toBeDefined();
    expect(node.ed25519Verify(b64uDecode(String(document.sig_b64u)), digest, b64uDecode(key!.public_key))).toBe(true);
  });

  it('lists its one node in /status (SQLite), with its version and ISO times', async () => {
    const document = (await call(running.base, 'GET', '/status')).json as JsonObject;
    expect(document.nodes).toEqual([
      {
        id: expect.stringMatching(new RegExp(`^[A-Za-z0-9.-]+-${process.pid}-[0-9a-f]{4}$`)),
        version: APP_VERSION,
        started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        heartbeat_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    ]);
  });

  it('runs on the store its test project names (http-postgres on PostgreSQL, unit on SQLite)', ({ task }) => {
    // A harness that quietly fell back to SQLite would make the http-postgres project a second
    // SQLite run; this test is the project's check that it is not.
    const expected = task.file.projectName === 'http-postgres' ? 'postgres' : 'sqlite';
    expect(TEST_STORE_ENGINE).toBe(expected);
    expect(running.store.engine).toBe(expected);
  });
  it('answers verify with a report for any body, duplicate names MALFORMED, and {document, keys}', async () => {
    const duplicate = await call(running.base, 'POST', '/v1/receipt/verify', { raw: '{"a":1,"a":2}' });
    expect(duplicate.status).toBe(200);
    expect(duplicate.json.status).toBe('MALFORMED');
    const alias = await call(running.base, 'POST', '/v1/receipts/verify', { raw: 'not json' });
    expect(alias.status).toBe(200);
    expect(alias.json.status).toBe('MALFORMED');
    const typed = await call(running.base, 'POST', '/v1/verify/proof-demand', {
      body: { contract: { contract_type: 'authority.delegation' } },
    });
    expect(typed.status).toBe(200);
    expect(typed.json.status).toBe('MALFORMED');
    const pq = await call(running.base, 'POST', '/verify', { body: EMIT });
    expect(pq.json).toMatchObject({ status: 'MALFORMED', format: 'typed-pq' });
  });

  it('keeps tenants apart and answers auth errors in PROTOCOL 10 shape', async () => {
    const noKey = await call(running.base, 'POST', '/tenants/acme/receipts', { body: EMIT });
    expect(noKey.status).toBe(401);
    expect(noKey.json).toEqual({ error: { code: 'unauthorized', message: expect.any(String), details: [] } });
    const wrong = await call(running.base, 'POST', '/tenants/acme/receipts', { key: scaleKey, body: EMIT });
    expect(wrong.status).toBe(403);
    expect(wrong.json.error).toMatchObject({ code: 'forbidden' });
    const evidence = await call(running.base, 'GET', '/tenants/acme/evidence', { key: otherKey });
    expect(evidence.status).toBe(403);
    const guessed = await call(running.base, 'POST', '/v1/receipt/emit', {
      key: 'svc_pro_notarealkeynotarealkeynotareal1',
      body: EMIT,
    });
    expect(guessed.status).toBe(401);
    const revokedKey = await issueApiKey(running.store, 'acme');
    await revokeKeyByPrefix(running.store, revokedKey.record.prefix);
    expect((await call(running.base, 'POST', '/v1/receipt/emit', { key: revokedKey.key, body: EMIT })).status).toBe(
      401,
    );
  });

  it('refuses bad bodies with the right status and the pointer of the problem', async () => {
    const duplicate = await call(running.base, 'POST', '/v1/receipt/emit', {
      key: proKey,
      raw: '{"agent_did":"did:web:a","agent_did":"did:web:b","input":"x","content_type":"t"}',
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.json.error).toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/agent_did', message: 'duplicate_name' }],
    });
    const extra = await call(running.base, 'POST', '/v1/receipt/emit', { key: proKey, body: { ...EMIT, extra: 1 } });
    expect(extra.status).toBe(400);
    expect(extra.json.error).toMatchObject({ details: [{ path: '/extra' }] });
    const both = await call(running.base, 'POST', '/v1/receipt/emit', {
      key: proKey,
      body: { ...EMIT, content_sha256: 'a'.repeat(64) },
    });
    expect(both.status).toBe(400);
    const profile = await call(running.base, 'POST', '/v1/receipt/emit?profile=gold', { key: proKey, body: EMIT });
    expect(profile.status).toBe(400);
    const text = await call(running.base, 'POST', '/v1/receipt/verify', { raw: 'hello', type: 'text/plain' });
    expect(text.status).toBe(415);
    expect(text.json.error).toMatchObject({ code: 'unsupported_media_type' });
    const missing = await call(running.base, 'GET', '/v1/nothing');
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 'not_found' });
    const big = await call(running.base, 'POST', '/v1/receipt/verify', { raw: `"${'x'.repeat(1024 * 1024 + 10)}"` });
    expect(big.status).toBe(413);
    expect(big.json.error).toMatchObject({ code: 'payload_too_large' });
    const wearableAgain = await call(running.base, 'POST', '/v1/wearable/receipts', {
      key: proKey,
      body: { ...wearableWorkedExample(node).callerFields, outcome: 'measurement_provenance_complete' },
    });
    expect(wearableAgain.status).toBe(400);
  });

  it('refuses an observation nonce used before for the same device (409)', async () => {
    const fields = { ...wearableWorkedExample(node).callerFields };
    const first = await call(running.base, 'POST', '/v1/wearable/receipts', { key: scaleKey, body: fields });
    // The worked example's nonce was used by the first test already.
    expect(first.status).toBe(409);
    expect(first.json.error).toMatchObject({ code: 'conflict', details: [{ path: '/observation_nonce' }] });
  });

  it('streams the tenant evidence bundle that `evroom import` reads, signed with a listed key', async () => {
    await call(running.base, 'POST', '/tenants/globex/receipts?profile=nano', { key: scaleKey, body: EMIT });
    const response = await fetch(`${running.base}/tenants/globex/evidence`, {
      headers: { authorization: `Bearer ${scaleKey}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    const zip = path.join(directory, 'globex.zip');
    fs.writeFileSync(zip, Buffer.from(await response.arrayBuffer()));
    const imported = evroom(path.join(directory, 'importer'), ['import', '--json', zip]);
    const result = JSON.parse(imported.stdout) as {
      status: string;
      counts: { receipts: number; byStatus: Record<string, number> };
      signature: { status: string; key_id: string };
    };
    expect(result.status).toBe('imported');
    expect(result.counts.receipts).toBe(1);
    expect(result.counts.byStatus).toEqual({ PASS: 1 });
    expect(result.signature.status).toBe('valid');
    expect(result.signature.key_id).toBe(
      running.service.app.hasRoute({ method: 'GET', url: '/v1/keys' })
        ? (await call(running.base, 'GET', '/status')).json.key_id
        : '',
    );
    expect(imported.code).toBe(0);
    const since = await call(running.base, 'GET', '/tenants/globex/evidence?since=yesterday', { key: scaleKey });
    expect(since.status).toBe(400);
  }, 60_000);

  it('publishes OpenAPI 3.1 generated from the route schemas', async () => {
    const openapi = await call(running.base, 'GET', '/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.json.openapi).toBe('3.1.0');
    const paths = Object.keys(openapi.json.paths as object);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/v1/receipt/emit',
        '/v1/receipt/free',
        '/v1/receipt/verify',
        '/v1/verify/sigr-chain',
        '/tenants/{id}/receipts',
        '/tenants/{id}/evidence',
        '/v1/keys',
        '/status',
        '/pricing',
        '/v1/rubric/select',
        '/v1/wearable/receipts',
      ]),
    );
  });

  it('serves the browser reference verifier, one page that loads nothing', async () => {
    const page = await call(running.base, 'GET', '/verifier');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain("default-src 'none'");
    // Everything is inline: no script or stylesheet is loaded from anywhere.
    const tags = [...page.text.matchAll(/<(script|link)\b([^>]*)>/g)].map((match) => match[2] ?? '');
    expect(tags.length).toBeGreaterThan(0);
    expect(tags.filter((attributes) => /\b(src|href)=/.test(attributes))).toEqual([]);
    // The page as the app builds it, byte for byte, under its own policy.
    const built = await verifierPage();
    expect(page.text).toBe(built);
    expect(page.headers.get('content-length')).toBe(String(Buffer.byteLength(built)));
    expect(page.headers.get('content-security-policy')).toBe(`${verifierPagePolicy(built)}; frame-ancestors 'none'`);
  }, 120_000);

  it('answers pricing and the rubric', async () => {
    const pricing = await call(running.base, 'GET', '/pricing');
    expect(pricing.json.tiers).toHaveLength(4);
    const rubric = await call(running.base, 'POST', '/v1/rubric/select', { body: { intent: 'regulated' } });
    expect(rubric.json).toMatchObject({
      recommended_profile: 'pq',
      disclaimer: expect.stringContaining('not regulatory approval'),
    });
    expect(
      (await call(running.base, 'POST', '/v1/rubric/select', { body: { intent: 'commerce', amount_usd: 0.001 } })).json
        .recommended_profile,
    ).toBe('nano');
    expect(
      (await call(running.base, 'POST', '/v1/rubric/select', { body: { intent: 'commerce' } })).json
        .recommended_profile,
    ).toBe('standard');
  });
});

describe('service limits', () => {
  let directory: string;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-service-limits-'));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('lets the 100th free call through and answers the 101st with 429 and Retry-After', async () => {
    const running = await start(directory, 'free');
    try {
      for (let call100 = 1; call100 <= 100; call100 += 1) {
        const answer = await call(running.base, 'POST', '/v1/receipt/free', {
          body: { input: `n${call100}`, purpose: 'quota' },
        });
        expect(answer.status, `call ${call100}`).toBe(201);
      }
      const over = await call(running.base, 'POST', '/v1/receipt/free', { body: { input: 'n101', purpose: 'quota' } });
      expect(over.status).toBe(429);
      expect(over.json.error).toMatchObject({ code: 'quota_exceeded' });
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);
    } finally {
      await running.close();
    }
  }, 120_000);

  it('counts a pro tenant per month, and rate-limits every route per address', async () => {
    const running = await start(directory, 'pro', { proPerMonth: 2, rateLimitPerMinute: 12 });
    try {
      await createTenant(running.store, 'acme', 'pro');
      const { key } = await issueApiKey(running.store, 'acme');
      expect((await call(running.base, 'POST', '/tenants/acme/receipts', { key, body: EMIT })).status).toBe(201);
      expect((await call(running.base, 'POST', '/v1/receipt/emit', { key, body: EMIT })).status).toBe(201);
      const over = await call(running.base, 'POST', '/tenants/acme/receipts', { key, body: EMIT });
      expect(over.status).toBe(429);
      expect(over.json.error).toMatchObject({ code: 'quota_exceeded' });
      let limited: Awaited<ReturnType<typeof call>> | undefined;
      for (let attempt = 0; attempt < 20 && limited === undefined; attempt += 1) {
        const answer = await call(running.base, 'GET', '/pricing');
        if (answer.status === 429) limited = answer;
      }
      expect(limited?.json.error).toMatchObject({ code: 'rate_limited' });
    } finally {
      await running.close();
    }
  });

  it('keeps a rotated key listed as retired, so what it signed still verifies', async () => {
    const home = path.join(directory, 'rotate');
    const workspace = openWorkspace(home);
    try {
      const before = loadServiceKeys(workspace);
      const store = await testServiceStore(workspace);
      const rotated = await rotateServiceKey(workspace, store).finally(() => store.close());
      expect(rotated.retired_key_id).toBe(before.active.key_id);
      // The rotation is among the service's audit rows, in its store (SQLite or PostgreSQL).
      const reopened = await testServiceStore(workspace);
      const audit = await reopened.identity.listAudit().finally(() => reopened.close());
      expect(audit.filter((row) => row.action === 'service-key-rotate')).toMatchObject([
        { subject: rotated.key_id, details: { retired: before.active.key_id } },
      ]);
      const after = loadServiceKeys(workspace);
      expect(after.active.key_id).toBe(rotated.key_id);
      expect(after.listed.map((key) => [key.key_id, key.active])).toEqual([
        [rotated.key_id, true],
        [before.active.key_id, false],
      ]);
      expect(fs.statSync(path.join(home, 'service', 'signing-key.json')).mode & 0o777).toBe(0o600);
    } finally {
      workspace.close();
    }
  });
});
