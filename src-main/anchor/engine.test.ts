import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey } from 'viem/accounts';
import { isPendingAnchorUrn, isResolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { anchorBacklog, anchorRecordAt, listUnfinishedAnchorBatches } from '../ledger/anchor-batches';
import { getAnchor } from '../ledger/anchors';
import { openLedger, type Ledger } from '../ledger/open-ledger';
import { sqliteServiceStore } from '../ledger/store/open-store';
import { startAnvil, type AnvilProcess } from './anvil';
import { anchorAccount, ChainClient } from './chain';
import { AnchorEngine } from './engine';
import { verifyAnchor } from './verify-anchor';

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(data).digest());
const digestOf = (text: string): Uint8Array => sha256(new TextEncoder().encode(text));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** An anchor's record as `GET /v1/anchor/<urn>` answers it (the service reads the ledger, not the engine). */
const recordOf = (ledger: Ledger, svcAnchor: string): Record<string, unknown> | undefined =>
  anchorRecordAt(ledger.readable, svcAnchor, Date.now());

let anvil: AnvilProcess;
let chain: ChainClient;
const folders: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

function temporaryLedger(): Ledger {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-engine-'));
  folders.push(folder);
  const ledger = openLedger(path.join(folder, 'ledger.sqlite'));
  cleanups.push(() => ledger.close());
  return ledger;
}

async function funded(client: ChainClient): Promise<ReturnType<typeof anchorAccount>> {
  const account = anchorAccount(generatePrivateKey());
  await client.fundOnDevelopmentChain(account.address);
  return account;
}

/** Passes until nothing is pending (or the time is up). */
async function drain(engine: AnchorEngine, ledger: Ledger, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (anchorBacklog(ledger.readable).pending_hashes > 0) {
    if (Date.now() > until) throw new Error(`still pending: ${JSON.stringify(await engine.status())}`);
    await engine.tick();
    await sleep(30);
  }
}

