import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppApiResults } from '../../src-shared/api/contract';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainClient } from '../anchor/chain';
import { DEVELOPMENT_ACCOUNT_KEYS, StablecoinChain } from '../anchor/stablecoin';
import { createAppApi, type AppApiDispatcher } from '../appapi/app-api';
import { createServiceControl, type AppServiceControl } from './service-control';

// The Service view's calls through the app API with the shell's real service control: the
// service listens on 127.0.0.1, a key issued through the app API issues a receipt over real
// HTTP, the app API's own ledger connection sees it, and a revoked key is refused.

const BODY = JSON.stringify({ agent_did: 'did:web:agent.example.com', input: 'hello', content_type: 'text/plain' });

describe('the app’s HTTP service control', () => {
  let home: string;
  let control: AppServiceControl;
  let api: AppApiDispatcher;
  const call = <M extends keyof AppApiResults>(method: M, input?: unknown) =>
    api(method, input) as Promise<AppApiResults[M]>;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'evroom-service-control-'));
    control = createServiceControl(home);
    api = createAppApi({ mode: 'web', dataDirectory: home, service: control });
  });

  afterEach(async () => {
    await control.close();
    api.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('starts on 127.0.0.1, answers the running service when started twice, and stops', async () => {
    expect(await call('service.status')).toEqual({
      running: false,
      requests: [],
      store: { engine: 'sqlite', where: 'this workspace’s ledger' },
    });
    const [first, second] = await Promise.all([call('service.start', {}), call('service.start', {})]);
    expect(first.running).toBe(true);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.url).toBe(`http://127.0.0.1:${first.port}`);
    expect(second).toEqual(first);
    expect(await call('service.start', { port: 0 })).toEqual(first);
    const health = await fetch(`${first.url}/v1/keys`);
    expect(health.status).toBe(200);
    const stopped = await call('service.stop');
    expect(stopped.running).toBe(false);
    expect(stopped.url).toBeUndefined();
    // The last run's requests stay visible after a stop.
    expect(stopped.requests[0]).toMatchObject({ method: 'GET', route: '/v1/keys', status: 200 });
    await expect(fetch(`${first.url}/v1/keys`)).rejects.toThrow();
    expect((await call('service.stop')).running).toBe(false);
  });

  it('says clearly when the port is taken, and starts nothing', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolveListen) => blocker.listen(0, '127.0.0.1', resolveListen));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      expect(await api.answer('service.start', { port })).toEqual({
        ok: false,
        error: {
          code: 'port_in_use',
          message: `Port ${port} on 127.0.0.1 is in use by another program; choose another port, or 0 for any free one.`,
          details: [{ path: '/port', message: 'in use' }],
        },
      });
      expect((await call('service.status')).running).toBe(false);
    } finally {
      await new Promise((resolveClose) => blocker.close(resolveClose));
    }
    // The failed start left nothing behind: the same port works once it is free.
    expect((await call('service.start', { port })).port).toBe(port);
  });

  it('issues a receipt with a key made in the app, shows it, counts it, and refuses the key once revoked', async () => {
    const { url } = await call('service.start', {});
    await call('tenants.create', { id: 'acme', tier: 'pro' });
    const { key, apiKey } = await call('apikeys.issue', { tenant: 'acme' });
    const issue = (bearer: string) =>
      fetch(`${url}/tenants/acme/receipts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: BODY,
      });

    const created = await issue(key);
    expect(created.status).toBe(201);
    const answer = (await created.json()) as { receipt: { receipt_id?: string } };
    expect(answer.receipt).toBeTypeOf('object');

    // The app API's own connection to the ledger sees what the service stored.
    const rows = (await call('receipts.list', {})).rows;
    expect(rows).toHaveLength(1);
    const detail = await call('receipts.get', { id: rows[0]!.id });
    expect(detail.status).toBe('PASS');
    expect(detail.sources).toEqual([{ kind: 'service', ref: 'tenant:acme', imported_at: expect.any(Number) }]);
    expect((await call('tenants.list'))[0]?.quota).toEqual({
      period: new Date().toISOString().slice(0, 7),
      used: 1,
      limit: 50_000,
    });

    const status = await call('service.status');
    expect(status.requests[0]).toMatchObject({
      method: 'POST',
      route: '/tenants/:id/receipts',
      status: 201,
      at: expect.any(Number),
      ms: expect.any(Number),
    });
    // Neither the key nor the body is kept with the request.
    expect(JSON.stringify(status)).not.toContain(key);
    expect(JSON.stringify(status)).not.toContain('hello');

    await call('apikeys.revoke', { prefix: apiKey.prefix });
    expect((await issue(key)).status).toBe(401);
    expect((await call('service.status')).requests.map((request) => request.status).slice(0, 2)).toEqual([401, 201]);
    expect((await call('receipts.count', {})).count).toBe(1);
  });

  it('buys a key on the embedded chain with a development account’s test tokens, and refuses while stopped', async () => {
    const buy = { tier: 'pro', contact: 'buyer@example.com', annual: false, account: 2 };
    expect(await api.answer('service.buyKey', buy)).toMatchObject({
      ok: false,
      error: { code: 'service_not_running' },
    });
    const status = await call('service.start', {});
    expect(status.payments).toEqual({
      network: 'anvil-local',
      chainId: 31337,
      embedded: true,
      token: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      treasury: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/),
    });
    const { token, treasury, rpcUrl } = status.payments!;
    const chain = new StablecoinChain(new ChainClient(rpcUrl!), {
      network: 'anvil-local',
      chainId: 31337,
      token,
      treasury,
      decimals: 6,
      embedded: true,
    });
    const before = await chain.balanceOf(treasury);
    const { tx_hash } = await call('service.buyKey', buy);
    expect(tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const transaction = await chain.paymentTransaction(tx_hash);
    expect(transaction).toMatchObject({
      status: 'success',
      from: privateKeyToAccount(DEVELOPMENT_ACCOUNT_KEYS[2]!).address.toLowerCase(),
      to: token,
    });
    expect(transaction!.transfers).toEqual([expect.objectContaining({ to: treasury, amount: 99_000_000n })]);
    expect(await chain.balanceOf(treasury)).toBe(before + 99_000_000n);
    // Stopped, the app buys nothing: the chain stops with the service.
    await call('service.stop');
    expect(await api.answer('service.buyKey', buy)).toMatchObject({
      ok: false,
      error: { code: 'service_not_running' },
    });
  });

  it('checks its own input', () => {
    expect(() => createServiceControl('')).toThrow(TypeError);
    return expect(control.start(-1)).rejects.toThrow(RangeError);
  });
});
