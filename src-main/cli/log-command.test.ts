import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, hexEncode, utf8Encode } from '../../src-shared/crypto';
import {
  formatCheckpoint,
  formatNote,
  formatVkey,
  NOTE_COSIGNATURE_ED25519,
  NOTE_ED25519,
  parseCheckpoint,
  parseNote,
  parseVkey,
  signNoteLine,
  verifyNote,
} from '../../src-shared/crypto/signed-note';
import { TlogMemory, tlogLeafHash } from '../../src-shared/crypto/tlog';
import { nodeCrypto } from '../operations/workspace';
import { runEvroom, startServeChild, stopServeChild, type ServedChild } from '../test-support/serve-child';
import { runCli } from './main';

// `evroom log` in process, with a real data folder (EVROOM_HOME).

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

const sha256 = (data: Uint8Array): Uint8Array => nodeCrypto().sha256(data);
const KEY = `svc_pro_${'A'.repeat(32)}`;

let directory: string;
let savedHome: string | undefined;
let savedKey: string | undefined;
const file = (name: string): string => join(directory, name);

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'evroom-log-cli-'));
  savedHome = process.env.EVROOM_HOME;
  savedKey = process.env.EVROOM_API_KEY;
  process.env.EVROOM_HOME = file('home');
});
afterAll(() => {
  if (savedHome === undefined) delete process.env.EVROOM_HOME;
  else process.env.EVROOM_HOME = savedHome;
  if (savedKey === undefined) delete process.env.EVROOM_API_KEY;
  else process.env.EVROOM_API_KEY = savedKey;
  rmSync(directory, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.EVROOM_API_KEY;
});

describe('evroom log: arguments', () => {
  it('refuses bad arguments with exit 2 and a specific message, before anything is fetched', async () => {
    const cases: [string[], RegExp][] = [
      [['log'], /log: name a subcommand: check, cosign, list or key/],
      [['log', 'frobnicate'], /log: unknown subcommand 'frobnicate'/],
      [['log', 'check', '--tenant', 'acme'], /log check: give the service with --api URL/],
      [['log', 'check', '--api', 'http://127.0.0.1:9'], /log check: give the tenant with --tenant T/],
      [['log', 'check', '--api', 'ftp://example.com', '--tenant', 'acme'], /--api must be an http or https URL/],
      [['log', 'check', '--api', 'not a url', '--tenant', 'acme'], /--api must be an http or https URL/],
      [['log', 'check', '--api', 'http://127.0.0.1:9', '--tenant', 'a b'], /--tenant must be 1 to 64 characters/],
      [
        ['log', 'check', '--api', 'http://127.0.0.1:9', '--tenant', 'acme'],
        /--api-key-file FILE or the EVROOM_API_KEY/,
      ],
      [
        ['log', 'check', '--api', 'http://127.0.0.1:9', '--tenant', 'acme', '--api-key-file', file('none')],
        /The API key file .*none cannot be read \(no such file\)/,
      ],
      [['log', 'list', '--tenant', 'acme'], /log list: --tenant does not apply here/],
      [['log', 'list', 'extra'], /log list: takes no operand/],
      [['log', 'key', '--name', 'has space'], /log key: --name must be 1 to 256 characters without spaces or “\+”/],
      [['log', 'key', '--name', 'a+b'], /--name must be/],
      [
        ['log', 'cosign', '--checkpoint', file('c.txt'), '--api', 'http://127.0.0.1:9'],
        /log cosign: --checkpoint cosigns offline; --api does not go with it/,
      ],
      [
        ['log', 'cosign', '--api', 'http://127.0.0.1:9', '--tenant', 'acme', '--out', file('o.txt')],
        /log cosign: --out applies only with --checkpoint FILE/,
      ],
      [['log', 'cosign', '--checkpoint', file('missing.txt')], /--checkpoint .*missing\.txt/],
    ];
    for (const [args, message] of cases) {
      const result = await evroom(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr.split('\n').filter(Boolean), args.join(' ')).toHaveLength(1);
    }
    process.env.EVROOM_API_KEY = 'not-a-key';
    const badKey = await evroom(['log', 'check', '--api', 'http://127.0.0.1:9', '--tenant', 'acme']);
    expect(badKey).toMatchObject({ code: 2 });
    expect(badKey.stderr).toMatch(/EVROOM_API_KEY must hold one API key/);
    expect(badKey.stderr).not.toContain('not-a-key');
    const exposed = file('exposed-key');
    writeFileSync(exposed, `${KEY}\n`, { mode: 0o644 });
    const loose = await evroom([
      'log',
      'check',
      '--api',
      'http://127.0.0.1:9',
      '--tenant',
      'acme',
      '--api-key-file',
      exposed,
    ]);
    expect(loose.code).toBe(2);
    expect(loose.stderr).toMatch(/may be read by other users/);
    expect(loose.stderr).not.toContain(KEY);
  });

  it('says in one line that a service cannot be reached (exit 2), never printing the key', async () => {
    process.env.EVROOM_API_KEY = KEY;
    const result = await evroom(['log', 'check', '--api', 'http://127.0.0.1:9', '--tenant', 'acme']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^evroom: log check: The service at http:\/\/127\.0\.0\.1:9 could not be reached: /);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr + result.stdout).not.toContain(KEY);
    const plain = await evroom(['log', 'check', '--api', 'http://receipts.example.com', '--tenant', 'acme']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/plain http to another machine/);
  });

  it('log key: the witness vkey of the auditor key, type 0x04, under the default or a given name', async () => {
    const result = await evroom(['log', 'key']);
    expect(result.code).toBe(0);
    const vkey = result.stdout.trim();
    expect(vkey).toMatch(/^evroom-witness\/[0-9a-f]{16}\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/);
    const parsed = parseVkey(sha256, vkey);
    expect(parsed.type).toBe(NOTE_COSIGNATURE_ED25519);
    // The same key every time; the name is the auditor key's.
    expect((await evroom(['log', 'key'])).stdout.trim()).toBe(vkey);
    const named = JSON.parse((await evroom(['log', 'key', '--name', 'witness.example/w1', '--json'])).stdout) as {
      name: string;
      vkey: string;
    };
    expect(named.name).toBe('witness.example/w1');
    expect(parseVkey(sha256, named.vkey).publicKey).toEqual(parsed.publicKey);
  });

  it('--help names every subcommand and the exit codes', async () => {
    const result = await evroom(['log', '--help']);
    expect(result.code).toBe(0);
    for (const text of ['evroom log check', 'evroom log cosign', 'evroom log list', 'evroom log key', 'SPLIT VIEW'])
      expect(result.stdout).toContain(text);
  });
});

