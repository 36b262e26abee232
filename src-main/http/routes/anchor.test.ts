import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey } from 'viem/accounts';
import { isResolvedAnchorUrn } from '../../../src-shared/anchor/urn';
import { b64uEncode } from '../../../src-shared/crypto';
import { jcs } from '../../../src-shared/json';
import { startAnvil, type AnvilProcess } from '../../anchor/anvil';
import { anchorAccount, ChainClient } from '../../anchor/chain';
import { AnchorEngine } from '../../anchor/engine';
import { verifyAnchor } from '../../anchor/verify-anchor';
import { submitAnchor } from '../../operations/anchor-submit';
import { describeError, HTTP_STATUS_OF_KIND } from '../../operations/errors';
import { authenticate, createTenant, issueApiKey, revokeKeyByPrefix } from '../../operations/service-admin';
import { workspaceServiceStore } from '../../operations/service-store';
import { loadServiceKeys } from '../../operations/service-keys';
import { openWorkspace, type Workspace } from '../../operations/workspace';
import { buildService, type Service } from '../service';

// The anchor routes over real HTTP on 127.0.0.1, a real ledger and a real anvil.

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());
const digestOf = (text: string): Uint8Array => sha256(new TextEncoder().encode(text));
const EMIT = { agent_did: 'did:web:agent.example.com', input: 'Hello, anchors.', content_type: 'text/plain' };

interface Running {
  service: Service;
  base: string;
  workspace: Workspace;
  engine?: AnchorEngine;
}

async function start(home: string, engine: ((workspace: Workspace) => AnchorEngine) | undefined): Promise<Running> {
  const workspace = openWorkspace(home);
  const keys = loadServiceKeys(workspace);
  const made = engine?.(workspace);
  const service = await buildService({
    workspace,
    signer: {
      key_id: keys.active.key_id,
      seed: keys.active.seed,
      public_key: keys.active.public_key,
      listed: keys.listed,
    },
    ...(made === undefined ? {} : { anchor: made }),
  });
  const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  return { service, base, workspace, ...(made === undefined ? {} : { engine: made }) };
}

async function call(
  base: string,
  method: string,
  route: string,
  options: { key?: string; body?: unknown; raw?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${route}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text) as Record<string, unknown>, text };
}

const anchorPath = (urn: string): string => `/v1/anchor/${encodeURIComponent(urn)}`;

