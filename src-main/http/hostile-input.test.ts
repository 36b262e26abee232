import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wearableWorkedExample } from '../../src-shared/formats/wearable/example';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { createTenant, issueApiKey } from '../operations/service-admin';
import { workspaceServiceStore } from '../operations/service-store';
import { loadServiceKeys } from '../operations/service-keys';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { buildService, type Service } from './service';

// What a hostile-input probe of the service found, each over real HTTP on 127.0.0.1 against a
// real ledger in a temporary data folder: every answer is either what the route is for or an
// error in PROTOCOL 10's shape, with details naming the request's own path.

const node = createNodeCryptoProvider();
const EMIT = { agent_did: 'did:web:agent.example.com', input: 'Hello, service.', content_type: 'text/plain' };

let home: string;
let workspace: Workspace;
let service: Service;
let base: string;
let port: number;
let scaleKey: string;

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-hostile-'));
  workspace = openWorkspace(home);
  const { active, listed } = loadServiceKeys(workspace);
  service = await buildService({
    workspace,
    signer: { key_id: active.key_id, seed: active.seed, public_key: active.public_key, listed },
  });
  base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  port = Number(new URL(base).port);
  await createTenant(workspaceServiceStore(workspace), 'acme', 'scale');
  scaleKey = (await issueApiKey(workspaceServiceStore(workspace), 'acme')).key;
});

afterAll(async () => {
  await service?.close();
  workspace?.close();
  fs.rmSync(home, { recursive: true, force: true });
});

async function call(
  method: string,
  route: string,
  options: { body?: unknown; headers?: Record<string, string>; key?: string | null } = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown>; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? scaleKey : options.key;
  if (key !== null && headers.authorization === undefined) headers.authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${route}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: the assertions on json say so.
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** A request written on a socket as it is, for what fetch refuses to send; the whole answer. */
function rawRequest(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer in 10 s')));
  });
}

/** The status and body of a raw HTTP/1.1 answer. */
function parseRaw(answer: string): { status: number; head: string; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), head, body: JSON.parse(body) };
}

/** PROTOCOL 10: exactly `{error: {code, message, details: [{path, message}]}}`. */
function expectProtocolError(body: unknown, code: string): { message: string; details: { path: string }[] } {
  expect(Object.keys(body as object)).toEqual(['error']);
  const error = (body as { error: Record<string, unknown> }).error;
  expect(Object.keys(error).sort()).toEqual(['code', 'details', 'message']);
  expect(error.code).toBe(code);
  expect(typeof error.message).toBe('string');
  expect(Array.isArray(error.details)).toBe(true);
  for (const detail of error.details as Record<string, unknown>[]) {
    expect(Object.keys(detail).sort()).toEqual(['message', 'path']);
  }
  return error as unknown as { message: string; details: { path: string }[] };
}

describe('a wearable observation whose device signature does not verify', () => {
  it('is issued (201) with signature_relation invalid, signature_invalid and an inconsistent outcome', async () => {
    const fields = { ...wearableWorkedExample(node).callerFields, observation_nonce: 'nonce-hostile-0000001' };
    // The worked example's signature was made over another nonce: it does not verify over these fields.
    const answer = await call('POST', '/v1/wearable/receipts', { body: fields });
    expect(answer.status, answer.text).toBe(201);
    const body = answer.json.signed_body as Record<string, unknown>;
    expect(body.signature_relation).toBe('invalid');
    expect(body.outcome).toBe('measurement_provenance_inconsistent');
    expect((body.elements as string[])[0]).toBe('signature_invalid');
    expect(body.verdict).toEqual({
      subject_identity_proven: false,
      clinical_validity_proven: false,
      diagnosis_fitness_proven: false,
    });
    // The service's own signature and every derived field check out; only the device signature fails.
    const report = await call('POST', '/v1/wearable/verify', { body: answer.json, key: null });
    const checks = report.json.checks as { id: string; status: string }[];
    expect(checks.filter((check) => check.status !== 'pass').map((check) => check.id)).toEqual(['device_signature']);
    expect(report.json.status).toBe('INVALID');
  });

  it('is issued the same way when a signed field was changed after the device signed', async () => {
    const fields = { ...wearableWorkedExample(node).callerFields, observation_nonce: 'nonce-hostile-0000002' };
    const altered = await call('POST', '/v1/wearable/receipts', { body: { ...fields, value: 73 } });
    expect(altered.status, altered.text).toBe(201);
    expect((altered.json.signed_body as Record<string, unknown>).signature_relation).toBe('invalid');
    expect((altered.json.signed_body as Record<string, unknown>).value).toBe(73);
  });
});

