import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../src-shared/crypto';
import { signClassical } from '../src-shared/formats/classical';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { bundleParts, keyEntryFor, zipBundle } from '../src-main/evidence/test-support';
import { generatePrivateKey } from 'viem/accounts';
import { jcs } from '../src-shared/json';
import { startAnvil } from '../src-main/anchor/anvil';
import { anchorAccount, ChainClient } from '../src-main/anchor/chain';
import { postAnchorBatch } from '../src-main/anchor/test-support';
import { readNetworkTrace, runTraced, straceArguments, straceAvailable } from './network-trace';

// The offline proof (issue "Hardening"): the CLI's verify, import, export, report and ledger
// check, anchor verify with a context pack (issue 29) and context import, and local web mode
// serving its own requests, run under strace; none of them opens an
// inet socket other than web mode's own 127.0.0.1 listener. .ci/run installs strace; a machine
// without it fails this file, saying what to install.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'evroom.mjs');
const WEB_CHILD = path.join(ROOT, 'scripts', 'web-mode-child.ts');
const haveStrace = straceAvailable();

// strace is a system package the tests need, like Chromium and poppler-utils: without it the
// proof cannot run, and that is a failure that says what to install, never a silent pass.
describe.runIf(!haveStrace)('offline proof prerequisites', () => {
  it('has strace', () => {
    throw new Error(
      'strace is not installed: the offline proof needs it (apt-get install -y strace; .ci/run installs it).',
    );
  });
});

describe('reading a network trace', () => {
  it('flags inet connects, inet sockets that are not a 127.0.0.1 listener, and binds elsewhere; passes unix sockets', () => {
    const unix =
      '12 socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0) = 19\n12 connect(19, {sa_family=AF_UNIX, sun_path="/tmp/tsx-0/1.pipe"}, 110) = 0\n';
    expect(readNetworkTrace(unix, 0).violations).toEqual([]);
    const listener =
      '7 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 21\n7 bind(21, {sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr("127.0.0.1")}, 16) = 0\n';
    expect(readNetworkTrace(listener, 1).violations).toEqual([]);
    expect(readNetworkTrace(listener, 0).violations).toHaveLength(1);
    const out =
      '7 socket(AF_INET6, SOCK_DGRAM, IPPROTO_IP) = 22\n7 connect(22, {sa_family=AF_INET6, sin6_port=htons(53), sin6_addr=inet_pton(AF_INET6, "::1")}, 28) = 0\n';
    expect(readNetworkTrace(out, 1).violations).toHaveLength(2);
    const anywhere =
      '7 socket(AF_INET, SOCK_STREAM, IPPROTO_IP) = 21\n7 bind(21, {sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr("0.0.0.0")}, 16) = 0\n';
    expect(readNetworkTrace(anywhere, 1).violations).toHaveLength(2);
  });
});

/** A small clean bundle of classical receipts, signed by a test key. */
function makeBundle(count: number): Buffer {
  const crypto = createNodeCryptoProvider();
  const seed = new Uint8Array(32).fill(42);
  const signer = { seed: new Uint8Array(32).fill(41), keyId: 'did:svc:acme:bundles' };
  const receipts = Array.from({ length: count }, (_, index) => ({
    stem: `r${index}`,
    bytes: utf8Encode(signClassical({ sequence: index, memo: 'offline proof' }, seed, crypto)),
  }));
  return zipBundle(
    bundleParts(receipts, { keyId: signer.keyId, keys: [keyEntryFor(signer.keyId, signer.seed, crypto)] }),
    signer,
    crypto,
  );
}

