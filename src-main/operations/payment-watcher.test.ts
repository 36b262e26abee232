import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519.js';
import { didKeyFromEd25519 } from '../../src-shared/crypto/did-key';
import { openSealedApiKey, sealApiKey } from '../../src-shared/payments/sealed-key';
import { encodeMemo, transferCalldata, type PaymentMemo } from '../../src-shared/payments/memo';
import { DEVELOPMENT_ACCOUNT_KEYS, sendCall } from '../anchor/stablecoin';
import { startTestChainWithToken, type TestChainWithToken } from '../anchor/test-support';
import { outboxTransport } from '../delivery/outbox-transport';
import { smtpTransport } from '../delivery/smtp-transport';
import { SMTPServer } from 'smtp-server';
import { getPaymentCursor, listApiKeys } from '../ledger';
import {
  DELIVERY_RETRY_MAX_MS,
  deliveryBackoffMs,
  startPaymentWatcher,
  type KeyDelivery,
  type PaymentWatcher,
} from './payment-watcher';
import {
  observePayment,
  paymentKey,
  paymentKeySecretId,
  paymentStatus,
  paymentTenantId,
  sealedEnvelope,
} from './payments';
import { startTestPostgres } from '../test-support/postgres';
import { openServiceStore, workspaceServiceStore, type ServiceStore } from './service-store';
import { openWorkspace, type Workspace } from './workspace';

// The watcher on a real anvil with the real token, delivering through a small real transport
// (a folder of files) that fails on demand.

let testChain: TestChainWithToken;
let directory: string;
let homes = 0;

async function pay(memo: PaymentMemo, amount = 99_000_000n): Promise<string> {
  return sendCall(
    testChain.rpcUrl,
    DEVELOPMENT_ACCOUNT_KEYS[4] as `0x${string}`,
    testChain.chain.config.token,
    transferCalldata(testChain.chain.config.treasury, amount, encodeMemo(memo)),
  );
}

/** A transport writing one file per transaction into `folder`, failing while `failures` > 0. */
function folderTransport(folder: string): {
  deliver: (delivery: KeyDelivery) => Promise<{ sealed?: unknown }>;
  failures: number;
  calls: number;
} {
  fs.mkdirSync(folder, { recursive: true });
  const transport = {
    failures: 0,
    calls: 0,
    deliver: async (delivery: KeyDelivery): Promise<{ sealed?: unknown }> => {
      transport.calls += 1;
      if (transport.failures > 0) {
        transport.failures -= 1;
        // A careless transport that names the key: the watcher must not record it.
        throw new Error(`relay refused the message holding ${delivery.key}`);
      }
      fs.writeFileSync(path.join(folder, `${delivery.tx_hash}.json`), JSON.stringify(delivery));
      return delivery.channel === 'sealed' ? { sealed: { format: 'test-envelope', to: delivery.to } } : {};
    },
  };
  return transport;
}

async function withWatcher<T>(
  workspace: Workspace,
  options: {
    confirmations: number;
    now: () => Date;
    deliver: (delivery: KeyDelivery) => Promise<{ sealed?: unknown }>;
  },
  run: (watcher: PaymentWatcher) => Promise<T>,
): Promise<T> {
  const head = await testChain.chain.head();
  const watcher = startPaymentWatcher({
    store: workspaceServiceStore(workspace),
    workspace,
    chain: testChain.chain,
    confirmations: options.confirmations,
    intervalMs: 60_000,
    now: options.now,
    fromBlock: head + 1,
    delivery: { mailChannel: 'outbox', deliver: options.deliver },
  });
  try {
    return await run(watcher);
  } finally {
    await watcher.stop();
  }
}

function freshWorkspace(): Workspace {
  homes += 1;
  return openWorkspace(path.join(directory, `home-${homes}`));
}

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-payment-watcher-'));
  testChain = await startTestChainWithToken();
}, 120_000);

