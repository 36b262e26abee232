import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TERM_MS } from '../../src-shared/api/payments';
import { didKeyFromEd25519 } from '../../src-shared/crypto/did-key';
import { encodeMemo, transferCalldata, type PaymentMemo } from '../../src-shared/payments/memo';
import { DEVELOPMENT_ACCOUNT_KEYS, sendCall } from '../anchor/stablecoin';
import { startTestChainWithToken, type TestChainWithToken } from '../anchor/test-support';
import { startPaymentWatcher, type KeyDelivery } from '../operations/payment-watcher';
import { observePayment, paymentKey } from '../operations/payments';
import { loadServiceKeys } from '../operations/service-keys';
import type { ServiceStore } from '../operations/service-store';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { stopTestStores, testServiceStore } from '../test-support/service-store';
import { buildService, type Service } from './service';

// The payment routes and bought keys over real HTTP on 127.0.0.1, paid on a real anvil with the real token,
// on the test's store (SQLite, or PostgreSQL with EVROOM_TEST_STORE=postgres).

const EMIT = { agent_did: 'did:web:agent.example.com', input: 'Bought on chain.', content_type: 'text/plain' };
const START = new Date('2026-11-26T00:00:00Z');

let testChain: TestChainWithToken;
let directory: string;
let workspace: Workspace;
let store: ServiceStore;
let service: Service;
let base: string;
let clock = START;

async function pay(memo: PaymentMemo, amount: bigint): Promise<string> {
  return sendCall(
    testChain.rpcUrl,
    DEVELOPMENT_ACCOUNT_KEYS[2] as `0x${string}`,
    testChain.chain.config.token,
    transferCalldata(testChain.chain.config.treasury, amount, encodeMemo(memo)),
  );
}

async function get(route: string, key?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(
    `${base}${route}`,
    key === undefined ? {} : { headers: { authorization: `Bearer ${key}` } },
  );
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

async function emit(
  key: string,
): Promise<{ status: number; json: Record<string, unknown>; authenticate: string | null }> {
  const response = await fetch(`${base}/v1/receipt/emit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(EMIT),
  });
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
    authenticate: response.headers.get('www-authenticate'),
  };
}

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-payment-routes-'));
  testChain = await startTestChainWithToken();
  workspace = openWorkspace(path.join(directory, 'home'));
  const keys = loadServiceKeys(workspace);
  store = await testServiceStore(workspace);
  service = await buildService({
    workspace,
    store,
    signer: {
      key_id: keys.active.key_id,
      seed: keys.active.seed,
      public_key: keys.active.public_key,
      listed: keys.listed,
    },
    now: () => clock,
  });
  base = await service.app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  await service?.close();
  await store?.close();
  await stopTestStores();
  workspace?.close();
  await testChain?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('payments over HTTP', () => {
  it('a bought key emits receipts until its term ends, then answers 401 key_expired', async () => {
    const tx = await pay({ tier: 'pro', contact: 'http-buyer@example.com' }, 99_000_000n);
    await observePayment(store, workspace, testChain.chain, tx, {
      confirmations: 1,
      now: START,
    });
    const { key } = paymentKey(workspace, 'anvil-local', tx, 'pro');
    clock = new Date(START.getTime() + TERM_MS.month - 1);
    expect((await emit(key)).status).toBe(201);
    clock = new Date(START.getTime() + TERM_MS.month);
    const expired = await emit(key);
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual({
      error: {
        code: 'key_expired',
        message: expect.stringContaining(new Date(START.getTime() + TERM_MS.month).toISOString()),
        details: [],
      },
    });
    expect(String((expired.json.error as { message: string }).message)).toMatch(/pay again with the same contact/);
    expect(expired.authenticate).toMatch(/^Bearer/);
    const unknown = await emit(`svc_pro_${'B'.repeat(32)}`);
    expect(unknown.status).toBe(401);
    expect((unknown.json.error as { code: string }).code).toBe('unauthorized');
  });

  it('GET /v1/payments/:tx says where a payment stands, never its contact, tenant or key', async () => {
    clock = START;
    const tx = await pay({ tier: 'scale', contact: 'status@example.com' }, 4_990_000_000n);
    await observePayment(store, workspace, testChain.chain, tx, {
      confirmations: 1,
      now: START,
    });
    const answer = await get(`/v1/payments/${tx.toUpperCase().replace('0X', '0x')}`);
    expect(answer).toEqual({
      status: 200,
      json: {
        tx_hash: tx,
        network: 'anvil-local',
        state: 'issued',
        tier: 'scale',
        term: 'year',
        expires_at: new Date(START.getTime() + TERM_MS.year).toISOString(),
        delivery: { channel: 'outbox', state: 'pending' },
      },
    });
    const { key } = paymentKey(workspace, 'anvil-local', tx, 'scale');
    expect(JSON.stringify(answer.json)).not.toMatch(new RegExp(`status@|pay-scale|${key.slice(0, 16)}`));
    expect((await get(`/v1/payments/0x${'7'.repeat(64)}`)).status).toBe(404);
    const bad = await get('/v1/payments/0x1234');
    expect(bad.status).toBe(400);
    expect((bad.json.error as { code: string }).code).toBe('invalid_request');
  });

  it('GET /v1/apikeys/pickup/:tx serves the sealed envelope once stored, 409 for a mailed key, 404 otherwise', async () => {
    const did = didKeyFromEd25519(new Uint8Array(32).fill(5));
    const sealedTx = await pay({ tier: 'pro', contact: did }, 99_000_000n);
    const mailedTx = await pay({ tier: 'pro', contact: 'mailed@example.com' }, 99_000_000n);
    for (const tx of [sealedTx, mailedTx])
      await observePayment(store, workspace, testChain.chain, tx, {
        confirmations: 1,
        now: START,
      });
    expect((await get(`/v1/apikeys/pickup/${sealedTx}`)).json).toMatchObject({ error: { code: 'not_found' } });

    const delivered: KeyDelivery[] = [];
    const watcher = startPaymentWatcher({
      store: store,
      workspace,
      chain: testChain.chain,
      confirmations: 1,
      intervalMs: 60_000,
      now: () => START,
      delivery: {
        mailChannel: 'outbox',
        deliver: async (delivery) => {
          delivered.push(delivery);
          return delivery.channel === 'sealed'
            ? { sealed: { format: 'evroom.sealed-apikey/1', tx_hash: delivery.tx_hash, recipient: delivery.to } }
            : {};
        },
      },
    });
    await watcher.passNow();
    await watcher.stop();
    expect(delivered.map((delivery) => delivery.channel).sort()).toContain('sealed');

    const pickup = await fetch(`${base}/v1/apikeys/pickup/${sealedTx}`);
    expect(pickup.status).toBe(200);
    expect(pickup.headers.get('cache-control')).toBe('no-store');
    expect(await pickup.json()).toEqual({ format: 'evroom.sealed-apikey/1', tx_hash: sealedTx, recipient: did });
    const mailed = await get(`/v1/apikeys/pickup/${mailedTx}`);
    expect(mailed.status).toBe(409);
    expect((mailed.json.error as { code: string }).code).toBe('not_sealed');
    expect((await get(`/v1/apikeys/pickup/0x${'6'.repeat(64)}`)).status).toBe(404);
    expect((await get('/v1/apikeys/pickup/not-a-hash')).status).toBe(400);
    expect((await get(`/v1/payments/${sealedTx}`)).json).toMatchObject({
      delivery: { channel: 'sealed', state: 'delivered' },
    });
  });
});