function call(
  port: number,
  token: string,
  method: string,
  urlPath: string,
  body?: Buffer | string,
  type = 'application/json',
): Promise<{ status: number; json: unknown; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${port}` };
    if (method === 'POST') Object.assign(headers, { authorization: `Bearer ${token}`, 'content-type': type });
    const outgoing = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: incoming.statusCode ?? 0, json, text });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe.runIf(haveStrace)('offline proof: no inet socket but web mode’s own 127.0.0.1 listener', () => {
  let directory: string;
  let home: string;
  let samples: string;
  let bundle: string;
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined });

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-offline-'));
    home = path.join(directory, 'home');
    samples = path.join(directory, 'samples');
    bundle = path.join(directory, 'bundle.zip');
    fs.writeFileSync(bundle, makeBundle(20));
    const written = spawnSync(process.execPath, [BIN, 'samples', '--out', samples], { env: env(), encoding: 'utf8' });
    expect(written.status, written.stderr).toBe(0);
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  /** Runs `evroom ARGS` under strace and checks its trace; answers its outcome. */
  async function offline(name: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
    const trace = path.join(directory, `${name}.trace`);
    const result = await runTraced(trace, process.execPath, [BIN, ...args], env());
    const use = readNetworkTrace(fs.readFileSync(trace, 'utf8'), 0);
    expect(use.violations, `evroom ${args.join(' ')} used the network`).toEqual([]);
    expect(use.inetSockets).toBe(0);
    return result;
  }

  it('the detector sees a real inet connect under strace (it can fail)', async () => {
    const trace = path.join(directory, 'probe.trace');
    const probe =
      "const s = require('node:net').connect(9, '127.0.0.1'); s.on('error', () => {}); s.on('close', () => process.exit(0));";
    await runTraced(trace, process.execPath, ['-e', probe], env());
    expect(readNetworkTrace(fs.readFileSync(trace, 'utf8'), 0).violations.length).toBeGreaterThan(0);
  });

  it('evroom verify, import, export, report and ledger check open no inet socket', async () => {
    const documents = fs
      .readdirSync(samples, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.json') && name.includes(path.sep))
      .map((name) => path.join(samples, name));
    expect(documents.length).toBeGreaterThan(20);
    const verified = await offline('verify', [
      'verify',
      '--json',
      '--trust',
      path.join(samples, 'keys.json'),
      '--secret',
      path.join(samples, 'secrets.json'),
      ...documents,
    ]);
    expect(verified.code).toBe(1); // the broken samples are not PASS
    expect(verified.stdout.split('\n').filter((line) => line.startsWith('{')).length).toBe(documents.length);

    const imported = await offline('import', ['import', '--json', bundle]);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ counts: { receiptsNew: 20 } });

    const exported = await offline('export', ['export', '--json', '--out', path.join(directory, 'export.zip')]);
    expect(exported.code).toBe(0);
    expect(fs.statSync(path.join(directory, 'export.zip')).size).toBeGreaterThan(0);

    const reported = await offline('report', [
      'report',
      '--json',
      '--out',
      path.join(directory, 'report.json'),
      '--out',
      path.join(directory, 'report.html'),
      '--out',
      path.join(directory, 'report.pdf'),
    ]);
    expect(reported.code).toBe(0);
    const report = JSON.parse(fs.readFileSync(path.join(directory, 'report.json'), 'utf8')) as {
      environment: { offline: boolean };
      counts: unknown;
    };
    // No chain is consulted: the report says it was made offline (anchoring steps 2-3 unchecked).
    expect(report.environment.offline).toBe(true);

    const checked = await offline('ledger-check', ['ledger', 'check']);
    expect(checked.code).toBe(0);
  });

  it('evroom anchor verify --context and context import answer steps 2-3 from a pack made online, with no inet socket', async () => {
    // Online (not traced): a real anvil, two anchor transactions, a pack exported from them.
    const anvil = await startAnvil();
    try {
      const chain = new ChainClient(anvil.rpcUrl);
      const account = anchorAccount(generatePrivateKey());
      await chain.fundOnDevelopmentChain(account.address);
      // Two anchor transactions (two batches), so the pack carries more than one.
      for (const [index, id] of ['offline-1', 'offline-2'].entries()) {
        const receipt = { receipt_id: id, issued_at: '2026-11-23T09:00:00Z' };
        const digest = createNodeCryptoProvider().sha256(new TextEncoder().encode(jcs(receipt)));
        const batch = await postAnchorBatch(chain, account, [digest], index);
        fs.writeFileSync(path.join(directory, `anchored-${index}.json`), JSON.stringify(receipt));
        fs.writeFileSync(path.join(directory, `anchor-record-${index}.json`), JSON.stringify(batch.records[0]));
      }
      await chain.mineOnDevelopmentChain(2);
      const pack = path.join(directory, 'context.zip');
      const made = spawnSync(
        process.execPath,
        [
          BIN,
          'context',
          'export',
          '--quiet',
          '--out',
          pack,
          '--rpc',
          anvil.rpcUrl,
          path.join(directory, 'anchor-record-0.json'),
          path.join(directory, 'anchor-record-1.json'),
        ],
        { env: env(), encoding: 'utf8' },
      );
      expect(made.status, made.stderr).toBe(0);
    } finally {
      await anvil.stop();
    }
    // Offline (traced): the chain is gone; the pack answers for every anchor it carries.
    for (const index of [0, 1]) {
      const verified = await offline(`context-verify-${index}`, [
        'anchor',
        'verify',
        path.join(directory, `anchored-${index}.json`),
        path.join(directory, `anchor-record-${index}.json`),
        '--context',
        path.join(directory, 'context.zip'),
        '--confirmations',
        '3',
        '--json',
      ]);
      expect(verified.code).toBe(0);
      const result = JSON.parse(verified.stdout) as {
        anchor_status: string;
        steps: { status: string; evidence?: string }[];
      };
      expect(result.anchor_status).toBe('verified_with_context');
      expect(result.steps.map((step) => [step.status, step.evidence ?? null])).toEqual([
        ['pass', null],
        ['pass', 'context'],
        ['pass', 'context'],
      ]);
    }
    const imported = await offline('context-import', [
      'context',
      'import',
      '--json',
      path.join(directory, 'context.zip'),
    ]);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ anchors: 2, chain_id: 31337 });
  });

  it('local web mode answers its own requests (pages, API, an upload and its import, a report) with only its 127.0.0.1 listener', async () => {
    const trace = path.join(directory, 'web.trace');
    const webHome = path.join(directory, 'web-home');
    const tracer: ChildProcess = spawn(
      'strace',
      straceArguments(trace, process.execPath, ['--import', 'tsx', WEB_CHILD, webHome]),
      { cwd: ROOT, env: env(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<number | null>((resolve) => tracer.on('close', resolve));
    let pid = 0;
    try {
      const started = await new Promise<{ pid: number; port: number; token: string }>((resolve, reject) => {
        let output = '';
        tracer.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
          if (line) resolve(JSON.parse(line) as { pid: number; port: number; token: string });
        });
        tracer.on('close', (code) =>
          reject(new Error(`web mode exited (${String(code)}) before it printed its port: ${output}`)),
        );
      });
      pid = started.pid;
      const { port, token } = started;
      expect((await call(port, token, 'GET', '/')).status).toBe(200);
      expect((await call(port, token, 'POST', '/api/info', '{}')).status).toBe(200);
      const upload = await call(
        port,
        token,
        'POST',
        '/upload/imports.start?name=bundle.zip',
        fs.readFileSync(bundle),
        'application/octet-stream',
      );
      expect(upload.status).toBe(200);
      const jobId = (upload.json as { result: { jobId: string } }).result.jobId;
      let state = 'running';
      for (let attempt = 0; attempt < 200 && state === 'running'; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = (
          (await call(port, token, 'POST', '/api/imports.progress', JSON.stringify({ jobId }))).json as {
            result: { state: string };
          }
        ).result.state;
      }
      expect(state).toBe('done');
      const sample = fs.readFileSync(
        path.join(
          samples,
          'classical',
          fs.readdirSync(path.join(samples, 'classical')).find((name) => name.startsWith('valid')) ?? '',
        ),
        'utf8',
      );
      expect(
        (
          (await call(port, token, 'POST', '/api/verify', JSON.stringify({ text: sample }))).json as {
            result: { report: { status: string } };
          }
        ).result.report.status,
      ).toBe('PASS');
      expect((await call(port, token, 'POST', '/api/receipts.list', '{}')).status).toBe(200);
      expect((await call(port, token, 'POST', '/api/overview', '{}')).status).toBe(200);
      expect((await call(port, token, 'POST', '/api/reports.create', '{}')).status).toBe(200);
      expect((await call(port, token, 'POST', '/api/exports.create', JSON.stringify({ name: 'offline' }))).status).toBe(
        200,
      );
    } finally {
      if (pid > 0) process.kill(pid, 'SIGTERM');
      else tracer.kill('SIGKILL');
      await exited;
    }
    const use = readNetworkTrace(fs.readFileSync(trace, 'utf8'), 1);
    expect(use.violations).toEqual([]);
    expect(use.loopbackBinds).toBe(1);
  });
});