/**
 * A service's log routes over real HTTP on 127.0.0.1, answered from an in-memory log this test
 * controls (so it can fork the log, sign with another key, or refuse a proof): what
 * `evroom log` meets at any service, an honest one or not.
 */
class LogServer {
  readonly seed = new Uint8Array(32).fill(41);
  readonly name = 'logs.example/test';
  log: TlogMemory = growLog(new TlogMemory(sha256), 0, 5);
  signingSeed = this.seed;
  refuseProofs = false;
  posted: { vkey: string; checkpoint: string }[] = [];
  private cosignatures: string[] = [];
  private server: Server | undefined;
  url = '';

  get publicKey(): Uint8Array {
    return nodeCrypto().ed25519PublicKey(this.seed);
  }

  checkpointText(size = this.log.size): string {
    return formatCheckpoint({
      origin: `${this.name}/tenants/acme`,
      size,
      rootHash: this.log.root(size),
      extensions: [],
    });
  }

  note(): string {
    const text = this.checkpointText();
    return formatNote(text, [signNoteLine(nodeCrypto(), text, this.name, this.signingSeed), ...this.cosignatures]);
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => void this.answer(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://x');
    const json = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (url.pathname === '/v1/keys')
      return json(200, {
        keys: [
          {
            key_id: 'log-key-1',
            algorithm: 'Ed25519',
            public_key: b64uEncode(this.publicKey),
            use: ['log-checkpoints'],
            status: 'active',
            note_key_name: this.name,
            vkey: formatVkey(sha256, this.name, NOTE_ED25519, this.publicKey),
          },
        ],
      });
    if (request.headers.authorization !== `Bearer ${KEY}`)
      return json(401, { error: { code: 'unauthorized', message: 'no key' } });
    if (url.pathname === '/tenants/acme/log/checkpoint') {
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(this.note());
      return;
    }
    if (url.pathname === '/tenants/acme/log/consistency') {
      const from = Number(url.searchParams.get('from'));
      const to = Number(url.searchParams.get('to'));
      if (this.refuseProofs || to > this.log.size)
        return json(400, { error: { code: 'invalid_request', message: 'no such size signed' } });
      return json(200, { from, to, hashes: this.log.consistencyProof(from, to).map((hash) => hexEncode(hash)) });
    }
    if (url.pathname === '/tenants/acme/log/cosignatures' && request.method === 'POST') {
      let body = '';
      for await (const chunk of request) body += String(chunk);
      const posted = JSON.parse(body) as { vkey: string; checkpoint: string };
      this.posted.push(posted);
      const witness = parseVkey(sha256, posted.vkey);
      const note = parseNote(posted.checkpoint);
      const valid = verifyNote(nodeCrypto(), note, [witness]).some((result) => result.status === 'valid');
      if (!valid || note.text !== this.checkpointText())
        return json(422, { error: { code: 'cosignature_invalid', message: 'not a cosignature of our checkpoint' } });
      this.cosignatures.push(...note.signatures.filter((line) => line.name === witness.name).map((line) => line.line));
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(this.note());
      return;
    }
    json(404, { error: { code: 'not_found', message: url.pathname } });
  }
}

function growLog(log: TlogMemory, from: number, to: number, prefix = 'leaf'): TlogMemory {
  for (let index = from; index < to; index += 1) log.append(tlogLeafHash(sha256, utf8Encode(`${prefix} ${index}`)));
  return log;
}

describe('evroom log against a log server', () => {
  const server = new LogServer();
  beforeAll(async () => {
    await server.start();
    process.env.EVROOM_HOME = file('home-logs');
  });
  afterAll(async () => {
    await server.stop();
    process.env.EVROOM_HOME = file('home');
  });

  const api = (): string[] => ['--api', server.url, '--tenant', 'acme'];

  it('checks, grows, cosigns, then finds a fork: SPLIT VIEW exits 1 and nothing more is cosigned', async () => {
    process.env.EVROOM_API_KEY = KEY;
    const first = await evroom(['log', 'check', ...api()]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`Log ${server.name}/tenants/acme`);
    expect(first.stdout).toContain('checkpoint  size 5');
    expect(first.stdout).toContain('nothing to compare yet');
    expect(first.stderr).toMatch(/warning: the log key logs\.example\/test is not pinned/);

    growLog(server.log, 5, 12);
    const second = JSON.parse((await evroom(['log', 'check', ...api(), '--json'])).stdout) as {
      tree_size: number;
      proofs: { from_size: number; to_size: number; result: string }[];
      outcome: { consistency: string };
      signer: string;
    };
    expect(second).toMatchObject({
      tree_size: 12,
      signer: 'advertised',
      proofs: [{ from_size: 5, to_size: 12, result: 'fetched' }],
      outcome: { consistency: 'consistent', unchecked_sizes: [] },
    });

    // Pinned for the service role, the log key verifies the checkpoint with no warning.
    const pinned = await evroom([
      'trust',
      'pin',
      '--key-id',
      'log-key-1',
      '--algorithm',
      'Ed25519',
      '--public-key',
      b64uEncode(server.publicKey),
    ]);
    expect(pinned.code, pinned.stderr).toBe(0);
    const third = await evroom(['log', 'check', ...api()]);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('(pinned log key)');
    expect(third.stderr).toBe('');

    const cosign = await evroom(['log', 'cosign', ...api()]);
    expect(cosign.code, cosign.stderr).toBe(0);
    const vkey = (await evroom(['log', 'key'])).stdout.trim();
    expect(server.posted.at(-1)?.vkey).toBe(vkey);
    // The service serves the cosignature now, and it verifies with `log key`'s vkey.
    const served = parseNote(server.note());
    expect(verifyNote(nodeCrypto(), served, [parseVkey(sha256, vkey)])).toMatchObject([{ status: 'valid' }]);
    expect(cosign.stdout).toContain('the service took the cosignature');

    // Offline: the checkpoint just seen, cosigned again from a file.
    writeFileSync(file('checkpoint.txt'), server.note());
    const offline = await evroom([
      'log',
      'cosign',
      '--checkpoint',
      file('checkpoint.txt'),
      '--out',
      file('cosigned.txt'),
    ]);
    expect(offline.code, offline.stderr).toBe(0);
    const cosigned = parseNote(readFileSync(file('cosigned.txt'), 'utf8'));
    expect(verifyNote(nodeCrypto(), cosigned, [parseVkey(sha256, vkey)])).toMatchObject([{ status: 'valid' }]);

    // The service forks: the same first 8 leaves, then others. Its size-12 root differs.
    server.log = growLog(growLog(new TlogMemory(sha256), 0, 8), 8, 15, 'other');
    const split = await evroom(['log', 'check', ...api()]);
    expect(split.code).toBe(1);
    expect(split.stderr).toMatch(/SPLIT VIEW in logs\.example\/test\/tenants\/acme/);
    expect(split.stdout).toContain('consistency SPLIT VIEW');
    const listed = await evroom(['log', 'list', '--json']);
    expect(listed.code).toBe(1);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ consistency: 'split_view', signer: 'pinned', checkpoints: 3 }]);
    expect((await evroom(['log', 'list'])).stdout).toMatch(/SPLIT VIEW \(size 15 vs size 12\)/);

    const posts = server.posted.length;
    const refused = await evroom(['log', 'cosign', ...api()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/SPLIT VIEW: .*; not cosigned\. \(log_split_view\)/);
    expect(server.posted).toHaveLength(posts);
    const offlineRefused = await evroom(['log', 'cosign', '--checkpoint', file('checkpoint.txt')]);
    expect(offlineRefused.code).toBe(1);
  });

