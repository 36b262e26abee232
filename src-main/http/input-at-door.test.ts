import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, issueApiKey } from '../operations/service-admin';
import { workspaceServiceStore } from '../operations/service-store';
import { loadServiceKeys } from '../operations/service-keys';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { buildService, type Service } from './service';

// Inputs that fit a route's schema but not what lies below it (the ledger's instants, a profile
// format's own limits) are refused at the door with 400 and the request's own path: never a
// 500, never the wording of a check deep inside. Real HTTP on 127.0.0.1, a real ledger.

const did = (length: number): string => `did:web:${'a'.repeat(length - 'did:web:'.length)}`;

describe('inputs refused at the door', () => {
  let directory: string;
  let workspace: Workspace;
  let service: Service;
  let base: string;
  let key: string;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-door-input-'));
    workspace = openWorkspace(directory);
    const keys = loadServiceKeys(workspace);
    service = await buildService({
      workspace,
      signer: {
        key_id: keys.active.key_id,
        seed: keys.active.seed,
        public_key: keys.active.public_key,
        listed: keys.listed,
      },
    });
    base = await service.app.listen({ host: '127.0.0.1', port: 0 });
    await createTenant(workspaceServiceStore(workspace), 'acme', 'enterprise');
    key = (await issueApiKey(workspaceServiceStore(workspace), 'acme')).key;
  });
  afterAll(async () => {
    await service?.close();
    workspace?.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  async function send(method: string, route: string, body?: unknown) {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      json: (await response.json()) as { error: { code: string; message: string; details: { path: string }[] } },
    };
  }

  it('?since before 1970 on the tenant evidence', async () => {
    for (const since of ['0000-01-01T00:00:00Z', '1969-12-31T23:59:59.999Z']) {
      const answer = await send('GET', `/tenants/acme/evidence?since=${since}`);
      expect(answer.status).toBe(400);
      expect(answer.json.error.code).toBe('invalid_request');
      expect(answer.json.error.details.map((detail) => detail.path)).toEqual(['?since']);
      expect(answer.json.error.message).not.toContain('integer');
    }
  });

  it('emit fields the profile refuses, named by the request’s own paths', async () => {
    const emit = { input: 'x', content_type: 'text/plain' };
    const cases: [string, unknown, string[]][] = [
      ['nano', { ...emit, agent_did: did(300) }, ['/agent_did']],
      ['standard', { ...emit, agent_did: did(300) }, ['/agent_did']],
      ['pq', { ...emit, agent_did: 'not a did' }, ['/agent_did']],
      ['standard', { ...emit, agent_did: did(20), content_type: 'text' }, ['/content_type']],
      [
        'standard',
        { ...emit, agent_did: did(20), settlement_reference: { rail: 'r', chain_id: 0, asset: 'USDC' } },
        ['/settlement_reference/chain_id'],
      ],
      // Each field within its limits, the whole over the nano profile's 600-byte budget.
      [
        'nano',
        { ...emit, agent_did: did(256), content_type: `text/${'p'.repeat(123)}` },
        ['/agent_did', '/content_type'],
      ],
    ];
    for (const [profile, body, paths] of cases) {
      for (const route of [`/v1/receipt/emit?profile=${profile}`, `/tenants/acme/receipts?profile=${profile}`]) {
        const answer = await send('POST', route, body);
        expect(answer.status, `${route} ${JSON.stringify(answer.json)}`).toBe(400);
        expect(answer.json.error.code).toBe('invalid_request');
        expect(answer.json.error.details.map((detail) => detail.path)).toEqual(paths);
        expect(answer.json.error.message).not.toMatch(/Cannot issue|JCS|\/a |\/t /);
      }
    }
  });
});
