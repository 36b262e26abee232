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
import { workspaceServiceStore } from '../operations/service-store';
import { loadServiceKeys } from '../operations/service-keys';
import { pinKey, unpinKey } from '../operations/trust';
import { openWorkspace, workspaceVerifyContext, type Workspace } from '../operations/workspace';
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
    await createTenant(workspaceServiceStore(workspace), 'acme', 'scale');
    apiKey = (await issueApiKey(workspaceServiceStore(workspace), 'acme')).key;
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

  it('answers alike when its workers were stopped: verify and issue on the HTTP thread, without a log line per request', async () => {
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
      // A closed pool has no worker: every request is verified on the HTTP thread.
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
      expect(lines.filter((line) => line.includes('verifying on the HTTP thread'))).toEqual([]);
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
      expect(lines.filter((line) => line.includes('checking the issued receipt'))).toEqual([]);
    } finally {
      await stopped.close();
    }
  });

  /** A service over the shared workspace with `verifyThreads` workers, logging to `lines`. */
  async function loggedService(verifyThreads: number, lines: string[]): Promise<{ service: Service; base: string }> {
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const keys = loadServiceKeys(workspace);
    const now = new Date(SAMPLES_NOW);
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
      logStream,
    });
    return { service, base: await service.app.listen({ host: '127.0.0.1', port: 0 }) };
  }

  async function verifyAt(base: string, body: string): Promise<{ status: number; type: string | null; text: string }> {
    const answer = await fetch(`${base}/v1/receipt/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return { status: answer.status, type: answer.headers.get('content-type'), text: await answer.text() };
  }

  it('keeps answering 200 on its workers when one stops under load: the requests it held are verified here, it is replaced, and the stop is logged once', async () => {
    const lines: string[] = [];
    const { service, base } = await loggedService(2, lines);
    try {
      const pool = service.verifyPool;
      if (pool === undefined) throw new Error('the service has no verification pool');
      const sample = samples.files.find((file) => file.expected_status === 'PASS')?.text ?? '{}';
      const body = `{"document": ${sample}, "keys": ${JSON.stringify(keyFile)}}`;
      const [here] = await both(body);
      expect(here?.status).toBe(200);
      const before = pool.stats().workers.map((worker) => worker.threadId);
      // Load: 48 requests at once; worker 0 is stopped as soon as it holds some of them.
      const load = Array.from({ length: 48 }, () => verifyAt(base, body));
      for (let waited = 0; pool.stats().workers[0]!.inFlight === 0 && waited < 10_000; waited += 1)
        await new Promise((resolve) => setTimeout(resolve, 1));
      expect(pool.stats().workers[0]!.inFlight).toBeGreaterThan(0);
      await pool.terminateWorker(0);
      for (const answer of await Promise.all(load)) expect(answer).toEqual(here);

      const replaced = pool.stats();
      expect(replaced.available).toBe(true);
      expect(replaced.workers[0]!.restarts).toBe(1);
      expect(replaced.workers[0]!.threadId).not.toBe(before[0]);
      expect(replaced.workers[1]!.threadId).toBe(before[1]);
      // Later requests run on the workers again, the replacement among them.
      const answered = replaced.workers.map((worker) => worker.answered);
      const later = await Promise.all(Array.from({ length: 24 }, () => verifyAt(base, body)));
      for (const answer of later) expect(answer).toEqual(here);
      const after = pool.stats().workers;
      // (answers count messages: the requests of one turn of the event loop go in one)
      expect(after[0]!.answered).toBeGreaterThan(answered[0]!);
      // One line for the stop; none per request, and the pool was never without a worker.
      expect(lines.filter((line) => line.includes('verification worker stopped'))).toHaveLength(1);
      expect(lines.filter((line) => line.includes('verification worker failed'))).toEqual([]);
      expect(lines.filter((line) => line.includes('no verification worker is running'))).toEqual([]);
    } finally {
      await service.close();
    }
  });

  it('verifies on the HTTP thread only while no worker runs, saying so once when it starts and once when it ends', async () => {
    const lines: string[] = [];
    const { service, base } = await loggedService(1, lines);
    try {
      const pool = service.verifyPool;
      if (pool === undefined) throw new Error('the service has no verification pool');
      const sample = samples.files.find((file) => file.expected_status === 'PASS')?.text ?? '{}';
      const [here] = await both(sample);
      // The first stop is replaced at once; the second, a quick one, after a wait with no worker.
      await pool.terminateWorker(0);
      expect(pool.available).toBe(true);
      await pool.terminateWorker(0);
      expect(pool.available).toBe(false);
      const meanwhile = await Promise.all(Array.from({ length: 4 }, () => verifyAt(base, sample)));
      for (const answer of meanwhile) expect(answer).toEqual(here);
      for (let waited = 0; !pool.available && waited < 10_000; waited += 5)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(pool.available).toBe(true);
      const answered = pool.stats().workers[0]!.answered;
      const back = await Promise.all(Array.from({ length: 8 }, () => verifyAt(base, sample)));
      for (const answer of back) expect(answer).toEqual(here);
      // The worker takes its share again (the HTTP thread takes one in 4 × N itself).
      expect(pool.stats().workers[0]!.answered).toBeGreaterThan(answered);
      expect(lines.filter((line) => line.includes('verification worker stopped'))).toHaveLength(2);
      expect(lines.filter((line) => line.includes('no verification worker is running'))).toHaveLength(1);
      expect(lines.filter((line) => line.includes('verification workers are running again'))).toHaveLength(1);
      expect(lines.filter((line) => line.includes('verifying on the HTTP thread'))).toEqual([]);
    } finally {
      await service.close();
    }
  });
});