beforeAll(async () => {
  anvil = await startAnvil();
  chain = new ChainClient(anvil.rpcUrl);
});
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});
afterAll(async () => {
  await anvil?.stop();
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

describe('AnchorEngine on a real anvil', () => {
  it('anchors 1,000 hashes in two batches, one transaction each, and every proof verifies in all three steps', async () => {
    const ledger = temporaryLedger();
    const account = await funded(chain);
    const engine = new AnchorEngine({
      store: sqliteServiceStore(ledger, sha256),
      chain,
      account,
      network: 'anvil-local',
      intervalMs: 60_000,
    });
    const digests = Array.from({ length: 1000 }, (_, index) => digestOf(`receipt ${index}`));
    const answers = await engine.submitMany(digests.slice(0, 600));
    await engine.closeNow();
    answers.push(...(await engine.submitMany(digests.slice(600))));
    await engine.closeNow();
    for (const answer of answers) {
      expect(answer.outcome).toBe('queued');
      expect(isPendingAnchorUrn(answer.svc_anchor)).toBe(true);
    }
    await drain(engine, ledger);
    const batches = new Set<string>();
    for (const [index, digest] of digests.entries()) {
      const record = recordOf(ledger, answers[index]!.svc_anchor) as Record<string, unknown>;
      expect(record.batch_id).toBe(answers[index]!.batch_id);
      expect(isResolvedAnchorUrn(record.svc_anchor)).toBe(true);
      batches.add(String(record.tx_hash));
      const result = await verifyAnchor({ sha256, digest, record, rpcUrl: anvil.rpcUrl });
      expect(
        result.steps.map((step) => step.status),
        JSON.stringify(result.steps),
      ).toEqual(['pass', 'pass', 'pass']);
      expect(result.anchor_status).toBe('verified');
    }
    expect(batches.size).toBe(2);
    // Exactly one transaction per batch: the account sent two.
    expect(await chain.minedNonce(account.address)).toBe(2);
    expect(await engine.status()).toMatchObject({
      pending_hashes: 0,
      batches: { resolved: 2, open: 0, closed: 0, signed: 0, posted: 0 },
      last_error: null,
    });
  }, 120_000);

  it('gives the same record for the same hash in one open batch, and refuses a second digest with the same suffix', async () => {
    const ledger = temporaryLedger();
    const engine = new AnchorEngine({
      store: sqliteServiceStore(ledger, sha256),
      chain,
      account: await funded(chain),
      network: 'anvil-local',
      intervalMs: 60_000,
    });
    const digest = digestOf('twice');
    const first = await engine.submit(digest);
    const second = await engine.submit(digest);
    expect(first.outcome).toBe('queued');
    expect(second.outcome).toBe('existing');
    expect(second.svc_anchor).toBe(first.svc_anchor);
    expect(second.batch_id).toBe(first.batch_id);
    expect((await engine.status()).pending_hashes).toBe(1);
    // Committed before submit returned: another connection sees the pending row.
    expect(getAnchor(ledger.readable, first.svc_anchor)?.status).toBe('pending');
    const twin = new Uint8Array(digest);
    twin[31] = (twin[31] ?? 0) ^ 1;
    expect(await engine.submit(twin)).toMatchObject({ outcome: 'conflict', svc_anchor: first.svc_anchor });
    expect((await engine.status()).pending_hashes).toBe(1);
    const pending = recordOf(ledger, first.svc_anchor);
    expect(pending).toMatchObject({ svc_anchor: first.svc_anchor, batch_id: first.batch_id });
    expect((pending as { eta_seconds: number }).eta_seconds).toBeGreaterThan(0);
    await engine.closeNow();
    await drain(engine, ledger);
    const resolved = recordOf(ledger, first.svc_anchor) as Record<string, unknown>;
    expect(isResolvedAnchorUrn(resolved.svc_anchor)).toBe(true);
    expect(recordOf(ledger, resolved.svc_anchor as string)).toEqual(resolved);
  }, 60_000);

  it('queues submissions made at once in few store transactions (group commit), each caller its own answer', async () => {
    const ledger = temporaryLedger();
    const store = sqliteServiceStore(ledger, sha256);
    let transactions = 0;
    const counted = {
      cluster: store.cluster,
      anchoring: {
        ...store.anchoring,
        queue: (entries: Parameters<typeof store.anchoring.queue>[0]) => {
          transactions += 1;
          return store.anchoring.queue(entries);
        },
      },
    };
    const engine = new AnchorEngine({
      store: counted,
      chain,
      account: await funded(chain),
      network: 'anvil-local',
      intervalMs: 60_000,
    });
    const digests = Array.from({ length: 300 }, (_, index) => digestOf(`at once ${index}`));
    const bad = engine.submit(new Uint8Array(31));
    const answers = await Promise.all(
      digests.map((digest, index) => engine.submit(digest, { tenantId: index % 2 === 0 ? 'even' : 'odd' })),
    );
    await expect(bad).rejects.toThrow(RangeError);
    expect(transactions).toBeLessThanOrEqual(3);
    for (const [index, answer] of answers.entries()) {
      expect(answer.outcome).toBe('queued');
      expect(answer.svc_anchor.endsWith(`:${Buffer.from(digests[index]!.subarray(0, 8)).toString('hex')}`)).toBe(true);
    }
    expect(new Set(answers.map((answer) => answer.svc_anchor)).size).toBe(300);
    expect((await engine.status()).pending_hashes).toBe(300);
    expect((await engine.submit(digests[7]!)).outcome).toBe('existing');
  });

  it('closes batches on its own every interval and resolves them with start()', async () => {
    const ledger = temporaryLedger();
    const engine = new AnchorEngine({
      store: sqliteServiceStore(ledger, sha256),
      chain,
      account: await funded(chain),
      network: 'anvil-local',
      intervalMs: 200,
      pollMs: 50,
    });
    engine.start();
    cleanups.push(() => engine.stop());
    const answer = await engine.submit(digestOf('on schedule'));
    const until = Date.now() + 15_000;
    while (!isResolvedAnchorUrn(recordOf(ledger, answer.svc_anchor)?.svc_anchor)) {
      if (Date.now() > until) throw new Error('not resolved');
      await sleep(50);
    }
    await engine.stop();
  }, 30_000);

  it('waits through a chain outage with backoff, shows it, and resolves when the chain is back', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-outage-'));
    folders.push(folder);
    const stateFile = path.join(folder, 'anvil-state.json');
    let own = await startAnvil({ stateFile });
    cleanups.push(() => own.stop());
    const client = new ChainClient(own.rpcUrl, { timeoutMs: 2000 });
    const ledger = temporaryLedger();
    const account = await funded(client);
    const engine = new AnchorEngine({
      store: sqliteServiceStore(ledger, sha256),
      chain: client,
      account,
      network: 'anvil-local',
      intervalMs: 60_000,
      maxBackoffMs: 400,
    });
    const before = await engine.submit(digestOf('before the outage'));
    await engine.closeNow();
    await drain(engine, ledger);
    await sleep(1200); // anvil writes its state every second
    await own.stop();
    const during = await engine.submit(digestOf('during the outage'));
    await engine.closeNow();
    const status = await engine.status();
    expect(status.last_error).toMatch(/does not answer/);
    expect(status.next_retry_at).not.toBeNull();
    expect(status).toMatchObject({ pending_hashes: 1, batches: { closed: 1 } });
    expect(listUnfinishedAnchorBatches(ledger.readable)[0]).toMatchObject({ state: 'closed', attempts: 1 });
    // Retries back off while the chain is away.
    await sleep(500);
    await engine.tick();
    expect(listUnfinishedAnchorBatches(ledger.readable)[0]?.attempts).toBeGreaterThanOrEqual(2);
    expect(recordOf(ledger, during.svc_anchor)?.svc_anchor).toBe(during.svc_anchor);
    own = await startAnvil({ stateFile, port: own.port });
    cleanups.push(() => own.stop());
    await drain(engine, ledger);
    expect(await engine.status()).toMatchObject({ last_error: null, next_retry_at: null, pending_hashes: 0 });
    for (const [text, answer] of [
      ['before the outage', before],
      ['during the outage', during],
    ] as const) {
      const record = recordOf(ledger, answer.svc_anchor);
      const result = await verifyAnchor({ sha256, digest: digestOf(text), record, rpcUrl: own.rpcUrl });
      expect(result.anchor_status).toBe('verified');
    }
    expect(await client.minedNonce(account.address)).toBe(2);
  }, 60_000);
});
