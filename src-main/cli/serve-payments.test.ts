import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { encodeMemo, transferCalldata } from '../../src-shared/payments/memo';
import { ChainClient } from '../anchor/chain';
import { DEVELOPMENT_ACCOUNT_KEYS, sendCall, StablecoinChain } from '../anchor/stablecoin';
import { startTestChainWithToken } from '../anchor/test-support';
import { EVROOM_BIN, startServeChild, stopServeChild, type ServedChild } from '../test-support/serve-child';

// `evroom serve` on the embedded chain, as an operator starts it: the token and treasury are made
// on first start, printed beside the chain, listed by GET /pricing, and the same after a restart.

const serve = (home: string, args: string[] = []): Promise<ServedChild> => startServeChild(home, args);
const stop = stopServeChild;

/** A payment's status from the service once its key is delivered (or after 15 s, whatever it is then). */
async function deliveredStatus(url: string, hash: string): Promise<{ state?: string; delivery?: { state: string } }> {
  let status: { state?: string; delivery?: { state: string } } = {};
  for (let tries = 0; tries < 150 && status.delivery?.state !== 'delivered'; tries += 1) {
    status = (await (await fetch(`${url}/v1/payments/${hash}`)).json()) as typeof status;
    if (status.delivery?.state !== 'delivered') await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return status;
}

/** `evroom serve ARGS` expected to refuse at start: its exit code and standard error. */
async function refusedServe(home: string, args: readonly string[]): Promise<{ code: unknown; stderr: string }> {
  const child = spawn(process.execPath, [EVROOM_BIN, 'serve', '--port', '0', ...args], {
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

describe('evroom serve sells API keys on the embedded chain', () => {
  let home: string;
  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-serve-pay-'));
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it('prints the token and treasury beside the chain, lists them in /pricing, and keeps them after a restart', async () => {
    const first = await serve(home);
    let token: string;
    let treasury: string;
    try {
      const printed =
        /Anchoring on anvil-local at (http:\/\/127\.0\.0\.1:\d+)\.\nAPI keys are bought on anvil-local: stablecoin (0x[0-9a-f]{40}) \(6 decimals\), treasury (0x[0-9a-f]{40}); the development accounts hold 1,000,000 test tokens each\./.exec(
          first.stderr(),
        );
      expect(printed, first.stderr()).not.toBeNull();
      const [, rpcUrl, printedToken, printedTreasury] = printed as unknown as [string, string, string, string];
      token = printedToken;
      treasury = printedTreasury;
      const pricing = (await (await fetch(`${first.url}/pricing`)).json()) as { chains: unknown[]; tiers: unknown[] };
      expect(pricing.tiers).toHaveLength(4);
      expect(pricing.chains).toEqual([
        {
          network: 'anvil-local',
          chain_id: 31337,
          token,
          decimals: 6,
          treasury,
          development: true,
          tiers: [
            { tier: 'pro', monthly_units: '99000000', annual_units: '990000000' },
            { tier: 'scale', monthly_units: '499000000', annual_units: '4990000000' },
            { tier: 'enterprise', annual_from_units: '5000000000', by_contact: true },
          ],
        },
      ]);
      // The token is real: a development account holds its 1,000,000 tokens on the chain the service runs.
      const chain = new StablecoinChain(new ChainClient(rpcUrl), {
        network: 'anvil-local',
        chainId: 31337,
        token,
        treasury,
        decimals: 6,
        embedded: true,
      });
      expect(await chain.balanceOf(privateKeyToAccount(DEVELOPMENT_ACCOUNT_KEYS[9]!).address)).toBe(10n ** 12n);
      for (const file of ['stablecoin-owner-key', 'treasury-key', 'stablecoin.json'])
        expect(fs.statSync(path.join(home, 'anchor', file)).mode & 0o777).toBe(0o600);
    } finally {
      await stop(first);
    }
    const second = await serve(home);
    try {
      expect(second.stderr()).toContain(`stablecoin ${token} (6 decimals), treasury ${treasury}`);
    } finally {
      await stop(second);
    }
  }, 120_000);

  it('takes no payments without a chain, and refuses --stablecoin without --chain-rpc', async () => {
    const off = await serve(home, ['--no-anchor']);
    try {
      const pricing = (await (await fetch(`${off.url}/pricing`)).json()) as { chains: unknown[] };
      expect(pricing.chains).toEqual([]);
    } finally {
      await stop(off);
    }
    // A chain nobody answers at: these are refused before it is asked anything.
    const unreachableChain = ['--chain-rpc', 'http://127.0.0.1:1', '--chain-name', 'x', '--chain-key-file', 'k'];
    for (const [args, message] of [
      [['--stablecoin', `0x${'1'.repeat(40)}`], /--stablecoin and --treasury go together/],
      [
        ['--stablecoin', `0x${'1'.repeat(40)}`, '--treasury', `0x${'2'.repeat(40)}`],
        /--stablecoin and --treasury are for --chain-rpc/,
      ],
      [['--no-anchor', '--treasury', `0x${'2'.repeat(40)}`], /--no-anchor and --treasury do not go together/],
      [
        ['--public-url', 'keys.example.org'],
        /--public-url must be an http:\/\/ or https:\/\/ URL .*not 'keys\.example\.org'/,
      ],
      [['--public-url', 'https://a b'], /--public-url must be an http:\/\/ or https:\/\/ URL/],
      [['--payments-from-block', '5'], /--payments-from-block goes with --stablecoin and --treasury/],
      [['--no-anchor', '--payments-from-block', '5'], /--no-anchor and --payments-from-block do not go together/],
      [['--no-anchor', '--public-url', 'https://keys.example.org'], /with --no-anchor the service takes no payments/],
      [
        [...unreachableChain, '--stablecoin', '0x12', '--treasury', `0x${'2'.repeat(40)}`],
        /--stablecoin must be an address \(0x and 40 hex characters\), not '0x12'/,
      ],
      [
        [
          ...unreachableChain,
          ...['--stablecoin', `0x${'1'.repeat(40)}`, '--treasury', `0x${'2'.repeat(40)}`],
          ...['--payments-from-block', '-3'],
        ],
        /--payments-from-block must be a block number \(a whole number from 0\), not '-3'/,
      ],
    ] as const) {
      const { code, stderr } = await refusedServe(home, args);
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
  }, 120_000);

  it('sells keys on another chain named with --chain-rpc, --stablecoin and --treasury, and refuses a token that is not one', async () => {
    const chain = await startTestChainWithToken();
    const anchorKey = generatePrivateKey();
    await chain.client.fundOnDevelopmentChain(privateKeyToAccount(anchorKey).address);
    const keyFile = path.join(home, 'other-chain-key');
    fs.writeFileSync(keyFile, `${anchorKey}\n`, { mode: 0o600 });
    const otherHome = path.join(home, 'other-chain');
    const common = ['--chain-rpc', chain.rpcUrl, '--chain-name', 'testnet', '--chain-key-file', keyFile];
    const { token, treasury } = chain.chain.config;
    try {
      const served = await serve(otherHome, [...common, '--stablecoin', token, '--treasury', treasury]);
      try {
        expect(served.stderr()).toContain(
          `API keys are bought on testnet: stablecoin ${token} (6 decimals), treasury ${treasury}.\n`,
        );
        const pricing = (await (await fetch(`${served.url}/pricing`)).json()) as { chains: unknown[] };
        expect(pricing.chains).toEqual([
          expect.objectContaining({ network: 'testnet', chain_id: 31337, token, treasury, development: false }),
        ]);
        // A payment sent after the start is found by the watcher and becomes a key in the outbox.
        const hash = await sendCall(
          chain.rpcUrl,
          DEVELOPMENT_ACCOUNT_KEYS[2]!,
          token,
          transferCalldata(treasury, 99_000_000n, encodeMemo({ tier: 'pro', contact: 'ops@example.com' })),
        );
        expect(await deliveredStatus(served.url, hash)).toMatchObject({
          state: 'issued',
          delivery: { state: 'delivered' },
        });
        expect(fs.existsSync(path.join(otherHome, 'outbox', `${hash}.eml`))).toBe(true);
      } finally {
        await stop(served);
      }
      // The treasury is an account, not a token: refused at start, in words.
      const { code, stderr } = await refusedServe(otherHome, [
        ...common,
        '--stablecoin',
        treasury,
        '--treasury',
        treasury,
      ]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/The payment token could not be set up: Reading the stablecoin’s decimals/);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      await chain.stop();
    }
  }, 120_000);

  it('finds a payment sent before the first start on another chain with --payments-from-block, and says when a cursor makes it moot', async () => {
    const chain = await startTestChainWithToken();
    const anchorKey = generatePrivateKey();
    await chain.client.fundOnDevelopmentChain(privateKeyToAccount(anchorKey).address);
    const keyFile = path.join(home, 'from-block-key');
    fs.writeFileSync(keyFile, `${anchorKey}\n`, { mode: 0o600 });
    const fromHome = path.join(home, 'from-block');
    const { token, treasury } = chain.chain.config;
    const args = [
      ...['--chain-rpc', chain.rpcUrl, '--chain-name', 'testnet', '--chain-key-file', keyFile],
      ...['--stablecoin', token, '--treasury', treasury],
    ];
    try {
      // Paid before the service ever ran; then a few more blocks, so the head is past it.
      const hash = await sendCall(
        chain.rpcUrl,
        DEVELOPMENT_ACCOUNT_KEYS[3]!,
        token,
        transferCalldata(treasury, 99_000_000n, encodeMemo({ tier: 'pro', contact: 'early@example.com' })),
      );
      const block = (await chain.client.transaction(hash))?.blockNumber;
      expect(block).toEqual(expect.any(Number));
      await chain.client.mineOnDevelopmentChain(3);
      const head = await chain.client.blockNumber();

      // Past the head: refused at start, in words, and nothing is served.
      const { code, stderr: refusal } = await refusedServe(fromHome, [
        ...args,
        '--payments-from-block',
        String(head + 100),
      ]);
      expect(code).toBe(2);
      expect(refusal).toContain(
        `--payments-from-block ${head + 100} is past the chain's head (block ${head}) on testnet`,
      );
      expect(refusal).not.toMatch(/\n\s+at /);

      const served = await serve(fromHome, [...args, '--payments-from-block', String(block)]);
      try {
        expect(await deliveredStatus(served.url, hash)).toMatchObject({
          state: 'issued',
          delivery: { state: 'delivered' },
        });
        expect(fs.existsSync(path.join(fromHome, 'outbox', `${hash}.eml`))).toBe(true);
      } finally {
        await stop(served);
      }
      // Once the watcher has a cursor, the option is told to be moot (and nothing is issued twice).
      const again = await serve(fromHome, [...args, '--payments-from-block', '0']);
      try {
        expect(again.stderr()).toMatch(
          /--payments-from-block 0 is not used: the payment watcher goes on from its stored cursor \(block \d+\)/,
        );
        const status = (await (await fetch(`${again.url}/v1/payments/${hash}`)).json()) as { state?: string };
        expect(status.state).toBe('issued');
      } finally {
        await stop(again);
      }
    } finally {
      await chain.stop();
    }
  }, 120_000);
});
