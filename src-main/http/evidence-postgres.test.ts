/**
 * A tenant's evidence from a service on PostgreSQL (issue 27): two nodes share one database and
 * the same key files; receipts issued through node A (the issuance store) are in the bundle node
 * B serves, which `evroom import` finds complete for the period exactly as it finds the bundle
 * of a service on SQLite; the export's audit row is in the service's audit log in the database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportTenantEvidence, importEvidence } from '../operations/evidence';
import { createTenant, issueApiKey } from '../operations/service-admin';
import { loadServiceKeys } from '../operations/service-keys';
import { loadLogKey } from '../operations/service-log';
import { openServiceStore, workspaceServiceStore, type ServiceStore } from '../operations/service-store';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { buildService, type Service } from './service';

const LOG_NAME = 'logs.example.com/evroom';
const closers: (() => Promise<void> | void)[] = [];
let server: TestPostgres;
let directory: string;

beforeAll(async () => {
  server = await startTestPostgres();
  closers.push(() => server.stop());
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-evidence-pg-'));
  closers.push(() => fs.rmSync(directory, { recursive: true, force: true }));
}, 120_000);

afterAll(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

interface Node {
  workspace: Workspace;
  store: ServiceStore;
  service: Service;
  base: string;
  clock: { at: number };
}

/** A service node over `store` (its own data folder), its clock at `start`. */
async function startNode(folder: string, store: (workspace: Workspace) => Promise<ServiceStore>): Promise<Node> {
  const workspace = openWorkspace(folder);
  closers.push(() => workspace.close());
  const opened = await store(workspace);
  const keys = loadServiceKeys(workspace);
  loadLogKey(workspace);
  const clock = { at: Date.parse('2026-11-02T10:00:00Z') };
  const service = await buildService({
    workspace,
    store: opened,
    signer: {
      key_id: keys.active.key_id,
      seed: keys.active.seed,
      public_key: keys.active.public_key,
      listed: keys.listed,
    },
    now: () => new Date(clock.at),
    log: { name: LOG_NAME, checkpointMs: 60_000 },
  });
  closers.push(async () => {
    await service.close();
    await opened.close();
  });
  const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  return { workspace, store: opened, service, base, clock };
}

