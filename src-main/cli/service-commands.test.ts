import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));

function evroom(home: string, args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('evroom tenants, apikeys, serve', () => {
  let directory: string;
  let home: string;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-service-cli-'));
    home = path.join(directory, 'home');
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('creates tenants, issues a key once, lists prefixes only, revokes, and refuses bad input', () => {
    expect(evroom(home, ['tenants', 'create', 'acme', '--tier', 'pro', '--json'])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('"tier":"pro"'),
    });
    const duplicate = evroom(home, ['tenants', 'create', 'acme', '--tier', 'scale']);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toContain('(conflict); nothing changed');
    expect(evroom(home, ['tenants', 'create', 'bad id', '--tier', 'pro']).code).toBe(2);
    expect(evroom(home, ['tenants', 'create', 'x', '--tier', 'gold']).stderr).toContain(
      '--tier must be one of free, pro, scale, enterprise',
    );
    const issued = evroom(home, ['apikeys', 'issue', '--tenant', 'acme', '--scope', 'partner', '--json']);
    expect(issued.code).toBe(0);
    const key = JSON.parse(issued.stdout) as {
      key: string;
      prefix: string;
      tenant_id: string;
      tier: string;
      scopes: string[];
    };
    expect(key).toMatchObject({ tenant_id: 'acme', tier: 'pro', scopes: ['partner'] });
    expect(key.key).toMatch(/^svc_pro_[A-Za-z0-9_-]{32}$/);
    expect(key.key.startsWith(key.prefix)).toBe(true);
    const listed = evroom(home, ['apikeys', 'list', '--json']);
    expect(listed.stdout).toContain(key.prefix);
    expect(listed.stdout).not.toContain(key.key);
    // The key is stored as its hash only: the ledger file never holds it.
    expect(fs.readFileSync(path.join(home, 'ledger.sqlite')).includes(Buffer.from(key.key))).toBe(false);
    expect(evroom(home, ['apikeys', 'issue', '--tenant', 'nobody']).stderr).toContain('There is no tenant nobody');
    // Listing the keys of a tenant that does not exist says so, as the app API does (one operation).
    const unknown = evroom(home, ['apikeys', 'list', '--tenant', 'nobody']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('There is no tenant nobody');
    expect(evroom(home, ['apikeys', 'issue', '--tenant', 'acme', '--scope', 'root']).code).toBe(2);
    expect(evroom(home, ['apikeys', 'revoke', key.prefix]).code).toBe(0);
    expect(evroom(home, ['apikeys', 'list']).stdout).toMatch(/revoked/);
    expect(evroom(home, ['apikeys', 'revoke', 'svc_pro_nothere0']).code).toBe(2);
    expect(evroom(home, ['tenants', '--help']).code).toBe(0);
  });

  it.each([
    ['ledger-cache', 1, 4096, ['0', '4097', '8.5', 'lots']],
    ['verify-threads', 0, 64, ['65', '-1', '1.5', 'many']],
  ] as const)('refuses --%s out of range before opening anything', (option, min, max, values) => {
    for (const value of values) {
      const refused = evroom(path.join(directory, 'untouched'), ['serve', '--port', '0', `--${option}`, value]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `serve: --${option} must be a whole number from ${min} to ${max}, not '${value}'`,
      );
    }
    expect(fs.existsSync(path.join(directory, 'untouched'))).toBe(false);
  });

  it('serves on 127.0.0.1, prints its address first, writes tenant evidence, and stops cleanly on SIGTERM', async () => {
    expect(evroom(home, ['tenants', 'create', 'served', '--tier', 'scale']).code).toBe(0);
    const { key } = JSON.parse(evroom(home, ['apikeys', 'issue', '--tenant', 'served', '--json']).stdout) as {
      key: string;
    };
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
      env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /^Evidence Room service at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      child.on('exit', () => reject(new Error(`serve exited: ${stderr}`)));
    });
    try {
      const keys = await fetch(`${url}/v1/keys`);
      expect(keys.status).toBe(200);
      const verify = await fetch(`${url}/v1/receipt/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer svc_pro_secretvalue' },
        body: '{}',
      });
      expect(verify.status).toBe(200);
      // Tenant evidence is written on the export worker (the built one when the CLI runs from
      // its bundle): two receipts issued, a zip holding both that imports clean elsewhere.
      const auth = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
      for (const input of ['one', 'two']) {
        const issued = await fetch(`${url}/tenants/served/receipts?profile=nano`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ agent_did: 'did:web:agent.example.com', input, content_type: 'text/plain' }),
        });
        expect(issued.status).toBe(201);
      }
      const evidence = await fetch(`${url}/tenants/served/evidence`, { headers: auth });
      expect(evidence.status).toBe(200);
      expect(evidence.headers.get('content-type')).toBe('application/zip');
      const zip = path.join(directory, 'served.zip');
      fs.writeFileSync(zip, Buffer.from(await evidence.arrayBuffer()));
      const imported = evroom(path.join(directory, 'elsewhere'), ['import', zip, '--json']);
      expect(imported.code).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({ clean: true, counts: { receipts: 2 } });
    } finally {
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
    expect(stderr).toContain('Stopped; the ledger is closed.');
    expect(stderr).toContain('"url":"/v1/keys"');
    // Request logs never carry keys.
    expect(stderr).not.toContain('svc_pro_secretvalue');
    expect(fs.statSync(path.join(home, 'service', 'signing-key.json')).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('rotates the service key and keeps the old one listed', () => {
    const rotated = evroom(home, ['service', 'keys', 'rotate', '--json']);
    expect(rotated.code).toBe(0);
    const { key_id, retired_key_id } = JSON.parse(rotated.stdout) as { key_id: string; retired_key_id: string };
    expect(key_id).not.toBe(retired_key_id);
    expect(evroom(home, ['service', 'keys']).code).toBe(2);
  });
});
