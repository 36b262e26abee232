import { describe, expect, it } from 'vitest';
import { createPortableProvider, hexDecode, hexEncode, utf8Encode } from '../../crypto';
import { fromPlain } from '../../json';
import { createVerifyContext, type KeyEntry, type VerifyContext } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import type { Report } from '../../verify/report';
import { verifyDocument } from '../../verify/verify';
import { signTypedPq } from './sign';
import { aggregateRoot, detectTypedPq, typedPqChecks, typedPqHash } from './verify';

const crypto = createPortableProvider();
const NOW = new Date('2026-06-01T00:00:00.000Z');
const signer = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x61));
const pinned: KeyEntry = {
  key_id: 'did:hive:typed-demo',
  algorithm: 'ML-DSA-65',
  public_key: signer.publicKey,
  label: 'PQ key',
  status: 'pinned',
};
const document = signTypedPq(
  [
    { text: 'a', type: 'reasoning' },
    { text: 'b', type: 'retrieval' },
    { text: 'c', type: 'final' },
  ],
  signer.secretKey,
  signer.publicKey,
  crypto,
  { signTypes: ['reasoning', 'final'], issuedAt: NOW.toISOString() },
);

function context(options: Partial<Omit<VerifyContext, 'crypto'>> = {}): VerifyContext {
  return createVerifyContext(crypto, { now: NOW, ...options });
}

function verify(value: unknown, ctx: VerifyContext = context()): Report {
  return verifyDocument(typeof value === 'string' ? value : JSON.stringify(value), ctx);
}

function edit(change: (copy: { envelope: JsonObject; fragments: JsonObject[] } & JsonObject) => void): JsonObject {
  const copy = JSON.parse(JSON.stringify(document)) as { envelope: JsonObject; fragments: JsonObject[] } & JsonObject;
  change(copy);
  return copy;
}

function codes(report: Report): [string, string][] {
  return report.errors.map((error) => [error.code, error.path]);
}

