import fs from 'node:fs';
import { Writable } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeKeyFile } from '../../src-shared/verify/key-file';
import { buildSamples, SAMPLES_NOW } from '../operations/samples';
import { createHash } from 'node:crypto';
import { jcs } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { getReceipt } from '../ledger';
import { toVerifiedReceipt, verifyReceiptBytes } from '../core/receipt-facts';
import { createTenant, issueApiKey } from '../operations/service-admin';
import { loadServiceKeys } from '../operations/service-keys';
import { pinKey, unpinKey } from '../operations/trust';
import { openWorkspace, workspaceVerifyContext, type Workspace } from '../operations/workspace';
import { HTTP_THREAD_SHARE_PER_WORKER } from './routes/verify';
import { buildService, type Service } from './service';

// The verify route answers the same, byte for byte, whether its requests are verified on the
// HTTP thread or on a worker thread (`verifyThreads`): two services over one real ledger, real
// HTTP on 127.0.0.1, every sample of every format, with and without its keys, and bad bodies.
// The check of what the service issues runs on the same workers and stores the same reports.

describe('the verify route on worker threads', () => {
  let directory: string;
  let workspace: Workspace;
  const services: { service: Service; base: string }[] = [];
  const samples = buildSamples();
  let signer: { key_id: string; public_key: Uint8Array };
  let apiKey: string;
  const keyFile = JSON.parse(serializeKeyFile(samples.keys)) as unknown;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-verify-pool-'));
    workspace = openWorkspace(path.join(directory, 'home'));
    const keys = loadServiceKeys(workspace);
    signer = keys.active;
    createTenant(workspace, 'acme', 'scale');
    apiKey = issueApiKey(workspace, 'acme').key;
    const now = new Date(SAMPLES_NOW);
    for (const verifyThreads of [0, 2]) {
      const service = await buildService({
        workspace,
        signer: {
          key_id: keys.active.key_id,
          seed: keys.active.seed,
          public_key: keys.active.public_key,
          listed: keys.listed,
        },
        now: () => now,
        verifyThreads,
      });
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
        const response = await fetch(`${base}/v1/receipt/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
      }),
    );
  }

  it('starts worker threads only when asked', () => {
    expect(services.map(({ service }) => service.verifyPool?.size ?? 0)).toEqual([0, 2]);
  });

  it('answers every sample alike, alone and with its keys', async () => {
    expect(samples.files.length).toBeGreaterThan(20);
    const statuses = new Set<string>();
    for (const sample of samples.files) {
      for (const body of [
        sample.text,
        `{"document": ${sample.text.trim() === '' ? 'null' : sample.text}, "keys": ${JSON.stringify(keyFile)}}`,
      ]) {
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

  it('checks the receipts it issues on the workers too, with the trust store as it is now, and stores the reports the HTTP thread would', async () => {
    const now = new Date(SAMPLES_NOW);
    const expected = (raw: Uint8Array) =>
      toVerifiedReceipt(
        verifyReceiptBytes(
          raw,
          workspaceVerifyContext(workspace, {
            advertised: [{ key_id: signer.key_id, algorithm: 'Ed25519', public_key: signer.public_key }],
            now,
          }),
        ),
      ).report;
    const issue = async (base: string, route: string, body: unknown) => {
      const response = await fetch(`${base}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      expect(response.status, text).toBe(201);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const trusts: string[] = [];
    for (const pinned of [false, true, false]) {
      if (pinned) pinKey(workspace, { key_id: signer.key_id, algorithm: 'Ed25519', public_key: signer.public_key });
      else if (trusts.length > 0) unpinKey(workspace, signer.key_id);
      for (const { base } of services) {
        const body = {
          agent_did: 'did:web:agent.example.com',
          input: `trust ${trusts.length} at ${base}`,
          content_type: 'text/plain',
        };
        const seen = new Set<string>();
        const documents = [
          ...(await Promise.all(
            ['nano', 'standard', 'pq'].map((profile) => issue(base, `/v1/receipt/emit?profile=${profile}`, body)),
          )),
          ((await issue(base, '/tenants/acme/receipts', body)) as { receipt: Record<string, unknown> }).receipt,
        ];
        for (const document of documents) {
          // What was answered verifies, and what was stored is its report as the HTTP thread makes it.
          const verified = (await fetch(`${base}/v1/receipt/verify`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(document),
          }).then((answer) => answer.json())) as { status: string };
          expect(verified.status).toBe('PASS');
          const row = getReceipt(
            workspace.ledger.readable,
            createHash('sha256')
              .update(jcs(document as JsonValue))
              .digest('hex'),
          );
          expect(row?.status).toBe('PASS');
          expect(JSON.stringify(row?.report)).toBe(expected(row?.raw ?? new Uint8Array()).json);
          seen.add(row?.trust ?? '');
        }
        trusts.push([...seen].join(','));
      }
    }
    // The workers were sent the trust store's keys again after each change.
    expect(trusts).toEqual(['unpinned', 'unpinned', 'trusted', 'trusted', 'unpinned', 'unpinned']);
  });

  it('answers alike when its workers have stopped: verify and issue on the HTTP thread, and log each time (the HTTP thread also takes its own share of verify requests)', async () => {
    const lines: string[] = [];
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const keys = loadServiceKeys(workspace);
    const now = new Date(SAMPLES_NOW);
    const stopped = await buildService({
      workspace,
      signer: {
        key_id: keys.active.key_id,
        seed: keys.active.seed,
        public_key: keys.active.public_key,
        listed: keys.listed,
      },
      now: () => now,
      verifyThreads: 1,
      logStream,
    });
    try {
      const base = await stopped.app.listen({ host: '127.0.0.1', port: 0 });
      await stopped.verifyPool?.close();
      const sample = samples.files.find((file) => file.expected_status === 'PASS')?.text ?? '{}';
      const body = `{"document": ${sample}, "keys": ${JSON.stringify(keyFile)}}`;
      const [here] = await both(body);
      // Eight requests: the HTTP thread takes one in four itself (HTTP_THREAD_SHARE_PER_WORKER
      // with one worker), and the six sent to the stopped worker are verified here after it fails.
      for (let index = 0; index < 8; index += 1) {
        const answer = await fetch(`${base}/v1/receipt/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        expect({ status: answer.status, type: answer.headers.get('content-type'), text: await answer.text() }).toEqual(
          here,
        );
      }
      expect(
        lines.filter((line) => line.includes('verification worker failed; verifying on the HTTP thread')),
      ).toHaveLength(8 - 8 / HTTP_THREAD_SHARE_PER_WORKER);
      const issued = await fetch(`${base}/v1/receipt/emit?profile=standard`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({
          agent_did: 'did:web:agent.example.com',
          input: 'after the workers stopped',
          content_type: 'text/plain',
        }),
      });
      const text = await issued.text();
      expect(issued.status, text).toBe(201);
      const row = getReceipt(
        workspace.ledger.readable,
        createHash('sha256')
          .update(jcs(JSON.parse(text) as JsonValue))
          .digest('hex'),
      );
      expect(row?.status).toBe('PASS');
      const failures = lines.filter((line) => line.includes('verification worker failed; checking the issued receipt'));
      expect(failures).toHaveLength(1);
      expect(failures.join('')).toMatch(/verification pool is closed/);
    } finally {
      await stopped.close();
    }
  });
});
