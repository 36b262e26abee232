import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wearableWorkedExample } from '../../src-shared/formats/wearable/example';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { jcs } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { runEvroom, startServeChild, stopServeChild, type ServedChild } from '../test-support/serve-child';

// Several `evroom serve` nodes on one real PostgreSQL, as docs/deploy.md deploys them: started as
// child processes with --database, holding the same key files, each answering any request. The
// guarantees of docs/deploy.md's last table are checked here through HTTP, as tenants meet them.

const node = createNodeCryptoProvider();
const EMIT = (n: number) => ({
  agent_did: 'did:web:agent.example.com',
  input: `receipt ${n}`,
  content_type: 'text/plain',
});

/** The receipt's identity in the store: the hex SHA-256 of its JCS bytes. */
const receiptSha256 = (receipt: unknown): string =>
  createHash('sha256')
    .update(jcs(receipt as JsonValue))
    .digest('hex');

/** What the shared database holds for a tenant: its issued receipts, its log's leaves, its quota use. */
async function stored(url: string, tenant: string): Promise<{ receipts: string[]; leaves: number; quota: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const receipts = await client.query<{ receipt_sha256: string }>(
      'SELECT receipt_sha256 FROM issued_receipts WHERE ref = $1',
      [`tenant:${tenant}`],
    );
    const leaves = await client.query<{ n: string }>('SELECT count(*) AS n FROM tlog_leaves WHERE tenant_id = $1', [
      tenant,
    ]);
    const quota = await client.query<{ n: string | null }>(
      'SELECT sum(used) AS n FROM quota_usage WHERE subject = $1',
      [`tenant:${tenant}`],
    );
    return {
      receipts: receipts.rows.map((row) => row.receipt_sha256),
      leaves: Number(leaves.rows[0]?.n ?? 0),
      quota: Number(quota.rows[0]?.n ?? 0),
    };
  } finally {
    await client.end();
  }
}

interface Answer {
  status: number;
  json: Record<string, unknown>;
  text: string;
}

async function call(base: string, method: string, route: string, key?: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${route}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON (a zip, a checkpoint)
  }
  return { status: response.status, json, text };
}