describe('typed-pq verification', () => {
  it('a valid attestation is PASS and unpinned; a pinned entry with its bytes makes it trusted, revoked or expired', () => {
    expect(verify(document)).toMatchObject({ format: 'typed-pq', status: 'PASS', trust: { status: 'unpinned' } });
    expect(verify(document, context({ pinned: [pinned] })).trust).toMatchObject({
      status: 'trusted',
      key_id: 'did:hive:typed-demo',
    });
    expect(verify(document, context({ pinned: [{ ...pinned, status: 'revoked' }] })).trust.status).toBe('revoked');
    const expired = { ...pinned, not_after: '2026-01-01T00:00:00Z' };
    expect(verify(document, context({ pinned: [expired] })).trust.status).toBe('expired');
    // A key given with the input (--keys) is not pinned: still unpinned.
    expect(verify(document, context({ advertised: [pinned] })).trust.status).toBe('unpinned');
  });

  it('plans its checks per fragment and lists the unattested one unchecked', () => {
    const report = verify(document);
    expect(report.checks.map((check) => check.id)).toEqual(typedPqChecks(3));
    expect(report.checks.map((check) => check.status)).toEqual([
      'pass', // schema
      'pass', // version
      'pass', // sig_scheme
      'pass', // hash_suite
      'pass', // agg_mode
      'pass', // fragments
      'pass',
      'unchecked',
      'pass',
      'pass', // counts
      'pass', // agg_root
      'pass', // merkle_root
      'unchecked', // policy
      'pass', // payload_digest
      'pass', // signature
      'unchecked', // unsigned
    ]);
  });

  it('an afir.attestation of another version is UNSUPPORTED before any shape check', () => {
    const report = verify({ envelope: { object: 'afir.attestation', version: '9.0.0', anything: true } });
    expect(report).toMatchObject({ format: 'typed-pq', status: 'UNSUPPORTED' });
    expect(codes(report)).toEqual([['unsupported_version', '/envelope/version']]);
  });

  it('another scheme, suite and aggregation are each UNSUPPORTED, not MALFORMED', () => {
    for (const [member, value, code] of [
      ['sig_scheme', 'slh-dsa', 'unsupported_scheme'],
      ['hash_suite', 'blake3', 'unsupported_hash_suite'],
      ['agg_mode', 'tree', 'unsupported_aggregation'],
    ] as const) {
      const report = verify(edit((copy) => (copy.envelope[member] = value)));
      expect(report.status, member).toBe('UNSUPPORTED');
      expect(codes(report)).toEqual([[code, `/envelope/${member}`]]);
      expect(report.checks.find((check) => check.id === 'signature')?.status).toBe('unchecked');
    }
  });

  it('reads hash_suite case-insensitively, as the typed signer does (hash_suite is not signed)', () => {
    const sha384 = signTypedPq([{ text: 'a', type: 'final' }], signer.secretKey, signer.publicKey, crypto, {
      hashSuite: 'sha-384',
      issuedAt: NOW.toISOString(),
    });
    for (const name of ['SHA-384', 'Sha-384']) {
      const upper = JSON.parse(JSON.stringify(sha384)) as { envelope: JsonObject };
      upper.envelope['hash_suite'] = name;
      const report = verify(upper);
      expect(report.status, name).toBe('PASS');
      expect(report.checks.find((check) => check.id === 'hash_suite')?.detail).toContain('sha-384');
    }
    const upper256 = edit((copy) => (copy.envelope['hash_suite'] = 'SHA-256'));
    expect(verify(upper256).status).toBe('PASS');
    // Lowercased SHA-384 over SHA-256 digests is still the wrong length, as for the producer.
    expect(codes(verify(edit((copy) => (copy.envelope['hash_suite'] = 'SHA-384'))))).toContainEqual([
      'digest_length_mismatch',
      expect.any(String),
    ]);
  });

  it('shape problems are MALFORMED with their paths', () => {
    const cases: [string, (copy: { envelope: JsonObject; fragments: JsonObject[] } & JsonObject) => void, string][] = [
      ['missing payload_digest', (copy) => delete copy.envelope['payload_digest'], 'missing_property'],
      ['an extra input member', (copy) => ((copy.fragments[0] as JsonObject)['text'] = 'a'), 'unknown_property'],
      ['fragment_count not an integer', (copy) => (copy.envelope['fragment_count'] = 1.5), 'wrong_type'],
      ['both input arrays', (copy) => (copy['fragments_canon'] = copy.fragments), 'ambiguous_fragments'],
      [
        'a repeated fragment id',
        (copy) => ((copy.envelope['fragments'] as JsonObject[])[1]!['fragment_id'] = 'f1'),
        'duplicate_fragment_id',
      ],
      ['a short signature', (copy) => (copy.envelope['envelope_signature'] = 'AAAA'), 'invalid_signature_encoding'],
      ['a short public key', (copy) => (copy.envelope['public_key'] = 'AAAA'), 'invalid_public_key'],
    ];
    for (const [name, change, code] of cases) {
      const report = verify(edit(change));
      expect(report.status, name).toBe('MALFORMED');
      expect(
        report.errors.map((error) => error.code),
        name,
      ).toContain(code);
      expect(report.trust.status).toBe('not_applicable');
    }
    expect(verify('[1]')).toMatchObject({ status: 'MALFORMED' });
  });

  it('an input that is not a fragment of the envelope is MISMATCH; a changed fragment type too', () => {
    const stray = verify(edit((copy) => copy.fragments.push({ ...copy.fragments[0], fragment_id: 'extra' })));
    expect(stray.status).toBe('MISMATCH');
    expect(codes(stray)).toEqual([['fragment_not_in_envelope', '/fragments/3']]);
    const retyped = verify(
      edit((copy) => ((copy.envelope['fragments'] as JsonObject[])[1]!['fragment_type'] = 'final')),
    );
    expect(retyped.status).toBe('MISMATCH');
    expect(codes(retyped)).toEqual([['fragment_type_mismatch', '/envelope/fragments/1/fragment_type']]);
  });

  it('an unattested fragment without input is unchecked, not a failure', () => {
    const report = verify(edit((copy) => copy.fragments.splice(1, 1)));
    expect(report.status).toBe('PASS');
    expect(report.checks.find((check) => check.id === 'fragment.1')?.status).toBe('unchecked');
  });

  it('recognizes documents by envelope.object, never by the presence of envelope', () => {
    const detect = (value: unknown) => detectTypedPq(fromPlain(value as never));
    expect(detect(document)).toBe('typed-pq');
    expect(detect((document as { envelope: JsonObject }).envelope)).toBe('typed-pq');
    expect(detect({ envelope: {}, fragments: [] })).toBeUndefined();
    expect(
      detect({ envelope: { object: 'something.else', sig_scheme: 'x', envelope_signature: 'y' } }),
    ).toBeUndefined();
    const marks = { sig_scheme: 'ml-dsa-65', envelope_signature: 'AAAA' };
    expect(detect({ envelope: { object: 'sigr.chain.receipt', ...marks } })).toBeUndefined();
    expect(detect({ object: 'sigr.chain.receipt', ...marks })).toBeUndefined();
    expect(detect({ envelope: { object: 'sigr.bond.terms', ...marks } })).toBe('unknown');
    expect(detect({ envelope: { object: 'sigr.bond.terms' } })).toBeUndefined();
    const report = verify({ ok: true, envelope: { object: 'sigr.consensus.panel', ...marks } });
    expect(report).toMatchObject({ format: 'unknown', status: 'UNSUPPORTED' });
    expect(report.errors[0]).toMatchObject({
      code: 'unsupported_format',
      message: expect.stringContaining('sigr.consensus.panel'),
    });
  });

  it('aggregates as the producer does: sorted, odd last node paired with itself, empty merkle root', () => {
    const hash = typedPqHash('sha-256', crypto);
    const [a, b, c] = ['x', 'y', 'z'].map((text) => hash(utf8Encode(text))) as [Uint8Array, Uint8Array, Uint8Array];
    const sorted = [a, b, c].map(hexEncode).sort().map(hexDecode) as [Uint8Array, Uint8Array, Uint8Array];
    const pair = (left: Uint8Array, right: Uint8Array) => hash(new Uint8Array([...left, ...right]));
    expect(aggregateRoot([c, a, b], 'merkle', hash)).toEqual(
      pair(pair(sorted[0], sorted[1]), pair(sorted[2], sorted[2])),
    );
    expect(aggregateRoot([c, a, b], 'linear', hash)).toEqual(
      hash(new Uint8Array([...sorted[0], ...sorted[1], ...sorted[2]])),
    );
    expect(aggregateRoot([], 'merkle', hash)).toEqual(new Uint8Array(0));
    expect(aggregateRoot([], 'linear', hash)).toEqual(hash(new Uint8Array(0)));
    expect(() => aggregateRoot([new Uint8Array(31)], 'linear', hash)).toThrow(RangeError);
    expect(typedPqHash('sha-384', crypto).length).toBe(48);
    expect(() => typedPqHash('md5' as never, crypto)).toThrow(RangeError);
    expect(() => typedPqChecks(-1)).toThrow(RangeError);
  });
});
