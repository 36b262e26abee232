/**
 * `evroom export --tenant T --database URL` against a real PostgreSQL: a node serving on the
 * database issues a tenant's receipts, and another data folder holding the same key files
 * exports the tenant's evidence from the database; the import finds it complete. Usage errors
 * and an unreachable database are one line, exit 2, never the password.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importEvidence } from '../operations/evidence';
import { createTenant, issueApiKey } from '../operations/service-admin';
import { openServiceStore } from '../operations/service-store';
import { openWorkspace } from '../operations/workspace';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { EVROOM_BIN, startServeChild, stopServeChild } from '../test-support/serve-child';

function evroom(home: string, args: string[]) {
  const result = spawnSync(process.execPath, [EVROOM_BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', EVROOM_DATABASE_URL: '' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let server: TestPostgres;
let directory: string;
beforeAll(async () => {
  server = await startTestPostgres();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-export-db-'));
}, 120_000);
afterAll(async () => {
  await server?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('evroom export --tenant --database', () => {
  it('exports the evidence of receipts another node issued, complete for the period', async () => {
    const url = (await server.createDatabase()).replace('postgres@', 'postgres:s3cret-pw@');
    const homeA = path.join(directory, 'node-a');
    const served = await startServeChild(homeA, ['--no-anchor', '--database', url]);
    try {
      const admin = openWorkspace(path.join(directory, 'admin'));
      const store = await openServiceStore(admin, url);
      await createTenant(store, 'acme', 'scale');
      const key = (await issueApiKey(store, 'acme')).key;
      await store.close();
      admin.close();
      for (let n = 1; n <= 3; n += 1) {
        const response = await fetch(`${served.url}/tenants/acme/receipts?profile=nano`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            agent_did: 'did:web:agent.example.com',
            input: `Hello ${n}.`,
            content_type: 'text/plain',
          }),
        });
        expect(response.status).toBe(201);
      }
    } finally {
      await stopServeChild(served);
    }
    // Node B: its own data folder, the same key files (docs/deploy.md).
    const homeB = path.join(directory, 'node-b');
    fs.cpSync(path.join(homeA, 'service'), path.join(homeB, 'service'), { recursive: true });
    const out = path.join(directory, 'acme.zip');
    const result = evroom(homeB, ['export', '--tenant', 'acme', '--database', url, '--out', out, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ receipts: 3, log_tree_size: 3, tenant_id: 'acme' });
    const auditor = openWorkspace(path.join(directory, 'auditor'));
    try {
      const imported = await importEvidence(auditor, out, { workers: 1 });
      expect(imported.findings).toEqual([]);
      expect(imported.log).toMatchObject({ status: 'complete', sentence: 'complete for the whole log at size 3' });
    } finally {
      auditor.close();
    }

    const nobody = evroom(homeB, ['export', '--tenant', 'nobody', '--database', url, '--out', out, '--force']);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr.trim()).toBe('evroom: export: the service\'s database has no tenant "nobody"');
    expect(nobody.stderr).not.toContain('s3cret-pw');
  }, 180_000);

  it('asks for a tenant, and says in one line when the database is unreachable', () => {
    const home = path.join(directory, 'usage');
    const untenanted = evroom(home, [
      'export',
      '--database',
      'postgres://u:s3cret-pw@127.0.0.1:1/db',
      '--out',
      'x.zip',
    ]);
    expect(untenanted.code).toBe(2);
    expect(untenanted.stderr.trim()).toBe(
      "evroom: export: --database exports a served tenant's evidence; name the tenant with --tenant",
    );
    const down = evroom(home, [
      'export',
      '--tenant',
      'acme',
      '--database',
      'postgres://evroom:s3cret-pw@127.0.0.1:1/evroom',
      '--out',
      path.join(directory, 'down.zip'),
    ]);
    expect(down.code).toBe(2);
    expect(down.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^evroom: export: The database at 127\.0\.0\.1:1\/evroom is unavailable: .*ECONNREFUSED/),
    ]);
    expect(down.stderr).not.toContain('s3cret-pw');
    expect(fs.existsSync(path.join(directory, 'down.zip'))).toBe(false);
  });

  it('says what --database does in its help, in words', () => {
    const help = evroom(path.join(directory, 'help'), ['export', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      'With a service on PostgreSQL, --database URL (or EVROOM_DATABASE_URL; the flag wins): a PostgreSQL database shared by several service nodes instead of the data folder’s ledger;',
    );
  });
});
