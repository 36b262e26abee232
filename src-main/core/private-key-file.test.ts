import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, didKeyFromEd25519 } from '../../src-shared/crypto';
import { createNodeCryptoProvider } from './node-crypto-provider';
import {
  createPrivateKey,
  derivePublicKey,
  MAX_PRIVATE_KEY_FILE_BYTES,
  mldsaSecretKey,
  parsePrivateKeyFile,
  PrivateKeyFileError,
  readPrivateKeyFile,
  serializePrivateKeyFile,
  writePrivateKeyFile,
} from './private-key-file';

const crypto = createNodeCryptoProvider();
const seed = new Uint8Array(32).fill(0x5a);
const SEED_TEXT = b64uEncode(seed);

function thrown(action: () => unknown): PrivateKeyFileError {
  try {
    action();
  } catch (error) {
    if (error instanceof PrivateKeyFileError) return error;
    throw error;
  }
  throw new Error('expected a PrivateKeyFileError');
}

describe('the private key file format', () => {
  it('round-trips both algorithms, with the optional label and created_at', () => {
    const ed = createPrivateKey('Ed25519', crypto, {
      seed,
      label: 'Signer',
      createdAt: new Date('2026-11-01T12:00:00.000Z'),
    });
    expect(ed.key_id).toBe(didKeyFromEd25519(crypto.ed25519PublicKey(seed)));
    const text = serializePrivateKeyFile(ed);
    expect(Object.keys(JSON.parse(text) as object)).toEqual([
      'evroom_private_key',
      'key_id',
      'algorithm',
      'public_key',
      'seed',
      'label',
      'created_at',
    ]);
    expect(parsePrivateKeyFile(text, crypto)).toEqual(ed);
    const plain = createPrivateKey('Ed25519', crypto, { seed });
    expect(Object.keys(JSON.parse(serializePrivateKeyFile(plain)) as object)).toEqual([
      'evroom_private_key',
      'key_id',
      'algorithm',
      'public_key',
      'seed',
    ]);
    const pq = createPrivateKey('ML-DSA-65', crypto, { seed, keyId: 'did:svc:acme:pq1' });
    const back = parsePrivateKeyFile(serializePrivateKeyFile(pq), crypto);
    expect(back.public_key).toEqual(derivePublicKey('ML-DSA-65', seed, crypto));
    const message = new Uint8Array(32).fill(3);
    expect(
      crypto.mldsa65Verify(crypto.mldsa65Sign(message, mldsaSecretKey(back, crypto)), message, back.public_key),
    ).toBe(true);
  });

  it('refuses a bad member with PrivateKeyFileError naming the member, never the secret', () => {
    const members = JSON.parse(serializePrivateKeyFile(createPrivateKey('Ed25519', crypto, { seed }))) as Record<
      string,
      unknown
    >;
    const cases: [Record<string, unknown> | string, string, string][] = [
      [{ ...members, created_at: 'yesterday' }, 'invalid_created_at', '/created_at'],
      [
        { ...members, public_key: b64uEncode(crypto.ed25519PublicKey(new Uint8Array(32))) },
        'key_mismatch',
        '/public_key',
      ],
      [{ ...members, copy_of_seed: SEED_TEXT }, 'unknown_property', '/copy_of_seed'],
      [{ ...members, seed: `${SEED_TEXT}x` }, 'invalid_seed', '/seed'],
      [`{"seed": "${SEED_TEXT}", "seed": "${SEED_TEXT}"}`, 'duplicate_name', '/seed'],
    ];
    for (const [value, code, field] of cases) {
      const error = thrown(() =>
        parsePrivateKeyFile(typeof value === 'string' ? value : JSON.stringify(value), crypto),
      );
      expect(error).toMatchObject({ name: 'PrivateKeyFileError', code, field, path: '' });
      expect(error.message).not.toContain(SEED_TEXT);
    }
    expect(() => parsePrivateKeyFile(42 as unknown as string, crypto)).toThrow(TypeError);
  });
});

describe('private key files on disk', () => {
  let directory: string;
  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-private-key-'));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('writes 0600 into a new 0700 folder, atomically, and reads the key back with its mode', () => {
    const file = path.join(directory, 'new', 'deeper', 'signer.private.json');
    const key = createPrivateKey('Ed25519', crypto, { seed, label: 'Signer' });
    writePrivateKeyFile(file, key);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['signer.private.json']);
    expect(readPrivateKeyFile(file, crypto)).toEqual({ key, mode: 0o600 });
  });

  it('never replaces a key unless asked, and then replaces it whole', () => {
    const file = path.join(directory, 'replace.private.json');
    const first = createPrivateKey('Ed25519', crypto, { seed });
    const second = createPrivateKey('Ed25519', crypto, { seed: new Uint8Array(32).fill(1) });
    writePrivateKeyFile(file, first);
    const error = thrown(() => writePrivateKeyFile(file, second));
    expect(error).toMatchObject({ code: 'exists', path: file });
    expect(readPrivateKeyFile(file, crypto).key.key_id).toBe(first.key_id);
    fs.chmodSync(file, 0o644);
    writePrivateKeyFile(file, second, { replace: true });
    expect(readPrivateKeyFile(file, crypto)).toEqual({ key: second, mode: 0o600 });
    expect(fs.readdirSync(directory).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses what is not a private key file, naming the file', () => {
    const missing = path.join(directory, 'missing.json');
    expect(thrown(() => readPrivateKeyFile(missing, crypto))).toMatchObject({
      code: 'not_found',
      path: missing,
      reason: 'no such file',
    });
    expect(thrown(() => readPrivateKeyFile(directory, crypto))).toMatchObject({ code: 'not_a_file', path: directory });
    const empty = path.join(directory, 'empty.json');
    fs.writeFileSync(empty, '');
    expect(thrown(() => readPrivateKeyFile(empty, crypto)).code).toBe('empty');
    const big = path.join(directory, 'big.json');
    fs.writeFileSync(big, ' '.repeat(MAX_PRIVATE_KEY_FILE_BYTES + 1));
    expect(thrown(() => readPrivateKeyFile(big, crypto)).code).toBe('too_large');
    const binary = path.join(directory, 'binary.json');
    fs.writeFileSync(binary, Buffer.from([0xff, 0xfe, 0x00]));
    expect(thrown(() => readPrivateKeyFile(binary, crypto)).code).toBe('not_utf8');
    const bad = path.join(directory, 'bad.private.json');
    fs.writeFileSync(
      bad,
      JSON.stringify({
        ...JSON.parse(serializePrivateKeyFile(createPrivateKey('Ed25519', crypto, { seed }))),
        seed: 'AAAA',
      }),
    );
    const parse = thrown(() => readPrivateKeyFile(bad, crypto));
    expect(parse).toMatchObject({ code: 'invalid_seed', path: bad, field: '/seed' });
    expect(parse.message).toBe(`${bad} at /seed: "seed" must be 32 bytes as unpadded base64url.`);
    if (process.platform !== 'win32') {
      const fifo = path.join(directory, 'fifo.private.json');
      execFileSync('mkfifo', [fifo]);
      expect(thrown(() => readPrivateKeyFile(fifo, crypto)).code).toBe('not_a_file');
    }
  });
});
