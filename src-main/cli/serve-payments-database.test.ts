/**
 * Bought keys on a service of two `evroom serve --database` nodes (issue 26 on the PostgreSQL
 * store): a real PostgreSQL, a real anvil with the real token, the nodes started as an operator
 * does (the second node's `service/` folder copied from the first after its first start). A
 * payment becomes exactly one key whichever node watches; `apikeys redeem --database` on an
 * admin's machine and `apikeys payments --database` work on the same rows; a node taking the
 * watch over after the first stops delivers keys that work.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { encodeMemo, transferCalldata, type PaymentMemo } from '../../src-shared/payments/memo';
import { DEVELOPMENT_ACCOUNT_KEYS, sendCall } from '../anchor/stablecoin';
import { startTestChainWithToken, type TestChainWithToken } from '../anchor/test-support';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { EVROOM_BIN, startServeChild, stopServeChild, type ServedChild } from '../test-support/serve-child';

const KEY_PATTERN = /svc_(?:pro|scale)_[A-Za-z0-9_-]{32}/;
const EMIT = { agent_did: 'did:web:agent.example.com', input: 'Bought on a database.', content_type: 'text/plain' };

let server: TestPostgres;
let testChain: TestChainWithToken;
let directory: string;
const children: ServedChild[] = [];

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [EVROOM_BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', EVROOM_DATABASE_URL: '' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function pay(memo: PaymentMemo, account: number, amount = 99_000_000n): Promise<string> {
  return sendCall(
    testChain.rpcUrl,
    DEVELOPMENT_ACCOUNT_KEYS[account] as `0x${string}`,
    testChain.chain.config.token,
    transferCalldata(testChain.chain.config.treasury, amount, encodeMemo(memo)),
  );
}

interface Status {
  state?: string;
  delivery?: { state: string };
}

/** Polls a node's GET /v1/payments/:tx until the key is delivered (or 20 s). */
async function delivered(base: string, tx: string): Promise<Status> {
  let status: Status = {};
  for (let tries = 0; tries < 200 && status.delivery?.state !== 'delivered'; tries += 1) {
    const response = await fetch(`${base}/v1/payments/${tx}`);
    status = (await response.json()) as Status;
    if (status.delivery?.state !== 'delivered') await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return status;
}

/** The key in the .eml some node wrote for a transaction (only the lease's holder delivers). */
function keyInOutbox(homes: string[], tx: string): string {
  const files = homes.map((home) => path.join(home, 'outbox', `${tx}.eml`)).filter((file) => fs.existsSync(file));
  expect(files).toHaveLength(1);
  const key = KEY_PATTERN.exec(fs.readFileSync(files[0] as string, 'latin1'))?.[0];
  expect(key).toBeDefined();
  return key as string;
}

async function emitWith(base: string, key: string): Promise<number> {
  const response = await fetch(`${base}/v1/receipt/emit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(EMIT),
  });
  await response.arrayBuffer();
  return response.status;
}

function copyServiceFolder(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true, mode: 0o700 });
  fs.cpSync(path.join(from, 'service'), path.join(to, 'service'), { recursive: true });
}

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-serve-pay-db-'));
  server = await startTestPostgres();
  testChain = await startTestChainWithToken();
}, 120_000);

afterAll(async () => {
  for (const served of children) await stopServeChild(served);
  await testChain?.stop();
  await server?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

/** A fresh database, and the serve arguments of a node on it selling keys on the test chain. */
async function nodeArguments(name: string): Promise<{ url: string; args: string[] }> {
  const url = await server.createDatabase();
  const anchorKey = generatePrivateKey();
  await testChain.client.fundOnDevelopmentChain(privateKeyToAccount(anchorKey).address);
  const keyFile = path.join(directory, `${name}-anchor-key`);
  fs.writeFileSync(keyFile, `${anchorKey}\n`, { mode: 0o600 });
  const { token, treasury } = testChain.chain.config;
  return {
    url,
    args: [
      '--database',
      url,
      '--chain-rpc',
      testChain.rpcUrl,
      '--chain-name',
      'testnet',
      '--chain-key-file',
      keyFile,
      '--stablecoin',
      token,
      '--treasury',
      treasury,
    ],
  };
}

describe('bought keys on two evroom serve --database nodes', () => {
  it('one key per payment whichever node watches; redeem and payments --database on an admin machine', async () => {
    const { url, args } = await nodeArguments('first');
    const { token, treasury } = testChain.chain.config;
    const homeA = path.join(directory, 'node-a');
    const homeB = path.join(directory, 'node-b');
    const admin = path.join(directory, 'admin');

    // The first node starts once; its service/ folder is copied to the second node and the admin.
    const a = await startServeChild(homeA, args);
    children.push(a);
    copyServiceFolder(homeA, homeB);
    copyServiceFolder(homeA, admin);
    const b = await startServeChild(homeB, args);
    children.push(b);

    // A payment: one key, delivered once by the lease's holder, working on both nodes.
    const first = await pay({ tier: 'pro', contact: 'pg-first@example.com' }, 6);
    expect(await delivered(b.url, first)).toMatchObject({ state: 'issued', delivery: { state: 'delivered' } });
    const firstKey = keyInOutbox([homeA, homeB], first);
    expect(await emitWith(a.url, firstKey)).toBe(201);
    expect(await emitWith(b.url, firstKey)).toBe(201);

    // The admin redeems a payment by hand while the watcher may meet it too: one key.
    const second = await pay({ tier: 'scale', contact: 'pg-second@example.com' }, 7, 499_000_000n);
    const redeemed = evroom(admin, [
      'apikeys',
      'redeem',
      '--tx',
      second,
      '--rpc',
      testChain.rpcUrl,
      '--token',
      token,
      '--treasury',
      treasury,
      '--network',
      'testnet',
      '--database',
      url,
      '--json',
    ]);
    expect(redeemed.code, redeemed.stderr).toBe(0);
    expect(JSON.parse(redeemed.stdout)).toMatchObject({ state: 'issued', tier: 'scale' });
    expect(await delivered(a.url, second)).toMatchObject({ state: 'issued', delivery: { state: 'delivered' } });
    const secondKey = keyInOutbox([homeA, homeB], second);
    expect(await emitWith(b.url, secondKey)).toBe(201);

    // A node or an admin without the nodes' payment key secret is refused before it issues a key
    // that no node would deliver as a working one.
    const homeC = path.join(directory, 'node-c');
    copyServiceFolder(homeA, homeC);
    fs.rmSync(path.join(homeC, 'service', 'payment-key-secret'));
    const refusedNode = evroom(homeC, ['serve', '--port', '0', '--quiet', ...args]);
    expect(refusedNode.code).toBe(2);
    expect(refusedNode.stderr).toContain(
      "serve: This node's service/payment-key-secret is not the payment key secret the database's nodes use: the keys derived under it would not work; copy service/payment-key-secret from a node of the service",
    );
    expect(refusedNode.stderr).not.toMatch(/\n\s+at /);
    const redeemAs = (home: string): ReturnType<typeof evroom> =>
      evroom(home, [
        'apikeys',
        'redeem',
        '--tx',
        second,
        '--rpc',
        testChain.rpcUrl,
        '--token',
        token,
        '--treasury',
        treasury,
        '--network',
        'testnet',
        '--database',
        url,
      ]);
    const bare = path.join(directory, 'admin-bare');
    fs.mkdirSync(bare, { mode: 0o700 });
    const missing = redeemAs(bare);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(
      `apikeys redeem: ${path.join(bare, 'service', 'payment-key-secret')} is missing: bought keys are derived from the service's payment key secret`,
    );
    expect(fs.existsSync(path.join(bare, 'service', 'payment-key-secret'))).toBe(false);
    const other = path.join(directory, 'admin-other');
    copyServiceFolder(homeA, other);
    fs.writeFileSync(path.join(other, 'service', 'payment-key-secret'), `${'ab'.repeat(32)}\n`, { mode: 0o600 });
    const mismatch = redeemAs(other);
    expect(mismatch.code).not.toBe(0);
    expect(mismatch.stderr).toContain("is not the payment key secret the database's nodes use");
    expect(missing.stderr + mismatch.stderr).not.toMatch(/\n\s+at /);

    // The first node stops; the second takes the watch over and its keys work.
    await stopServeChild(a);
    const third = await pay({ tier: 'pro', contact: 'pg-third@example.com' }, 8);
    expect(await delivered(b.url, third)).toMatchObject({ state: 'issued', delivery: { state: 'delivered' } });
    expect(fs.existsSync(path.join(homeB, 'outbox', `${third}.eml`))).toBe(true);
    expect(await emitWith(b.url, keyInOutbox([homeA, homeB], third))).toBe(201);

    // Exactly one key per payment, all three listed from the admin's machine.
    const keys = evroom(admin, ['apikeys', 'list', '--json', '--database', url]);
    expect(keys.code, keys.stderr).toBe(0);
    expect((JSON.parse(keys.stdout) as { keys: unknown[] }).keys).toHaveLength(3);
    const listed = evroom(admin, ['apikeys', 'payments', '--json', '--database', url]);
    expect(listed.code, listed.stderr).toBe(0);
    const payments = (JSON.parse(listed.stdout) as { payments: { tx_hash: string; state: string }[] }).payments;
    expect(payments.map((payment) => [payment.tx_hash, payment.state]).sort()).toEqual(
      [
        [first, 'issued'],
        [second, 'issued'],
        [third, 'issued'],
      ].sort(),
    );
    const table = evroom(admin, ['apikeys', 'payments', '--database', url]);
    expect(table.stdout).toMatch(/^TX +STATE +TIER +TERM +AMOUNT +CONTACT +KEY +DELIVERY$/m);
    for (const key of [firstKey, secondKey])
      expect(table.stdout + listed.stdout + keys.stdout + a.stderr() + b.stderr()).not.toContain(key);
  }, 240_000);

  it('the watcher killed between recording and issuing: the other node takes over and issues exactly one key', async () => {
    const { url, args } = await nodeArguments('crash');
    // The first test's payments are in blocks before this service's first start: not its business.
    await testChain.mine();
    const homeA = path.join(directory, 'crash-a');
    const homeB = path.join(directory, 'crash-b');
    const a = await startServeChild(homeA, args, { EVROOM_FAILPOINTS: 'payments.after-record=kill' });
    children.push(a);
    copyServiceFolder(homeA, homeB);
    const b = await startServeChild(homeB, args);
    children.push(b);
    expect(a.stderr()).toContain('payments: this node');

    const tx = await pay({ tier: 'pro', contact: 'pg-crash@example.com' }, 9);
    // Node A, the lease's holder, records the confirmed payment and dies before issuing.
    const death = await Promise.race([a.exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    expect((death as { signal?: string } | undefined)?.signal, a.stderr()).toBe('SIGKILL');
    const between = evroom(homeB, ['apikeys', 'payments', '--json', '--database', url]);
    expect(JSON.parse(between.stdout)).toEqual({
      payments: [expect.objectContaining({ tx_hash: tx, state: 'pending_confirmations', key_prefix: null })],
    });

    // Node B takes the lease over once A's lapses (15 s), issues once and delivers once.
    let status: Status = {};
    for (let tries = 0; tries < 60 && status.delivery?.state !== 'delivered'; tries += 1) {
      status = await delivered(b.url, tx);
    }
    expect(status).toMatchObject({ state: 'issued', delivery: { state: 'delivered' } });
    const key = keyInOutbox([homeA, homeB], tx);
    expect(fs.existsSync(path.join(homeB, 'outbox', `${tx}.eml`))).toBe(true);
    expect(await emitWith(b.url, key)).toBe(201);

    // Node A again, without the failpoint: nothing changes.
    const again = await startServeChild(homeA, args);
    children.push(again);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const keys = evroom(homeB, ['apikeys', 'list', '--json', '--database', url]);
    expect((JSON.parse(keys.stdout) as { keys: unknown[] }).keys).toHaveLength(1);
    expect(fs.existsSync(path.join(homeA, 'outbox', `${tx}.eml`))).toBe(false);
  }, 240_000);
});
