import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../crypto';
import type { CryptoProvider } from '../crypto/provider';
import { parseJsonTree } from '../json';
import { signClassical } from '../formats/classical/sign';
import { createVerifyContext } from './context';
import { STATUS_PRECEDENCE } from './report';
import { verifyDocument, verifyParsed } from './verify';

const crypto = createPortableProvider();
const ctx = createVerifyContext(crypto, { now: new Date('2026-06-01T00:00:00Z') });
const seed = new Uint8Array(32).fill(1);

function wellFormed(report: ReturnType<typeof verifyDocument>): void {
  expect(report.report_version).toBe('1');
  expect(STATUS_PRECEDENCE).toContain(report.status);
  expect(report.checks.length).toBeGreaterThan(0);
  // An `internal` error would mean a verifier met input it did not anticipate.
  expect(report.errors.map((error) => error.code)).not.toContain('internal');
  if (report.status !== 'PASS')
    expect(report.errors.length + report.checks.filter((check) => check.status !== 'pass').length).toBeGreaterThan(0);
}

describe('verifyDocument', () => {
  it('turns a strict-parse failure into MALFORMED with the parser code and path', () => {
    const report = verifyDocument('{"a":{"b":1,"b":2}}', ctx);
    expect(report).toMatchObject({ format: 'unknown', status: 'MALFORMED', trust: { status: 'not_applicable' } });
    expect(report.errors).toEqual([
      { code: 'duplicate_name', path: '/a/b', message: expect.stringContaining('offset') },
    ]);
    expect(report.checks).toEqual([{ id: 'parse', status: 'fail', detail: expect.any(String) }]);
  });

  it('reports invalid UTF-8 in bytes as MALFORMED', () => {
    const report = verifyDocument(Uint8Array.of(0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d), ctx);
    expect(report.status).toBe('MALFORMED');
    expect(report.errors[0]?.code).toBe('invalid_utf8');
  });

  it('names the known formats for an unknown document', () => {
    const report = verifyDocument('{"receipt":1}', ctx);
    expect(report).toMatchObject({ format: 'unknown', status: 'MALFORMED' });
    expect(report.errors[0]?.code).toBe('unknown_format');
    expect(report.errors[0]?.message).toContain('classical');
    expect(report.errors[0]?.message).toContain('envelope/svc-receipt-v1');
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        wellFormed(verifyDocument(text, ctx));
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        wellFormed(verifyDocument(bytes, ctx));
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary JSON shaped like the known formats', () => {
    const member = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('', 'A256GCM', 'svc-receipt-v1', 'Ed25519', true, 0, 'did:svc:a'),
      // A countersigner's signed_over, so its verifier is reached too.
      fc.dictionary(
        fc.constantFrom('seq', 'record_digest', 'operator_signature_digest', 'countersigner_time', 'prev_leaf', 'leaf'),
        fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constantFrom(1, 1.5, '0'.repeat(64))),
        { maxKeys: 7 },
      ),
    );
    const names = [
      'signed_payload',
      'signature',
      'public_key_hex',
      'alg',
      'raw_payload',
      'sequence',
      'signed_over',
      'signed_over_canonical',
      'countersignature',
      'countersigner_public_key_b64',
      'root',
      'audit_path',
      'log_root_after',
      'seq',
      'countersigned',
      'record',
      'sealed',
      'enc',
      'key_id',
      'iv',
      'ciphertext',
      'tag',
      'aad',
      'v',
      'signatures',
      'receipt_id',
      'issued_at',
      '__proto__',
    ];
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...names), member, { maxKeys: 10 }), (value) => {
        wellFormed(verifyDocument(JSON.stringify(value), ctx));
      }),
      { numRuns: 500 },
    );
  });

  it('turns an unexpected exception into an internal, non-PASS report', () => {
    const broken: CryptoProvider = {
      ...crypto,
      name: 'broken',
      ed25519Verify() {
        throw new Error('provider exploded');
      },
    };
    const report = verifyDocument(signClassical({ sequence: 1 }, seed, crypto), createVerifyContext(broken));
    expect(report).toMatchObject({ format: 'classical', status: 'INDETERMINATE' });
    expect(report.errors).toEqual([
      { code: 'internal', path: '', message: expect.stringContaining('provider exploded') },
    ]);
  });

  it('refuses a bad input type or context with TypeError', () => {
    expect(() => verifyDocument(5 as never, ctx)).toThrow(TypeError);
    expect(() => verifyDocument('{}', undefined as never)).toThrow(TypeError);
    expect(() => verifyDocument('{}', { ...ctx, crypto: undefined as never })).toThrow(TypeError);
    expect(() => verifyDocument('{}', { ...ctx, pinned: undefined as never })).toThrow(TypeError);
    expect(() => verifyDocument('{}', { ...ctx, now: new Date(Number.NaN) })).toThrow(TypeError);
  });
});

describe('verifyParsed', () => {
  it('verifies a tree parsed elsewhere', () => {
    const text = signClassical('{"sequence":1,"price":1.50}', seed, crypto);
    expect(verifyParsed(parseJsonTree(text), ctx).status).toBe('PASS');
    expect(verifyParsed(parseJsonTree(text.replace('1.50', '1.5')), ctx).status).toBe('MISMATCH');
  });

  it('refuses a non-tree and a bad depth', () => {
    expect(() => verifyParsed({} as never, ctx)).toThrow(TypeError);
    expect(() => verifyParsed(parseJsonTree('{}'), ctx, { depth: -1 })).toThrow(TypeError);
  });
});
