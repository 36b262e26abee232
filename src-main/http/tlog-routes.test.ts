import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode, hexDecode, hexEncode, utf8Encode } from '../../src-shared/crypto';
import {
  formatNote,
  formatVkey,
  NOTE_COSIGNATURE_ED25519,
  parseCheckpoint,
  parseNote,
  parseVkey,
  signCosignatureLine,
  verifyNote,
} from '../../src-shared/crypto/signed-note';
import { tlogLeafHash, tlogVerifyConsistency, tlogVerifyInclusion } from '../../src-shared/crypto/tlog';
import { jcs } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { DEFAULT_ZIP_LIMITS } from '../evidence/limits';
import { openZipArchive } from '../evidence/zip-reader';
import { listTlogCheckpoints, listTlogLeaves, tlogSize } from '../ledger';
import { createTenant, issueApiKey } from '../operations/service-admin';
import { workspaceServiceStore } from '../operations/service-store';
import { loadServiceKeys } from '../operations/service-keys';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { buildService, type Service, type ServiceOptions } from './service';

const node = createNodeCryptoProvider();
const sha256 = node.sha256;
const EMIT = { agent_did: 'did:web:agent.example.com', input: 'Hello, log.', content_type: 'text/plain' };
const LOG_NAME = 'logs.example.com/evroom';

interface Running {
  service: Service;
  base: string;
  workspace: Workspace;
  close(): Promise<void>;
}

/** A clock the tests move: each receipt is issued at the instant it says. */
const clock = { at: Date.parse('2026-11-02T10:00:00Z') };

async function start(home: string, options: Partial<ServiceOptions> = {}): Promise<Running> {
  const workspace = openWorkspace(home);
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
    log: { name: LOG_NAME, checkpointMs: 60_000 },
    ...options,
  });
  const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    service,
    base,
    workspace,
    close: async () => {
      await service.close();
      workspace.close();
    },
  };
}

async function call(base: string, method: string, route: string, options: { key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${route}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json: json as Record<string, unknown>, text };
}

async function issue(base: string, tenant: string, key: string, at: string): Promise<JsonValue> {
  clock.at = Date.parse(at);
  const answer = await call(base, 'POST', `/tenants/${tenant}/receipts?profile=nano`, { key, body: EMIT });
  expect(answer.status, answer.text).toBe(201);
  return answer.json['receipt'] as JsonValue;
}

function leafOf(document: JsonValue): Uint8Array {
  return tlogLeafHash(sha256, utf8Encode(jcs(document)));
}

async function vkeyOf(base: string): Promise<string> {
  const keys = (await call(base, 'GET', '/v1/keys')).json['keys'] as { use: string[]; vkey?: string }[];
  const entry = keys.find((key) => key.use.includes('log-checkpoints'));
  if (entry?.vkey === undefined) throw new Error('no log key listed');
  return entry.vkey;
}

/** The served checkpoint, its note signature checked with the vkey /v1/keys lists. */
async function checkpointOf(base: string, tenant: string, key: string) {
  const answer = await call(base, 'GET', `/tenants/${tenant}/log/checkpoint`, { key });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  const note = parseNote(answer.text);
  const verifier = parseVkey(sha256, await vkeyOf(base));
  expect(verifyNote(node, note, [verifier]).map((entry) => entry.status)).toEqual(['valid']);
  return { text: answer.text, note, checkpoint: parseCheckpoint(note.text) };
}

