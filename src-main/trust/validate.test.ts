import { describe, expect, it } from 'vitest';
import { didKeyFromEd25519 } from '../../src-shared/crypto';
import { TrustError } from './errors';
import {
  checkAlgorithm,
  checkKeyId,
  checkOptionalLabel,
  checkOptionalReason,
  checkOptionalTimestamp,
  checkPublicKey,
  checkSourceName,
  checkWindow,
} from './validate';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof TrustError ? error.code : `not a TrustError: ${String(error)}`;
  }
  return undefined;
}

describe('trust input checks', () => {
  it('accepts the key id shapes of PROTOCOL section 0', () => {
    const key = new Uint8Array(32).fill(3);
    for (const id of [
      'did:svc:evroom:k1',
      'did:web:acme.example',
      'did:web:acme.example:keys:1',
      didKeyFromEd25519(key),
      'did:foo:x',
      'did:hive:typed-demo',
      'test-key-001',
      'k'.repeat(256),
    ]) {
      expect(checkKeyId(id)).toBe(id);
    }
    for (const id of [
      '',
      'did:svc:',
      'did::x',
      'did:web:',
      'did:key:z6Mk0OIl',
      'did:svc:a b',
      'test key',
      'k\t1',
      'k'.repeat(257),
    ]) {
      expect(codeOf(() => checkKeyId(id))).toBe('invalid_key_id');
    }
    expect(() => checkKeyId(5)).toThrow(TypeError);
  });

  it('checks algorithms and key lengths', () => {
    expect(checkAlgorithm('ML-DSA-65')).toBe('ML-DSA-65');
    expect(codeOf(() => checkAlgorithm('Ed448'))).toBe('invalid_algorithm');
    expect(codeOf(() => checkPublicKey('did:svc:a', 'Ed25519', new Uint8Array(32)))).toBeUndefined();
    expect(codeOf(() => checkPublicKey('did:svc:a', 'Ed25519', new Uint8Array(64)))).toBe('invalid_public_key');
    expect(codeOf(() => checkPublicKey('did:svc:a', 'ML-DSA-65', new Uint8Array(1952)))).toBeUndefined();
    expect(codeOf(() => checkPublicKey('did:svc:a', 'ML-DSA-65', new Uint8Array(1953)))).toBe('invalid_public_key');
    const key = new Uint8Array(32).fill(3);
    expect(codeOf(() => checkPublicKey(didKeyFromEd25519(key), 'Ed25519', key))).toBeUndefined();
    expect(codeOf(() => checkPublicKey(didKeyFromEd25519(key), 'Ed25519', new Uint8Array(32)))).toBe(
      'did_key_mismatch',
    );
    expect(() => checkPublicKey('did:svc:a', 'Ed25519', [1, 2] as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('checks TS timestamps and windows', () => {
    expect(checkOptionalTimestamp('2024-02-29T23:59:59.123456789Z', 'not_before')).toBe(
      '2024-02-29T23:59:59.123456789Z',
    );
    expect(checkOptionalTimestamp(undefined, 'not_before')).toBeUndefined();
    expect(checkOptionalTimestamp(null, 'not_before')).toBeUndefined();
    for (const bad of [
      '2023-02-29T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00z',
      '2026-01-01',
      20260101,
    ]) {
      expect(codeOf(() => checkOptionalTimestamp(bad, 'not_after'))).toBe('invalid_timestamp');
    }
    expect(codeOf(() => checkWindow('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'))).toBeUndefined();
    expect(codeOf(() => checkWindow('2026-01-01T00:00:00.001Z', '2026-01-01T00:00:00Z'))).toBe('invalid_window');
    expect(codeOf(() => checkWindow(undefined, '2026-01-01T00:00:00Z'))).toBeUndefined();
  });

  it('checks labels, reasons and sources', () => {
    expect(checkOptionalLabel('Acme “prod” ✓')).toBe('Acme “prod” ✓');
    expect(codeOf(() => checkOptionalLabel(''))).toBe('invalid_label');
    expect(codeOf(() => checkOptionalLabel('a\nb'))).toBe('invalid_label');
    expect(codeOf(() => checkOptionalLabel('a\u0085b'))).toBe('invalid_label');
    expect(codeOf(() => checkOptionalLabel('x'.repeat(257)))).toBe('invalid_label');
    expect(checkOptionalReason('')).toBeUndefined();
    expect(codeOf(() => checkOptionalReason('x'.repeat(1025)))).toBe('invalid_reason');
    expect(checkSourceName('bundle:3')).toBe('bundle:3');
    expect(codeOf(() => checkSourceName(''))).toBe('invalid_source');
  });
});
