import { describe, expect, it } from 'vitest';
import { createPortableProvider, hexEncode, utf8Encode } from '../../crypto';
import { parseJsonTree } from '../../json';
import { createVerifyContext } from '../../verify/context';
import type { FormatInput } from '../../verify/format-module';
import { verifyDocument } from '../../verify/verify';
import { signClassical } from './sign';
import { verifyClassical } from './verify';

const crypto = createPortableProvider();
const ctx = createVerifyContext(crypto, { now: new Date('2026-06-01T00:00:00Z') });
const seed = new Uint8Array(32).fill(1);

function checks(text: string): Record<string, string> {
  return Object.fromEntries(verifyDocument(text, ctx).checks.map((check) => [check.id, check.status]));
}

function edit(text: string, change: (doc: Record<string, unknown>) => void): string {
  const doc = JSON.parse(text) as Record<string, unknown>;
  change(doc);
  return JSON.stringify(doc);
}

describe('classical verification', () => {
  it('lists every check in order; absent optional bindings are unchecked, not passed', () => {
    const text = signClassical({ sequence: 1, a: 'b' }, seed, crypto, {
      rawPayload: false,
      sequence: false,
      alg: false,
    });
    const report = verifyDocument(text, ctx);
    expect(report.status).toBe('PASS');
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['schema', 'pass'],
      ['alg', 'pass'],
      ['raw_payload', 'unchecked'],
      ['sequence', 'unchecked'],
      ['signature', 'pass'],
    ]);
  });

  it('signs the UTF-8 of SKP: sorted keys by UTF-16 units, number spellings kept', () => {
    const payloadText = '{"\u20ac":1,"a":"\ud83d\ude00","b":1E3,"c":[0.10,-0]}';
    const text = signClassical(payloadText, seed, crypto);
    const doc = JSON.parse(text) as { raw_payload: string; signature: string };
    expect(doc.raw_payload).toBe('{"a":"\ud83d\ude00","b":1E3,"c":[0.10,-0],"\u20ac":1}');
    expect(hexEncode(crypto.ed25519Sign(utf8Encode(doc.raw_payload), seed))).toBe(doc.signature);
    expect(verifyDocument(text, ctx).status).toBe('PASS');
  });

  it('compares sequence exactly as written: 1 and 1.0 disagree, "1" and 1 disagree', () => {
    const text = signClassical('{"sequence":1}', seed, crypto);
    expect(checks(text)['sequence']).toBe('pass');
    const respelled = text.replace(/"sequence":1,"signature"/, '"sequence":1.0,"signature"');
    expect(respelled).not.toBe(text);
    const report = verifyDocument(respelled, ctx);
    expect(report.status).toBe('MISMATCH');
    expect(report.errors[0]?.message).toContain('1.0');
    expect(
      verifyDocument(
        edit(text, (doc) => (doc['sequence'] = '1')),
        ctx,
      ).status,
    ).toBe('MISMATCH');
  });

  it('keeps big sequence numbers apart that JavaScript numbers would merge', () => {
    const text = signClassical('{"sequence":9007199254740993}', seed, crypto);
    expect(verifyDocument(text, ctx).status).toBe('PASS');
    const other = text.replace('"sequence":9007199254740993,"signature"', '"sequence":9007199254740992,"signature"');
    expect(other).not.toBe(text);
    expect(verifyDocument(other, ctx).status).toBe('MISMATCH');
  });

  it('a top-level sequence with none in the payload is MISMATCH', () => {
    const text = signClassical({ a: 1 }, seed, crypto);
    const report = verifyDocument(
      edit(text, (doc) => (doc['sequence'] = 1)),
      ctx,
    );
    expect(report.status).toBe('MISMATCH');
    expect(report.errors).toEqual([
      { code: 'sequence_mismatch', path: '/sequence', message: expect.stringContaining('none') },
    ]);
  });

  it('tampered payload without raw_payload is INVALID; with a forged signature too, MISMATCH wins', () => {
    const bare = signClassical({ sequence: 1, amount: 5 }, seed, crypto, { rawPayload: false });
    expect(verifyDocument(bare.replace('"amount":5', '"amount":6'), ctx).status).toBe('INVALID');
    const full = signClassical({ sequence: 1, amount: 5 }, seed, crypto);
    const both = edit(
      full.replace('"amount":5,"sequence":1}}', '"amount":6,"sequence":1}}'),
      (doc) => (doc['signature'] = 'ab'.repeat(64)),
    );
    const report = verifyDocument(both, ctx);
    expect(report.status).toBe('MISMATCH');
    expect(Object.fromEntries(report.checks.map((check) => [check.id, check.status]))).toMatchObject({
      raw_payload: 'fail',
      signature: 'fail',
    });
  });

  it('alg is matched exactly; an unsupported alg is not executed', () => {
    const text = signClassical({ sequence: 1 }, seed, crypto);
    const lower = verifyDocument(
      edit(text, (doc) => (doc['alg'] = 'ed25519')),
      ctx,
    );
    expect(lower.status).toBe('UNSUPPORTED');
    expect(lower.checks.find((check) => check.id === 'signature')?.status).toBe('unsupported');
    expect(
      verifyDocument(
        edit(text, (doc) => (doc['alg'] = 1)),
        ctx,
      ).status,
    ).toBe('MALFORMED');
  });

  it('reports every schema problem at once with its path', () => {
    const text = signClassical({ sequence: 1 }, seed, crypto);
    const report = verifyDocument(
      edit(text, (doc) => {
        doc['signature'] = (doc['signature'] as string).toUpperCase();
        doc['signed_payload'] = [1];
        doc['raw_payload'] = 5;
      }),
      ctx,
    );
    expect(report.status).toBe('MALFORMED');
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([
      ['invalid_type', '/signed_payload'],
      ['invalid_signature_encoding', '/signature'],
      ['invalid_type', '/raw_payload'],
    ]);
    expect(report.checks.filter((check) => check.status === 'unchecked').map((check) => check.id)).toEqual([
      'alg',
      'raw_payload',
      'sequence',
      'signature',
    ]);
  });

  it('names the wrong type of each member as plain values would', () => {
    const text = signClassical({ sequence: 1 }, seed, crypto);
    const cases: [unknown, string][] = [
      [[1], 'an array'],
      ['x', 'a string'],
      [null, 'null'],
      [true, 'a boolean'],
      [1.5, 'a number'],
    ];
    for (const [payload, described] of cases) {
      const report = verifyDocument(
        edit(text, (doc) => ((doc['signed_payload'] = payload), (doc['alg'] = { a: 1 }))),
        ctx,
      );
      expect(report.errors.map((error) => error.message)).toEqual([
        `"signed_payload" must be an object, got ${described}.`,
        '"alg" must be a string, got an object.',
      ]);
    }
    expect(verifyDocument('[1]', ctx).status).toBe('MALFORMED');
  });

  it('verifies from the tree alone, never asking for the plain value', () => {
    const tree = parseJsonTree(signClassical({ sequence: 1, amount: '1.50' }, seed, crypto));
    const input: FormatInput = {
      format: 'classical',
      tree,
      get value(): never {
        throw new Error('the plain value was asked for');
      },
      canonical: () => {
        throw new Error('the canonical text was asked for');
      },
      ctx,
      verifyNested: () => {
        throw new Error('not nested');
      },
    };
    const report = verifyClassical(input);
    expect(report.status).toBe('PASS');
    expect(report.checks.map((check) => check.status)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
  });

  it('a public key of the wrong length is MALFORMED', () => {
    const text = signClassical({ sequence: 1 }, seed, crypto);
    const report = verifyDocument(
      edit(text, (doc) => (doc['public_key_hex'] = (doc['public_key_hex'] as string).slice(2))),
      ctx,
    );
    expect(report.errors).toEqual([
      { code: 'invalid_public_key', path: '/public_key_hex', message: expect.any(String) },
    ]);
  });
});