/** `evroom ARGS --database URL` in `home`; its stdout, or a failure with its stderr. */
async function admin(home: string, url: string, args: string[]): Promise<string> {
  const result = await runEvroom(home, [...args, '--database', url]);
  if (result.code !== 0) throw new Error(`evroom ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

describe('several evroom serve nodes on one PostgreSQL', () => {
  let postgres: TestPostgres;
  let work: string;
  let url: string;
  let homes: string[];
  let nodes: ServedChild[] = [];

  /**
   * Starts a node in `home` on the shared database. No anchoring (these tests are about the
   * store), and a per-address rate limit out of the way: every request here comes from one
   * address, and under the outage the load loop's quick 503s would spend the default 600 a minute.
   */
  const startNode = (home: string, extra: string[] = []) =>
    startServeChild(home, ['--database', url, '--no-anchor', '--rate-limit', '1000000', ...extra]);

  beforeAll(async () => {
    postgres = await startTestPostgres();
    url = await postgres.createDatabase('multinode');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-multinode-'));
    homes = ['a', 'b'].map((name) => path.join(work, name));
    // The first node makes the service's keys; the second holds the same files (docs/deploy.md).
    const first = await startNode(homes[0] as string);
    await stopServeChild(first);
    fs.cpSync(path.join(homes[0] as string, 'service'), path.join(homes[1] as string, 'service'), { recursive: true });
    nodes = [await startNode(homes[0] as string), await startNode(homes[1] as string)];
  }, 120_000);

  afterAll(async () => {
    await Promise.all(nodes.map((served) => stopServeChild(served)));
    await postgres?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  const [a, b] = [() => nodes[0] as ServedChild, () => nodes[1] as ServedChild];

  async function tenantKey(id: string, tier: string): Promise<string> {
    await admin(homes[0] as string, url, ['tenants', 'create', id, '--tier', tier]);
    const issued = JSON.parse(await admin(homes[1] as string, url, ['apikeys', 'issue', '--tenant', id, '--json'])) as {
      key: string;
    };
    return issued.key;
  }

  it('lists both nodes in /status, each with its heartbeat', async () => {
    const status = await call(a().url, 'GET', '/status');
    expect(status.status).toBe(200);
    const listed = (status.json.nodes ?? (status.json.payload as Record<string, unknown> | undefined)?.nodes) as
      { id: string; heartbeat_at: string }[] | undefined;
    expect(listed, status.text).toBeDefined();
    expect(listed?.length).toBeGreaterThanOrEqual(2);
    for (const entry of listed ?? []) expect(Date.parse(entry.heartbeat_at)).toBeGreaterThan(Date.now() - 120_000);
  });

  it('counts a free quota exactly across two nodes: of 102 calls at once, 100 pass and 2 are 429', async () => {
    const key = await tenantKey('quota-edge', 'free');
    const answers = await Promise.all(
      Array.from({ length: 102 }, (_, n) =>
        call((n % 2 === 0 ? a() : b()).url, 'POST', '/tenants/quota-edge/receipts', key, EMIT(n)),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(100);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2);
    // And after: both nodes refuse the next one.
    expect((await call(a().url, 'POST', '/tenants/quota-edge/receipts', key, EMIT(200))).status).toBe(429);
    expect((await call(b().url, 'POST', '/tenants/quota-edge/receipts', key, EMIT(201))).status).toBe(429);
  }, 120_000);

  it('uses a wearable nonce once across nodes: the same observation sent to both at once is issued once', async () => {
    const key = await tenantKey('wearable-nonce', 'pro');
    const fields = wearableWorkedExample(node).callerFields;
    const answers = await Promise.all([
      call(a().url, 'POST', '/v1/wearable/receipts', key, fields),
      call(b().url, 'POST', '/v1/wearable/receipts', key, fields),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
  });

  it('refuses a revoked key on every node at once', async () => {
    const key = await tenantKey('revoked', 'pro');
    expect((await call(a().url, 'POST', '/tenants/revoked/receipts', key, EMIT(1))).status).toBe(201);
    expect((await call(b().url, 'POST', '/tenants/revoked/receipts', key, EMIT(2))).status).toBe(201);
    await admin(homes[1] as string, url, ['apikeys', 'revoke', key.slice(0, 16)]);
    expect((await call(a().url, 'POST', '/tenants/revoked/receipts', key, EMIT(3))).status).toBe(401);
    expect((await call(b().url, 'POST', '/tenants/revoked/receipts', key, EMIT(4))).status).toBe(401);
  });

  it('gives, from node B, evidence holding the receipts issued through node A', async () => {
    const key = await tenantKey('evidence', 'pro');
    const issued: string[] = [];
    for (let n = 0; n < 6; n++) {
      const answer = await call((n % 2 === 0 ? a() : b()).url, 'POST', '/tenants/evidence/receipts', key, EMIT(n));
      expect(answer.status, answer.text).toBe(201);
      issued.push(JSON.stringify(answer.json.receipt));
    }
    const zip = path.join(work, 'evidence-from-b.zip');
    const response = await fetch(`${b().url}/tenants/evidence/evidence`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    fs.writeFileSync(zip, Buffer.from(await response.arrayBuffer()));
    const inspector = path.join(work, 'inspector');
    const imported = await runEvroom(inspector, ['import', zip, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const result = JSON.parse(imported.stdout) as {
      counts: { receipts: number; byStatus: Record<string, number> };
      log: { status: string; missing_count: number; tree_size: number } | null;
    };
    expect(result.counts.receipts).toBe(6);
    expect(result.counts.byStatus).toEqual({ PASS: 6 });
    expect(result.log).toMatchObject({ status: 'complete', missing_count: 0, tree_size: 6 });
  }, 120_000);

  it('stores every receipt a node answered 2xx once, none twice, when the node is killed with SIGKILL in a burst', async () => {
    const key = await tenantKey('burst', 'pro');
    const victim = a();
    const answered: string[] = [];
    let failed = 0;
    const send = async (n: number): Promise<void> => {
      try {
        const answer = await call(victim.url, 'POST', '/tenants/burst/receipts', key, EMIT(n));
        if (answer.status === 201) answered.push(receiptSha256(answer.json.receipt));
        else failed += 1;
      } catch {
        failed += 1; // the connection died with the node
      }
    };
    const burst = Array.from({ length: 400 }, (_, n) => send(n));
    // Killed in the middle: once some receipts are answered, while others are in flight.
    for (let waited = 0; answered.length < 20 && waited < 30_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    victim.child.kill('SIGKILL');
    await Promise.all(burst);
    await victim.exited;
    // The killed node starts again on the same database (for the tests after this one too).
    nodes[0] = await startNode(homes[0] as string);
    expect(answered.length, 'some receipts were answered before the kill').toBeGreaterThan(0);
    expect(failed, 'some requests died with the node').toBeGreaterThan(0);
    const after = await stored(url, 'burst');
    // Each stored receipt once (the receipts' hashes are unique), logged once, counted once.
    expect(new Set(after.receipts).size).toBe(after.receipts.length);
    expect(after.leaves).toBe(after.receipts.length);
    expect(after.quota).toBe(after.receipts.length);
    // Every receipt answered 2xx is stored.
    const held = new Set(after.receipts);
    expect(answered.filter((sha) => !held.has(sha))).toEqual([]);
    // The other node goes on, and the log stays whole: its next receipt is the next leaf.
    const next = await call(b().url, 'POST', '/tenants/burst/receipts', key, EMIT(1000));
    expect(next.status).toBe(201);
    expect((await stored(url, 'burst')).leaves).toBe(after.receipts.length + 1);
  }, 120_000);

  it('answers 503 while PostgreSQL is down, writes nothing half, and recovers when it is back', async () => {
    const key = await tenantKey('outage', 'pro');
    const answered: string[] = [];
    const statuses: number[] = [];
    const codes = new Set<string>();
    const others = new Set<string>();
    let stop = false;
    const load = async (which: () => ServedChild, from: number): Promise<void> => {
      for (let n = from; !stop; n += 1) {
        const answer = await call(which().url, 'POST', '/tenants/outage/receipts', key, EMIT(n)).catch(() => undefined);
        if (answer === undefined) continue;
        statuses.push(answer.status);
        if (answer.status === 201) answered.push(receiptSha256(answer.json.receipt));
        else codes.add(String((answer.json.error as { code?: string } | undefined)?.code));
        if (answer.status !== 201 && answer.status !== 503) others.add(`${answer.status} ${answer.text}`);
      }
    };
    const running = [load(a, 0), load(b, 100_000)];
    await new Promise((resolve) => setTimeout(resolve, 500));
    await postgres.kill();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const duringOutage = statuses.length;
    await postgres.start();
    // Back: both nodes issue again within a few seconds.
    const deadline = Date.now() + 20_000;
    let recovered = false;
    let lastRefusals: string[] = [];
    while (Date.now() < deadline && !recovered) {
      const refused: Answer = { status: 0, json: {}, text: 'connection refused' };
      const [fromA, fromB] = await Promise.all([
        call(a().url, 'POST', '/tenants/outage/receipts', key, EMIT(900_000 + statuses.length)).catch(() => refused),
        call(b().url, 'POST', '/tenants/outage/receipts', key, EMIT(950_000 + statuses.length)).catch(() => refused),
      ]);
      if (fromA === refused || fromB === refused) break;
      for (const answer of [fromA, fromB]) if (answer.status === 201) answered.push(receiptSha256(answer.json.receipt));
      recovered = fromA.status === 201 && fromB.status === 201;
      lastRefusals = [fromA, fromB]
        .filter((answer) => answer.status !== 201)
        .map((answer) => `${answer.status} ${answer.text}`);
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    stop = true;
    await Promise.all(running);
    // Both nodes lived through the outage.
    for (const served of [a(), b()]) expect(served.child.exitCode, served.stderr()).toBeNull();
    expect(recovered, `both nodes issue again once PostgreSQL is back; last: ${lastRefusals.join(' | ')}`).toBe(true);
    expect(duringOutage).toBeGreaterThan(0);
    // Refusals were clean: 503 unavailable, never a 500.
    expect(
      statuses.filter((status) => status !== 201 && status !== 503),
      [...others].join(' | '),
    ).toEqual([]);
    expect(statuses).toContain(503);
    expect([...codes]).toEqual(['unavailable']);
    // Nothing half-written: every stored receipt is logged and counted once, every answered one is stored.
    const after = await stored(url, 'outage');
    expect(after.leaves).toBe(after.receipts.length);
    expect(after.quota).toBe(after.receipts.length);
    const held = new Set(after.receipts);
    expect(answered.filter((sha) => !held.has(sha))).toEqual([]);
  }, 120_000);
});
