import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { b64uEncode, didKeyFromEd25519 } from '../../src-shared/crypto';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { loadOrCreateSigningKey, SIGNING_KEY_PATH, SigningKeyError } from './signing-key';

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
    const cases = [
      'not json',
      '{"key_id":"x","key_id":"y"}',
      JSON.stringify({ key_id: didKeyFromEd25519(other), algorithm: 'Ed25519', public_key: b64uEncode(other), seed_b64u: b64uEncode(seed), created_at: '2026-11-01T12:00:00Z' }),
      JSON.stringify({ algorithm: 'Ed25519', seed_b64u: 'short' }),
      JSON.stringify({ extra: true }),
    ];
    for (const text of cases) {
      fs.writeFileSync(file, text);
      expect(() => loadOrCreateSigningKey(directory, crypto)).toThrow(SigningKeyError);
      expect(fs.readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('checks its arguments', () => {
    expect(() => loadOrCreateSigningKey('', crypto)).toThrow(TypeError);
  });
});
