import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { didKeyFromEd25519 } from '../../src-shared/crypto';
import { parseKeyFile } from '../../src-shared/verify/key-file';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { parsePrivateKeyFile } from './key-files';
import { runCli } from './main';

// `evroom keys new` in process (fast, real files) and once as a user runs it (a real process).
const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const crypto = createNodeCryptoProvider();

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

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

describe('evroom keys new', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evroom-keys-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a 0600 private key file and a public key file in a new 0700 folder, printing no secret', async () => {
    const out = join(dir, 'new', 'keys');
    const result = await evroom(['keys', 'new', '--alg', 'ed25519', '--out', out, '--label', 'Acme issuer']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const privateFile = join(out, 'ed25519.private.json');
    const publicFile = join(out, 'ed25519.public.json');
    expect([mode(join(dir, 'new')), mode(out), mode(privateFile), mode(publicFile)]).toEqual([
      0o700, 0o700, 0o600, 0o644,
    ]);
    const key = parsePrivateKeyFile(readFileSync(privateFile, 'utf8'), crypto);
    expect(key).toMatchObject({ algorithm: 'Ed25519', label: 'Acme issuer' });
    expect(key.key_id).toBe(didKeyFromEd25519(crypto.ed25519PublicKey(key.seed)));
    expect(parseKeyFile(readFileSync(publicFile, 'utf8'))).toEqual([
      { key_id: key.key_id, algorithm: 'Ed25519', public_key: key.public_key, label: 'Acme issuer' },
    ]);
    expect(result.stdout).toContain(key.key_id);
    expect(result.stdout).toContain(privateFile);
    expect(result.stdout).toContain(publicFile);
    const seedText = (JSON.parse(readFileSync(privateFile, 'utf8')) as { seed: string }).seed;
    expect(result.stdout).not.toContain(seedText);
  });

  it('never replaces a key without --force, and with it writes a new key still 0600', async () => {
    const out = join(dir, 'again');
    expect((await evroom(['keys', 'new', '--alg', 'ed25519', '--out', out, '--name', 'issuer'])).code).toBe(0);
    const privateFile = join(out, 'issuer.private.json');
    const before = readFileSync(privateFile, 'utf8');
    const refused = await evroom(['keys', 'new', '--alg', 'ed25519', '--out', out, '--name', 'issuer']);
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr: `evroom: keys new: ${privateFile} already exists; pass --force to replace it (the old key is then lost)\n`,
    });
    expect(readFileSync(privateFile, 'utf8')).toBe(before);
    const forced = await evroom([
      'keys',
      'new',
      '--alg',
      'ed25519',
      '--out',
      out,
      '--name',
      'issuer',
      '--force',
      '--json',
    ]);
    expect(forced.code).toBe(0);
    const answer = JSON.parse(forced.stdout) as {
      key_id: string;
      algorithm: string;
      private_key_file: string;
      public_key_file: string;
    };
    expect(answer).toMatchObject({
      algorithm: 'Ed25519',
      private_key_file: privateFile,
      public_key_file: join(out, 'issuer.public.json'),
    });
    expect(readFileSync(privateFile, 'utf8')).not.toBe(before);
    expect(mode(privateFile)).toBe(0o600);
    expect(parsePrivateKeyFile(readFileSync(privateFile, 'utf8'), crypto).key_id).toBe(answer.key_id);
  });

  it('makes ML-DSA-65 keys only with a did:svc or did:web key id', async () => {
    const out = join(dir, 'pq');
    const missing = await evroom(['keys', 'new', '--alg', 'ml-dsa-65', '--out', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      'evroom: keys new: an ML-DSA-65 key needs --key-id, a did:svc:<id> or did:web:<host>[:path] name (did:key names Ed25519 keys only)\n',
    );
    expect(existsSync(out)).toBe(false);
    const made = await evroom(['keys', 'new', '--alg', 'ML-DSA-65', '--out', out, '--key-id', 'did:web:acme.example']);
    expect(made.code).toBe(0);
    const key = parsePrivateKeyFile(readFileSync(join(out, 'ml-dsa-65.private.json'), 'utf8'), crypto);
    expect(key).toMatchObject({ key_id: 'did:web:acme.example', algorithm: 'ML-DSA-65' });
    expect(key.public_key).toEqual(crypto.mldsa65KeyGen(key.seed).publicKey);
    const [entry] = parseKeyFile(readFileSync(join(out, 'ml-dsa-65.public.json'), 'utf8'));
    expect(entry?.public_key).toEqual(key.public_key);
  });

  it.each([
    [['keys'], 'keys: name an action: evroom keys new --alg ed25519 --out DIR. See: evroom keys --help'],
    [['keys', 'old'], "keys: unknown action 'old'; the action is new. See: evroom keys --help"],
    [['keys', 'new', '--out', 'x'], 'keys new: --alg is required: ed25519 or ml-dsa-65'],
    [['keys', 'new', '--alg', 'rsa', '--out', 'x'], "keys new: unknown --alg 'rsa'; use ed25519 or ml-dsa-65"],
    [['keys', 'new', '--alg', 'ed25519'], 'keys new: --out DIR is required (the folder for the key files)'],
    [
      ['keys', 'new', '--alg', 'ed25519', '--out', 'x', '--name', '../up'],
      "keys new: --name '../up' is not a file base name",
    ],
    [
      ['keys', 'new', '--alg', 'ed25519', '--out', 'x', '--key-id', 'acme'],
      'keys new: "acme" is not an issuing key id',
    ],
    [
      ['keys', 'new', '--alg', 'ed25519', '--out', 'x', '--key-id', 'did:hive:typed-demo'],
      'keys new: "did:hive:typed-demo" is not an issuing key id',
    ],
    [['keys', 'new', '--alg', 'ed25519', '--out', 'x', '--seed', 'y'], 'keys: unknown option --seed'],
  ])('refuses %j with one line and exit 2, writing nothing', async (args, message) => {
    const result = await evroom(args.map((arg) => (arg === 'x' ? join(dir, 'never') : arg)));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(`evroom: ${message}`)).toBe(true);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });

  it('works as a real process and documents the key file format in --help', () => {
    const out = join(dir, 'process');
    const run = (args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const made = run(['keys', 'new', '--alg', 'ed25519', '--out', out, '--json']);
    expect(made.status).toBe(0);
    expect(mode(join(out, 'ed25519.private.json'))).toBe(0o600);
    const help = run(['keys', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('"evroom_private_key": 1');
    expect(help.stdout).toContain('--key-id ID');
    expect(help.stdout).toContain('Examples:');
  });
});
