import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, didKeyFromEd25519, ed25519FromDidKey } from '../../src-shared/crypto';
import { KeyFileError } from '../../src-shared/verify/key-file';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { CliError } from './cli-error';
import {
  createPrivateKey,
  ensureDirectory,
  mldsaSecretKey,
  parsePrivateKeyFile,
  publicKeyEntry,
  readPrivateKeyFile,
  serializePrivateKeyFile,
  writeFileSafely,
} from './key-files';

const crypto = createNodeCryptoProvider();
const seed = new Uint8Array(32).fill(0x42);

function fileOf(members: Record<string, unknown>): string {
  return JSON.stringify(members);
}

function validMembers(): Record<string, unknown> {
  const key = createPrivateKey('Ed25519', crypto, { seed, label: 'Test' });
  return JSON.parse(serializePrivateKeyFile(key)) as Record<string, unknown>;
}

function parseError(text: string): KeyFileError {
  try {
    parsePrivateKeyFile(text, crypto);
  } catch (error) {
    if (error instanceof KeyFileError) return error;
    throw error;
  }
  throw new Error('expected a KeyFileError');
}

describe('private key files', () => {
  it('round-trips an Ed25519 key named by its did:key', () => {
    const key = createPrivateKey('Ed25519', crypto, { seed, label: 'Acme issuer' });
    expect(key.key_id).toBe(didKeyFromEd25519(crypto.ed25519PublicKey(seed)));
    expect(ed25519FromDidKey(key.key_id)).toEqual(key.public_key);
    const text = serializePrivateKeyFile(key);
    expect(Object.keys(JSON.parse(text) as object)).toEqual([
      'evroom_private_key',
      'key_id',
      'algorithm',
      'public_key',
      'seed',
      'label',
    ]);
    const parsed = parsePrivateKeyFile(text, crypto);
    expect(parsed).toEqual(key);
    expect(publicKeyEntry(parsed)).toEqual({
      key_id: key.key_id,
      algorithm: 'Ed25519',
      public_key: key.public_key,
      label: 'Acme issuer',
    });
  });

  it('round-trips an ML-DSA-65 key stored as its 32-byte seed', () => {
    const key = createPrivateKey('ML-DSA-65', crypto, { seed, keyId: 'did:svc:acme:pq1' });
    expect(key.public_key).toHaveLength(1952);
    const text = serializePrivateKeyFile(key);
    expect((JSON.parse(text) as { seed: string }).seed).toBe(b64uEncode(seed));
    const parsed = parsePrivateKeyFile(text, crypto);
    const secret = mldsaSecretKey(parsed, crypto);
    const message = new Uint8Array(32).fill(1);
    expect(crypto.mldsa65Verify(crypto.mldsa65Sign(message, secret), message, parsed.public_key)).toBe(true);
  });

  it('refuses key ids it cannot use', () => {
    expect(() => createPrivateKey('ML-DSA-65', crypto, { seed })).toThrow(/needs a key id/);
    expect(() =>
      createPrivateKey('Ed25519', crypto, { seed, keyId: didKeyFromEd25519(crypto.ed25519PublicKey(seed)) }),
    ).toThrow(/derived/);
    expect(() => createPrivateKey('Ed25519', crypto, { seed, keyId: 'acme' })).toThrow(TypeError);
    expect(() => createPrivateKey('Ed25519', crypto, { seed: new Uint8Array(31) })).toThrow(RangeError);
  });

  it.each([
    ['a public key file', JSON.stringify({ keys: [] }), 'public_key_file', ''],
    [
      'a wrong version',
      fileOf({ ...validMembers(), evroom_private_key: 2 }),
      'unsupported_version',
      '/evroom_private_key',
    ],
    ['an unknown member', fileOf({ ...validMembers(), secret_key: 'x' }), 'unknown_property', '/secret_key'],
    ['a missing seed', fileOf({ ...validMembers(), seed: undefined }), 'missing_property', '/seed'],
    ['a short seed', fileOf({ ...validMembers(), seed: b64uEncode(new Uint8Array(31)) }), 'invalid_seed', '/seed'],
    ['a padded seed', fileOf({ ...validMembers(), seed: `${b64uEncode(seed)}=` }), 'invalid_seed', '/seed'],
    [
      'another seed',
      fileOf({ ...validMembers(), seed: b64uEncode(new Uint8Array(32).fill(1)) }),
      'key_mismatch',
      '/public_key',
    ],
    ['an unknown algorithm', fileOf({ ...validMembers(), algorithm: 'RSA' }), 'invalid_algorithm', '/algorithm'],
    ['a bad key id', fileOf({ ...validMembers(), key_id: 'acme' }), 'invalid_key_id', '/key_id'],
    ['a long label', fileOf({ ...validMembers(), label: 'x'.repeat(300) }), 'invalid_label', '/label'],
    [
      'a duplicate member',
      serializePrivateKeyFile(createPrivateKey('Ed25519', crypto, { seed })).replace('"seed"', '"label": "a", "label"'),
      'duplicate_name',
      '/label',
    ],
  ])('refuses %s with a code and a path', (_name, text, code, path) => {
    const error = parseError(text);
    expect([error.code, error.path]).toEqual([code, path]);
    // The secret never shows up in what a user reads.
    expect(error.message).not.toContain(b64uEncode(seed));
  });

  it('refuses a did:key that names another key than the seed', () => {
    const other = didKeyFromEd25519(crypto.ed25519PublicKey(new Uint8Array(32).fill(9)));
    expect(parseError(fileOf({ ...validMembers(), key_id: other })).code).toBe('did_key_mismatch');
  });

  it('refuses an ML-DSA-65 key with a did:key id', () => {
    const key = createPrivateKey('ML-DSA-65', crypto, { seed, keyId: 'did:svc:acme:pq1' });
    const members = JSON.parse(serializePrivateKeyFile(key)) as Record<string, unknown>;
    members['key_id'] = didKeyFromEd25519(crypto.ed25519PublicKey(seed));
    expect(parseError(fileOf(members)).path).toBe('/key_id');
  });
});

