import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, keyFingerprint } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { standardReceiptFile } from '../operations/import-test-support';
import { loadServiceKeys } from '../operations/service-keys';
import { pinKey } from '../operations/trust';
import type { ServiceStore } from '../operations/service-store';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { stopTestStores, testServiceStore } from '../test-support/service-store';
import { buildService, type Service } from './service';

// The verify routes' keys over real HTTP on 127.0.0.1, on a real ledger in a temporary folder:
// one key id names one key (PROTOCOL section 0), and pinned roles are applied.

const node = createNodeCryptoProvider();
const seedA = new Uint8Array(32).fill(81);
const seedB = new Uint8Array(32).fill(82);
const KEY_A = 'did:svc:acme:roles-a';
const LISTED = 'did:svc:evroom:listed';
const publicA = node.ed25519PublicKey(seedA);
const publicB = node.ed25519PublicKey(seedB);

describe.each([0, 1])('the verify routes and the keys sent with a document (verify threads: %i)', (verifyThreads) => {
  let directory: string;
  let workspace: Workspace;
  let store: ServiceStore;
  let service: Service;
  let base: string;
  let serviceKey: { key_id: string; public_key: Uint8Array };

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-verify-keys-'));
    workspace = openWorkspace(path.join(directory, 'home'));
    store = await testServiceStore(workspace);
    const keys = loadServiceKeys(workspace);
    // The service's own key ids are did:keys, which name their own key; a listed did:svc key
    // (as an operator could list) is what a sent key can contradict.
    serviceKey = { key_id: LISTED, public_key: publicA };
    const listed = [
      ...keys.listed,
      { key_id: LISTED, algorithm: 'Ed25519' as const, public_key: publicA, active: false },
    ];
    service = await buildService({
      workspace,
      store,
      signer: { key_id: keys.active.key_id, seed: keys.active.seed, public_key: keys.active.public_key, listed },
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

  async function verify(body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${base}/v1/receipt/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  const document = JSON.parse(signClassical({ sequence: 1 }, seedA, node)) as unknown;
  const keyFile = (keyId: string, publicKey: Uint8Array) => ({
    keys: [{ key_id: keyId, algorithm: 'Ed25519', public_key: b64uEncode(publicKey) }],
  });

  it('refuses keys that give a pinned key_id another key: 400, PROTOCOL 10 body, the pointer into keys', async () => {
    pinKey(workspace, { key_id: KEY_A, algorithm: 'Ed25519', public_key: publicA });
    const answer = await verify({ document, keys: keyFile(KEY_A, publicB) });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      error: {
        code: 'invalid_request',
        message: `keys: Key id "${KEY_A}" names different keys in the service's trust store and in the keys sent with the document; one key id must name one key.`,
        details: [
          { path: '/keys/keys/0/public_key', message: expect.stringContaining('one key id must name one key') },
        ],
      },
    });
    // The same key again is no conflict.
    const same = await verify({ document, keys: keyFile(KEY_A, publicA) });
    expect(same.status).toBe(200);
    expect(same.json.status).toBe('PASS');
  });

  it("refuses keys that give the service's own key_id another key", async () => {
    const answer = await verify({ document, keys: keyFile(serviceKey.key_id, publicB) });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining("in the service's own keys (/v1/keys) and in the keys sent with the document"),
      details: [{ path: '/keys/keys/0/public_key' }],
    });
    const same = await verify({ document, keys: keyFile(serviceKey.key_id, serviceKey.public_key) });
    expect(same.status).toBe(200);
  });

  it('judges a pinned key by the roles it is pinned for', async () => {
    const roleKey = 'did:svc:acme:roles-b';
    const signed = JSON.parse(signClassical({ sequence: 2 }, seedB, node)) as unknown;
    pinKey(workspace, { key_id: roleKey, algorithm: 'Ed25519', public_key: publicB, roles: ['requester'] });
    const answer = await verify(signed);
    expect(answer.status).toBe(200);
    expect(answer.json.status).toBe('PASS');
    expect(answer.json.trust).toMatchObject({
      status: 'unpinned',
      detail: expect.stringContaining(`pinned for requester only`),
    });
  });
  it('answers unattributed, never trusted, for a tampered document naming a pinned key (PROTOCOL 1)', async () => {
    const pinnedKey = 'did:svc:acme:pinned-c';
    const seedC = new Uint8Array(32).fill(83);
    const text = signClassical({ sequence: 3, amount: '12.00' }, seedC, node);
    pinKey(workspace, { key_id: pinnedKey, algorithm: 'Ed25519', public_key: node.ed25519PublicKey(seedC) });
    expect((await verify(JSON.parse(text) as unknown)).json.trust).toMatchObject({ status: 'trusted' });
    const tampered = JSON.parse(text.replace('"amount":"12.00"', '"amount":"99.00"')) as unknown;
    const answer = await verify(tampered);
    expect(answer.status).toBe(200);
    expect(answer.json.status).toBe('MISMATCH');
    expect(answer.json.trust).toEqual({
      status: 'unattributed',
      claimed_key_id: pinnedKey,
      // The claimed key's fingerprint, to read aloud to the sender (docs/protocol.md).
      key_fingerprint: keyFingerprint(node.ed25519PublicKey(seedC)),
      detail: `The document names ${pinnedKey}, but that key did not sign what is here.`,
    });
  });

  it('takes keys named by any DID method or opaque ids, and one key as the typed signer answers /pubkey', async () => {
    const opaque = standardReceiptFile(1, seedB, 'test-key-001', node);
    const sent = JSON.parse(new TextDecoder().decode(opaque.bytes)) as unknown;
    const asFile = await verify({ document: sent, keys: keyFile('test-key-001', publicB) });
    expect(asFile.status).toBe(200);
    expect(asFile.json).toMatchObject({ status: 'PASS', trust: { status: 'unpinned', key_id: 'test-key-001' } });
    const answer = {
      issuer: 'test-key-001',
      algorithm: 'ed25519',
      publicKey_b64: Buffer.from(publicB).toString('base64'),
    };
    const asAnswer = await verify({ document: sent, keys: answer });
    expect(asAnswer.status).toBe(200);
    expect(asAnswer.json).toMatchObject({ status: 'PASS', trust: { key_id: 'test-key-001' } });
    const spaced = await verify({ document: sent, keys: keyFile('test key-001', publicB) });
    expect(spaced.status).toBe(400);
    expect(JSON.stringify(spaced.json)).toContain('must not contain spaces (character 5 is a space)');
  });
});
