import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey } from 'viem/accounts';
import { isResolvedAnchorUrn } from '../../src-shared/anchor/urn';
import type { ServiceStore } from '../ledger/store';
import { postgresServiceStore } from '../ledger/store/open-store';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { startAnvil, type AnvilProcess } from './anvil';
import { anchorAccount, ChainClient } from './chain';
import { AnchorEngine } from './engine';
import { verifyAnchor } from './verify-anchor';

// Anchoring with several service nodes on one PostgreSQL database and one chain (anvil): every
// node queues hashes, one node (the anchoring lease's holder) posts; when the holder stops
// renewing or is killed with SIGKILL, the other takes over, every hash resolves, and the chain
// holds exactly one transaction per batch.

const HERE = path.dirname(fileURLToPath(import.meta.url));
const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());
const digestOf = (text: string): Uint8Array => sha256(new TextEncoder().encode(text));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Short for the test (the service's default is 15 s, renewed every 5 s). */
const LEASE = { leaseTtlMs: 1500, leaseRenewMs: 300 } as const;

let postgres: TestPostgres;
let anvil: AnvilProcess;
let chain: ChainClient;
let directory: string;
const cleanups: (() => Promise<void> | void)[] = [];

async function until(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function openStore(url: string): Promise<ServiceStore> {
  const store = await postgresServiceStore(url, sha256);
  let closed = false;
  const close = store.close.bind(store);
  // The first test closes node-a's store itself (its database goes away); closed once.
  const once = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await close();
  };
  cleanups.push(once);
  return { ...store, close: once };
}

function engineOn(
  store: ServiceStore,
  account: ReturnType<typeof anchorAccount>,
  node: string,
  lines: string[],
): AnchorEngine {
  const engine = new AnchorEngine({
    store,
    chain,
    account,
    network: 'anvil-local',
    intervalMs: 400,
    pollMs: 50,
    node,
    ...LEASE,
    log: (line) => lines.push(line),
  });
  cleanups.push(() => engine.stop());
  return engine;
}

/** Every URN's record once all are resolved, read through `store`. */
async function resolvedRecords(store: ServiceStore, urns: readonly string[]): Promise<Record<string, unknown>[]> {
  let records: (Record<string, unknown> | undefined)[] = [];
  await until(
    'every hash to resolve',
    async () => {
      records = await Promise.all(urns.map((urn) => store.anchoring.recordAt(urn, Date.now())));
      return records.every((record) => isResolvedAnchorUrn(record?.svc_anchor));
    },
    40_000,
  );
  return records as Record<string, unknown>[];
}

/** Each record verifies on chain, and the account sent exactly one transaction per batch. */
async function expectOneTransactionPerBatch(
  records: readonly Record<string, unknown>[],
  texts: readonly string[],
  address: string,
): Promise<void> {
  const transactions = new Set(records.map((record) => record.tx_hash));
  const batches = new Set(records.map((record) => `${String(record.batch_id)} ${String(record.merkle_root)}`));
  expect(transactions.size).toBe(batches.size);
  expect(await chain.minedNonce(address)).toBe(transactions.size);
  expect(await chain.nextNonce(address)).toBe(transactions.size);
  for (const [index, text] of texts.entries()) {
    const result = await verifyAnchor({ sha256, digest: digestOf(text), record: records[index], rpcUrl: anvil.rpcUrl });
    expect(result.anchor_status, JSON.stringify(result.steps)).toBe('verified');
  }
}

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-anchor-nodes-'));
  postgres = await startTestPostgres();
  anvil = await startAnvil();
  chain = new ChainClient(anvil.rpcUrl);
}, 60_000);
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});
afterAll(async () => {
  await anvil?.stop();
  await postgres?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('anchoring with two nodes on one PostgreSQL database', () => {
  it('both nodes queue, one posts; when the holder stops renewing, the other takes over and every hash resolves once', async () => {
    const url = await postgres.createDatabase();
    const account = anchorAccount(generatePrivateKey());
    await chain.fundOnDevelopmentChain(account.address);
    const [storeA, storeB] = [await openStore(url), await openStore(url)];
    const linesA: string[] = [];
    const linesB: string[] = [];
    const a = engineOn(storeA, account, 'node-a', linesA);
    const b = engineOn(storeB, account, 'node-b', linesB);
    a.start();
    await until('node-a to hold the lease', () => a.writing);
    b.start();
    await sleep(LEASE.leaseRenewMs * 2);
    expect(b.writing).toBe(false);

    const texts: string[] = [];
    const urns: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      for (const [node, engine] of [
        ['a', a],
        ['b', b],
      ] as const) {
        const batch = Array.from({ length: 5 }, (_, index) => `round ${round} node ${node} hash ${index}`);
        const answers = await engine.submitMany(batch.map(digestOf), { tenantId: 'acme' });
        expect(answers.every((answer) => answer.outcome === 'queued')).toBe(true);
        texts.push(...batch);
        urns.push(...answers.map((answer) => answer.svc_anchor));
      }
      await sleep(500);
    }
    const before = await resolvedRecords(storeB, urns);
    expect(a.writing).toBe(true);
    expect(b.writing).toBe(false);
    expect(linesB.some((line) => line.includes('writes the batches'))).toBe(false);

    // node-a's database goes away: its renewals fail and it stops; node-b takes the lapsed lease.
    const moreTexts = Array.from({ length: 8 }, (_, index) => `after node-a stopped ${index}`);
    const more = await b.submitMany(moreTexts.map(digestOf));
    await storeA.close();
    await until('node-a to stop writing', () => !a.writing, 5_000);
    await until('node-b to take the lease', () => b.writing, 10_000);
    expect(linesA.some((line) => line.includes('no longer writes the batches'))).toBe(true);
    const after = await resolvedRecords(storeB, [...urns, ...more.map((answer) => answer.svc_anchor)]);
    expect(after.slice(0, before.length)).toEqual(before);
    await expectOneTransactionPerBatch(after, [...texts, ...moreTexts], account.address);
    expect(await b.status()).toMatchObject({
      pending_hashes: 0,
      batches: { open: 0, closed: 0, signed: 0, posted: 0 },
    });
  }, 120_000);

  for (const point of ['after-record', 'after-broadcast'] as const) {
    it(`the holder killed with SIGKILL ${point === 'after-record' ? 'between recording and broadcasting' : 'between broadcasting and resolving'}: the other node finishes its batch, one transaction per batch`, async () => {
      const url = await postgres.createDatabase();
      const privateKey = generatePrivateKey();
      const account = anchorAccount(privateKey);
      await chain.fundOnDevelopmentChain(account.address);
      const texts = Array.from({ length: 12 }, (_, index) => `${point} killed node ${index}`);
      const script = path.join(directory, `node-a-${point}.mts`);
      const module = (name: string): string => JSON.stringify(path.join(HERE, name));
      fs.writeFileSync(
        script,
        `
        import { createHash } from 'node:crypto';
        import { postgresServiceStore } from ${module('../ledger/store/open-store.ts')};
        import { anchorAccount, ChainClient } from ${module('chain.ts')};
        import { AnchorEngine } from ${module('engine.ts')};
        const sha256 = (data) => new Uint8Array(createHash('sha256').update(data).digest());
        const store = await postgresServiceStore(${JSON.stringify(url)}, sha256);
        const engine = new AnchorEngine({
          store,
          chain: new ChainClient(${JSON.stringify(anvil.rpcUrl)}),
          account: anchorAccount(process.env.TEST_ANCHOR_KEY),
          network: 'anvil-local',
          intervalMs: 60_000,
          node: 'node-a',
          leaseTtlMs: ${LEASE.leaseTtlMs},
          leaseRenewMs: ${LEASE.leaseRenewMs},
          log: (line) => process.stderr.write(line + '\\n'),
        });
        engine.start();
        while (!engine.writing) await new Promise((resolve) => setTimeout(resolve, 20));
        const texts = ${JSON.stringify(texts)};
        const answers = await engine.submitMany(texts.map((text) => sha256(new TextEncoder().encode(text))));
        process.stdout.write(JSON.stringify(answers.map((answer) => answer.svc_anchor)) + '\\n');
        await new Promise((resolve) => setTimeout(resolve, 300));
        await engine.closeNow();
        process.stdout.write('not killed\\n');
        `,
      );
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        env: { ...process.env, TEST_ANCHOR_KEY: privateKey, EVROOM_FAILPOINTS: `anchor.${point}=kill` },
      });
      cleanups.push(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once('exit', (_code, signal) => resolve(signal)),
      );
      await until('node-a to queue its hashes', () => stdout.includes('\n') || child.exitCode !== null, 60_000);
      expect(stdout, stderr).toMatch(/^\[.*\]\n/);
      const urns = JSON.parse(stdout.split('\n')[0] as string) as string[];
      expect(urns, stderr).toHaveLength(texts.length);

      // node-b runs meanwhile and queues too, but does not write while node-a holds the lease.
      const storeB = await openStore(url);
      const linesB: string[] = [];
      const b = engineOn(storeB, account, 'node-b', linesB);
      b.start();
      const more = await b.submitMany([digestOf(`${point} node-b 1`), digestOf(`${point} node-b 2`)]);
      expect(await exited, `${stdout}\n${stderr}`).toBe('SIGKILL');
      expect(await chain.nextNonce(account.address)).toBe(point === 'after-record' ? 0 : 1);
      const killedBatch = (await storeB.anchoring.unfinishedBatches())[0];
      expect(killedBatch).toMatchObject({ state: 'signed', nonce: 0 });

      await until('node-b to take the lease', () => b.writing, 10_000);
      const records = await resolvedRecords(storeB, [...urns, ...more.map((answer) => answer.svc_anchor)]);
      // The killed node's batch went out as the bytes it recorded: its transaction, nonce 0.
      expect(records[0]?.tx_hash).toBe(killedBatch?.tx_hash);
      await expectOneTransactionPerBatch(
        records,
        [...texts, `${point} node-b 1`, `${point} node-b 2`],
        account.address,
      );
      expect(`${stdout}${stderr}${linesB.join('\n')}`.toLowerCase()).not.toContain(privateKey.slice(2));
    }, 120_000);
  }
});
