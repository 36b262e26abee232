import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeMemo, transferCalldata } from '../../src-shared/payments/memo';
import { DEVELOPMENT_ACCOUNT_KEYS, sendCall } from '../anchor/stablecoin';
import { runEvroom, startServeChild, type ServedChild } from '../test-support/serve-child';

// `evroom serve`'s payment watcher killed (SIGKILL, failpoint payments.after-record) after it
// recorded a confirmed payment and before it issued its key; restarted, the service issues exactly
// one key for the transaction and delivers it once.

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let home: string;
const children: ServedChild[] = [];

async function serve(env: Record<string, string> = {}): Promise<ServedChild> {
  const served = await startServeChild(home, [], env);
  children.push(served);
  return served;
}

const evroom = (args: string[]): ReturnType<typeof runEvroom> => runEvroom(home, args);

beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-pay-crash-'));
});
afterAll(() => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(home, { recursive: true, force: true });
});

describe('the payment watcher of evroom serve, killed between recording and issuing', () => {
  it('issues exactly one key after the restart, and delivers it once', async () => {
    const crashing = await serve({ EVROOM_FAILPOINTS: 'payments.after-record=kill' });
    const rpc = crashing.rpc;
    const pricing = (await (await fetch(`${crashing.url}/pricing`)).json()) as {
      chains: { token: string; treasury: string }[];
    };
    const chain = pricing.chains[0]!;
    const memo = encodeMemo({ tier: 'pro', contact: 'crash@example.com' });
    const hash = await sendCall(
      rpc!,
      DEVELOPMENT_ACCOUNT_KEYS[3]!,
      chain.token,
      transferCalldata(chain.treasury, 99_000_000n, memo),
    );
    // The watcher sees the confirmed payment, records it, and dies at the failpoint.
    const death = await Promise.race([crashing.exited, sleep(30_000).then(() => undefined)]);
    expect(death?.signal, crashing.stderr()).toBe('SIGKILL');
    const between = JSON.parse((await evroom(['apikeys', 'payments', '--json'])).stdout) as {
      payments: { tx_hash: string; state: string; key_prefix: string | null }[];
    };
    expect(between.payments).toEqual([
      expect.objectContaining({ tx_hash: hash, state: 'pending_confirmations', key_prefix: null }),
    ]);
    expect(fs.existsSync(path.join(home, 'outbox', `${hash}.eml`))).toBe(false);

    // Restarted (the embedded chain comes back from its state file), it issues and delivers.
    const restarted = await serve();
    try {
      let state = '';
      for (let tries = 0; tries < 200 && state !== 'delivered'; tries += 1) {
        const status = (await (await fetch(`${restarted.url}/v1/payments/${hash}`)).json()) as {
          state: string;
          delivery: { state: string };
        };
        state = status.state === 'issued' ? status.delivery.state : status.state;
        if (state !== 'delivered') await sleep(100);
      }
      expect(state).toBe('delivered');
      const keys = JSON.parse((await evroom(['apikeys', 'list', '--json'])).stdout) as { keys: { prefix: string }[] };
      expect(keys.keys).toHaveLength(1);
      expect(fs.readdirSync(path.join(home, 'outbox')).filter((name) => name.endsWith('.eml'))).toEqual([
        `${hash}.eml`,
      ]);
      const key = /svc_pro_[A-Za-z0-9_-]{32}/.exec(
        fs.readFileSync(path.join(home, 'outbox', `${hash}.eml`), 'latin1'),
      )?.[0];
      expect(key?.startsWith(keys.keys[0]!.prefix)).toBe(true);
    } finally {
      const exited = restarted.exited;
      restarted.child.kill('SIGTERM');
      await exited;
    }
    // A third start changes nothing: the transaction is settled.
    const third = await serve();
    try {
      await sleep(1500);
      const keys = JSON.parse((await evroom(['apikeys', 'list', '--json'])).stdout) as { keys: unknown[] };
      expect(keys.keys).toHaveLength(1);
    } finally {
      const exited = third.exited;
      third.child.kill('SIGTERM');
      await exited;
    }
  }, 180_000);
});