describe('inputs that fit a route but not what lies beneath it', () => {
  it('refuses a since before 1970 at the door, naming ?since', async () => {
    const answer = await call('GET', '/tenants/acme/evidence?since=0000-01-01T00:00:00Z');
    expect(answer.status).toBe(400);
    const error = expectProtocolError(answer.json, 'invalid_request');
    expect(error.details.map((detail) => detail.path)).toEqual(['?since']);
    expect(error.message).not.toMatch(/filters|integer/);
  });

  it('refuses an agent_did the signer would refuse, naming /agent_did', async () => {
    for (const agentDid of [`did:web:${'a'.repeat(292)}`, 'not a did']) {
      const answer = await call('POST', '/v1/receipt/emit', { body: { ...EMIT, agent_did: agentDid } });
      expect(answer.status, agentDid).toBe(400);
      const error = expectProtocolError(answer.json, 'invalid_request');
      expect(error.details.map((detail) => detail.path)).toEqual(['/agent_did']);
      expect(error.message).not.toMatch(/Cannot issue|\/a\b/);
    }
  });

  it('refuses a content_type or a chain_id the signer would refuse, naming them', async () => {
    const type = await call('POST', '/v1/receipt/emit', { body: { ...EMIT, content_type: 'text plain' } });
    expect(type.status).toBe(400);
    expect(expectProtocolError(type.json, 'invalid_request').details.map((detail) => detail.path)).toEqual([
      '/content_type',
    ]);
    const chain = await call('POST', '/v1/receipt/emit?profile=standard', {
      body: { ...EMIT, settlement_reference: { rail: 'stablecoin', chain_id: 0, asset: 'USDC' } },
    });
    expect(chain.status).toBe(400);
    expect(expectProtocolError(chain.json, 'invalid_request').details.map((detail) => detail.path)).toEqual([
      '/settlement_reference/chain_id',
    ]);
  });

  it('refuses a nano emit that would outgrow the nano budget, naming the fields that grow it', async () => {
    const long = { ...EMIT, agent_did: `did:web:${'a'.repeat(248)}`, content_type: `text/${'p'.repeat(123)}` };
    for (const route of ['/v1/receipt/emit?profile=nano', '/tenants/acme/receipts?profile=nano']) {
      const answer = await call('POST', route, { body: long });
      expect(answer.status, route).toBe(400);
      const error = expectProtocolError(answer.json, 'invalid_request');
      expect(error.details.map((detail) => detail.path)).toEqual(['/agent_did', '/content_type']);
      expect(error.message).not.toMatch(/JCS/);
    }
    // The same fields fit a standard receipt.
    expect((await call('POST', '/v1/receipt/emit?profile=standard', { body: long })).status).toBe(201);
  });

  it('issues a standard receipt of the longest members the route takes within its budget', async () => {
    // The route's bounds keep a standard receipt within its 3072 bytes: none is refused for size.
    const widest = '\u0001'.repeat(64); // six bytes each as JCS
    const answer = await call('POST', '/v1/receipt/emit?profile=standard', {
      body: {
        agent_did: `did:web:${'a'.repeat(248)}`,
        content_type: `text/plain;${'"'.repeat(117)}`,
        content_sha256: 'f'.repeat(64),
        settlement_reference: { rail: widest, chain_id: Number.MAX_SAFE_INTEGER, asset: widest },
        sealed: true,
        reputation_tier: widest,
      },
    });
    expect(answer.status, answer.text).toBe(201);
  });
});