  it('refuses a checkpoint the log key did not sign, and leaves an earlier size unchecked when a proof is refused', async () => {
    process.env.EVROOM_HOME = file('home-logs-2');
    process.env.EVROOM_API_KEY = KEY;
    server.log = growLog(new TlogMemory(sha256), 0, 4);
    server.signingSeed = new Uint8Array(32).fill(42);
    const forged = await evroom(['log', 'check', ...api()]);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(
      /signed as logs\.example\/test by another key than the log key the service advertises .*\(log_checkpoint_invalid\)/,
    );
    expect(JSON.parse((await evroom(['log', 'list', '--json'])).stdout)).toEqual([]);

    server.signingSeed = server.seed;
    expect((await evroom(['log', 'check', ...api()])).code).toBe(0);
    growLog(server.log, 4, 9);
    server.refuseProofs = true;
    const unchecked = await evroom(['log', 'check', ...api()]);
    expect(unchecked.code).toBe(1);
    expect(unchecked.stdout).toMatch(/proof\s+4 -> 9: unavailable: The service answered 400 invalid_request/);
    expect(unchecked.stdout).toContain('unchecked against size 4');
    const cosign = await evroom(['log', 'cosign', ...api()]);
    expect(cosign.code).toBe(1);
    expect(cosign.stderr).toMatch(/could not be checked against the checkpoints of size 4/);
    server.refuseProofs = false;
  });
});

