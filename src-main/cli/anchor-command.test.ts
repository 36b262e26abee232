import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey } from 'viem/accounts';
import { anchorSuffix, pendingAnchorUrn } from '../../src-shared/anchor/urn';
import { b64uDecode, hexEncode } from '../../src-shared/crypto/encoding';
import { jcs } from '../../src-shared/json';
import { startAnvil, type AnvilProcess } from '../anchor/anvil';
import { anchorAccount, ChainClient } from '../anchor/chain';
import { nodeSha256, postAnchorBatch } from '../anchor/test-support';
import { serializeAnchorsFile } from '../evidence/anchors-file';
import { anchorStatus, AnchorServiceError, MAX_ANSWER_BYTES, submitAnchor } from '../operations/anchor-client';
import { runCli } from './main';

// `evroom anchor` in process (real files, a real anvil, a real HTTP server on 127.0.0.1 that
// answers as PROTOCOL 8 says: a stand-in for a third party's anchoring service).

async function evroom(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = collector();
  const err = collector();
  const code = await runCli(args, { out: out.stream, err: err.stream, color: false, interactive: false });
  return { code, stdout: out.text(), stderr: err.text() };
}

function collector(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  return { stream, text: () => text };
}

const RECEIPTS = [
  { receipt_id: 'r-1', issued_at: '2026-11-23T09:00:00Z', payload_sha256: 'aa'.repeat(32), amount: 1.5 },
  { receipt_id: 'r-2', issued_at: '2026-11-23T09:00:01Z', payload_sha256: 'bb'.repeat(32) },
  { receipt_id: 'r-3', issued_at: '2026-11-23T09:00:02Z', payload_sha256: 'cc'.repeat(32) },
];
const digestOf = (value: unknown): Uint8Array => nodeSha256(new TextEncoder().encode(jcs(value as never)));

let directory: string;
let anvil: AnvilProcess;
let chain: ChainClient;
let records: Record<string, unknown>[];
const account = anchorAccount(generatePrivateKey());
const file = (name: string): string => join(directory, name);

