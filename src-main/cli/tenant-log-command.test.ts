import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode, hexEncode } from '../../src-shared/crypto';
import { NOTE_ED25519, parseCheckpoint, parseNote, verifyNote } from '../../src-shared/crypto/signed-note';
import { tlogVerifyInclusion } from '../../src-shared/crypto/tlog';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { readPrivateKeyFile } from '../core/private-key-file';
import { DEFAULT_ZIP_LIMITS } from '../evidence/limits';
import { openZipArchive } from '../evidence/zip-reader';
import { listTlogLeaves } from '../ledger';
import { createTenant } from '../operations/service-admin';
import { workspaceServiceStore } from '../operations/service-store';
import { issueProfile } from '../operations/service-issue';
import { loadServiceKeys } from '../operations/service-keys';
import { defaultLogName } from '../operations/service-log';
import { noteKeyId } from '../../src-shared/crypto/signed-note';
import { openWorkspace } from '../operations/workspace';

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const node = createNodeCryptoProvider();

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function zipFiles(file: string): Promise<Map<string, string>> {
  const archive = await openZipArchive(file, DEFAULT_ZIP_LIMITS);
  const files = new Map<string, string>();
  try {
    for (const entry of archive.entries)
      if (!entry.directory) files.set(entry.name, (await archive.read(entry)).toString('utf8'));
  } finally {
    await archive.close();
  }
  return files;
}

describe('evroom export --tenant over a service’s data folder', () => {
  let directory: string;
  let home: string;
  const rows: number[] = [];

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-tenant-log-cli-'));
    home = path.join(directory, 'home');
    const workspace = openWorkspace(home);
    try {
      await createTenant(workspaceServiceStore(workspace), 'acme', 'scale');
      const signer = loadServiceKeys(workspace).active;
      for (const [index, at] of ['2026-11-02T10:00:00Z', '2026-11-02T11:00:00Z', '2026-11-02T12:00:00Z'].entries()) {
        const issued = await issueProfile(
          workspace,
          signer,
          'nano',
          { agent_did: 'did:web:agent.example.com', input: `receipt ${index}`, content_type: 'text/plain' },
          { now: new Date(at), ref: 'tenant:acme' },
        );
        rows.push(issued.id);
      }
      signer.seed.fill(0);
      expect(listTlogLeaves(workspace.ledger.readable, 'acme', 0, 10).map((leaf) => leaf.receipt)).toEqual(rows);
    } finally {
      workspace.close();
    }
  });
  afterAll(() => {
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('writes the tenant’s evidence for the period with the log’s checkpoint and proofs', async () => {
    const out = path.join(directory, 'acme.zip');
    const result = evroom(home, [
      'export',
      '--tenant',
      'acme',
      '--since',
      '2026-11-02T11:00:00Z',
      '--until',
      '2026-11-02T12:00:00Z',
      '--out',
      out,
      '--json',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ receipts: 1, tenant_id: 'acme', log_tree_size: 3 });
    const files = await zipFiles(out);
    const note = parseNote(String(files.get('log/checkpoint.txt')));
    // Signed by the data folder's log key, under the default name.
    const { key } = readPrivateKeyFile(path.join(home, 'service', 'log-key.json'), node);
    const name = defaultLogName(node.sha256, key.public_key);
    const verifier = {
      name,
      type: NOTE_ED25519,
      publicKey: key.public_key,
      keyId: noteKeyId(node.sha256, name, NOTE_ED25519, key.public_key),
    };
    expect(verifyNote(node, note, [verifier]).map((entry) => entry.status)).toEqual(['valid']);
    const checkpoint = parseCheckpoint(note.text);
    expect(checkpoint).toMatchObject({ origin: `${name}/tenants/acme`, size: 3 });
    const proofs = JSON.parse(String(files.get('log/proofs.json'))) as {
      first_index: number;
      last_index: number;
      leaves: { index: number; inclusion: string[] }[];
      before: { index: number };
      after: { index: number };
      root: string;
    };
    expect(proofs).toMatchObject({ first_index: 1, last_index: 1, before: { index: 0 }, after: { index: 2 } });
    expect(proofs.root).toBe(hexEncode(checkpoint.rootHash));
    const [receiptName] = [...files.keys()].filter((file) => file.startsWith('receipts/'));
    const leaf = new Uint8Array([0, ...Buffer.from(String(files.get(String(receiptName))), 'utf8')]);
    const [carried] = proofs.leaves;
    expect(
      tlogVerifyInclusion(
        node.sha256,
        node.sha256(leaf),
        1,
        3,
        (carried?.inclusion ?? []).map(hexDecode),
        checkpoint.rootHash,
      ),
    ).toBe(true);
  });

  it('refuses a period without a served tenant, and filters with one', () => {
    const out = path.join(directory, 'refused.zip');
    const noTenant = evroom(home, ['export', '--since', '2026-11-02T11:00:00Z', '--out', out]);
    expect(noTenant.code).toBe(2);
    expect(noTenant.stderr).toMatch(/--since and --until export a served tenant's evidence/);
    const unknown = evroom(home, ['export', '--tenant', 'nobody', '--until', '2026-11-02T11:00:00Z', '--out', out]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/has no tenant "nobody"/);
    const filtered = evroom(home, ['export', '--tenant', 'acme', '--status', 'PASS', '--out', out]);
    expect(filtered.code).toBe(2);
    expect(filtered.stderr).toMatch(/the filters do not apply/);
    const backwards = evroom(home, [
      'export',
      '--tenant',
      'acme',
      '--since',
      '2026-11-02T12:00:00Z',
      '--until',
      '2026-11-02T11:00:00Z',
      '--out',
      out,
    ]);
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toMatch(/--until must be after --since/);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('refuses a log name or a checkpoint interval evroom serve cannot use', () => {
    for (const [args, message] of [
      [['--log-name', 'https://logs.example.com/x'], /--log-name must be a schema-less URL/],
      [['--log-name', 'logs.example.com/a+b'], /--log-name must be/],
      [['--log-name', 'logs.example.com/'], /--log-name must be/],
      [['--log-checkpoint-ms', '0'], /--log-checkpoint-ms must be a whole number from 1 to 60000/],
      [['--log-checkpoint-ms', 'soon'], /--log-checkpoint-ms must be/],
    ] as const) {
      const result = evroom(home, ['serve', '--no-anchor', '--port', '0', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const help = evroom(home, ['serve', '--help']);
    expect(help.stdout).toMatch(/--log-name NAME/);
    expect(help.stdout).toMatch(/--log-checkpoint-ms MS/);
  });
});