describe('evroom log against evroom serve', () => {
  let served: ServedChild;
  let serveHome: string;
  let apiKey: string;
  const EMIT = { agent_did: 'did:web:agent.example.com', input: 'Hello, log.', content_type: 'text/plain' };

  beforeAll(async () => {
    serveHome = file('serve-home');
    expect((await runEvroom(serveHome, ['tenants', 'create', 'acme', '--tier', 'pro'])).code).toBe(0);
    const issued = await runEvroom(serveHome, ['apikeys', 'issue', '--tenant', 'acme', '--json']);
    apiKey = (JSON.parse(issued.stdout) as { key: string }).key;
    served = await startServeChild(serveHome, ['--no-anchor', '--log-name', 'receipts.test/log']);
    process.env.EVROOM_HOME = file('home-serve');
  }, 120_000);
  afterAll(async () => {
    await stopServeChild(served);
    process.env.EVROOM_HOME = file('home');
  });

  async function issueReceipts(count: number): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      const answer = await fetch(`${served.url}/tenants/acme/receipts?profile=nano`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...EMIT, input: `Hello, log ${index}.` }),
      });
      expect(answer.status, await answer.clone().text()).toBeLessThan(300);
    }
  }

  it('checks a served tenant’s log, again after more receipts (consistent), and cosigns it: the service serves the cosignature', async () => {
    const keyFile = file('acme-key');
    writeFileSync(keyFile, `${apiKey}\n`, { mode: 0o600 });
    const api = ['--api', served.url, '--tenant', 'acme', '--api-key-file', keyFile];
    await issueReceipts(3);
    const first = await evroom(['log', 'check', ...api, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      origin: 'receipts.test/log/tenants/acme',
      key_name: 'receipts.test/log',
      tree_size: 3,
      signer: 'advertised',
      seen_before: 0,
      outcome: { consistency: 'consistent' },
    });
    expect(first.stderr).toMatch(/warning: the log key receipts\.test\/log is not pinned/);

    await issueReceipts(2);
    const second = await evroom(['log', 'check', ...api]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('checkpoint  size 5');
    expect(second.stdout).toMatch(/proof\s+3 -> 5: fetched and checked/);
    expect(second.stdout).toContain('consistency consistent with every checkpoint seen');

    // Size 3 already reaches 5 through the proof checked: one proof per check, from the newest.
    await issueReceipts(2);
    const third = await evroom(['log', 'check', ...api]);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toMatch(/proof\s+5 -> 7: fetched and checked/);
    expect(third.stdout).not.toContain('3 -> 7');

    const cosign = await evroom(['log', 'cosign', ...api]);
    expect(cosign.code, cosign.stderr).toBe(0);
    const vkey = (await evroom(['log', 'key'])).stdout.trim();
    const answer = await fetch(`${served.url}/tenants/acme/log/checkpoint`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const note = parseNote(await answer.text());
    expect(parseCheckpoint(note.text).size).toBe(7);
    expect(verifyNote(nodeCrypto(), note, [parseVkey(sha256, vkey)])).toMatchObject([{ status: 'valid' }]);
    const logs = JSON.parse((await evroom(['log', 'list', '--json'])).stdout) as { checkpoints: number }[];
    expect(logs).toMatchObject([
      { origin: 'receipts.test/log/tenants/acme', consistency: 'consistent', checkpoints: 3 },
    ]);
    // The workstation's own record counts its cosignature at once (the Logs view's Witnesses).
    expect(logs).toMatchObject([{ latest: { tree_size: 7, cosignatures: 1 } }]);
  }, 120_000);
});
