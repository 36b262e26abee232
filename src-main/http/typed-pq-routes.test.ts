import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64Decode, b64uEncode } from '../../src-shared/crypto';
import { loadServiceKeys } from '../operations/service-keys';
import { pinKey } from '../operations/trust';
import type { ServiceStore } from '../operations/service-store';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { stopTestStores, testServiceStore } from '../test-support/service-store';
import { buildService, type Service } from './service';

// The typed alias POST /verify over real HTTP on 127.0.0.1, with the real producer's documents
// (test-vectors/typed-pq): the request the typed signer's own /verify takes, a pinned key, and
// what it refuses. Every corpus case goes through both verify routes in verify-corpus.test.ts.
const dir = fileURLToPath(new URL('../../test-vectors/typed-pq/', import.meta.url));
const read = (file: string): string => fs.readFileSync(dir + file, 'utf8');

describe.each([0, 1])('typed-pq over the verify routes (verify threads: %i)', (verifyThreads) => {
  let directory: string;
  let workspace: Workspace;
  let store: ServiceStore;
  let service: Service;
  let base: string;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-typed-pq-routes-'));
    workspace = openWorkspace(path.join(directory, 'home'));
    store = await testServiceStore(workspace);
    const keys = loadServiceKeys(workspace);
    service = await buildService({
      workspace,
      store,
      signer: {
        key_id: keys.active.key_id,
        seed: keys.active.seed,
        public_key: keys.active.public_key,
        listed: keys.listed,
      },
      verifyThreads,
    });
    base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await service.close();
    await store?.close();
    workspace.close();
    await stopTestStores();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  async function post(route: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${base}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  it("takes the typed signer's own verify request: {envelope, fragments} made of a sign answer's fragments_canon", async () => {
    const answer = JSON.parse(read('merkle-sign-answer-valid.json')) as { envelope: unknown; fragments_canon: unknown };
    const request = JSON.stringify({ envelope: answer.envelope, fragments: answer.fragments_canon });
    expect((await post('/verify', request)).json).toMatchObject({ format: 'typed-pq', status: 'PASS' });
    const canon = JSON.stringify({ envelope: answer.envelope, fragments_canon: answer.fragments_canon });
    expect((await post('/verify', canon)).json).toMatchObject({ format: 'typed-pq', status: 'PASS' });
    // A document wrapped with keys is the general route's request.
    const wrapped = await post('/v1/receipt/verify', JSON.stringify({ document: JSON.parse(request) }));
    expect(wrapped.json).toMatchObject({ format: 'typed-pq', status: 'PASS' });
  });

  it('a pinned key with the inline key bytes makes the answer trusted', async () => {
    const document = read('linear-valid.json');
    const publicKey = b64Decode((JSON.parse(document) as { envelope: { public_key: string } }).envelope.public_key);
    pinKey(workspace, { key_id: 'did:hive:typed-demo', algorithm: 'ML-DSA-65', public_key: publicKey });
    for (const route of ['/v1/receipt/verify', '/verify']) {
      expect((await post(route, document)).json, route).toMatchObject({
        status: 'PASS',
        trust: { status: 'trusted', key_id: 'did:hive:typed-demo' },
      });
    }
    expect(b64uEncode(publicKey)).toBe(
      (JSON.parse(read('keys.json')) as { keys: { public_key: string }[] }).keys[0]?.public_key,
    );
  });

  it('POST /verify refuses another kind of document as MALFORMED wrong_route, and bad JSON as MALFORMED', async () => {
    const other = await post('/verify', JSON.stringify({ envelope: { note: 'not an attestation' }, fragments: [] }));
    expect(other.status).toBe(200);
    expect(other.json).toMatchObject({ format: 'typed-pq', status: 'MALFORMED', errors: [{ code: 'wrong_route' }] });
    const broken = await post('/verify', '{"envelope":');
    expect(broken.json).toMatchObject({ status: 'MALFORMED' });
  });
});
