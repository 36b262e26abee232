import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NOTE_COSIGNATURE_ED25519, parseVkey } from '../../src-shared/crypto/signed-note';
import { nodeCrypto } from '../operations/workspace';
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