function writeJson(name: string, value: unknown, text?: string): string {
  writeFileSync(file(name), text ?? `${JSON.stringify(value, null, 2)}\n`);
  return file(name);
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'evroom-anchor-cli-'));
  anvil = await startAnvil();
  chain = new ChainClient(anvil.rpcUrl);
  await chain.fundOnDevelopmentChain(account.address);
  ({ records } = await postAnchorBatch(chain, account, RECEIPTS.map(digestOf), 0));
  RECEIPTS.forEach((receipt, index) => {
    writeJson(`receipt-${index}.json`, receipt);
    writeJson(`record-${index}.json`, records[index]);
  });
});
afterAll(async () => {
  await anvil?.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe('evroom anchor verify', () => {
  it('passes all three steps on the chain (exit 0) and prints the JSON of the issue', async () => {
    const result = await evroom([
      'anchor',
      'verify',
      file('receipt-1.json'),
      file('record-1.json'),
      '--rpc',
      anvil.rpcUrl,
      '--json',
    ]);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as {
      anchor_status: string;
      steps: { step: number; status: string; detail: string }[];
      receipt_sha256: string;
    };
    expect(json.anchor_status).toBe('verified');
    expect(json.steps.map((step) => [step.step, step.status])).toEqual([
      [1, 'pass'],
      [2, 'pass'],
      [3, 'pass'],
    ]);
    expect(json.receipt_sha256).toBe(hexEncode(digestOf(RECEIPTS[1])));
  });

  it('digests the JCS form: the same receipt written with other spacing and member order verifies', async () => {
    const reordered = writeJson(
      'reordered.json',
      null,
      '{\n  "payload_sha256" : "' +
        'aa'.repeat(32) +
        '", "amount": 15e-1,\n "issued_at":"2026-11-23T09:00:00Z","receipt_id":"r-1" }',
    );
    const result = await evroom(['anchor', 'verify', reordered, file('record-0.json'), '--rpc', anvil.rpcUrl]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('VERIFIED on chain');
    expect(result.stdout).toMatch(/step 1 {2}pass/);
    expect(result.stdout).toMatch(/step 3 {2}pass/);
    expect(result.stdout).toContain('anchor_status: verified');
  });

  it('--offline: step 1 passes, steps 2-3 unchecked, exit 0; a pending record exits 1 even offline', async () => {
    const result = await evroom([
      'anchor',
      'verify',
      file('receipt-2.json'),
      file('record-2.json'),
      '--offline',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as { anchor_status: string; steps: { status: string; detail: string }[] };
    expect(json.anchor_status).toBe('verified_offline');
    expect(json.steps.map((step) => step.status)).toEqual(['pass', 'unchecked', 'unchecked']);
    expect(json.steps[1]?.detail).toMatch(/--offline/);

    const suffix = anchorSuffix(digestOf(RECEIPTS[2]));
    const pending = writeJson('pending.json', {
      svc_anchor: pendingAnchorUrn('2026-11-23T09:00Z', suffix),
      batch_id: '2026-11-23T09:00Z',
      eta_seconds: 30,
    });
    for (const mode of [['--offline'], ['--rpc', anvil.rpcUrl]]) {
      const waiting = await evroom(['anchor', 'verify', file('receipt-2.json'), pending, ...mode, '--json']);
      expect(waiting.code).toBe(1);
      expect(JSON.parse(waiting.stdout)).toMatchObject({
        anchor_status: 'pending',
        steps: [{ status: 'unchecked' }, { status: 'unchecked' }, { status: 'unchecked' }],
      });
    }
  });

  it('takes the record of this receipt from a bundle’s anchors file', async () => {
    const anchors = writeJson(
      'anchors.json',
      null,
      serializeAnchorsFile('2026-11-23T09:00Z', [
        { receipt_sha256: hexEncode(digestOf(RECEIPTS[0])), record: records[0] },
        { receipt_sha256: null, record: records[1] },
        { receipt_sha256: null, record: records[2] },
      ]),
    );
    for (const index of [0, 1, 2]) {
      const result = await evroom([
        'anchor',
        'verify',
        file(`receipt-${index}.json`),
        anchors,
        '--rpc',
        anvil.rpcUrl,
        '--json',
      ]);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        anchor_status: 'verified',
        svc_anchor: records[index]?.svc_anchor,
      });
    }
    const human = await evroom(['anchor', 'verify', file('receipt-1.json'), anchors, '--offline']);
    expect(human.stdout).toContain('Record /anchors/1 of the anchors file of batch 2026-11-23T09:00Z');
    const stranger = writeJson('stranger.json', { receipt_id: 'not anchored' });
    const none = await evroom(['anchor', 'verify', stranger, anchors, '--offline']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/holds 3 records, none for this receipt .*\(anchor_not_in_file\)/);
    const broken = writeJson('broken-anchors.json', {
      batch_id: '2026-11-23T09:00Z',
      anchors: [{ record: { svc_anchor: 'urn:svc:anchor:nope' } }],
    });
    const bad = await evroom(['anchor', 'verify', file('receipt-0.json'), broken, '--offline']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('at /anchors/0/record/svc_anchor');
  });

  it('fails (exit 1) at the right step: another receipt, a changed path, too few confirmations, no chain', async () => {
    const tampered = writeJson('tampered.json', { ...RECEIPTS[0], amount: 2 });
    const other = await evroom(['anchor', 'verify', tampered, file('record-0.json'), '--rpc', anvil.rpcUrl, '--json']);
    expect(other.code).toBe(1);
    expect(JSON.parse(other.stdout)).toMatchObject({
      anchor_status: 'failed',
      steps: [
        { status: 'fail', detail: expect.stringMatching(/anchors another receipt/) },
        { status: 'unchecked' },
        { status: 'unchecked' },
      ],
    });

    const record = records[0] as { merkle_path: string[] };
    const changed = writeJson('changed-path.json', { ...record, merkle_path: [...record.merkle_path].reverse() });
    const fold = await evroom(['anchor', 'verify', file('receipt-0.json'), changed, '--offline', '--json']);
    expect(fold.code).toBe(1);
    expect(JSON.parse(fold.stdout)).toMatchObject({
      anchor_status: 'failed',
      steps: [
        { status: 'fail', detail: expect.stringMatching(/not merkle_root/) },
        { status: 'unchecked' },
        { status: 'unchecked' },
      ],
    });

    const deep = await evroom([
      'anchor',
      'verify',
      file('receipt-0.json'),
      file('record-0.json'),
      '--rpc',
      anvil.rpcUrl,
      '--confirmations',
      '1000',
      '--json',
    ]);
    expect(deep.code).toBe(1);
    expect(JSON.parse(deep.stdout)).toMatchObject({
      anchor_status: 'failed',
      steps: [{ status: 'pass' }, { status: 'pass' }, { status: 'fail' }],
    });

    const away = await evroom([
      'anchor',
      'verify',
      file('receipt-0.json'),
      file('record-0.json'),
      '--rpc',
      'http://127.0.0.1:9',
      '--json',
    ]);
    expect(away.code).toBe(1);
    expect(JSON.parse(away.stdout)).toMatchObject({
      anchor_status: 'failed',
      steps: [
        { status: 'pass' },
        { status: 'unchecked', detail: expect.stringMatching(/could not be asked/) },
        { status: 'unchecked' },
      ],
    });
  });

  it('usage and input errors exit 2 with a clear message', async () => {
    const receipt = file('receipt-0.json');
    const record = file('record-0.json');
    const cases: [string[], RegExp][] = [
      [['anchor', 'verify', receipt, record], /give --rpc URL .* or --offline/],
      [['anchor', 'verify', receipt, record, '--offline', '--rpc', anvil.rpcUrl], /not both/],
      [['anchor', 'verify', receipt, record, '--offline', '--confirmations', '2'], /--confirmations is for step 3/],
      [['anchor', 'verify', receipt, record, '--rpc', anvil.rpcUrl, '--confirmations', '0'], /whole number from 1/],
      [['anchor', 'verify', receipt, record, '--rpc', anvil.rpcUrl, '--confirmations', '2x'], /whole number from 1/],
      [['anchor', 'verify', receipt, record, '--rpc', 'ftp://example.com'], /http or https/],
      [['anchor', 'verify', receipt, '--offline'], /expects RECEIPT.json and RECORD.json, got 1 argument/],
      [['anchor', 'verify', receipt, file('missing.json'), '--offline'], /missing.json: no such file/],
      [['anchor', 'verify', receipt, record, '--offline', '--api', 'http://127.0.0.1:1'], /--api does not apply here/],
      [
        ['anchor', 'verify', writeJson('duplicate.json', null, '{"a":1,"a":2}'), record, '--offline'],
        /not strict JSON: Malformed JSON \(duplicate_name\) at \/a/,
      ],
      [['anchor', 'verify', writeJson('array.json', null, '[1]'), record, '--offline'], /must be a JSON object/],
      [
        ['anchor', 'verify', receipt, writeJson('bad-record.json', null, '{"svc_anchor": "x",}'), '--offline'],
        /anchor record file is not strict JSON/,
      ],
      [['anchor', 'frobnicate'], /unknown subcommand 'frobnicate'/],
      [['anchor'], /name a subcommand/],
    ];
    for (const [args, message] of cases) {
      const result = await evroom(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    writeFileSync(file('latin1.json'), Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]));
    const latin1 = await evroom(['anchor', 'verify', file('latin1.json'), record, '--offline']);
    expect(latin1.code).toBe(2);
    expect(latin1.stderr).toMatch(/binary file|not valid UTF-8/);
    const help = await evroom(['anchor', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('evroom anchor verify RECEIPT.json RECORD.json');
    expect(help.stdout).toContain('Exit codes:');
  });
});

describe('evroom anchor submit and status against a service on 127.0.0.1', () => {
  const KEY = 'svc_pro_0123456789abcdefABCDEFGHIJ_-xyzw';
  const FREE_KEY = 'svc_scale_revokedrevokedrevokedrevoked00';
  let server: Server;
  let api: string;
  const requests: { method: string; url: string; authorization: string | undefined; body: string }[] = [];
  /** What the next answer should be, when a test wants an odd one. */
  let override: ((request: IncomingMessage, response: ServerResponse, body: string) => boolean) | undefined;
  const pending = new Map<string, Record<string, unknown>>();

  function send(response: ServerResponse, status: number, value: unknown): void {
    const text = JSON.stringify(value);
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  }
  const error = (code: string, message: string, details: unknown[] = []): unknown => ({
    error: { code, message, details },
  });

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        requests.push({
          method: request.method ?? '',
          url: request.url ?? '',
          authorization: request.headers.authorization,
          body,
        });
        if (override?.(request, response, body) === true) return;
        if (request.method === 'POST' && request.url === '/v1/anchor') {
          const presented = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
          if (presented === undefined)
            return send(
              response,
              401,
              error('unauthorized', 'This route needs an API key: Authorization: Bearer svc_…'),
            );
          if (presented === FREE_KEY) return send(response, 403, error('forbidden', 'This tier does not anchor.'));
          if (presented !== KEY)
            return send(response, 401, error('unauthorized', 'The API key is unknown or revoked.'));
          const parsed = JSON.parse(body) as { canonical_sha256?: unknown };
          if (Object.keys(parsed).join() !== 'canonical_sha256' || typeof parsed.canonical_sha256 !== 'string') {
            return send(
              response,
              400,
              error('invalid_request', 'Send only canonical_sha256.', [
                { path: '/canonical_sha256', message: 'required' },
              ]),
            );
          }
          const suffix = anchorSuffix(b64uDecode(parsed.canonical_sha256));
          const record = {
            svc_anchor: pendingAnchorUrn('2026-11-23T09:00Z', suffix),
            batch_id: '2026-11-23T09:00Z',
            eta_seconds: 42,
          };
          pending.set(record.svc_anchor, record);
          return send(response, 202, record);
        }
        const match = /^\/v1\/anchor\/([^/?]+)$/.exec(request.url ?? '');
        if (request.method === 'GET' && match !== null) {
          const urn = decodeURIComponent(match[1] as string);
          const resolved = records.find((record) => String(record.svc_anchor).endsWith(urn.slice(-16)));
          if (pending.has(urn) && resolved !== undefined) return send(response, 200, resolved);
          if (pending.has(urn)) return send(response, 200, pending.get(urn));
          return send(response, 404, error('not_found', `No anchor ${urn}.`));
        }
        return send(response, 404, error('not_found', 'No such route.'));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    writeFileSync(file('key'), `${KEY}\n`, { mode: 0o600 });
    writeFileSync(file('free-key'), FREE_KEY, { mode: 0o600 });
    writeFileSync(file('bad-key'), 'svc_pro_0000000000000000000000000000zzzz', { mode: 0o600 });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('submit sends only the canonical SHA-256 with the key, prints the pending record, never the key', async () => {
    requests.length = 0;
    const result = await evroom([
      'anchor',
      'submit',
      file('receipt-1.json'),
      '--api',
      api,
      '--key-file',
      file('key'),
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(requests).toHaveLength(1);
    const sent = requests[0] as { body: string; authorization: string | undefined };
    expect(JSON.parse(sent.body)).toEqual({
      canonical_sha256: Buffer.from(digestOf(RECEIPTS[1])).toString('base64url'),
    });
    expect(sent.body).not.toContain('r-2');
    expect(sent.authorization).toBe(`Bearer ${KEY}`);
    const record = JSON.parse(result.stdout) as { svc_anchor: string; eta_seconds: number };
    expect(record.svc_anchor).toBe(pendingAnchorUrn('2026-11-23T09:00Z', anchorSuffix(digestOf(RECEIPTS[1]))));
    expect(record.eta_seconds).toBe(42);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    const human = await evroom([
      'anchor',
      'submit',
      file('receipt-1.json'),
      '--api',
      `${api}/`,
      '--key-file',
      file('key'),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`Pending: ${record.svc_anchor}`);
    expect(human.stdout).toMatch(/eta_seconds +42/);
  });

  it('status fetches the resolved record, saves it, and verify checks the saved file on the chain', async () => {
    const urn = pendingAnchorUrn('2026-11-23T09:00Z', anchorSuffix(digestOf(RECEIPTS[1])));
    const out = file('status-record.json');
    const result = await evroom(['anchor', 'status', urn, '--api', api, '--out', out]);
    expect(result.code).toBe(0);
    expect(requests.at(-1)?.url).toBe(`/v1/anchor/${encodeURIComponent(urn)}`);
    expect(requests.at(-1)?.authorization).toBeUndefined();
    expect(result.stdout).toContain(`Resolved: ${String(records[1]?.svc_anchor)}`);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(records[1]);
    const verified = await evroom(['anchor', 'verify', file('receipt-1.json'), out, '--rpc', anvil.rpcUrl]);
    expect(verified.code).toBe(0);
    const again = await evroom(['anchor', 'status', urn, '--api', api, '--out', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists; pass --force');
    expect(
      (await evroom(['anchor', 'status', urn, '--api', api, '--out', out, '--force', '--key-file', file('key')])).code,
    ).toBe(0);
    expect(requests.at(-1)?.authorization).toBe(`Bearer ${KEY}`);
    const json = await evroom(['anchor', 'status', urn, '--api', api, '--json']);
    expect(JSON.parse(json.stdout)).toEqual(records[1]);
  });

  it('shows PROTOCOL 10 errors as clear messages (exit 1) and refuses bad answers', async () => {
    const unknown = await evroom([
      'anchor',
      'submit',
      file('receipt-0.json'),
      '--api',
      api,
      '--key-file',
      file('bad-key'),
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('The service answered 401 unauthorized: The API key is unknown or revoked.');
    const tier = await evroom([
      'anchor',
      'submit',
      file('receipt-0.json'),
      '--api',
      api,
      '--key-file',
      file('free-key'),
      '--json',
    ]);
    expect(tier.code).toBe(1);
    expect(JSON.parse(tier.stdout)).toMatchObject({ error: { status: 403, code: 'forbidden' } });
    const missing = await evroom([
      'anchor',
      'status',
      pendingAnchorUrn('2026-11-23T08:00Z', '0123456789abcdef'),
      '--api',
      api,
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('The service answered 404 not_found');

    override = (_request, response) => {
      send(
        response,
        400,
        error('invalid_request', 'Bad digest.', [
          { path: '/canonical_sha256', message: 'must be 43 base64url characters' },
        ]),
      );
      return true;
    };
    const details = await evroom(['anchor', 'submit', file('receipt-0.json'), '--api', api, '--key-file', file('key')]);
    expect(details.stderr).toContain(
      '400 invalid_request: Bad digest. (/canonical_sha256: must be 43 base64url characters)',
    );
    override = (_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end('<html>bad gateway</html>');
      return true;
    };
    const html = await evroom(['anchor', 'submit', file('receipt-0.json'), '--api', api, '--key-file', file('key')]);
    expect(html.code).toBe(1);
    expect(html.stderr).toContain("answered HTTP 502 without PROTOCOL 10's error body");
    override = (_request, response) => {
      send(response, 202, {
        svc_anchor: pendingAnchorUrn('2026-11-23T09:00Z', 'ffffffffffffffff'),
        batch_id: '2026-11-23T09:00Z',
        eta_seconds: 1,
      });
      return true;
    };
    const wrong = await evroom(['anchor', 'submit', file('receipt-0.json'), '--api', api, '--key-file', file('key')]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/not for this digest/);
    override = (_request, response) => {
      send(response, 202, { svc_anchor: 'urn:svc:anchor:pending:nope' });
      return true;
    };
    expect(
      (await evroom(['anchor', 'submit', file('receipt-0.json'), '--api', api, '--key-file', file('key')])).stderr,
    ).toMatch(/not an anchor record: at \/svc_anchor/);
    override = (_request, response) => {
      response.writeHead(307, { location: 'https://elsewhere.example/v1/anchor' });
      response.end();
      return true;
    };
    const redirect = await evroom([
      'anchor',
      'submit',
      file('receipt-0.json'),
      '--api',
      api,
      '--key-file',
      file('key'),
    ]);
    expect(redirect.code).toBe(1);
    expect(redirect.stderr).toMatch(/redirects are not followed/);
    override = undefined;
  });

  it('gives up on a service that does not answer in time, and refuses an answer over 1 MiB (the operation)', async () => {
    const digest = digestOf(RECEIPTS[0]);
    override = () => true; // never answers
    const slow = await submitAnchor({ apiUrl: api, apiKey: KEY, digest, timeoutMs: 300 }).catch(
      (error: unknown) => error,
    );
    expect(slow).toBeInstanceOf(AnchorServiceError);
    expect(slow).toMatchObject({
      status: 0,
      code: 'service_unreachable',
      message: expect.stringMatching(/no answer within 0.3 s/),
    });
    override = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // No content-length: the limit is enforced while reading.
      response.write('{"svc_anchor": "');
      response.end(`${'x'.repeat(MAX_ANSWER_BYTES)}"}`);
      return true;
    };
    const large = await anchorStatus({
      apiUrl: api,
      urn: pendingAnchorUrn('2026-11-23T09:00Z', anchorSuffix(digest)),
    }).catch((error: unknown) => error);
    expect(large).toMatchObject({ code: 'answer_too_large' });
    override = undefined;
  });

  it('refuses an exposed or malformed key file, a key over plain http, bad URNs and no service, before or without sending', async () => {
    requests.length = 0;
    writeFileSync(file('open-key'), KEY);
    chmodSync(file('open-key'), 0o644);
    writeFileSync(file('junk-key'), 'not a key\n', { mode: 0o600 });
    const cases: [string[], RegExp, number][] = [
      [
        ['anchor', 'submit', file('receipt-0.json'), '--api', api, '--key-file', file('open-key')],
        /may be read by other users \(mode 644\); run: chmod 600/,
        2,
      ],
      [
        ['anchor', 'submit', file('receipt-0.json'), '--api', api, '--key-file', file('junk-key')],
        /must hold one API key/,
        2,
      ],
      [
        ['anchor', 'submit', file('receipt-0.json'), '--api', api, '--key-file', file('nothere')],
        /cannot be read \(no such file\)/,
        2,
      ],
      [['anchor', 'submit', file('receipt-0.json'), '--api', api], /--key-file FILE/, 2],
      [['anchor', 'submit', file('receipt-0.json'), '--key-file', file('key')], /--api URL/, 2],
      [
        ['anchor', 'submit', file('receipt-0.json'), '--api', 'http://anchor.example.com', '--key-file', file('key')],
        /plain http to another machine/,
        2,
      ],
      [
        ['anchor', 'submit', file('receipt-0.json'), '--api', `${api}/?x=1`, '--key-file', file('key')],
        /query or a fragment/,
        2,
      ],
      [['anchor', 'submit', file('duplicate.json'), '--api', api, '--key-file', file('key')], /duplicate_name/, 2],
      [
        ['anchor', 'status', 'urn:svc:anchor:pending:2026-13-01T00:00Z:0123456789abcdef', '--api', api],
        /is not an anchor URN/,
        2,
      ],
      [
        ['anchor', 'status', pendingAnchorUrn('2026-11-23T09:00Z', '0123456789abcdef'), '--api', api, '--force'],
        /--force only applies with --out/,
        2,
      ],
      [
        [
          'anchor',
          'status',
          pendingAnchorUrn('2026-11-23T09:00Z', '0123456789abcdef'),
          '--api',
          api,
          '--rpc',
          anvil.rpcUrl,
        ],
        /--rpc does not apply here/,
        2,
      ],
    ];
    for (const [args, message, code] of cases) {
      const result = await evroom(args);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stdout + result.stderr).not.toContain(KEY);
    }
    expect(requests).toHaveLength(0);
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const freePort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const closed = await evroom([
      'anchor',
      'submit',
      file('receipt-0.json'),
      '--api',
      `http://127.0.0.1:${freePort}`,
      '--key-file',
      file('key'),
    ]);
    expect(closed.code).toBe(2);
    expect(closed.stderr).toMatch(/could not be reached: ECONNREFUSED/);
  });
});
