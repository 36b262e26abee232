import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { ChainClient } from '../anchor/chain';
import { DEVELOPMENT_ACCOUNT_KEYS, StablecoinChain } from '../anchor/stablecoin';

// `evroom serve` on the embedded chain, as an operator starts it: the token and treasury are made
// on first start, printed beside the chain, listed by GET /pricing, and the same after a restart.

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
}

async function serve(home: string, args: string[] = []): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--quiet', ...args], {
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^Evidence Room service at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`serve exited: ${stderr}`));
    });
  });
  for (let tries = 0; !/API keys are bought|No payments/.test(stderr) && tries < 200; tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 25));
  return { child, url, stderr: () => stderr };
}

async function stop(served: Served): Promise<void> {
  if (served.child.exitCode !== null || served.child.signalCode !== null) return;
  const exited = new Promise((resolve) => served.child.once('exit', resolve));
  served.child.kill('SIGTERM');
  await exited;
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
    for (const [args, message] of [
      [['--stablecoin', `0x${'1'.repeat(40)}`], /--stablecoin and --treasury go together/],
      [
        ['--stablecoin', `0x${'1'.repeat(40)}`, '--treasury', `0x${'2'.repeat(40)}`],
        /--stablecoin and --treasury are for --chain-rpc/,
      ],
      [['--no-anchor', '--treasury', `0x${'2'.repeat(40)}`], /--no-anchor and --treasury do not go together/],
      [
        [
          '--chain-rpc',
          'http://127.0.0.1:1',
          '--chain-name',
          'x',
          '--chain-key-file',
          'k',
          '--stablecoin',
          '0x12',
          '--treasury',
          `0x${'2'.repeat(40)}`,
        ],
        /--stablecoin must be an address \(0x and 40 hex characters\), not '0x12'/,
      ],
    ] as const) {
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
        env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
  }, 120_000);
});
