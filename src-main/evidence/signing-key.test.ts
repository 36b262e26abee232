import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { b64uEncode, didKeyFromEd25519 } from '../../src-shared/crypto';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { createPrivateKey, parsePrivateKeyFile, serializePrivateKeyFile } from '../core/private-key-file';
import { loadOrCreateSigningKey, SIGNING_KEY_LABEL, SIGNING_KEY_PATH, SigningKeyError } from './signing-key';

const crypto = createNodeCryptoProvider();

describe('loadOrCreateSigningKey', () => {
  let directory: string;
  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-key-'));
  });
  afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('creates a did:key Ed25519 key in a private file on first use, then loads the same key', () => {
    const first = loadOrCreateSigningKey(directory, crypto, { now: new Date('2026-11-01T12:00:00.000Z') });
    expect(first.created).toBe(true);
    expect(first.key.key_id).toBe(didKeyFromEd25519(first.key.public_key));
    expect(first.key.created_at).toBe('2026-11-01T12:00:00.000Z');
    const file = path.join(directory, SIGNING_KEY_PATH);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['local-signing-key.json']);
    const again = loadOrCreateSigningKey(directory, crypto);
    expect(again.created).toBe(false);
    expect(again.key.key_id).toBe(first.key.key_id);
    expect(Buffer.from(again.key.seed).equals(Buffer.from(first.key.seed))).toBe(true);
    const signature = crypto.ed25519Sign(new Uint8Array([1, 2, 3]), again.key.seed);
    expect(crypto.ed25519Verify(signature, new Uint8Array([1, 2, 3]), first.key.public_key)).toBe(true);
  });

  it('writes the key in the one private key file format every key of this program uses', () => {
    const { key } = loadOrCreateSigningKey(directory, crypto, { now: new Date('2026-11-01T12:00:00.000Z') });
    const text = fs.readFileSync(path.join(directory, SIGNING_KEY_PATH), 'utf8');
    expect(Object.keys(JSON.parse(text) as object)).toEqual([
      'evroom_private_key',
      'key_id',
      'algorithm',
      'public_key',
      'seed',
      'label',
      'created_at',
    ]);
    expect(parsePrivateKeyFile(text, crypto)).toEqual({
      key_id: key.key_id,
      algorithm: 'Ed25519',
      public_key: key.public_key,
      seed: key.seed,
      label: SIGNING_KEY_LABEL,
      created_at: '2026-11-01T12:00:00.000Z',
    });
  });

  it('reads a key file in the old shape and rewrites it, atomically, in the one format with the same key', () => {
    const file = path.join(directory, SIGNING_KEY_PATH);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const seed = new Uint8Array(32).fill(44);
    const publicKey = crypto.ed25519PublicKey(seed);
    const old = {
      key_id: didKeyFromEd25519(publicKey),
      algorithm: 'Ed25519',
      public_key: b64uEncode(publicKey),
      seed_b64u: b64uEncode(seed),
      created_at: '2025-03-04T05:06:07.000Z',
    };
    fs.writeFileSync(file, `${JSON.stringify(old, null, 2)}\n`, { mode: 0o600 });
    const loaded = loadOrCreateSigningKey(directory, crypto);
    expect(loaded.created).toBe(false);
    expect(loaded.key).toMatchObject({
      key_id: old.key_id,
      algorithm: 'Ed25519',
      public_key: publicKey,
      seed,
      created_at: old.created_at,
    });
    const rewritten = fs.readFileSync(file, 'utf8');
    expect(parsePrivateKeyFile(rewritten, crypto)).toEqual({
      key_id: old.key_id,
      algorithm: 'Ed25519',
      public_key: publicKey,
      seed,
      label: SIGNING_KEY_LABEL,
      created_at: old.created_at,
    });
    expect(rewritten).not.toContain('seed_b64u');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['local-signing-key.json']);
    // Loading again reads the new file: the same key, nothing rewritten.
    const before = fs.statSync(file).mtimeMs;
    expect(loadOrCreateSigningKey(directory, crypto).key.key_id).toBe(old.key_id);
    expect(fs.statSync(file).mtimeMs).toBe(before);
  });

  it('tightens a key file others can read', () => {
    const { key } = loadOrCreateSigningKey(directory, crypto);
    const file = path.join(directory, SIGNING_KEY_PATH);
    fs.chmodSync(file, 0o644);
    expect(loadOrCreateSigningKey(directory, crypto).key.key_id).toBe(key.key_id);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a damaged or inconsistent key file and never replaces it', () => {
    const file = path.join(directory, SIGNING_KEY_PATH);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const seed = new Uint8Array(32).fill(5);
    const other = crypto.ed25519PublicKey(new Uint8Array(32).fill(6));
    const pq = createPrivateKey('ML-DSA-65', crypto, { seed, keyId: 'did:svc:acme:pq' });
    const current = JSON.parse(serializePrivateKeyFile(createPrivateKey('Ed25519', crypto, { seed }))) as Record<
      string,
      unknown
    >;
    const cases = [
      'not json',
      '',
      '{"key_id":"x","key_id":"y"}',
      JSON.stringify({
        key_id: didKeyFromEd25519(other),
        algorithm: 'Ed25519',
        public_key: b64uEncode(other),
        seed_b64u: b64uEncode(seed),
        created_at: '2026-11-01T12:00:00Z',
      }),
      JSON.stringify({ algorithm: 'Ed25519', seed_b64u: 'short' }),
      JSON.stringify({ extra: true }),
      JSON.stringify({ ...current, public_key: b64uEncode(other) }),
      JSON.stringify({ ...current, created_at: 'yesterday' }),
      serializePrivateKeyFile(pq),
    ];
    for (const text of cases) {
      fs.writeFileSync(file, text);
      const error = (() => {
        try {
          loadOrCreateSigningKey(directory, crypto);
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(error, text).toBeInstanceOf(SigningKeyError);
      expect(error).toMatchObject({ code: 'signing_key_invalid' });
      // The secret is never part of what a user reads.
      expect((error as Error).message).not.toContain(b64uEncode(seed));
      expect(fs.readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('checks its arguments', () => {
    expect(() => loadOrCreateSigningKey('', crypto)).toThrow(TypeError);
  });
});
