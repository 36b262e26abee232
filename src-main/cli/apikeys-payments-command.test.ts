import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeMemo, transferCalldata, type PaymentMemo } from '../../src-shared/payments/memo';
import { DEVELOPMENT_ACCOUNT_KEYS, sendCall, STABLECOIN_FILE } from '../anchor/stablecoin';
import { startTestChainWithToken, type TestChainWithToken } from '../anchor/test-support';
import { listApiKeys } from '../ledger';
import { startPaymentWatcher, type KeyDelivery } from '../operations/payment-watcher';
import { paymentKey, paymentStatus } from '../operations/payments';
import { workspaceServiceStore } from '../operations/service-store';
import { openWorkspace } from '../operations/workspace';
import { startTestPostgres } from '../test-support/postgres';

// `evroom apikeys redeem|payments` as a child process, on a real anvil with the real token; and
// the redeem killed between recording a payment and issuing its key (failpoint
// payments.after-record), then the watcher of a restarted service: exactly one key.

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));

let testChain: TestChainWithToken;
let directory: string;
let homes = 0;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function evroom(home: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A data folder that knows the embedded chain's stablecoin, as `evroom serve` leaves it. */
function embeddedHome(): string {
  homes += 1;
  const home = path.join(directory, `home-${homes}`);
  fs.mkdirSync(path.join(home, 'anchor'), { recursive: true, mode: 0o700 });
  fs.copyFileSync(path.join(testChain.anchorFolder, STABLECOIN_FILE), path.join(home, 'anchor', STABLECOIN_FILE));
  return home;
}

async function pay(memo: PaymentMemo, amount = 99_000_000n): Promise<string> {
  return sendCall(
    testChain.rpcUrl,
    DEVELOPMENT_ACCOUNT_KEYS[3] as `0x${string}`,
    testChain.chain.config.token,
    transferCalldata(testChain.chain.config.treasury, amount, encodeMemo(memo)),
  );
}

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-apikeys-payments-'));
  testChain = await startTestChainWithToken();
}, 120_000);

