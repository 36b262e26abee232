/**
 * Context packs of the anchors a PostgreSQL service made (issues 27 and 29; docs/anchoring.md,
 * "Air-gapped verification"), met as users meet them: `evroom serve --database URL` anchors a
 * tenant's receipts on a real anvil; an auditor's online workstation takes the tenant's evidence
 * bundle (GET /tenants/:id/evidence), imports it (its log checkpoint is then seen there) and runs
 * `evroom context export`; an air-gapped workstation imports the pack, which makes the tenant
 * log's checkpoint known there, and verifies the anchor from it.
 *
 * "Every anchor of the ledger" (export with no file) is the data folder's own ledger: the
 * service's anchors live in its database, so neither the serving node's data folder nor a
 * workstation that has not imported the bundle has any, and the refusal says where they are.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isResolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { hexEncode } from '../../src-shared/crypto/encoding';
import { jcs } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { startAnvil, type AnvilProcess } from '../anchor/anvil';
import { anchorAccount, ChainClient } from '../anchor/chain';
import { nodeSha256 } from '../anchor/test-support';
import { DEFAULT_ZIP_LIMITS } from '../evidence/limits';
import { openZipArchive } from '../evidence/zip-reader';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { EVROOM_BIN, startServeChild, stopServeChild, type ServedChild } from '../test-support/serve-child';

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [EVROOM_BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', EVROOM_DATABASE_URL: '' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

let postgres: TestPostgres;
let anvil: AnvilProcess;
let directory: string;
let served: ServedChild | undefined;
const file = (name: string): string => path.join(directory, name);

beforeAll(async () => {
  directory = mkdtempSync(path.join(tmpdir(), 'evroom-context-db-'));
  [postgres, anvil] = await Promise.all([startTestPostgres(), startAnvil()]);
}, 120_000);
afterAll(async () => {
  if (served !== undefined) await stopServeChild(served);
  await anvil?.stop();
  await postgres?.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe('context packs of a PostgreSQL service’s anchors', () => {
  it('are made from the tenant’s bundle, carry its log checkpoint, and verify air-gapped; with no file, the data folder’s ledger is meant', async () => {
    const url = await postgres.createDatabase();
    const key = `0x${randomBytes(32).toString('hex')}` as const;
    const chain = new ChainClient(anvil.rpcUrl);
    await chain.fundOnDevelopmentChain(anchorAccount(key).address);
    writeFileSync(file('chain.key'), `${key}\n`, { mode: 0o600 });
    const node = file('node');
    expect(evroom(node, ['tenants', 'create', 'acme', '--tier', 'scale', '--database', url]).code).toBe(0);
    const issued = evroom(node, ['apikeys', 'issue', '--tenant', 'acme', '--database', url, '--json']);
    expect(issued.code, issued.stderr).toBe(0);
    const apiKey = (JSON.parse(issued.stdout) as { key: string }).key;
    served = await startServeChild(node, [
      '--database',
      url,
      '--chain-rpc',
      anvil.rpcUrl,
      '--chain-name',
      'anvil-local',
      '--chain-key-file',
      file('chain.key'),
      '--anchor-interval',
      '0.3',
    ]);
    const pending: string[] = [];
    for (const n of [1, 2]) {
      const response = await fetch(`${served.url}/tenants/acme/receipts?profile=nano`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          agent_did: 'did:web:agent.example.com',
          input: `Hello ${n}.`,
          content_type: 'text/plain',
        }),
      });
      expect(response.status).toBe(201);
      pending.push(((await response.json()) as { anchor: { svc_anchor: string } }).anchor.svc_anchor);
    }
    for (const urn of pending) {
      for (let tries = 0; ; tries += 1) {
        const record = (await (await fetch(`${served.url}/v1/anchor/${urn}`)).json()) as { svc_anchor?: string };
        if (isResolvedAnchorUrn(record.svc_anchor)) break;
        if (tries > 300) throw new Error(`${urn} did not resolve`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const evidence = await fetch(`${served.url}/tenants/acme/evidence`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(evidence.status).toBe(200);
    writeFileSync(file('acme.zip'), new Uint8Array(await evidence.arrayBuffer()));
    await stopServeChild(served);
    served = undefined;

    // With no file: the serving node's data folder holds none of its database's anchors, nor
    // does a workstation that has not imported them; the refusal says where they are.
    const online = file('online');
    for (const home of [node, online]) {
      const none = evroom(home, ['context', 'export', '--out', file('none.zip'), '--rpc', anvil.rpcUrl]);
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('no resolved anchor record');
      expect(none.stderr).toContain('evroom export --tenant');
      expect(none.stderr).not.toMatch(/\n\s+at /);
    }

    // Online: the tenant's bundle imported (its checkpoint now seen here), then every anchor of the ledger.
    const imported = evroom(online, ['import', file('acme.zip')]);
    expect(imported.code, imported.stderr).toBe(0);
    const made = evroom(online, [
      'context',
      'export',
      '--quiet',
      '--json',
      '--out',
      file('pack.zip'),
      '--rpc',
      anvil.rpcUrl,
    ]);
    expect(made.code, made.stderr).toBe(0);
    const pack = JSON.parse(made.stdout) as { anchors: number; checkpoints: number; signer: string; rpc: string };
    expect(pack).toMatchObject({ checkpoints: 1, rpc: new URL(anvil.rpcUrl).origin });
    expect(pack.anchors).toBeGreaterThanOrEqual(1);
    // The bundle named directly gives the same anchors, from any data folder.
    const fromBundle = evroom(node, [
      'context',
      'export',
      '--quiet',
      '--json',
      '--out',
      file('b.zip'),
      '--rpc',
      anvil.rpcUrl,
      file('acme.zip'),
    ]);
    expect(fromBundle.code, fromBundle.stderr).toBe(0);
    expect(JSON.parse(fromBundle.stdout)).toMatchObject({ anchors: pack.anchors });

    // Air-gapped: the pack's checkpoint becomes known; the anchor verifies from the pack.
    const gapped = file('gapped');
    expect(JSON.parse(evroom(gapped, ['log', 'list', '--json']).stdout)).toEqual([]);
    const taken = evroom(gapped, ['context', 'import', '--json', file('pack.zip')]);
    expect(taken.code, taken.stderr).toBe(0);
    expect(JSON.parse(taken.stdout)).toMatchObject({ checkpoints: 1, signer: pack.signer });
    const logs = JSON.parse(evroom(gapped, ['log', 'list', '--json']).stdout) as {
      origin: string;
      latest: { tree_size: number; source: string };
    }[];
    expect(logs).toHaveLength(1);
    expect(logs[0]?.origin).toMatch(/\/tenants\/acme$/);
    expect(logs[0]?.latest).toMatchObject({ tree_size: 2, source: expect.stringMatching(/^context:ctx_/) });

    const bundle = file('bundle');
    mkdirSync(path.join(bundle, 'receipts'), { recursive: true });
    mkdirSync(path.join(bundle, 'anchors'), { recursive: true });
    const archive = await openZipArchive(file('acme.zip'), DEFAULT_ZIP_LIMITS);
    try {
      for (const entry of archive.entries)
        if (/^(?:receipts|anchors)\/[^/]+\.json$/.test(entry.name))
          writeFileSync(path.join(bundle, entry.name), await archive.read(entry));
    } finally {
      await archive.close();
    }
    const receipts = archive.entries.filter((entry) => entry.name.startsWith('receipts/'));
    expect(receipts).toHaveLength(2);
    // Each receipt with the anchors file of its batch (two receipts may fall in one batch or two).
    const batchOf = new Map<string, string>();
    for (const entry of archive.entries.filter((item) => item.name.startsWith('anchors/'))) {
      const parsed = JSON.parse(readFileSync(path.join(bundle, entry.name), 'utf8')) as {
        anchors: { receipt_sha256: string }[];
      };
      for (const anchor of parsed.anchors) batchOf.set(anchor.receipt_sha256, entry.name);
    }
    for (const receipt of receipts) {
      const bytes = readFileSync(path.join(bundle, receipt.name), 'utf8');
      const digest = hexEncode(nodeSha256(new TextEncoder().encode(jcs(JSON.parse(bytes) as JsonValue))));
      const anchorsFile = batchOf.get(digest);
      expect(anchorsFile, receipt.name).toBeDefined();
      const verified = evroom(gapped, [
        'anchor',
        'verify',
        path.join(bundle, receipt.name),
        path.join(bundle, anchorsFile as string),
        '--context',
        file('pack.zip'),
        '--json',
      ]);
      expect(verified.code, verified.stdout + verified.stderr).toBe(0);
      const result = JSON.parse(verified.stdout) as { anchor_status: string; steps: { evidence?: string }[] };
      expect(result.anchor_status).toBe('verified_with_context');
      expect(result.steps.map((step) => step.evidence ?? null)).toEqual([null, 'context', 'context']);
    }
  }, 180_000);
});
