/**
 * Test support: a real service on 127.0.0.1 with one scale tenant whose receipts go into its
 * transparency log at instants the test sets (the service's clock), for the tests that take a
 * served tenant's evidence somewhere else (import, reports).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTenant, issueApiKey } from '../operations/service-admin';
import { workspaceServiceStore } from '../operations/service-store';
import { loadServiceKeys } from '../operations/service-keys';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { buildService, type Service } from '../http/service';

/** A running service with a tenant `acme` and its API key. */
export interface LoggedService {
  /** A temporary folder the service's data folder is in; other workspaces may go beside it. */
  directory: string;
  workspace: Workspace;
  service: Service;
  base: string;
  key: string;
  /** Issues one nano receipt for `acme` at the instant given (RFC 3339); throws unless 201. */
  issueAt(instant: string): Promise<void>;
  /** GETs a tenant route with the key (e.g. `log/checkpoint`, `evidence?since=...`). */
  get(route: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts a service whose tenant logs are named `logName`, checkpoints signed only on demand.
 *
 * @param options - The log name, the first instant of the clock, and the folder's prefix.
 */
export async function startLoggedService(options: {
  logName: string;
  start: string;
  prefix: string;
}): Promise<LoggedService> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), options.prefix));
  const workspace = openWorkspace(path.join(directory, 'service'));
  const clock = { at: Date.parse(options.start) };
  const keys = loadServiceKeys(workspace);
  const service = await buildService({
    workspace,
    signer: {
      key_id: keys.active.key_id,
      seed: keys.active.seed,
      public_key: keys.active.public_key,
      listed: keys.listed,
    },
    now: () => new Date(clock.at),
    log: { name: options.logName, checkpointMs: 60_000 },
  });
  const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  await createTenant(workspaceServiceStore(workspace), 'acme', 'scale');
  const key = (await issueApiKey(workspaceServiceStore(workspace), 'acme')).key;
  const emit = {
    agent_did: 'did:web:agent.example.com',
    input: `Hello, ${options.logName}.`,
    content_type: 'text/plain',
  };
  return {
    directory,
    workspace,
    service,
    base,
    key,
    async issueAt(instant) {
      clock.at = Date.parse(instant);
      const response = await fetch(`${base}/tenants/acme/receipts?profile=nano`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(emit),
      });
      if (response.status !== 201) throw new Error(`issue at ${instant}: ${response.status} ${await response.text()}`);
    },
    get: (route) => fetch(`${base}/tenants/acme/${route}`, { headers: { authorization: `Bearer ${key}` } }),
    async close() {
      await service.close();
      workspace.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