async function bundleFiles(base: string, tenant: string, key: string, query: string, folder: string) {
  const response = await fetch(`${base}/tenants/${tenant}/evidence${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) return { status: response.status, body: bytes.toString('utf8'), files: new Map() };
  const file = path.join(folder, `bundle-${Math.random().toString(16).slice(2)}.zip`);
  fs.writeFileSync(file, bytes);
  const archive = await openZipArchive(file, DEFAULT_ZIP_LIMITS);
  const files = new Map<string, string>();
  try {
    for (const entry of archive.entries)
      if (!entry.directory) files.set(entry.name, (await archive.read(entry)).toString('utf8'));
  } finally {
    await archive.close();
  }
  return { status: 200, body: '', files };
}

interface Proofs {
  format: string;
  origin: string;
  key_name: string;
  tree_size: number;
  root: string;
  period: { since: string | null; until: string | null };
  first_index: number | null;
  last_index: number | null;
  leaves: { index: number; receipt_sha256: string; inclusion: string[] }[];
  before: { index: number; receipt: JsonValue; inclusion: string[] } | null;
  after: { index: number; receipt: JsonValue; inclusion: string[] } | null;
  consistency?: { from_size: number; from_root: string; proof: string[] }[];
}

describe('the tenants’ transparency logs', () => {
  let directory: string;
  let running: Running;
  let acmeKey: string;
  let globexKey: string;
  let freeKey: string;
  /** acme's receipts, in the order they were issued. */
  const issued: JsonValue[] = [];

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-tlog-'));
    running = await start(path.join(directory, 'home'), { freePerDay: 2 });
    await createTenant(workspaceServiceStore(running.workspace), 'acme', 'scale');
    await createTenant(workspaceServiceStore(running.workspace), 'globex', 'scale');
    await createTenant(workspaceServiceStore(running.workspace), 'hooli', 'free');
    acmeKey = (await issueApiKey(workspaceServiceStore(running.workspace), 'acme')).key;
    globexKey = (await issueApiKey(workspaceServiceStore(running.workspace), 'globex')).key;
    freeKey = (await issueApiKey(workspaceServiceStore(running.workspace), 'hooli')).key;
  });
  afterAll(async () => {
    await running.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('appends each tenant receipt to its tenant’s log, in issuing order, in the transaction that stores it', async () => {
    const times = ['2026-11-02T10:00:01Z', '2026-11-02T10:00:02Z', '2026-11-02T10:00:03Z'];
    for (const at of times) issued.push(await issue(running.base, 'acme', acmeKey, at));
    const leaves = listTlogLeaves(running.workspace.ledger.readable, 'acme', 0, 10);
    expect(leaves.map((leaf) => leaf.leaf_index)).toEqual([0, 1, 2]);
    expect(leaves.map((leaf) => hexEncode(leaf.leaf_hash))).toEqual(
      issued.map((document) => hexEncode(leafOf(document))),
    );
    expect(leaves.map((leaf) => leaf.issued_at)).toEqual(times.map((at) => Date.parse(at)));
    // Another tenant's receipts and public receipts are not in acme's log.
    await issue(running.base, 'globex', globexKey, '2026-11-02T10:00:04Z');
    const free = await call(running.base, 'POST', '/v1/receipt/free', {
      body: { input: 'free text', purpose: 'a test' },
    });
    expect(free.status, free.text).toBe(201);
    expect(tlogSize(running.workspace.ledger.readable, 'acme')).toBe(3);
    expect(tlogSize(running.workspace.ledger.readable, 'globex')).toBe(1);
  });

  it('appends nothing for a receipt its quota refuses', async () => {
    await issue(running.base, 'hooli', freeKey, '2026-11-02T10:00:05Z');
    await issue(running.base, 'hooli', freeKey, '2026-11-02T10:00:06Z');
    const refused = await call(running.base, 'POST', '/tenants/hooli/receipts?profile=nano', {
      key: freeKey,
      body: EMIT,
    });
    expect(refused.status).toBe(429);
    expect(tlogSize(running.workspace.ledger.readable, 'hooli')).toBe(2);
  });

  it('serves a checkpoint signed by the key /v1/keys lists, covering every receipt issued before it', async () => {
    const { checkpoint, note } = await checkpointOf(running.base, 'acme', acmeKey);
    expect(checkpoint.origin).toBe(`${LOG_NAME}/tenants/acme`);
    expect(checkpoint.size).toBe(3);
    expect(note.signatures.map((signature) => signature.name)).toEqual([LOG_NAME]);
    const keys = (await call(running.base, 'GET', '/v1/keys')).json['keys'] as Record<string, unknown>[];
    const entry = keys.find((key) => (key['use'] as string[]).includes('log-checkpoints'));
    expect(entry).toMatchObject({ algorithm: 'Ed25519', status: 'active', note_key_name: LOG_NAME });
    const vkey = parseVkey(sha256, String(entry?.['vkey']));
    expect(hexEncode(vkey.publicKey)).toBe(hexEncode(b64uDecode(String(entry?.['public_key']))));
    expect(String(entry?.['vkey']).startsWith(`${LOG_NAME}+`)).toBe(true);
    // The log key's file: its own, mode 0600.
    const mode = fs.statSync(path.join(directory, 'home', 'service', 'log-key.json')).mode & 0o777;
    if (process.platform !== 'win32') expect(mode).toBe(0o600);
    // Another tenant's key: 403; no key: 401.
    expect((await call(running.base, 'GET', '/tenants/acme/log/checkpoint', { key: globexKey })).status).toBe(403);
    expect((await call(running.base, 'GET', '/tenants/acme/log/checkpoint')).status).toBe(401);
  });

  it('answers inclusion proofs that verify against the served checkpoint', async () => {
    const { checkpoint } = await checkpointOf(running.base, 'acme', acmeKey);
    for (const [index, document] of issued.entries()) {
      const answer = await call(running.base, 'GET', `/tenants/acme/log/proof?index=${index}&size=${checkpoint.size}`, {
        key: acmeKey,
      });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json).toMatchObject({ index, size: checkpoint.size });
      const proof = (answer.json['hashes'] as string[]).map(hexDecode);
      expect(tlogVerifyInclusion(sha256, leafOf(document), index, checkpoint.size, proof, checkpoint.rootHash)).toBe(
        true,
      );
      // The proof of another leaf's hash does not verify.
      const other = issued[(index + 1) % issued.length] as JsonValue;
      expect(tlogVerifyInclusion(sha256, leafOf(other), index, checkpoint.size, proof, checkpoint.rootHash)).toBe(
        false,
      );
    }
  });

  it('refuses a size never signed, an index beyond the size, another tenant’s key, and an empty log', async () => {
    const unsigned = await call(running.base, 'GET', '/tenants/acme/log/proof?index=0&size=2', { key: acmeKey });
    expect(unsigned.status).toBe(400);
    expect(unsigned.json['error']).toMatchObject({ code: 'invalid_request', details: [{ path: '?size' }] });
    expect(String((unsigned.json['error'] as { message: string }).message)).toMatch(/2 is not a size this log signed/);
    const beyond = await call(running.base, 'GET', '/tenants/acme/log/proof?index=3&size=3', { key: acmeKey });
    expect(beyond.status).toBe(400);
    expect(beyond.json['error']).toMatchObject({ details: [{ path: '?index' }] });
    const malformed = await call(running.base, 'GET', '/tenants/acme/log/proof?index=-1&size=3', { key: acmeKey });
    expect(malformed.status).toBe(400);
    const missing = await call(running.base, 'GET', '/tenants/acme/log/proof?index=0', { key: acmeKey });
    expect(missing.status).toBe(400);
    const foreign = await call(running.base, 'GET', '/tenants/acme/log/proof?index=0&size=3', { key: globexKey });
    expect(foreign.status).toBe(403);
    await createTenant(workspaceServiceStore(running.workspace), 'initech', 'scale');
    const initechKey = (await issueApiKey(workspaceServiceStore(running.workspace), 'initech')).key;
    const empty = await call(running.base, 'GET', '/tenants/initech/log/proof?index=0&size=1', { key: initechKey });
    expect(empty.status).toBe(404);
    expect(empty.json['error']).toMatchObject({ code: 'not_found' });
    // An empty log's checkpoint: size 0, the root of the empty tree.
    const { checkpoint } = await checkpointOf(running.base, 'initech', initechKey);
    expect(checkpoint.size).toBe(0);
    expect(hexEncode(checkpoint.rootHash)).toBe(hexEncode(sha256(new Uint8Array(0))));
  });

  it('answers consistency proofs between two served sizes', async () => {
    const first = await checkpointOf(running.base, 'acme', acmeKey);
    issued.push(await issue(running.base, 'acme', acmeKey, '2026-11-02T10:00:07Z'));
    issued.push(await issue(running.base, 'acme', acmeKey, '2026-11-02T10:00:08Z'));
    const second = await checkpointOf(running.base, 'acme', acmeKey);
    expect(second.checkpoint.size).toBe(first.checkpoint.size + 2);
    const answer = await call(
      running.base,
      'GET',
      `/tenants/acme/log/consistency?from=${first.checkpoint.size}&to=${second.checkpoint.size}`,
      { key: acmeKey },
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ from: first.checkpoint.size, to: second.checkpoint.size });
    const proof = (answer.json['hashes'] as string[]).map(hexDecode);
    const verify = (fromRoot: Uint8Array) =>
      tlogVerifyConsistency(
        sha256,
        first.checkpoint.size,
        second.checkpoint.size,
        fromRoot,
        second.checkpoint.rootHash,
        proof,
      );
    expect(verify(first.checkpoint.rootHash)).toBe(true);
    expect(verify(sha256(utf8Encode('another tree')))).toBe(false);
    const unsigned = await call(running.base, 'GET', '/tenants/acme/log/consistency?from=1&to=4', { key: acmeKey });
    expect(unsigned.status).toBe(400);
    expect(unsigned.json['error']).toMatchObject({ details: [{ path: '?to' }] });
    const backwards = await call(running.base, 'GET', `/tenants/acme/log/consistency?from=5&to=3`, { key: acmeKey });
    expect(backwards.status).toBe(400);
    expect(backwards.json['error']).toMatchObject({ details: [{ path: '?from' }] });
    expect(
      (await call(running.base, 'GET', '/tenants/acme/log/consistency?from=3&to=5', { key: globexKey })).status,
    ).toBe(403);
  });

  it('keeps witnesses’ cosignatures and serves them with the checkpoint', async () => {
    const { text, note } = await checkpointOf(running.base, 'acme', acmeKey);
    const witness = (n: number) => {
      const seed = sha256(utf8Encode(`witness ${n}`));
      const name = `witness${n}.example/w`;
      const vkey = formatVkey(sha256, name, NOTE_COSIGNATURE_ED25519, node.ed25519PublicKey(seed));
      const line = signCosignatureLine(node, note.text, name, seed, 1_795_000_000 + n);
      return { vkey, line, cosigned: formatNote(note.text, [...note.signatures.map((s) => s.line), line]) };
    };
    const first = witness(1);
    const accepted = await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
      key: acmeKey,
      body: { vkey: first.vkey, checkpoint: first.cosigned },
    });
    expect(accepted.status, accepted.text).toBe(201);
    expect(accepted.text).toBe(`${text}${first.line}\n`);
    expect((await call(running.base, 'GET', '/tenants/acme/log/checkpoint', { key: acmeKey })).text).toBe(
      accepted.text,
    );

    // A vkey that is not one, or not a cosignature key.
    const bad = await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
      key: acmeKey,
      body: { vkey: 'witness.example+00000000+AAAA', checkpoint: first.cosigned },
    });
    expect(bad.status).toBe(400);
    expect(bad.json['error']).toMatchObject({ details: [{ path: '/vkey' }] });
    const logVkey = await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
      key: acmeKey,
      body: { vkey: await vkeyOf(running.base), checkpoint: first.cosigned },
    });
    expect(logVkey.status).toBe(400);
    // A checkpoint text the service never signed (another root at the same size).
    const forged = note.text.replace(/\n[^\n]+\n$/, `\n${Buffer.from(sha256(utf8Encode('x'))).toString('base64')}\n`);
    const seed = sha256(utf8Encode('witness 2'));
    const line = signCosignatureLine(node, forged, 'witness2.example/w', seed, 1_795_000_002);
    const wrong = await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
      key: acmeKey,
      body: { vkey: witness(2).vkey, checkpoint: formatNote(forged, [line]) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json['error']).toMatchObject({ details: [{ path: '/checkpoint' }] });
    // Not a signed note at all; a checkpoint of another tenant's log.
    const garbled = await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
      key: acmeKey,
      body: { vkey: first.vkey, checkpoint: 'not\ta note' },
    });
    expect(garbled.status).toBe(400);
    expect(garbled.json['error']).toMatchObject({ details: [{ path: '/checkpoint' }] });
    const globexText = (await checkpointOf(running.base, 'globex', globexKey)).note.text;
    const foreignLine = signCosignatureLine(node, globexText, 'witness1.example/w', sha256(utf8Encode('witness 1')), 1);
    const foreign = await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
      key: acmeKey,
      body: { vkey: first.vkey, checkpoint: formatNote(globexText, [foreignLine]) },
    });
    expect(foreign.status).toBe(400);
    expect(String((foreign.json['error'] as { message: string }).message)).toMatch(/not of this log/);
    // A cosignature that does not verify with the vkey given.
    const mismatched = await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
      key: acmeKey,
      body: { vkey: witness(3).vkey, checkpoint: first.cosigned },
    });
    expect(mismatched.status).toBe(400);
    // Another tenant's key.
    expect(
      (
        await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
          key: globexKey,
          body: { vkey: first.vkey, checkpoint: first.cosigned },
        })
      ).status,
    ).toBe(403);

    // Sixteen keys at most; a key that cosigned may cosign again.
    for (let n = 2; n <= 16; n += 1) {
      const next = witness(n);
      const answer = await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
        key: acmeKey,
        body: { vkey: next.vkey, checkpoint: next.cosigned },
      });
      expect(answer.status, answer.text).toBe(201);
    }
    const seventeenth = witness(17);
    const full = await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
      key: acmeKey,
      body: { vkey: seventeenth.vkey, checkpoint: seventeenth.cosigned },
    });
    expect(full.status).toBe(409);
    expect(full.json['error']).toMatchObject({ code: 'cosignatures_full' });
    const again = await call(running.base, 'POST', '/tenants/acme/log/cosignatures', {
      key: acmeKey,
      body: { vkey: first.vkey, checkpoint: first.cosigned },
    });
    expect(again.status).toBe(201);
    expect(parseNote(again.text).signatures).toHaveLength(17);
  });

  it('carries the checkpoint and the period’s proofs in the evidence bundle', async () => {
    // acme's leaves: 0-2 at 10:00:01-03, 3-4 at 10:00:07-08.
    const { files } = await bundleFiles(
      running.base,
      'acme',
      acmeKey,
      '?since=2026-11-02T10:00:02Z&until=2026-11-02T10:00:08Z&consistent_with=3',
      directory,
    );
    const checkpointText = files.get('log/checkpoint.txt');
    const proofs = JSON.parse(String(files.get('log/proofs.json'))) as Proofs;
    const note = parseNote(String(checkpointText));
    const verifier = parseVkey(sha256, await vkeyOf(running.base));
    expect(verifyNote(node, note, [verifier]).map((entry) => entry.status)).toEqual(['valid']);
    const checkpoint = parseCheckpoint(note.text);
    expect(proofs).toMatchObject({
      format: 'evroom.log-evidence/1',
      origin: `${LOG_NAME}/tenants/acme`,
      key_name: LOG_NAME,
      tree_size: checkpoint.size,
      root: hexEncode(checkpoint.rootHash),
      period: { since: '2026-11-02T10:00:02Z', until: '2026-11-02T10:00:08Z' },
      first_index: 1,
      last_index: 3,
    });
    expect(proofs.leaves.map((leaf) => leaf.index)).toEqual([1, 2, 3]);
    for (const leaf of proofs.leaves) {
      const document = issued[leaf.index] as JsonValue;
      expect(leaf.receipt_sha256).toBe(hexEncode(sha256(utf8Encode(jcs(document)))));
      expect(
        tlogVerifyInclusion(
          sha256,
          leafOf(document),
          leaf.index,
          checkpoint.size,
          leaf.inclusion.map(hexDecode),
          checkpoint.rootHash,
        ),
      ).toBe(true);
    }
    for (const boundary of [proofs.before, proofs.after]) {
      if (boundary === null) throw new Error('a boundary is missing');
      expect(jcs(boundary.receipt)).toBe(jcs(issued[boundary.index] as JsonValue));
      expect(
        tlogVerifyInclusion(
          sha256,
          leafOf(boundary.receipt),
          boundary.index,
          checkpoint.size,
          boundary.inclusion.map(hexDecode),
          checkpoint.rootHash,
        ),
      ).toBe(true);
    }
    expect(proofs.before?.index).toBe(0);
    expect(proofs.after?.index).toBe(4);
    // The receipts of the bundle: exactly leaves 1-3, listed in the manifest with the log files.
    const receipts = [...files.keys()].filter((name) => name.startsWith('receipts/'));
    expect(receipts).toHaveLength(3);
    const manifest = JSON.parse(String(files.get('manifest.json'))) as { files: { path: string }[] };
    expect(manifest.files.map((file) => file.path)).toEqual(
      expect.arrayContaining(['log/checkpoint.txt', 'log/proofs.json']),
    );
    // consistent_with=3: a proof from the checkpoint at size 3.
    const [consistency] = proofs.consistency ?? [];
    expect(consistency?.from_size).toBe(3);
    expect(
      tlogVerifyConsistency(
        sha256,
        3,
        checkpoint.size,
        hexDecode(String(consistency?.from_root)),
        checkpoint.rootHash,
        (consistency?.proof ?? []).map(hexDecode),
      ),
    ).toBe(true);
    // The keys file lists the log key for checkpoints.
    const keysFile = JSON.parse(String(files.get('keys/service-keys.json'))) as { keys: Record<string, unknown>[] };
    expect(
      keysFile.keys.find((key) => (key['use'] as string[] | undefined)?.includes('log-checkpoints')),
    ).toMatchObject({
      note_key_name: LOG_NAME,
    });
  });

  it('gives open periods, the log’s ends and an empty period their boundaries', async () => {
    const all = JSON.parse(
      String((await bundleFiles(running.base, 'acme', acmeKey, '', directory)).files.get('log/proofs.json')),
    ) as Proofs;
    expect(all).toMatchObject({
      first_index: 0,
      last_index: 4,
      before: null,
      after: null,
      period: { since: null, until: null },
    });
    expect(all.leaves).toHaveLength(5);
    const since = JSON.parse(
      String(
        (await bundleFiles(running.base, 'acme', acmeKey, '?since=2026-11-02T10:00:03Z', directory)).files.get(
          'log/proofs.json',
        ),
      ),
    ) as Proofs;
    expect(since).toMatchObject({ first_index: 2, last_index: 4, after: null });
    expect(since.before?.index).toBe(1);
    const until = JSON.parse(
      String(
        (await bundleFiles(running.base, 'acme', acmeKey, '?until=2026-11-02T10:00:02Z', directory)).files.get(
          'log/proofs.json',
        ),
      ),
    ) as Proofs;
    expect(until).toMatchObject({ first_index: 0, last_index: 0, before: null });
    expect(until.after?.index).toBe(1);
    // No receipt between 10:00:04 and 10:00:07: the gap between leaves 2 and 4's neighbours.
    const gap = await bundleFiles(
      running.base,
      'acme',
      acmeKey,
      '?since=2026-11-02T10:00:04Z&until=2026-11-02T10:00:07Z',
      directory,
    );
    const empty = JSON.parse(String(gap.files.get('log/proofs.json'))) as Proofs;
    expect(empty).toMatchObject({ first_index: null, last_index: null, leaves: [] });
    expect([empty.before?.index, empty.after?.index]).toEqual([2, 3]);
    expect([...gap.files.keys()].filter((name) => name.startsWith('receipts/'))).toHaveLength(0);
    // After the log's end: the last leaf before, nothing after.
    const later = JSON.parse(
      String(
        (await bundleFiles(running.base, 'acme', acmeKey, '?since=2026-11-03T00:00:00Z', directory)).files.get(
          'log/proofs.json',
        ),
      ),
    ) as Proofs;
    expect(later).toMatchObject({ first_index: null, after: null });
    expect(later.before?.index).toBe(4);
  });

  it('refuses a period or consistent_with it cannot answer', async () => {
    const cases: [string, string][] = [
      ['?until=yesterday', '?until'],
      ['?since=2026-11-02T10:00:05Z&until=2026-11-02T10:00:05Z', '?until'],
      ['?consistent_with=2', '?consistent_with'],
      ['?consistent_with=0', '?consistent_with'],
      ['?consistent_with=3,3', '?consistent_with'],
      [`?consistent_with=${Array.from({ length: 17 }, (_, n) => n + 1).join(',')}`, '?consistent_with'],
    ];
    for (const [query, pointer] of cases) {
      const answer = await bundleFiles(running.base, 'acme', acmeKey, query, directory);
      expect(answer.status, query).toBe(400);
      expect((JSON.parse(answer.body) as { error: { details: { path: string }[] } }).error.details[0]?.path).toBe(
        pointer,
      );
    }
  });

  it('signs the logs that grew by its timer, without a request asking, and once more as it stops', async () => {
    const home = path.join(directory, 'timer');
    let service = await start(home, { log: { name: LOG_NAME, checkpointMs: 20 } });
    await createTenant(workspaceServiceStore(service.workspace), 'acme', 'scale');
    const key = (await issueApiKey(workspaceServiceStore(service.workspace), 'acme')).key;
    await issue(service.base, 'acme', key, '2026-11-02T12:00:00Z');
    const deadline = Date.now() + 5_000;
    while (listTlogCheckpoints(service.workspace.ledger.readable, 'acme').length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(listTlogCheckpoints(service.workspace.ledger.readable, 'acme').map((entry) => entry.tree_size)).toEqual([1]);
    await service.close();
    // A receipt stored after the last tick is signed as the service stops.
    service = await start(home, { log: { name: LOG_NAME, checkpointMs: 60_000 } });
    await issue(service.base, 'acme', key, '2026-11-02T12:00:01Z');
    await service.service.close();
    expect(listTlogCheckpoints(service.workspace.ledger.readable, 'acme').map((entry) => entry.tree_size)).toEqual([
      1, 2,
    ]);
    service.workspace.close();
  });

  it('never signs two roots for one size, across a restart', async () => {
    const home = path.join(directory, 'restart');
    let service = await start(home);
    await createTenant(workspaceServiceStore(service.workspace), 'acme', 'scale');
    const key = (await issueApiKey(workspaceServiceStore(service.workspace), 'acme')).key;
    await issue(service.base, 'acme', key, '2026-11-02T11:00:00Z');
    await issue(service.base, 'acme', key, '2026-11-02T11:00:01Z');
    const before = await checkpointOf(service.base, 'acme', key);
    const vkey = await vkeyOf(service.base);
    await service.close();
    service = await start(home);
    try {
      const after = await checkpointOf(service.base, 'acme', key);
      expect(after.text).toBe(before.text);
      await issue(service.base, 'acme', key, '2026-11-02T11:00:02Z');
      const grown = await checkpointOf(service.base, 'acme', key);
      expect(grown.checkpoint.size).toBe(3);
      const sizes = listTlogCheckpoints(service.workspace.ledger.readable, 'acme').map((entry) => entry.tree_size);
      expect(sizes).toEqual([2, 3]);
      // The log key survived the restart: the same vkey.
      expect(await vkeyOf(service.base)).toBe(vkey);
    } finally {
      await service.close();
    }
  });
});
