import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeKeyFile } from '../../src-shared/verify/key-file';
import { buildSamples, SAMPLES_NOW } from '../operations/samples';
import { loadServiceKeys } from '../operations/service-keys';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { buildService, type Service } from './service';

// The verify route answers the same, byte for byte, whether its requests are verified on the
// HTTP thread or on a worker thread (`verifyThreads`): two services over one real ledger, real
// HTTP on 127.0.0.1, every sample of every format, with and without its keys, and bad bodies.

describe('the verify route on worker threads', () => {
  let directory: string;
  let workspace: Workspace;
  const services: { service: Service; base: string }[] = [];
  const samples = buildSamples();
  const keyFile = JSON.parse(serializeKeyFile(samples.keys)) as unknown;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-verify-pool-'));
    workspace = openWorkspace(path.join(directory, 'home'));
    const keys = loadServiceKeys(workspace);
    const now = new Date(SAMPLES_NOW);
    for (const verifyThreads of [0, 2]) {
      const service = await buildService({ workspace, signer: { key_id: keys.active.key_id, seed: keys.active.seed, public_key: keys.active.public_key, listed: keys.listed }, now: () => now, verifyThreads });
      services.push({ service, base: await service.app.listen({ host: '127.0.0.1', port: 0 }) });
    }
  });
  afterAll(async () => {
    for (const { service } of services) await service.close();
    workspace.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  async function both(body: string): Promise<{ status: number; type: string | null; text: string }[]> {
    return Promise.all(
      services.map(async ({ base }) => {
        const response = await fetch(`${base}/v1/receipt/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
      }),
    );
  }

  it('starts worker threads only when asked', () => {
    expect(services.map(({ service }) => service.verifyThreads)).toEqual([0, 2]);
  });

  it('answers every sample alike, alone and with its keys', async () => {
    expect(samples.files.length).toBeGreaterThan(20);
    const statuses = new Set<string>();
    for (const sample of samples.files) {
      for (const body of [sample.text, `{"document": ${sample.text.trim() === '' ? 'null' : sample.text}, "keys": ${JSON.stringify(keyFile)}}`]) {
        const [here, worker] = await both(body);
        expect(worker, sample.file).toEqual(here);
        if (here?.status === 200) statuses.add((JSON.parse(here.text) as { status: string }).status);
      }
    }
    // The samples reach every status, so both paths were compared on each.
    expect([...statuses].sort()).toEqual(expect.arrayContaining(['INVALID', 'MALFORMED', 'MISMATCH', 'PASS']));
  });

  it('answers bad bodies and refused keys alike', async () => {
    const sample = samples.files.find((file) => file.expected_status === 'PASS')?.text ?? '{}';
    const bodies = [
      'not json',
      '{"a": 1, "a": 2}',
      '[]',
      `{"document": ${sample}, "keys": {"keys": 5}}`,
      `{"document": ${sample}, "keys": {"keys": [{"key_id": "did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK", "algorithm": "Ed25519", "public_key": "${'A'.repeat(43)}"}]}}`,
      `{"document": ${sample}, "extra": 1}`,
      `{"document": ${sample}}`,
    ];
    const statuses: number[] = [];
    for (const body of bodies) {
      const [here, worker] = await both(body);
      expect(worker, body.slice(0, 60)).toEqual(here);
      statuses.push(here?.status ?? 0);
    }
    expect(statuses).toContain(400);
    expect(statuses).toContain(200);
  });
});