/** Issues acme's receipts at 10:00:01 … 10:00:05 through `nodes` in turn, a checkpoint at size 2. */
async function issueFive(nodes: Node[], key: string): Promise<void> {
  for (let second = 1; second <= 5; second += 1) {
    const node = nodes[(second - 1) % nodes.length] as Node;
    node.clock.at = Date.parse(`2026-11-02T10:00:0${second}Z`);
    const response = await fetch(`${node.base}/tenants/acme/receipts?profile=nano`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        agent_did: 'did:web:agent.example.com',
        input: `Hello ${second}.`,
        content_type: 'text/plain',
      }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    if (second === 2) {
      const checkpoint = await fetch(`${node.base}/tenants/acme/log/checkpoint`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(checkpoint.status).toBe(200);
    }
  }
}

async function evidence(node: Node, key: string, query: string): Promise<string> {
  node.clock.at = Date.parse('2026-11-02T11:00:00Z');
  const response = await fetch(`${node.base}/tenants/acme/evidence${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(response.status, bytes.toString('utf8')).toBe(200);
  const file = path.join(directory, `evidence-${Math.random().toString(16).slice(2)}.zip`);
  fs.writeFileSync(file, bytes);
  return file;
}

/** What an auditor's import finds in a bundle (a fresh workspace each time). */
async function imported(file: string): Promise<Awaited<ReturnType<typeof importEvidence>>> {
  const auditor = openWorkspace(path.join(directory, `auditor-${Math.random().toString(16).slice(2)}`));
  try {
    return await importEvidence(auditor, file, { workers: 1 });
  } finally {
    auditor.close();
  }
}

/** What the import says of a bundle's log, but its root (the two services signed other receipts). */
function sameLog(log: Awaited<ReturnType<typeof importEvidence>>['log']): unknown {
  if (log === null) return null;
  const { root_hex: root, ...rest } = log as typeof log & { root_hex?: string };
  expect(root).toMatch(/^[0-9a-f]{64}$/);
  return rest;
}

describe('a tenant’s evidence from PostgreSQL', () => {
  it('holds the receipts issued through another node, and imports as the SQLite service’s does', async () => {
    const url = await server.createDatabase();
    const nodeA = await startNode(path.join(directory, 'a'), (workspace) => openServiceStore(workspace, url));
    // Node B: its own data folder with the same key files (docs/deploy.md), the same database.
    fs.cpSync(path.join(directory, 'a', 'service'), path.join(directory, 'b', 'service'), { recursive: true });
    const nodeB = await startNode(path.join(directory, 'b'), (workspace) => openServiceStore(workspace, url));
    await createTenant(nodeA.store, 'acme', 'scale');
    const key = (await issueApiKey(nodeA.store, 'acme')).key;
    await issueFive([nodeA], key);

    // The same service on SQLite, for comparison.
    const local = await startNode(path.join(directory, 'sqlite'), (workspace) =>
      Promise.resolve(workspaceServiceStore(workspace)),
    );
    await createTenant(local.store, 'acme', 'scale');
    const localKey = (await issueApiKey(local.store, 'acme')).key;
    await issueFive([local], localKey);

    const query = '?since=2026-11-02T10:00:02Z&until=2026-11-02T10:00:05Z&consistent_with=2';
    const fromB = await imported(await evidence(nodeB, key, query));
    const fromSqlite = await imported(await evidence(local, localKey, query));
    expect(fromB.findings).toEqual([]);
    expect(fromB.counts.receipts).toBe(3);
    expect(fromB.log).toMatchObject({
      status: 'complete',
      signer: 'advertised',
      origin: `${LOG_NAME}/tenants/acme`,
      first_index: 1,
      last_index: 3,
      missing_count: 0,
      stale: false,
      sentence: 'complete for 2026-11-02T10:00:02Z to 2026-11-02T10:00:05Z at size 5',
    });
    expect(fromB.findings).toEqual(fromSqlite.findings);
    expect(fromB.counts).toEqual(fromSqlite.counts);
    expect(sameLog(fromB.log)).toEqual(sameLog(fromSqlite.log));

    // The whole log, from either node, and an empty period: the same as SQLite's too.
    for (const [node, other] of [
      [nodeA, ''],
      [nodeB, '?since=2026-11-02T10:30:00Z'],
    ] as const) {
      const got = await imported(await evidence(node, key, other));
      const want = await imported(await evidence(local, localKey, other));
      expect(got.findings).toEqual([]);
      expect(sameLog(got.log)).toEqual(sameLog(want.log));
      expect(got.counts).toEqual(want.counts);
    }

    // `evroom export --tenant acme` over node B's store: one more receipt through A, signed now.
    nodeA.clock.at = Date.parse('2026-11-02T10:00:06Z');
    const sixth = await fetch(`${nodeA.base}/tenants/acme/receipts?profile=nano`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_did: 'did:web:agent.example.com', input: 'Hello 6.', content_type: 'text/plain' }),
    });
    expect(sixth.status).toBe(201);
    const out = path.join(directory, 'cli-export.zip');
    const exported = await exportTenantEvidence(nodeB.workspace, {
      out,
      tenantId: 'acme',
      since: null,
      until: null,
      store: nodeB.store,
    });
    expect(exported).toMatchObject({ receipts: 6, log_tree_size: 6, tenant_id: 'acme' });
    const cli = await imported(out);
    expect(cli.findings).toEqual([]);
    expect(cli.log).toMatchObject({ status: 'complete', sentence: 'complete for the whole log at size 6' });
    await expect(
      exportTenantEvidence(nodeB.workspace, {
        out: path.join(directory, 'nobody.zip'),
        tenantId: 'nobody',
        since: null,
        until: null,
        store: nodeB.store,
      }),
    ).rejects.toThrow('This database has no tenant nobody.');

    // Each export's audit row is in the service's audit log, in the database.
    const audit = await nodeA.store.identity.listAudit({ limit: 100 });
    const exports = audit.filter((row) => row.action === 'export');
    expect(exports).toHaveLength(4);
    expect(exports.map((row) => (row.details as { receipts: number }).receipts).sort()).toEqual([0, 3, 5, 6]);
  }, 120_000);

  it('serves an empty log’s evidence, as the SQLite service does', async () => {
    const url = await server.createDatabase();
    const node = await startNode(path.join(directory, 'c'), (workspace) => openServiceStore(workspace, url));
    await createTenant(node.store, 'acme', 'scale');
    const key = (await issueApiKey(node.store, 'acme')).key;
    const local = await startNode(path.join(directory, 'd'), (workspace) =>
      Promise.resolve(workspaceServiceStore(workspace)),
    );
    await createTenant(local.store, 'acme', 'scale');
    const localKey = (await issueApiKey(local.store, 'acme')).key;
    const got = await imported(await evidence(node, key, ''));
    const want = await imported(await evidence(local, localKey, ''));
    // An empty log's bundle is complete at size 0 on either store (docs/logs.md, "What the import checks", freshness).
    expect(got.findings).toEqual([]);
    expect(got.log).toMatchObject({
      status: 'complete',
      tree_size: 0,
      stale: false,
      sentence: 'complete for the whole log at size 0',
    });
    expect(got.findings).toEqual(want.findings);
    expect(got.counts).toEqual(want.counts);
    expect(got.log).toEqual(want.log);

    // `evroom export --tenant beta` of a tenant whose log has no checkpoint yet signs under the
    // name the service signs under (the store's last checkpoint bears it), not the default name.
    for (const served of [node, local]) {
      await createTenant(served.store, 'beta', 'scale');
      const out = path.join(directory, `beta-${served === node ? 'pg' : 'sqlite'}.zip`);
      await exportTenantEvidence(served.workspace, {
        out,
        tenantId: 'beta',
        since: null,
        until: null,
        store: served.store,
      });
      const beta = await imported(out);
      expect(beta.findings).toEqual([]);
      expect(beta.log).toMatchObject({ status: 'complete', origin: `${LOG_NAME}/tenants/beta`, tree_size: 0 });
    }
  }, 120_000);
});
