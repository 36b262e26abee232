import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonBytes } from '../../src-shared/json';
import type { Report } from '../../src-shared/verify/report';
import { loadServiceKeys } from '../operations/service-keys';
import type { ServiceStore } from '../operations/service-store';
import { openWorkspace, type Workspace } from '../operations/workspace';
import { tryLoadCorpus, type CorpusCase } from '../test-support/conformance-corpus';
import { stopTestStores, testServiceStore } from '../test-support/service-store';
import { buildService, type Service } from './service';

// The conformance corpus made from the real producers (test-vectors/, issue 24) through the
// service's verify routes over real HTTP on 127.0.0.1, on a fresh data folder (an empty trust
// store): each case as `{document, keys}` with its key file sent as it is (docs/service.md,
// "Verify"), the document's bytes as they are on disk. A document that is not strict JSON cannot
// be a member of a request: it is sent as the body itself, without keys.
//
// Typed post-quantum attestations also go to the typed alias `POST /verify`, which takes the
// document alone (no keys member): a case without a key file must get its status there too, and
// every typed-pq case the same report there as on /v1/receipt/verify without keys.

const { cases, error } = tryLoadCorpus();
const encoder = new TextEncoder();

function isStrictJson(bytes: Uint8Array): boolean {
  try {
    parseJsonBytes(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The request body for a case: `{document, keys}` with both spliced in byte for byte. */
function requestBody(entry: CorpusCase): Uint8Array {
  if (!isStrictJson(entry.bytes)) return entry.bytes;
  const parts = [encoder.encode('{"document":'), entry.bytes];
  if (entry.keys !== undefined) parts.push(encoder.encode(',"keys":'), encoder.encode(entry.keys.text));
  parts.push(encoder.encode('}'));
  return Buffer.concat(parts);
}

function expectCase(report: Report, entry: CorpusCase, door: string): void {
  const seen = `${door}: ${entry.id} (${entry.note}) gave ${report.format} ${report.status}/${report.trust?.status} ${JSON.stringify(report.errors?.map((item) => item.code))}`;
  expect(report.format, seen).toBe(entry.format);
  expect(report.status, seen).toBe(entry.status);
  if (entry.trust !== undefined) expect(report.trust.status, seen).toBe(entry.trust);
  if (entry.error !== undefined)
    expect(
      report.errors.map((item) => item.code),
      seen,
    ).toContain(entry.error);
}

describe.each([0, 1])('the conformance corpus through the service (verify threads: %i)', (verifyThreads) => {
  let directory: string;
  let workspace: Workspace;
  let store: ServiceStore;
  let service: Service;
  let base: string;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-verify-corpus-'));
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
      // Every case is a request from this address: the corpus, not the limit, is under test.
      rateLimitPerMinute: 1_000_000,
    });
    base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await service?.close();
    await store?.close();
    workspace?.close();
    await stopTestStores();
    if (directory) fs.rmSync(directory, { recursive: true, force: true });
  });

  async function post(route: string, body: Uint8Array): Promise<Report> {
    const response = await fetch(`${base}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    expect(response.status, `${route}: ${text}`).toBe(200);
    return JSON.parse(text) as Report;
  }

  it('is present and well-formed: at least one case, every cases.json read', () => {
    if (error !== undefined) throw error;
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases.map((entry) => [entry.id, entry] as const))('POST /v1/receipt/verify: %s', async (_id, entry) => {
    expectCase(await post('/v1/receipt/verify', requestBody(entry)), entry, '/v1/receipt/verify');
  });

  const typed = cases.filter((entry) => entry.format === 'typed-pq');
  it.each(typed.map((entry) => [entry.id, entry] as const))('POST /verify (typed-pq): %s', async (_id, entry) => {
    const viaAlias = await post('/verify', entry.bytes);
    if (entry.keys === undefined) expectCase(viaAlias, entry, '/verify');
    expect(viaAlias, `${entry.id}: /verify and /v1/receipt/verify disagree on the document alone`).toEqual(
      await post('/v1/receipt/verify', entry.bytes),
    );
  });
});