describe('the anchor routes', () => {
  let directory: string;
  let anvil: AnvilProcess;
  let running: Running;
  let bare: Running;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-anchor-routes-'));
    anvil = await startAnvil();
    const chain = new ChainClient(anvil.rpcUrl);
    const account = anchorAccount(generatePrivateKey());
    await chain.fundOnDevelopmentChain(account.address);
    running = await start(
      path.join(directory, 'main'),
      (workspace) =>
        new AnchorEngine({
          store: workspaceServiceStore(workspace),
          chain,
          account,
          network: 'anvil-local',
          intervalMs: 60_000,
        }),
    );
    for (const tier of ['free', 'pro', 'scale', 'enterprise'] as const) {
      await createTenant(workspaceServiceStore(running.workspace), tier, tier);
      keys[tier] = (await issueApiKey(workspaceServiceStore(running.workspace), tier)).key;
    }
    keys.revoked = (await issueApiKey(workspaceServiceStore(running.workspace), 'pro')).key;
    await revokeKeyByPrefix(workspaceServiceStore(running.workspace), keys.revoked.slice(0, 'svc_pro_'.length + 8));
    bare = await start(path.join(directory, 'bare'), undefined);
    await createTenant(workspaceServiceStore(bare.workspace), 'pro', 'pro');
    keys.bare = (await issueApiKey(workspaceServiceStore(bare.workspace), 'pro')).key;
  });
  afterAll(async () => {
    for (const service of [running, bare]) {
      await service?.service.close();
      await service?.engine?.stop();
      service?.workspace.close();
    }
    await anvil?.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('answers 401 without a valid key and 403 for a tier that does not anchor, queuing nothing', async () => {
    const body = { canonical_sha256: b64uEncode(digestOf('refused')) };
    for (const key of [undefined, 'svc_pro_notarealkeynotarealkeynotareal1', keys.revoked]) {
      const answer = await call(running.base, 'POST', '/v1/anchor', { body, ...(key === undefined ? {} : { key }) });
      expect(answer.status, answer.text).toBe(401);
      expect(answer.json).toEqual({ error: { code: 'unauthorized', message: expect.any(String), details: [] } });
    }
    const free = await call(running.base, 'POST', '/v1/anchor', { key: keys.free!, body });
    expect(free.status).toBe(403);
    expect(free.json.error).toMatchObject({ code: 'forbidden' });
    expect((await running.engine!.status()).pending_hashes).toBe(0);
  });

  it('refuses a tier that does not anchor once, in the operation, with the one status 403 (PROTOCOL 8)', async () => {
    const body = { canonical_sha256: b64uEncode(digestOf('free tier')) };
    const caller = await authenticate(workspaceServiceStore(running.workspace), keys.free!);
    expect(caller?.key.tier).toBe('free');
    let thrown: unknown;
    try {
      await submitAnchor(running.engine!, caller!, body);
    } catch (error) {
      thrown = error;
    }
    const { envelope, kind } = describeError(thrown);
    expect(kind).toBe('forbidden');
    expect(HTTP_STATUS_OF_KIND[kind]).toBe(403);
    expect(envelope).toEqual({
      code: 'forbidden',
      message: expect.stringMatching(/^A free key does not anchor/),
      details: [],
    });
    // The route answers what the operation says, before reading the body.
    for (const raw of [JSON.stringify(body), '{"canonical_sha256": "short"}', 'not json']) {
      const answer = await call(running.base, 'POST', '/v1/anchor', { key: keys.free!, raw });
      expect(answer.status, answer.text).toBe(403);
      expect(answer.json).toEqual({ error: envelope });
    }
    expect((await running.engine!.status()).pending_hashes).toBe(0);
  });

  it('answers 400 with a pointer for anything but canonical_sha256 as base64url of 32 bytes', async () => {
    const good = b64uEncode(digestOf('x'));
    const cases: [string, string][] = [
      ['{}', ''],
      [JSON.stringify({ canonical_sha256: good, extra: 1 }), '/extra'],
      [JSON.stringify({ canonical_sha256: `${good}A` }), '/canonical_sha256'],
      [JSON.stringify({ canonical_sha256: good.replace(/.$/, good.endsWith('B') ? 'C' : 'B') }), '/canonical_sha256'],
      [JSON.stringify({ canonical_sha256: Buffer.from(digestOf('x')).toString('base64') }), '/canonical_sha256'],
      [`{"canonical_sha256": "${good}", "canonical_sha256": "${good}"}`, '/canonical_sha256'],
      ['not json', ''],
    ];
    for (const [raw, pointer] of cases) {
      const answer = await call(running.base, 'POST', '/v1/anchor', { key: keys.pro!, raw });
      expect(answer.status, raw).toBe(400);
      expect(answer.json.error, raw).toMatchObject({ code: 'invalid_request' });
      if (pointer !== '')
        expect(
          (answer.json.error as { details: { path: string }[] }).details.map((detail) => detail.path),
          raw,
        ).toContain(pointer);
    }
    expect((await running.engine!.status()).pending_hashes).toBe(0);
  });

  it('queues a hash with 202, gives the same record twice, 409 for another hash with its suffix, and GET answers pending then resolved', async () => {
    const digest = digestOf('anchored receipt');
    const first = await call(running.base, 'POST', '/v1/anchor', {
      key: keys.pro!,
      body: { canonical_sha256: b64uEncode(digest) },
    });
    expect(first.status, first.text).toBe(202);
    expect(first.json).toEqual({
      svc_anchor: expect.stringMatching(/^urn:svc:anchor:pending:\d{4}-\d\d-\d\dT\d\d:\d\dZ:[0-9a-f]{16}$/),
      batch_id: expect.any(String),
      eta_seconds: expect.any(Number),
    });
    const again = await call(running.base, 'POST', '/v1/anchor', {
      key: keys.scale!,
      body: { canonical_sha256: b64uEncode(digest) },
    });
    expect(again.status).toBe(202);
    expect(again.json.svc_anchor).toBe(first.json.svc_anchor);
    expect(again.json.batch_id).toBe(first.json.batch_id);
    const twin = new Uint8Array(digest);
    twin[20] = (twin[20] ?? 0) ^ 0xff;
    const clash = await call(running.base, 'POST', '/v1/anchor', {
      key: keys.enterprise!,
      body: { canonical_sha256: b64uEncode(twin) },
    });
    expect(clash.status).toBe(409);
    expect(clash.json.error).toMatchObject({ code: 'conflict' });
    const urn = first.json.svc_anchor as string;
    const pending = await call(running.base, 'GET', anchorPath(urn));
    expect(pending.status).toBe(200);
    expect(pending.json).toEqual({ svc_anchor: urn, batch_id: first.json.batch_id, eta_seconds: expect.any(Number) });
    // Unencoded colons work too.
    expect((await call(running.base, 'GET', `/v1/anchor/${urn}`)).json.svc_anchor).toBe(urn);
    await running.engine!.closeNow();
    for (let tries = 0; (await running.engine!.status()).pending_hashes > 0 && tries < 200; tries += 1)
      await running.engine!.tick();
    const resolved = await call(running.base, 'GET', anchorPath(urn));
    expect(resolved.status).toBe(200);
    expect(isResolvedAnchorUrn(resolved.json.svc_anchor)).toBe(true);
    expect(resolved.json).toMatchObject({
      batch_id: first.json.batch_id,
      network: 'anvil-local',
      block_height: expect.any(Number),
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      merkle_root: expect.stringMatching(/^sha256:/),
      merkle_path: [],
      verified_at: expect.any(String),
    });
    expect((await call(running.base, 'GET', anchorPath(resolved.json.svc_anchor as string))).json).toEqual(
      resolved.json,
    );
    const verified = await verifyAnchor({ sha256, digest, record: resolved.json, rpcUrl: anvil.rpcUrl });
    expect(verified.anchor_status).toBe('verified');
  });

  it('answers 404 for an unknown URN and 400 for a malformed one', async () => {
    const unknown = await call(
      running.base,
      'GET',
      anchorPath(`urn:svc:anchor:pending:2026-01-01T00:00Z:${'0'.repeat(16)}`),
    );
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'not_found' });
    for (const bad of [
      'urn:svc:anchor:pending:2026-02-30T00:00Z:0000000000000000',
      'urn:svc:anchor:base:1:0xabc:0000000000000000',
      'hello',
    ]) {
      const answer = await call(running.base, 'GET', anchorPath(bad));
      expect(answer.status, bad).toBe(400);
      expect(answer.json.error, bad).toMatchObject({ code: 'invalid_request', details: [{ path: '/svc_anchor' }] });
    }
  });

  it('queues scale and enterprise tenant receipts and answers their pending anchor; pro receipts are not anchored', async () => {
    const scale = await call(running.base, 'POST', '/tenants/scale/receipts', { key: keys.scale!, body: EMIT });
    expect(scale.status, scale.text).toBe(201);
    const anchor = scale.json.anchor as { svc_anchor: string; batch_id: string; eta_seconds: number };
    expect(anchor).toEqual({
      svc_anchor: expect.stringMatching(/^urn:svc:anchor:pending:/),
      batch_id: expect.any(String),
      eta_seconds: expect.any(Number),
    });
    // The digest is the receipt's JCS SHA-256: its suffix is in the URN.
    const receiptDigest = sha256(new TextEncoder().encode(jcs(scale.json.receipt as never)));
    expect(anchor.svc_anchor.endsWith(Buffer.from(receiptDigest.subarray(0, 8)).toString('hex'))).toBe(true);
    expect((await call(running.base, 'GET', anchorPath(anchor.svc_anchor))).status).toBe(200);
    const enterprise = await call(running.base, 'POST', '/tenants/enterprise/receipts', {
      key: keys.enterprise!,
      body: EMIT,
    });
    expect((enterprise.json.anchor as { svc_anchor: string }).svc_anchor).toMatch(/^urn:svc:anchor:pending:/);
    const pro = await call(running.base, 'POST', '/tenants/pro/receipts', { key: keys.pro!, body: EMIT });
    expect(pro.status).toBe(201);
    expect(pro.json.anchor).toBeNull();
  });

  it('shows the anchoring backlog in the signed /status and the routes in OpenAPI', async () => {
    const status = await call(running.base, 'GET', '/status');
    expect(status.json.anchor).toMatchObject({
      enabled: true,
      network: 'anvil-local',
      pending_hashes: expect.any(Number),
      batches: { open: expect.any(Number) },
      last_error: null,
    });
    expect(status.json.sig_b64u).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]{86}$/));
    const openapi = await call(running.base, 'GET', '/openapi.json');
    expect(Object.keys(openapi.json.paths as object)).toEqual(
      expect.arrayContaining(['/v1/anchor', '/v1/anchor/{svc_anchor}']),
    );
    const bareStatus = await call(bare.base, 'GET', '/status');
    expect(bareStatus.json.anchor).toEqual({ enabled: false });
  });

  it('/status answers one signed document until the backlog changes, and shows a new hash within a second', async () => {
    const first = await call(running.base, 'GET', '/status');
    const second = await call(running.base, 'GET', '/status');
    expect(second.text).toBe(first.text);
    const before = (first.json.anchor as { pending_hashes: number }).pending_hashes;
    const queued = await call(running.base, 'POST', '/v1/anchor', {
      key: keys.pro!,
      body: { canonical_sha256: b64uEncode(digestOf('status backlog')) },
    });
    expect(queued.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const after = await call(running.base, 'GET', '/status');
    expect((after.json.anchor as { pending_hashes: number }).pending_hashes).toBe(before + 1);
    expect(after.json.sig_b64u).not.toBe(first.json.sig_b64u);
  });

  it('without anchoring, POST answers 503 after the key and body checks, and GET still reads the ledger', async () => {
    const body = { canonical_sha256: b64uEncode(digestOf('no engine')) };
    const answer = await call(bare.base, 'POST', '/v1/anchor', { key: keys.bare!, body });
    expect(answer.status).toBe(503);
    expect(answer.json).toEqual({
      error: { code: 'anchoring_unavailable', message: expect.stringMatching(/without anchoring/), details: [] },
    });
    expect((await call(bare.base, 'POST', '/v1/anchor', { body })).status).toBe(401);
    expect((await call(bare.base, 'POST', '/v1/anchor', { key: keys.bare!, body: {} })).status).toBe(400);
    const unknown = await call(
      bare.base,
      'GET',
      anchorPath(`urn:svc:anchor:pending:2026-01-01T00:00Z:${'0'.repeat(16)}`),
    );
    expect(unknown.status).toBe(404);
    const tenant = await call(bare.base, 'POST', '/tenants/pro/receipts', { key: keys.bare!, body: EMIT });
    expect(tenant.json.anchor).toBeNull();
  });
});
