import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey } from 'viem/accounts';
import { isResolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { b64uEncode } from '../../src-shared/crypto';
import { createTenant, issueApiKey } from '../operations/service-admin';
import { workspaceServiceStore } from '../operations/service-store';
import { openWorkspace } from '../operations/workspace';
import { startAnvil, type AnvilProcess } from './anvil';
import { anchorAccount, ChainClient } from './chain';
import { verifyAnchor } from './verify-anchor';

// The engine inside `evroom serve`, run as a child process and killed with SIGKILL at the
// failpoints anchor.after-record and anchor.after-broadcast (core/failpoints.ts), then
// restarted: every hash resolves and the chain holds exactly one transaction per batch.

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());
const digestOf = (text: string): Uint8Array => sha256(new TextEncoder().encode(text));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let anvil: AnvilProcess;
let chain: ChainClient;
let directory: string;
const children: ChildProcessWithoutNullStreams[] = [];

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function serve(home: string, args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--quiet', ...args], {
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', ...env },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^Evidence Room service at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`serve exited: ${stderr}`));
    });
  });
  return { child, url, stderr: () => stderr, exited };
}

async function stop(served: Served): Promise<void> {
  if (served.child.exitCode === null && served.child.signalCode === null) served.child.kill('SIGTERM');
  await served.exited;
}

/** A data folder with a pro tenant, its key, and a funded anchor account's 0600 key file. */
async function prepare(name: string): Promise<{ home: string; apiKey: string; keyFile: string; address: string }> {
  const home = path.join(directory, name);
  const workspace = openWorkspace(home);
  await createTenant(workspaceServiceStore(workspace), 'acme', 'pro');
  const apiKey = (await issueApiKey(workspaceServiceStore(workspace), 'acme')).key;
  workspace.close();
  const privateKey = generatePrivateKey();
  const keyFile = path.join(directory, `${name}.key`);
  fs.writeFileSync(keyFile, `${privateKey}\n`, { mode: 0o600 });
  const address = anchorAccount(privateKey).address;
  await chain.fundOnDevelopmentChain(address);
  return { home, apiKey, keyFile, address };
}

async function submit(url: string, apiKey: string, texts: string[]): Promise<string[]> {
  return Promise.all(
    texts.map(async (text) => {
      const response = await fetch(`${url}/v1/anchor`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ canonical_sha256: b64uEncode(digestOf(text)) }),
      });
      expect(response.status).toBe(202);
      return ((await response.json()) as { svc_anchor: string }).svc_anchor;
    }),
  );
}

async function resolvedRecords(url: string, urns: string[], timeoutMs = 30_000): Promise<Record<string, unknown>[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const records = await Promise.all(
      urns.map(
        async (urn) =>
          (await fetch(`${url}/v1/anchor/${encodeURIComponent(urn)}`)).json() as Promise<Record<string, unknown>>,
      ),
    );
    if (records.every((record) => isResolvedAnchorUrn(record.svc_anchor))) return records;
    if (Date.now() > until)
      throw new Error(
        `not resolved: ${JSON.stringify(records.filter((record) => !isResolvedAnchorUrn(record.svc_anchor)).slice(0, 2))}`,
      );
    await sleep(100);
  }
}

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-anchor-crash-'));
  anvil = await startAnvil();
  chain = new ChainClient(anvil.rpcUrl);
});
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await anvil?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('the anchoring engine survives SIGKILL', () => {
  for (const point of ['after-record', 'after-broadcast'] as const) {
    it(`killed ${point === 'after-record' ? 'between recording and broadcasting' : 'between broadcasting and resolving'}, then restarted: every hash resolves, one transaction per batch`, async () => {
      const { home, apiKey, keyFile, address } = await prepare(point);
      const chainArgs = [
        '--chain-rpc',
        anvil.rpcUrl,
        '--chain-name',
        'anvil-local',
        '--chain-key-file',
        keyFile,
        '--anchor-interval',
      ];
      const texts = Array.from({ length: 20 }, (_, index) => `${point} ${index}`);
      // A batch open long enough for every submission to be answered before the crash.
      const crashing = await serve(home, [...chainArgs, '3'], { EVROOM_FAILPOINTS: `anchor.${point}=kill` });
      const urns = await submit(crashing.url, apiKey, texts);
      expect(await crashing.exited).toEqual({ code: null, signal: 'SIGKILL' });
      // What the chain holds at the moment of the crash.
      expect(await chain.nextNonce(address)).toBe(point === 'after-record' ? 0 : 1);
      const restarted = await serve(home, [...chainArgs, '0.5']);
      try {
        const more = await submit(restarted.url, apiKey, ['after the restart a', 'after the restart b']);
        const records = await resolvedRecords(restarted.url, [...urns, ...more]);
        const transactions = new Set(records.map((record) => record.tx_hash));
        expect(transactions.size).toBeGreaterThanOrEqual(2);
        // Exactly one transaction per batch: the account sent as many as there are batches.
        expect(await chain.minedNonce(address)).toBe(transactions.size);
        expect(await chain.nextNonce(address)).toBe(transactions.size);
        for (const [index, text] of [...texts, 'after the restart a', 'after the restart b'].entries()) {
          const result = await verifyAnchor({
            sha256,
            digest: digestOf(text),
            record: records[index],
            rpcUrl: anvil.rpcUrl,
          });
          expect(result.anchor_status, JSON.stringify(result.steps)).toBe('verified');
        }
      } finally {
        await stop(restarted);
      }
      // The private key is never printed.
      const secret = fs.readFileSync(keyFile, 'utf8').trim().slice(2);
      expect(`${crashing.stderr()}${restarted.stderr()}`.toLowerCase()).not.toContain(secret);
    }, 90_000);
  }

  it('stops the embedded anvil when the service is killed with SIGKILL (watchdog)', async () => {
    const home = path.join(directory, 'embedded');
    const served = await serve(home, []);
    for (let tries = 0; !/Anchoring on/.test(served.stderr()) && tries < 100; tries += 1) await sleep(50);
    const match = /Anchoring on anvil-local at (http:\/\/127\.0\.0\.1:\d+)\./.exec(served.stderr());
    expect(match?.[1], served.stderr()).toBeDefined();
    const rpc = new ChainClient(match![1]!, { timeoutMs: 1000 });
    expect(await rpc.chainId()).toBe(31337);
    expect(fs.statSync(path.join(home, 'anchor', 'anchor-key')).mode & 0o777).toBe(0o600);
    served.child.kill('SIGKILL');
    await served.exited;
    const until = Date.now() + 15_000;
    let up = true;
    while (up && Date.now() < until) {
      await sleep(250);
      up = await rpc.chainId().then(
        () => true,
        () => false,
      );
    }
    expect(up).toBe(false);
  }, 60_000);
});