afterAll(async () => {
  await testChain?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('the payment watcher', () => {
  it('moves its cursor only past confirmed blocks, and issues once the payment is deep enough', async () => {
    const workspace = freshWorkspace();
    const transport = folderTransport(path.join(directory, 'out-1'));
    try {
      await withWatcher(
        workspace,
        { confirmations: 3, now: () => new Date(), deliver: transport.deliver },
        async (watcher) => {
          await watcher.passNow();
          const where = testChain.chain.config;
          const tx = await pay({ tier: 'pro', contact: 'watch@example.com' });
          await watcher.passNow();
          const pending = await paymentStatus(workspaceServiceStore(workspace), tx);
          expect(pending).toMatchObject({ state: 'pending_confirmations' });
          const block = pending?.block_number as number;
          // Block `block` has 1 confirmation of 3: the cursor stays at or before it.
          expect(getPaymentCursor(workspace.ledger.readable, where) ?? 0).toBeLessThanOrEqual(block);
          await testChain.mine(2);
          await watcher.passNow();
          expect(await paymentStatus(workspaceServiceStore(workspace), tx)).toMatchObject({
            state: 'issued',
            delivery: { state: 'delivered' },
          });
          expect(getPaymentCursor(workspace.ledger.readable, where)).toBe(block + 1);
          await watcher.passNow();
          expect(listApiKeys(workspace.ledger.readable)).toHaveLength(1);
          expect(transport.calls).toBe(1);
          const written = JSON.parse(
            fs.readFileSync(path.join(directory, 'out-1', `${tx}.json`), 'utf8'),
          ) as KeyDelivery;
          expect(written).toMatchObject({
            tx_hash: tx,
            channel: 'outbox',
            to: 'watch@example.com',
            tier: 'pro',
            term: 'month',
          });
          expect(written.key).toBe(paymentKey(workspace, 'anvil-local', tx, 'pro').key);
        },
      );
    } finally {
      workspace.close();
    }
  });

  it('drops a payment that a reorganisation took before its confirmations', async () => {
    const workspace = freshWorkspace();
    const transport = folderTransport(path.join(directory, 'out-2'));
    try {
      await withWatcher(
        workspace,
        { confirmations: 2, now: () => new Date(), deliver: transport.deliver },
        async (watcher) => {
          const snapshot = await testChain.snapshot();
          const tx = await pay({ tier: 'pro', contact: 'gone@example.com' });
          await watcher.passNow();
          expect((await paymentStatus(workspaceServiceStore(workspace), tx))?.state).toBe('pending_confirmations');
          await testChain.revert(snapshot);
          await testChain.mine(4);
          await watcher.passNow();
          expect(await paymentStatus(workspaceServiceStore(workspace), tx)).toMatchObject({
            state: 'dropped',
            key_prefix: null,
          });
          expect(listApiKeys(workspace.ledger.readable)).toEqual([]);
          expect(transport.calls).toBe(0);
        },
      );
    } finally {
      workspace.close();
    }
  });

  it('retries a failed delivery with a doubling wait, records attempts and errors without the key, and stores a sealed envelope', async () => {
    const workspace = freshWorkspace();
    const transport = folderTransport(path.join(directory, 'out-3'));
    transport.failures = 2;
    let clock = new Date('2026-11-26T00:00:00Z');
    try {
      await withWatcher(
        workspace,
        { confirmations: 1, now: () => clock, deliver: transport.deliver },
        async (watcher) => {
          const tx = await pay({ tier: 'pro', contact: 'retry@example.com' });
          const { key } = paymentKey(workspace, 'anvil-local', tx, 'pro');
          await watcher.passNow();
          expect((await paymentStatus(workspaceServiceStore(workspace), tx))?.delivery).toMatchObject({
            state: 'pending',
            attempts: 1,
          });
          const error = (await paymentStatus(workspaceServiceStore(workspace), tx))?.delivery.last_error ?? '';
          expect(error).toContain('relay refused the message holding [key]');
          expect(error).not.toContain(key);
          // Not due yet: no attempt.
          await watcher.passNow();
          expect(transport.calls).toBe(1);
          clock = new Date(clock.getTime() + deliveryBackoffMs(1));
          await watcher.passNow();
          expect((await paymentStatus(workspaceServiceStore(workspace), tx))?.delivery).toMatchObject({
            state: 'pending',
            attempts: 2,
          });
          clock = new Date(clock.getTime() + deliveryBackoffMs(2) - 1);
          await watcher.passNow();
          expect(transport.calls).toBe(2);
          clock = new Date(clock.getTime() + 1);
          await watcher.passNow();
          expect((await paymentStatus(workspaceServiceStore(workspace), tx))?.delivery).toMatchObject({
            state: 'delivered',
            attempts: 3,
            last_error: null,
            delivered_at: clock.getTime(),
          });

          const did = didKeyFromEd25519(new Uint8Array(32).fill(8));
          const sealedTx = await pay({ tier: 'pro', contact: did });
          await watcher.passNow();
          expect((await paymentStatus(workspaceServiceStore(workspace), sealedTx))?.delivery).toMatchObject({
            channel: 'sealed',
            state: 'delivered',
          });
          expect(JSON.stringify(await paymentStatus(workspaceServiceStore(workspace), sealedTx))).not.toContain(
            paymentKey(workspace, 'anvil-local', sealedTx, 'pro').key,
          );
        },
      );
    } finally {
      workspace.close();
    }
  });

  it('tries a lasting refusal of a real SMTP server again only every 5 minutes, saying so', async () => {
    const workspace = freshWorkspace();
    let refuse = true;
    const received: string[] = [];
    const server = new SMTPServer({
      logger: false,
      disabledCommands: ['STARTTLS'],
      authOptional: true,
      onRcptTo(address, _session, callback) {
        if (refuse) {
          const error = Object.assign(new Error('5.1.1 no such mailbox'), { responseCode: 550 });
          callback(error);
        } else callback();
      },
      onData(stream, session, callback) {
        stream.on('data', () => undefined);
        stream.on('end', () => {
          received.push(session.envelope.rcptTo.map((to) => to.address).join(','));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const mail = smtpTransport(`smtp://127.0.0.1:${(server.server.address() as { port: number }).port}`);
    let clock = new Date(Date.now() + 60_000);
    try {
      await withWatcher(
        workspace,
        { confirmations: 1, now: () => clock, deliver: async (delivery) => (await mail.send(delivery), {}) },
        async (watcher) => {
          const tx = await pay({ tier: 'pro', contact: 'gone@example.com' });
          await watcher.passNow();
          const first = (await paymentStatus(workspaceServiceStore(workspace), tx))?.delivery;
          expect(first).toMatchObject({ state: 'pending', attempts: 1 });
          expect(first?.last_error).toMatch(/refused \(550.*a lasting failure: tried again every 5 minutes/);
          // Not after the 1 s a passing failure waits: after 5 minutes.
          clock = new Date(clock.getTime() + deliveryBackoffMs(1));
          await watcher.passNow();
          expect((await paymentStatus(workspaceServiceStore(workspace), tx))?.delivery.attempts).toBe(1);
          refuse = false;
          clock = new Date(clock.getTime() - deliveryBackoffMs(1) + DELIVERY_RETRY_MAX_MS);
          await watcher.passNow();
          expect((await paymentStatus(workspaceServiceStore(workspace), tx))?.delivery).toMatchObject({
            state: 'delivered',
            attempts: 2,
          });
          expect(received).toEqual(['gone@example.com']);
        },
      );
    } finally {
      workspace.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('never delivers a key derived under another secret than the one it was issued under; the restored secret delivers it', async () => {
    const workspace = freshWorkspace();
    const transport = folderTransport(path.join(directory, 'out-secret'));
    // observePayment makes the delivery due at the real time: the watcher's clock starts after it.
    let clock = new Date(Date.now() + 60_000);
    try {
      const tx = await pay({ tier: 'pro', contact: 'restored@example.com' });
      const store = workspaceServiceStore(workspace);
      expect((await observePayment(store, workspace, testChain.chain, tx, { confirmations: 1 })).state).toBe('issued');
      const issuedKey = paymentKey(workspace, 'anvil-local', tx, 'pro').key;
      // The data folder comes back from a backup without its secret: a new one is made.
      const file = path.join(workspace.dataDirectory, 'service', 'payment-key-secret');
      const original = fs.readFileSync(file);
      fs.rmSync(file);
      expect(paymentKey(workspace, 'anvil-local', tx, 'pro').key).not.toBe(issuedKey);
      const watcher = startPaymentWatcher({
        store,
        workspace,
        chain: testChain.chain,
        confirmations: 1,
        intervalMs: 60_000,
        now: () => clock,
        fromBlock: (await testChain.chain.head()) + 1,
        delivery: { mailChannel: 'outbox', deliver: transport.deliver },
      });
      try {
        await watcher.passNow();
        expect(transport.calls).toBe(0);
        const pending = (await paymentStatus(store, tx))?.delivery;
        expect(pending).toMatchObject({ state: 'pending', attempts: 1 });
        expect(pending?.last_error).toContain("this data folder's service/payment-key-secret is not the one the key");
        fs.writeFileSync(file, original, { mode: 0o600 });
        clock = new Date(clock.getTime() + deliveryBackoffMs(1));
        await watcher.passNow();
        expect((await paymentStatus(store, tx))?.delivery).toMatchObject({ state: 'delivered', attempts: 2 });
        const delivered = JSON.parse(fs.readFileSync(path.join(directory, 'out-secret', `${tx}.json`), 'utf8')) as {
          key: string;
        };
        expect(delivered.key).toBe(issuedKey);
      } finally {
        await watcher.stop();
      }
    } finally {
      workspace.close();
    }
  });

  it('delivers through the real outbox transport, and seals a did:key’s key so that only its holder opens it', async () => {
    const workspace = freshWorkspace();
    const outbox = outboxTransport(path.join(directory, 'outbox-real'));
    const seed = new Uint8Array(32).fill(21);
    const did = didKeyFromEd25519(ed25519.getPublicKey(seed));
    try {
      await withWatcher(
        workspace,
        {
          confirmations: 1,
          now: () => new Date(),
          deliver: async (delivery) => {
            if (delivery.channel === 'sealed')
              return { sealed: sealApiKey(delivery.to, delivery.key, delivery.tx_hash) };
            await outbox.send(delivery);
            return {};
          },
        },
        async (watcher) => {
          const mailTx = await pay({ tier: 'pro', contact: 'Mail@Example.org' });
          const sealedTx = await pay({ tier: 'scale', contact: did }, 499_000_000n);
          await watcher.passNow();
          const mailKey = paymentKey(workspace, 'anvil-local', mailTx, 'pro').key;
          const eml = fs.readFileSync(path.join(directory, 'outbox-real', `${mailTx}.eml`), 'utf8');
          expect(eml).toContain('To: mail@example.org');
          expect(eml).toContain(mailKey);
          expect((await paymentStatus(workspaceServiceStore(workspace), mailTx))?.delivery).toMatchObject({
            channel: 'outbox',
            state: 'delivered',
          });

          const envelope = await sealedEnvelope(workspaceServiceStore(workspace), sealedTx);
          expect(openSealedApiKey(envelope, seed)).toBe(paymentKey(workspace, 'anvil-local', sealedTx, 'scale').key);
          expect(() => openSealedApiKey(envelope, new Uint8Array(32).fill(22))).toThrow();
        },
      );
    } finally {
      workspace.close();
    }
  });

  it('watches on one node at a time: the holder of the payments lease; another takes over when it stops or loses it', async () => {
    const workspace = freshWorkspace();
    const store = workspaceServiceStore(workspace);
    const transport = folderTransport(path.join(directory, 'out-lease'));
    const fromBlock = (await testChain.chain.head()) + 1;
    const start = (node: string): PaymentWatcher =>
      startPaymentWatcher({
        store,
        workspace,
        node,
        chain: testChain.chain,
        confirmations: 1,
        intervalMs: 60_000,
        fromBlock,
        delivery: { mailChannel: 'outbox', deliver: transport.deliver },
      });
    const a = start('node-a');
    let b: PaymentWatcher | undefined;
    try {
      await a.passNow();
      b = start('node-b');
      await b.passNow();
      expect([a.holdsLease(), b.holdsLease()]).toEqual([true, false]);
      const first = await pay({ tier: 'pro', contact: 'lease-a@example.com' });
      await b.passNow();
      expect(await paymentStatus(store, first)).toBeUndefined();
      await a.passNow();
      expect(await paymentStatus(store, first)).toMatchObject({ state: 'issued', delivery: { state: 'delivered' } });

      // Another node took the lease (a lapse): the old holder's next write is refused, it stops.
      const taken = await store.cluster.acquireLease('payments', 'node-c', 15_000, Date.now() + 60_000);
      expect(taken).toBeDefined();
      const second = await pay({ tier: 'pro', contact: 'lease-c@example.com' });
      await a.passNow();
      expect(a.holdsLease()).toBe(false);
      expect(await paymentStatus(store, second)).toBeUndefined();
      if (taken !== undefined) await store.cluster.releaseLease(taken);

      // Node a stops for good (giving nothing up: it holds nothing); b takes over and catches up.
      await a.stop();
      await b.passNow();
      expect(b.holdsLease()).toBe(true);
      expect(await paymentStatus(store, second)).toMatchObject({ state: 'issued', delivery: { state: 'delivered' } });
      expect(listApiKeys(workspace.ledger.readable)).toHaveLength(2);
      expect(transport.calls).toBe(2);
    } finally {
      await a.stop();
      await b?.stop();
      workspace.close();
    }
  });

  it('waits 1 s after the first failure, doubling to at most 5 minutes, and refuses bad options', () => {
    expect([1, 2, 3, 4, 9, 10, 50].map(deliveryBackoffMs)).toEqual([1000, 2000, 4000, 8000, 256_000, 300_000, 300_000]);
    const workspace = freshWorkspace();
    try {
      const base = {
        store: workspaceServiceStore(workspace),
        workspace,
        chain: testChain.chain,
        intervalMs: 1000,
        delivery: { mailChannel: 'outbox' as const, deliver: async () => ({}) },
      };
      expect(() => startPaymentWatcher({ ...base, confirmations: 0 })).toThrow(RangeError);
      expect(() => startPaymentWatcher({ ...base, confirmations: 1, intervalMs: 1 })).toThrow(RangeError);
      expect(() => startPaymentWatcher({ ...base, confirmations: 1, fromBlock: -1 })).toThrow(RangeError);
    } finally {
      workspace.close();
    }
  });
});

describe('the payment watcher on two nodes of one PostgreSQL', () => {
  it('one node watches; a redeem on the other issues no second key; the other takes over when the holder stops', async () => {
    const postgres = await startTestPostgres();
    const workspace = freshWorkspace();
    const stores: ServiceStore[] = [];
    const watchers: PaymentWatcher[] = [];
    try {
      const url = await postgres.createDatabase();
      // As evroom serve does on its first start: the payment key secret both nodes' folders hold.
      paymentKeySecretId(workspace);
      const [storeA, storeB] = [await openServiceStore(workspace, url), await openServiceStore(workspace, url)] as [
        ServiceStore,
        ServiceStore,
      ];
      stores.push(storeA, storeB);
      const transport = folderTransport(path.join(directory, 'out-pg'));
      const fromBlock = (await testChain.chain.head()) + 1;
      const start = (store: ServiceStore, node: string): PaymentWatcher => {
        const watcher = startPaymentWatcher({
          store,
          workspace,
          node,
          chain: testChain.chain,
          confirmations: 1,
          intervalMs: 60_000,
          fromBlock,
          delivery: { mailChannel: 'outbox', deliver: transport.deliver },
        });
        watchers.push(watcher);
        return watcher;
      };
      const a = start(storeA, 'node-a');
      await a.passNow();
      const b = start(storeB, 'node-b');
      await b.passNow();
      expect([a.holdsLease(), b.holdsLease()]).toEqual([true, false]);

      // Both nodes pass at once: one watches; the payment is issued and delivered once.
      const first = await pay({ tier: 'pro', contact: 'pg-a@example.com' });
      await Promise.all([a.passNow(), b.passNow()]);
      expect(await paymentStatus(storeB, first)).toMatchObject({ state: 'issued', delivery: { state: 'delivered' } });
      expect(transport.calls).toBe(1);

      // `apikeys redeem` on node B races node A's watcher: one key.
      const second = await pay({ tier: 'pro', contact: 'pg-b@example.com' });
      const [, redeemed] = await Promise.all([
        a.passNow(),
        observePayment(storeB, workspace, testChain.chain, second, { confirmations: 1 }),
      ]);
      expect(redeemed.state).toBe('issued');
      const keys = await storeA.identity.listApiKeys();
      expect(keys.map((key) => key.tenant_id).sort()).toEqual([
        paymentTenantId('pro', 'pg-a@example.com'),
        paymentTenantId('pro', 'pg-b@example.com'),
      ]);

      // The holder stops (giving the lease up): node B takes over and watches from the cursor.
      await a.stop();
      const third = await pay({ tier: 'pro', contact: 'pg-c@example.com' });
      await b.passNow();
      expect(b.holdsLease()).toBe(true);
      expect(await paymentStatus(storeA, third)).toMatchObject({ state: 'issued', delivery: { state: 'delivered' } });
      expect(await storeB.identity.listApiKeys()).toHaveLength(3);
      expect(transport.calls).toBe(3);
    } finally {
      for (const watcher of watchers) await watcher.stop();
      for (const store of stores) await store.close();
      workspace.close();
      await postgres.stop();
    }
  }, 120_000);
});