afterAll(async () => {
  await testChain?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('evroom apikeys redeem and payments', () => {
  it('redeems a payment on the embedded chain once, never printing the key, and lists it', async () => {
    const home = embeddedHome();
    const tx = await pay({ tier: 'pro', contact: 'cli@example.com' });
    const first = await evroom(home, ['apikeys', 'redeem', '--tx', tx, '--rpc', testChain.rpcUrl, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const view = JSON.parse(first.stdout) as { state: string; key_prefix: string; tenant_id: string };
    expect(view).toMatchObject({ state: 'issued', tier: 'pro', term: 'month', contact: 'cli@example.com' });
    const again = await evroom(home, ['apikeys', 'redeem', '--tx', tx, '--rpc', testChain.rpcUrl]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`Payment ${tx} on anvil-local: issued.`);
    expect(again.stdout).toContain(`Key ${view.key_prefix}…`);

    const workspace = openWorkspace(home);
    try {
      const { key } = paymentKey(workspace, 'anvil-local', tx, 'pro');
      expect(first.stdout + first.stderr + again.stdout + again.stderr).not.toContain(key);
      expect(listApiKeys(workspace.ledger.readable)).toHaveLength(1);
    } finally {
      workspace.close();
    }

    const table = await evroom(home, ['apikeys', 'payments']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^TX +STATE +TIER +TERM +AMOUNT +CONTACT +KEY +DELIVERY$/m);
    expect(table.stdout).toContain('issued');
    expect(table.stdout).toContain('99.000000');
    expect(table.stdout).toContain(view.key_prefix);
    expect(table.stdout).toContain('outbox pending');
    expect(table.stdout).not.toContain('last try');
    // A service whose mail relay is down: the table says why the key has not gone yet.
    const service = openWorkspace(home);
    try {
      const watcher = startPaymentWatcher({
        store: workspaceServiceStore(service),
        workspace: service,
        chain: testChain.chain,
        confirmations: 1,
        intervalMs: 60_000,
        fromBlock: (await testChain.chain.head()) + 1,
        delivery: {
          mailChannel: 'outbox',
          deliver: () => Promise.reject(new Error('the relay answered 421: try again later')),
        },
      });
      await watcher.passNow();
      await watcher.stop();
    } finally {
      service.close();
    }
    const failing = await evroom(home, ['apikeys', 'payments']);
    expect(failing.stdout).toContain('outbox pending (1 tries)');
    expect(failing.stdout).toMatch(/\n {15}last try: the relay answered 421: try again later\n/);
    const keys = await evroom(home, ['apikeys', 'list']);
    expect(keys.stdout).toMatch(new RegExp(`${view.key_prefix} .* active until \\d{4}-`));
    const listed = await evroom(home, ['apikeys', 'payments', '--json', '--limit', '5']);
    expect(JSON.parse(listed.stdout)).toEqual({ payments: [expect.objectContaining({ tx_hash: tx })] });
  });

  it("redeems and lists on the service's PostgreSQL database with --database or EVROOM_DATABASE_URL, not in the data folder's ledger", async () => {
    const postgres = await startTestPostgres();
    try {
      const url = await postgres.createDatabase();
      const home = embeddedHome();
      // Without the service's payment key secret, refused before anything is recorded.
      const tx = await pay({ tier: 'pro', contact: 'cli-pg@example.com' });
      const bare = await evroom(home, ['apikeys', 'redeem', '--tx', tx, '--rpc', testChain.rpcUrl, '--database', url]);
      expect(bare.code).toBe(2);
      expect(bare.stderr).not.toMatch(/\n\s+at /);
      expect(bare.stderr).toContain(`${path.join(home, 'service', 'payment-key-secret')} is missing`);
      expect(fs.existsSync(path.join(home, 'service', 'payment-key-secret'))).toBe(false);
      const none = await evroom(home, ['apikeys', 'payments', '--json', '--database', url]);
      expect(JSON.parse(none.stdout)).toEqual({ payments: [] });
      // The data folder holds the secret, as a node's copied service/ folder does.
      fs.mkdirSync(path.join(home, 'service'), { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(home, 'service', 'payment-key-secret'), `${'5a'.repeat(32)}\n`, { mode: 0o600 });
      const redeemed = await evroom(home, [
        'apikeys',
        'redeem',
        '--tx',
        tx,
        '--rpc',
        testChain.rpcUrl,
        '--database',
        url,
        '--json',
      ]);
      expect(redeemed.code, redeemed.stderr).toBe(0);
      expect(JSON.parse(redeemed.stdout)).toMatchObject({ state: 'issued', contact: 'cli-pg@example.com' });
      // In the database (listed by the variable as by the flag), not in the data folder's ledger.
      const listed = await evroom(home, ['apikeys', 'payments', '--json'], { EVROOM_DATABASE_URL: url });
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual({
        payments: [expect.objectContaining({ tx_hash: tx, state: 'issued' })],
      });
      const local = await evroom(home, ['apikeys', 'payments', '--json']);
      expect(JSON.parse(local.stdout)).toEqual({ payments: [] });
      const keys = await evroom(home, ['apikeys', 'list', '--json', '--database', url]);
      expect((JSON.parse(keys.stdout) as { keys: unknown[] }).keys).toHaveLength(1);
    } finally {
      await postgres.stop();
    }
  });

  it('takes the token, treasury and network by name, and records an underpaid payment without a key', async () => {
    homes += 1;
    const home = path.join(directory, `home-${homes}`);
    const { token, treasury } = testChain.chain.config;
    const tx = await pay({ tier: 'scale', contact: 'short@example.com' }, 1_000_000n);
    const named = await evroom(home, [
      'apikeys',
      'redeem',
      '--tx',
      tx,
      '--rpc',
      testChain.rpcUrl,
      '--token',
      token,
      '--treasury',
      treasury,
      '--network',
      'anvil-local',
      '--confirmations',
      '1',
    ]);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain('underpaid');
    expect(named.stdout).toMatch(/Paid 1\.000000; the scale month is 499\.000000/);
  });

  it('validates every argument, and says what is missing', async () => {
    const home = path.join(directory, 'refusals');
    const tx = `0x${'1'.repeat(64)}`;
    const rpc = testChain.rpcUrl;
    const cases: [string[], string][] = [
      [['apikeys', 'redeem'], 'name the transaction with --tx HASH'],
      [['apikeys', 'redeem', '--tx', '0x12'], '--tx must be 0x and 64 hex digits'],
      [['apikeys', 'redeem', '--tx', tx], '--rpc URL'],
      [['apikeys', 'redeem', '--tx', tx, '--rpc', 'ftp://x'], '--rpc must be an http or https URL'],
      [['apikeys', 'redeem', '--tx', tx, '--rpc', rpc, '--token', '0x12'], '--token must be 0x and 40 hex digits'],
      [['apikeys', 'redeem', '--tx', tx, '--rpc', rpc, '--token', `0x${'a'.repeat(40)}`], 'together'],
      [['apikeys', 'redeem', '--tx', tx, '--rpc', rpc, '--network', 'a b'], '--network is 1 to 64 characters'],
      [['apikeys', 'redeem', '--tx', tx, '--rpc', rpc, '--confirmations', '0'], '--confirmations must be a whole'],
      [['apikeys', 'redeem', '--tx', tx, '--rpc', rpc, '--tenant', 'acme'], '--tenant is not an option'],
      [['apikeys', 'redeem', 'extra', '--tx', tx, '--rpc', rpc], 'unexpected argument "extra"'],
      [['apikeys', 'redeem', '--tx', tx, '--rpc', rpc], 'no embedded stablecoin yet'],
      [['apikeys', 'payments', '--tx', tx], '--tx is for apikeys redeem'],
      [['apikeys', 'payments', '--limit', '0'], '--limit must be a whole number from 1 to 1000'],
      [['apikeys', 'list', '--rpc', rpc], '--rpc is not an option of apikeys list'],
    ];
    for (const [args, message] of cases) {
      const run = await evroom(home, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    const unknown = await evroom(embeddedHome(), ['apikeys', 'redeem', '--tx', tx, '--rpc', rpc]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('does not know the transaction');
    const help = await evroom(home, ['apikeys', '--help']);
    expect(help.stdout).toContain('evroom apikeys redeem --tx HASH --rpc URL');
    expect(help.stdout).toContain('evroom apikeys payments');
  });

  it('issues exactly one key when killed between recording and issuing, then restarted', async () => {
    const home = embeddedHome();
    const tx = await pay({ tier: 'pro', contact: 'crash@example.com' });
    const killed = await evroom(home, ['apikeys', 'redeem', '--tx', tx, '--rpc', testChain.rpcUrl], {
      EVROOM_FAILPOINTS: 'payments.after-record=kill',
    });
    expect(killed.signal).toBe('SIGKILL');
    let workspace = openWorkspace(home);
    try {
      expect(await paymentStatus(workspaceServiceStore(workspace), tx)).toMatchObject({
        state: 'pending_confirmations',
        key_prefix: null,
      });
      expect(listApiKeys(workspace.ledger.readable)).toEqual([]);
    } finally {
      workspace.close();
    }
    // Killed once more at the same place: still nothing issued, nothing doubled.
    const twice = await evroom(home, ['apikeys', 'redeem', '--tx', tx, '--rpc', testChain.rpcUrl], {
      EVROOM_FAILPOINTS: 'payments.after-record=kill',
    });
    expect(twice.signal).toBe('SIGKILL');

    // The restarted service's watcher finds the recorded payment and issues it, once.
    workspace = openWorkspace(home);
    try {
      const delivered: KeyDelivery[] = [];
      const watcher = startPaymentWatcher({
        store: workspaceServiceStore(workspace),
        workspace,
        chain: testChain.chain,
        confirmations: 1,
        intervalMs: 60_000,
        // The other tests' payments on this chain are not this service's business here.
        fromBlock: (await paymentStatus(workspaceServiceStore(workspace), tx))?.block_number ?? 0,
        delivery: {
          mailChannel: 'outbox',
          deliver: async (delivery) => {
            delivered.push(delivery);
            return {};
          },
        },
      });
      await watcher.passNow();
      await watcher.passNow();
      await watcher.stop();
      expect(await paymentStatus(workspaceServiceStore(workspace), tx)).toMatchObject({
        state: 'issued',
        delivery: { state: 'delivered' },
      });
      const keys = listApiKeys(workspace.ledger.readable);
      expect(keys.map((key) => key.tenant_id)).toEqual([
        (await paymentStatus(workspaceServiceStore(workspace), tx))?.tenant_id,
      ]);
      expect(delivered).toHaveLength(1);
      expect(delivered[0]?.key).toBe(paymentKey(workspace, 'anvil-local', tx, 'pro').key);
    } finally {
      workspace.close();
    }
    const redeemed = await evroom(home, ['apikeys', 'redeem', '--tx', tx, '--rpc', testChain.rpcUrl, '--json']);
    expect(JSON.parse(redeemed.stdout)).toMatchObject({ state: 'issued' });
    workspace = openWorkspace(home);
    try {
      expect(listApiKeys(workspace.ledger.readable)).toHaveLength(1);
    } finally {
      workspace.close();
    }
  }, 60_000);
});