describe('answers of the framework', () => {
  it('answers a URL that does not decode with 400 in PROTOCOL 10 shape', async () => {
    const answer = await call('GET', '/v1/keys%');
    expect(answer.status).toBe(400);
    expectProtocolError(answer.json, 'invalid_request');
  });

  it('takes anchor URNs up to the documented 512 characters, and answers longer ones in shape', async () => {
    const urn = `urn:svc:anchor:pending:2026-11-23T09:15Z:${'f'.repeat(400)}`;
    expect(urn.length).toBeGreaterThan(400);
    const long = await call('GET', `/v1/anchor/${encodeURIComponent(urn)}`);
    expect(long.status).toBe(400);
    expect(expectProtocolError(long.json, 'invalid_request').details.map((detail) => detail.path)).toEqual([
      '/svc_anchor',
    ]);
    const over = await call('GET', `/v1/anchor/${'x'.repeat(513)}`);
    expect(over.status).toBe(400);
    expect(expectProtocolError(over.json, 'invalid_request').details.map((detail) => detail.path)).toEqual([
      '/svc_anchor',
    ]);
    const far = await call('GET', `/v1/anchor/${'x'.repeat(2000)}`);
    expect(far.status).toBe(414);
    expectProtocolError(far.json, 'uri_too_long');
  });

  it('answers a method HTTP does not define with 501, and one no route takes with 404, in shape', async () => {
    const unknown = parseRaw(await rawRequest('FOO /v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    expect(unknown.status).toBe(501);
    expectProtocolError(unknown.body, 'not_implemented');
    const unrouted = await call('PROPFIND', '/v1/keys');
    expect(unrouted.status).toBe(404);
    expectProtocolError(unrouted.json, 'not_found');
  });

  it('answers headers over 16 KiB with 431 in PROTOCOL 10 shape', async () => {
    const answer = parseRaw(
      await rawRequest(`GET /v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`),
    );
    expect(answer.status).toBe(431);
    expect(answer.head).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
    expectProtocolError(answer.body, 'headers_too_large');
  });
});

describe('a service that is closing', () => {
  it('answers a request that arrives while it closes with 503 in PROTOCOL 10 shape', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-closing-'));
    const closingWorkspace = openWorkspace(folder);
    try {
      const { active, listed } = loadServiceKeys(closingWorkspace);
      const closing = await buildService({
        workspace: closingWorkspace,
        signer: { key_id: active.key_id, seed: active.seed, public_key: active.public_key, listed },
      });
      const address = new URL(await closing.app.listen({ host: '127.0.0.1', port: 0 }));
      // A request begun before the close and finished after it: the connection is not idle, so
      // the close waits for it, and the route must not run.
      const socket = net.connect(Number(address.port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      const ended = new Promise((resolve) => socket.once('close', resolve));
      socket.write('GET /v1/keys HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closed = closing.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.write('\r\n');
      await ended;
      await closed;
      const parsed = parseRaw(answer);
      expect(parsed.status).toBe(503);
      expectProtocolError(parsed.body, 'unavailable');
    } finally {
      closingWorkspace.close();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('a request whose body stops arriving', () => {
  it('is answered 408 in PROTOCOL 10 shape once its time is up, logs no internal fault, and lets the service close', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-stalled-'));
    const stalledWorkspace = openWorkspace(folder);
    const log: string[] = [];
    try {
      const { active, listed } = loadServiceKeys(stalledWorkspace);
      const stalled = await buildService({
        workspace: stalledWorkspace,
        signer: { key_id: active.key_id, seed: active.seed, public_key: active.public_key, listed },
        requestTimeoutMs: 400,
        logStream: { write: (line: string) => log.push(line) } as unknown as NodeJS.WritableStream,
      });
      const address = new URL(await stalled.app.listen({ host: '127.0.0.1', port: 0 }));
      const socket = net.connect(Number(address.port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      const ended = new Promise((resolve) => socket.once('close', resolve));
      // No API key needed: the body is read before any route runs, and this one never ends.
      socket.write(
        'POST /v1/rubric/select HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"in',
      );
      const started = Date.now();
      await ended;
      expect(Date.now() - started).toBeLessThan(5_000);
      const parsed = parseRaw(answer);
      expect(parsed.status).toBe(408);
      expectProtocolError(parsed.body, 'request_timeout');
      const closedAt = Date.now();
      await stalled.close();
      expect(Date.now() - closedAt).toBeLessThan(2_000);
      expect(log.join('')).not.toContain('internal error');
    } finally {
      stalledWorkspace.close();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('query strings', () => {
  it('refuses array syntax and unknown parameters, naming them', async () => {
    const array = await call('POST', '/v1/receipt/emit?profile[]=nano', { body: EMIT });
    expect(array.status).toBe(400);
    expect(expectProtocolError(array.json, 'invalid_request').details.map((detail) => detail.path)).toEqual([
      '?profile[]',
    ]);
    const unknown = await call('GET', '/v1/keys?foo=1&bar');
    expect(unknown.status).toBe(400);
    expect(expectProtocolError(unknown.json, 'invalid_request').details.map((detail) => detail.path)).toEqual([
      '?foo',
      '?bar',
    ]);
  });

  it('refuses a repeated parameter, naming it', async () => {
    const answer = await call('POST', '/v1/receipt/emit?profile=nano&profile=pq', { body: EMIT });
    expect(answer.status).toBe(400);
    expect(expectProtocolError(answer.json, 'invalid_request').details.map((detail) => detail.path)).toEqual([
      '?profile',
    ]);
  });

  it('names an unknown profile by ?profile, and still takes ?profile on tenant receipts', async () => {
    const gold = await call('POST', '/v1/receipt/emit?profile=gold', { body: EMIT });
    expect(gold.status).toBe(400);
    expect(expectProtocolError(gold.json, 'invalid_request').details.map((detail) => detail.path)).toEqual([
      '?profile',
    ]);
    const tenant = await call('POST', '/tenants/acme/receipts?profile=nano', { body: EMIT });
    expect(tenant.status, tenant.text).toBe(201);
    expect((tenant.json.receipt as Record<string, unknown>).profile).toBe('nano');
  });
});

describe('the Authorization header', () => {
  it('takes the Bearer scheme in any case and refuses other schemes', async () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const answer = await call('POST', '/v1/receipt/emit?profile=nano', {
        body: EMIT,
        headers: { authorization: `${scheme} ${scaleKey}` },
      });
      expect(answer.status, scheme).toBe(201);
    }
    const basic = await call('POST', '/v1/receipt/emit', {
      body: EMIT,
      headers: { authorization: `Basic ${scaleKey}` },
    });
    expect(basic.status).toBe(401);
    expectProtocolError(basic.json, 'unauthorized');
  });
});

describe('GET /verifier', () => {
  it('sends its policy, nosniff and frame-ancestors as headers', async () => {
    const page = await call('GET', '/verifier', { key: null });
    expect(page.status).toBe(200);
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(page.text)?.[1];
    expect(meta).toMatch(/^default-src 'none'; /);
    expect(page.headers.get('content-security-policy')).toBe(`${meta}; frame-ancestors 'none'`);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  }, 120_000);
});
