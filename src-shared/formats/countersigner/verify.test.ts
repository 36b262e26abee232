import { describe, expect, it } from 'vitest';
import { b64Encode, concatBytes, createPortableProvider, hexEncode, utf8Encode } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import { verifyDocument } from '../../verify/verify';
import { signCountersigner } from './sign';
import { COUNTERSIGNER_NOTE } from './verify';

const crypto = createPortableProvider();
const ctx = createVerifyContext(crypto, { now: new Date('2026-06-01T00:00:00Z') });
const seed = new Uint8Array(32).fill(3);
const canonical = '{"receipt":"r-1"}';

function edit(doc: object, change: (copy: Record<string, unknown>) => void): string {
  const copy = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  change(copy);
  return JSON.stringify(copy);
}

describe('countersigner verification', () => {
  it('always lists freshness and consistency as unchecked, with the independence note', () => {
    const report = verifyDocument(JSON.stringify(signCountersigner(canonical, seed, crypto)), ctx);
    expect(report.status).toBe('PASS');
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['schema', 'pass'],
      ['signed_over', 'pass'],
      ['countersignature', 'pass'],
      ['inclusion', 'pass'],
      ['checkpoint_freshness', 'unchecked'],
      ['log_consistency', 'unchecked'],
    ]);
    expect(report.notes).toEqual([COUNTERSIGNER_NOTE]);
    const broken = verifyDocument('{"signed_over":1,"countersignature":2}', ctx);
    expect(broken.status).toBe('MALFORMED');
    expect(broken.notes).toEqual([COUNTERSIGNER_NOTE]);
    expect(broken.checks.filter((check) => check.status === 'unchecked').map((check) => check.id)).toContain(
      'log_consistency',
    );
  });

  it('folds RFC 9162 BLAKE3 trees of many shapes', () => {
    for (const size of [1, 2, 3, 5, 8, 13]) {
      for (const index of [0, Math.floor(size / 2), size - 1]) {
        const others = Array.from({ length: size - 1 }, (_, i) => crypto.blake3(Uint8Array.of(i)));
        const record = signCountersigner(canonical, seed, crypto, { others, leafIndex: index });
        expect(record['tree_size']).toBe(size);
        expect(verifyDocument(JSON.stringify(record), ctx).status, `${index} of ${size}`).toBe('PASS');
      }
    }
  });

  it('hashes the 32 raw digest bytes as the leaf, as RFC 9162 with BLAKE3', () => {
    // A one-leaf tree's root is the leaf hash itself: BLAKE3(0x00 || digest bytes).
    const record = signCountersigner(canonical, seed, crypto);
    const digest = crypto.blake3(utf8Encode(canonical));
    expect(record['signed_over']).toBe(hexEncode(digest));
    expect(record['root']).toBe(hexEncode(crypto.blake3(concatBytes(Uint8Array.of(0), digest))));
    expect(record['path']).toEqual([]);
    // The hex text as the leaf would be a different tree: refused.
    const textLeaf = hexEncode(crypto.blake3(concatBytes(Uint8Array.of(0), utf8Encode(hexEncode(digest)))));
    expect(
      verifyDocument(
        edit(record, (copy) => (copy['root'] = textLeaf)),
        ctx,
      ).status,
    ).toBe('MISMATCH');
  });

  it('the countersignature covers the canonical text, not the digest', () => {
    const record = signCountersigner(canonical, seed, crypto);
    const overDigest = b64Encode(crypto.ed25519Sign(crypto.blake3(utf8Encode(canonical)), seed));
    const report = verifyDocument(
      edit(record, (copy) => (copy['countersignature'] = overDigest)),
      ctx,
    );
    expect(report.status).toBe('INVALID');
  });

  it.each<[string, (copy: Record<string, unknown>) => void, string, string]>([
    ['leaf_index outside the tree', (copy) => (copy['leaf_index'] = 1), 'invalid_leaf_index', '/leaf_index'],
    ['fractional leaf_index', (copy) => (copy['leaf_index'] = 0.5), 'invalid_integer', '/leaf_index'],
    ['negative tree_size', (copy) => (copy['tree_size'] = -1), 'invalid_integer', '/tree_size'],
    ['uppercase root', (copy) => (copy['root'] = (copy['root'] as string).toUpperCase()), 'invalid_digest', '/root'],
    ['path not an array', (copy) => (copy['path'] = 'x'), 'invalid_type', '/path'],
    ['bad path element', (copy) => (copy['path'] = ['zz']), 'invalid_digest', '/path/0'],
    [
      'unpadded countersignature',
      (copy) => (copy['countersignature'] = (copy['countersignature'] as string).replace(/=+$/, '')),
      'invalid_signature_encoding',
      '/countersignature',
    ],
    [
      'canonical not a string',
      (copy) => (copy['signed_over_canonical'] = {}),
      'invalid_type',
      '/signed_over_canonical',
    ],
    ['extra member', (copy) => (copy['checkpoint'] = 'x'), 'unknown_property', '/checkpoint'],
  ])('%s is MALFORMED', (_name, change, code, path) => {
    const report = verifyDocument(edit(signCountersigner(canonical, seed, crypto), change), ctx);
    expect(report.status).toBe('MALFORMED');
    expect(report.errors.map((error) => [error.code, error.path])).toContainEqual([code, path]);
  });

  it('a leaf_index spelled 1.0 is MALFORMED even though it equals 1', () => {
    const text = JSON.stringify(signCountersigner(canonical, seed, crypto, { others: [new Uint8Array(32)] }));
    expect(verifyDocument(text, ctx).status).toBe('PASS');
    const report = verifyDocument(text.replace('"leaf_index":1', '"leaf_index":1.0'), ctx);
    expect(report.errors.map((error) => error.code)).toContain('invalid_integer');
  });

  it('refuses a path longer than any tree needs', () => {
    const report = verifyDocument(
      edit(signCountersigner(canonical, seed, crypto), (copy) => (copy['path'] = Array(65).fill('00'.repeat(32)))),
      ctx,
    );
    expect(report.errors.map((error) => error.code)).toContain('path_too_long');
  });
});
