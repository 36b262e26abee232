/**
 * Several service nodes on one PostgreSQL database: each heartbeats and /status lists them all;
 * a node whose keys differ from the database's refuses to start.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src-shared/verify/fields';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { loadServiceKeys } from '../operations/service-keys';
import { createTenant, issueApiKey } from '../operations/service-admin';
import { openServiceStore, type ServiceStore } from '../operations/service-store';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { buildService, type Service } from './service';

let server: TestPostgres;
let directory: string;
const closers: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  server = await startTestPostgres();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-nodes-'));
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await server?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

async function startNode(
  home: string,
  url: string,
  id: string,
): Promise<{ service: Service; base: string; store: ServiceStore; workspace: Workspace }> {
  const workspace = openWorkspace(home);
  closers.push(() => workspace.close());
  const store = await openServiceStore(workspace, url);
  closers.push(() => store.close());
  const keys = loadServiceKeys(workspace);
  const service = await buildService({
    workspace,
    store,
    node: { id, started_at: Date.now() },
    signer: {
      key_id: keys.active.key_id,
      seed: keys.active.seed,
      public_key: keys.active.public_key,
      listed: keys.listed,
    },
  });
  closers.push(() => service.close());
  const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  return { service, base, store, workspace };
}

describe('nodes on one PostgreSQL database', () => {
  it('each node is listed by /status; a node with other keys refuses to start', async () => {
    const url = await server.createDatabase();
    const homeA = path.join(directory, 'a');
    const a = await startNode(homeA, url, 'node-a');
    // Node B is provisioned from node A: the same service/ folder.
    const homeB = path.join(directory, 'b');
    fs.mkdirSync(homeB, { mode: 0o700 });
    fs.cpSync(path.join(homeA, 'service'), path.join(homeB, 'service'), { recursive: true });
    const b = await startNode(homeB, url, 'node-b');
    const status = (await (await fetch(`${b.base}/status`)).json()) as JsonObject;
    expect((status.nodes as JsonObject[]).map((node) => node.id)).toEqual(['node-b', 'node-a']);
    expect((await a.store.cluster.listNodes(0)).map((node) => node.id).sort()).toEqual(['node-a', 'node-b']);

    // Node C made its own keys: refused, with what to do.
    await expect(startNode(path.join(directory, 'c'), url, 'node-c')).rejects.toThrow(
      /This node's signing key \(did:key:[^)]+\) is not the one the database's nodes use .*copy service\/signing-key\.json/,
    );
    // Node D has A's signing key but a log key of its own: refused too.
    const homeD = path.join(directory, 'd');
    fs.mkdirSync(path.join(homeD, 'service'), { recursive: true, mode: 0o700 });
    fs.copyFileSync(path.join(homeA, 'service', 'signing-key.json'), path.join(homeD, 'service', 'signing-key.json'));
    await expect(startNode(homeD, url, 'node-d')).rejects.toThrow(/This node's log key .* copy service\/log-key\.json/);
    expect((await a.store.cluster.listNodes(0)).map((node) => node.id).sort()).toEqual(['node-a', 'node-b']);
  });

  it('answers 503 unavailable with Retry-After: 1 while the database is down, and recovers with it', async () => {
    const url = await server.createDatabase();
    const node = await startNode(path.join(directory, 'down'), url, 'node-down');
    await createTenant(node.store, 'acme', 'pro');
    const { key } = await issueApiKey(node.store, 'acme');
    const anchor = (): Promise<Response> =>
      fetch(`${node.base}/v1/anchor`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ canonical_sha256: 'A'.repeat(43) }),
      });
    // Up: the key is looked up in the database; this service has no anchoring.
    expect(((await (await anchor()).json()) as { error: { code: string } }).error.code).toBe('anchoring_unavailable');
    await server.kill();
    try {
      const down = await anchor();
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toBe('1');
      const body = (await down.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('unavailable');
      expect(body.error.message).not.toContain('127.0.0.1');
      // The rest of the service still answers.
      expect((await fetch(`${node.base}/status`)).status).toBe(200);
    } finally {
      await server.start();
    }
    expect(((await (await anchor()).json()) as { error: { code: string } }).error.code).toBe('anchoring_unavailable');
  });
});