describe('reading and writing key files on disk', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evroom-key-files-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the file and member in a read error, and warns when others may read the file', async () => {
    const path = join(dir, 'key.private.json');
    writeFileSync(path, serializePrivateKeyFile(createPrivateKey('Ed25519', crypto, { seed })), { mode: 0o600 });
    chmodSync(path, 0o600);
    const warnings: string[] = [];
    await readPrivateKeyFile(path, crypto, (line) => warnings.push(line));
    expect(warnings).toEqual([]);
    chmodSync(path, 0o644);
    await readPrivateKeyFile(path, crypto, (line) => warnings.push(line));
    expect(warnings).toEqual([
      `warning: key file ${path} may be read by other users (mode 644); run: chmod 600 ${path}`,
    ]);

    const bad = join(dir, 'bad.private.json');
    writeFileSync(bad, fileOf({ ...validMembers(), seed: 'AAAA' }));
    await expect(readPrivateKeyFile(bad, crypto, () => undefined, 'device key file')).rejects.toThrow(
      new CliError(`device key file ${bad} at /seed: "seed" must be 32 bytes as unpadded base64url.`),
    );
  });

  it('writes exclusively, replaces only with force, and gives the file exactly the mode asked', async () => {
    const path = join(dir, 'out.json');
    await writeFileSafely(path, 'one\n', { mode: 0o600 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await expect(writeFileSafely(path, 'two\n', { mode: 0o600 })).rejects.toThrow(/already exists; pass --force/);
    expect(readFileSync(path, 'utf8')).toBe('one\n');
    chmodSync(path, 0o666);
    await writeFileSafely(path, 'three\n', { mode: 0o600, force: true });
    expect(readFileSync(path, 'utf8')).toBe('three\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('creates a missing folder with the mode asked and refuses a file in its place', async () => {
    const folder = join(dir, 'a', 'b');
    await ensureDirectory(folder, 0o700);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const file = join(dir, 'plain');
    writeFileSync(file, '');
    await expect(ensureDirectory(file, 0o700)).rejects.toThrow(`${file}: is not a folder`);
  });
});
