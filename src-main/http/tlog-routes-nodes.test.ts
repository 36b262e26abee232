import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode, utf8Encode } from '../../src-shared/crypto';
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
import { createTenant, issueApiKey } from '../operations/service-admin';
import { loadServiceKeys } from '../operations/service-keys';
import { openServiceStore, type ServiceStore } from '../operations/service-store';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres';
import { buildService, type Service } from './service';

// Two service nodes on one PostgreSQL database (the same data folder's keys, a store each): a
// tenant's receipts issued through both land in one log, and either node serves its checkpoint,
// proofs and cosignatures. Each node signs only what grew; no size is signed twice.

const node = createNodeCryptoProvider();
const sha256 = node.sha256;
const LOG_NAME = 'logs.example.com/evroom';
const EMIT = { agent_did: 'did:web:agent.example.com', input: 'Hello, nodes.', content_type: 'text/plain' };

interface Node {
  service: Service;
  store: ServiceStore;
  base: string;
}

async function call(base: string, method: string, route: string, key: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${route}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json: json as Record<string, unknown> };
}

describe('the log routes of two nodes on one PostgreSQL database', () => {
  let postgres: TestPostgres;
  let directory: string;
  let workspace: Workspace;
  let nodes: Node[];
  let key: string;

  beforeAll(async () => {
    postgres = await startTestPostgres();
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-tlog-nodes-'));
    workspace = openWorkspace(path.join(directory, 'home'));
    const keys = loadServiceKeys(workspace);
    const url = await postgres.createDatabase();
    nodes = [];
    for (let index = 0; index < 2; index += 1) {
      const store = await openServiceStore(workspace, url);
      const service = await buildService({
        workspace,
        store,
        signer: {
          key_id: keys.active.key_id,
          seed: keys.active.seed,
          public_key: keys.active.public_key,
          listed: keys.listed,
        },
        log: { name: LOG_NAME, checkpointMs: 60_000 },
      });
      nodes.push({ service, store, base: await service.app.listen({ host: '127.0.0.1', port: 0 }) });
    }
    const first = nodes[0] as Node;
    await createTenant(first.store, 'acme', 'scale');
    key = (await issueApiKey(first.store, 'acme')).key;
  });
  afterAll(async () => {
    for (const entry of nodes ?? []) {
      await entry.service.close();
      await entry.store.close();
    }
    workspace?.close();
    if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
    await postgres?.stop();
  });

  const at = (index: number): Node => nodes[index % 2] as Node;

  it('logs receipts issued through both, and either serves the checkpoint, proofs and cosignatures', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        call(at(index).base, 'POST', '/tenants/acme/receipts?profile=nano', key, EMIT),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 201));
    const leaves = answers.map((answer) => tlogLeafHash(sha256, utf8Encode(jcs(answer.json['receipt'] as JsonValue))));

    // Node 1 signs size 10; node 0 serves that same checkpoint (nothing grew since).
    const served = await call(at(1).base, 'GET', '/tenants/acme/log/checkpoint', key);
    expect(served.status, served.text).toBe(200);
    expect((await call(at(0).base, 'GET', '/tenants/acme/log/checkpoint', key)).text).toBe(served.text);
    const note = parseNote(served.text);
    const keys = (await call(at(0).base, 'GET', '/v1/keys', key)).json['keys'] as { use: string[]; vkey?: string }[];
    const vkey = keys.find((entry) => entry.use.includes('log-checkpoints'))?.vkey as string;
    expect(verifyNote(node, note, [parseVkey(sha256, vkey)]).map((entry) => entry.status)).toEqual(['valid']);
    const checkpoint = parseCheckpoint(note.text);
    expect(checkpoint.size).toBe(10);

    // Every receipt is proved, by either node, at its own index of the one log.
    const indices = new Set<number>();
    for (let index = 0; index < 10; index += 1) {
      const proof = await call(at(index + 1).base, 'GET', `/tenants/acme/log/proof?index=${index}&size=10`, key);
      expect(proof.status, proof.text).toBe(200);
      const hashes = (proof.json['hashes'] as string[]).map(hexDecode);
      const holders = leaves.flatMap((leaf, position) =>
        tlogVerifyInclusion(sha256, leaf, index, 10, hashes, checkpoint.rootHash) ? [position] : [],
      );
      expect(holders).toHaveLength(1);
      indices.add(holders[0] as number);
    }
    expect(indices.size).toBe(10);

    // A witness cosigns through node 0; node 1 serves the line with the checkpoint.
    const seed = sha256(utf8Encode('witness'));
    const name = 'witness.example/w';
    const line = signCosignatureLine(node, note.text, name, seed, 1_795_000_000);
    const cosigned = await call(at(0).base, 'POST', '/tenants/acme/log/cosignatures', key, {
      vkey: formatVkey(sha256, name, NOTE_COSIGNATURE_ED25519, node.ed25519PublicKey(seed)),
      checkpoint: formatNote(note.text, [...note.signatures.map((signature) => signature.line), line]),
    });
    expect(cosigned.status, cosigned.text).toBe(201);
    expect((await call(at(1).base, 'GET', '/tenants/acme/log/checkpoint', key)).text).toBe(`${served.text}${line}\n`);

    // More receipts through node 0, signed by node 1: consistent with size 10, by either node.
    for (let index = 0; index < 3; index += 1)
      expect((await call(at(0).base, 'POST', '/tenants/acme/receipts?profile=nano', key, EMIT)).status).toBe(201);
    const later = parseCheckpoint(
      parseNote((await call(at(1).base, 'GET', '/tenants/acme/log/checkpoint', key)).text).text,
    );
    expect(later.size).toBe(13);
    const consistency = await call(at(0).base, 'GET', '/tenants/acme/log/consistency?from=10&to=13', key);
    expect(consistency.status, consistency.text).toBe(200);
    expect(
      tlogVerifyConsistency(
        sha256,
        10,
        13,
        checkpoint.rootHash,
        later.rootHash,
        (consistency.json['hashes'] as string[]).map(hexDecode),
      ),
    ).toBe(true);
    // A size neither node signed is refused by both.
    for (const index of [0, 1])
      expect((await call(at(index).base, 'GET', '/tenants/acme/log/proof?index=0&size=11', key)).status).toBe(400);
  });
});
