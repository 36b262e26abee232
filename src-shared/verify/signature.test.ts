import { describe, expect, it } from 'vitest';
import { b64uEncode, createPortableProvider, hexEncode, utf8Encode } from '../crypto';
import { jcs } from '../json';
import { createVerifyContext, type KeyEntry } from './context';
import type { JsonObject } from './fields';
import { ed25519KeyEntry } from './keys';
import { ReportBuilder } from './report-builder';
import { checkEmbeddedEd25519, checkKeyedSignature, checkRuleD1, ruleD1Payload, signRuleD1 } from './signature';

const crypto = createPortableProvider();
const now = new Date('2026-06-01T00:00:00Z');
const seed = new Uint8Array(32).fill(4);
const keyId = 'did:svc:issuer:k1';
const advertised = [ed25519KeyEntry(crypto, keyId, seed)];
const ctx = createVerifyContext(crypto, { now, advertised });
const document: JsonObject = { key_id: keyId, issued_at: '2026-05-01T00:00:00.000Z', body: { amount: 1.5, note: 'x' } };

function runD1(doc: JsonObject, context = ctx) {
  const builder = new ReportBuilder('typed/example', ['schema', 'payload_sha256', 'signature']);
  builder.pass('schema');
  const key = checkRuleD1(builder, context, doc, keyId);
  return { report: builder.build(), key };
}

describe('Rule D1', () => {
  it('P is JCS without payload_sha256 and sig_b64u; the signature covers the 32 raw digest bytes', () => {
    const signed = signRuleD1(document, seed, crypto);
    expect(ruleD1Payload(signed)).toBe(jcs(document));
    const digest = crypto.sha256(utf8Encode(jcs(document)));
    expect(signed['payload_sha256']).toBe(hexEncode(digest));
    expect(signed['sig_b64u']).toBe(b64uEncode(crypto.ed25519Sign(digest, seed)));
  });

  it('a valid document passes with the key trust', () => {
    const { report, key } = runD1(signRuleD1(document, seed, crypto));
    expect(report.status).toBe('PASS');
    expect(key?.source).toBe('advertised');
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: keyId });
    const pinned = runD1(signRuleD1(document, seed, crypto), {
      ...ctx,
      pinned: [{ ...advertised[0]!, label: 'Issuer' }],
    });
    expect(pinned.report.trust).toMatchObject({ status: 'trusted', label: 'Issuer' });
  });

  it('changed content is MISMATCH at /payload_sha256', () => {
    const signed = signRuleD1(document, seed, crypto);
    const { report } = runD1({ ...signed, issued_at: '2026-05-02T00:00:00.000Z' });
    expect(report.status).toBe('MISMATCH');
    expect(report.errors.map((error) => [error.code, error.path])).toContainEqual([
      'digest_mismatch',
      '/payload_sha256',
    ]);
  });

  it('a matching digest with a foreign signature is INVALID', () => {
    const signed = signRuleD1(document, seed, crypto);
    const forged = signRuleD1(document, new Uint8Array(32).fill(5), crypto);
    const { report } = runD1({ ...signed, sig_b64u: forged['sig_b64u'] ?? '' });
    expect(report.status).toBe('INVALID');
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([['signature_invalid', '/sig_b64u']]);
  });

  it('an unknown key is INDETERMINATE with trust unpinned', () => {
    const { report, key } = runD1(signRuleD1(document, seed, crypto), createVerifyContext(crypto, { now }));
    expect(key).toBeUndefined();
    expect(report.status).toBe('INDETERMINATE');
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: keyId });
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([['key_unavailable', '/key_id']]);
  });

  it('malformed D1 members are MALFORMED', () => {
    const signed = signRuleD1(document, seed, crypto);
    const { report } = runD1({ ...signed, payload_sha256: 'AB', sig_b64u: 'x' });
    expect(report.status).toBe('MALFORMED');
    expect(report.errors.map((error) => error.path)).toEqual(['/payload_sha256', '/sig_b64u']);
  });
});

describe('checkKeyedSignature', () => {
  it('verifies ML-DSA-65 signatures with an ML-DSA-65 key', () => {
    const pair = crypto.mldsa65KeyGen(new Uint8Array(32).fill(6));
    const entry: KeyEntry = { key_id: 'did:svc:pq', algorithm: 'ML-DSA-65', public_key: pair.publicKey };
    const message = crypto.sha256(utf8Encode('pq'));
    const signature = crypto.mldsa65Sign(message, pair.secretKey);
    const input = {
      checkId: 'signature',
      keyId: 'did:svc:pq',
      signature,
      message,
      keyIdPath: '/key_id',
      signaturePath: '/sig',
      algorithm: 'ML-DSA-65' as const,
    };
    const good = new ReportBuilder('typed-pq');
    checkKeyedSignature(good, createVerifyContext(crypto, { now, advertised: [entry] }), input);
    expect(good.build().status).toBe('PASS');
    const bad = new ReportBuilder('typed-pq');
    checkKeyedSignature(bad, createVerifyContext(crypto, { now, advertised: [entry] }), {
      ...input,
      message: new Uint8Array(32),
    });
    expect(bad.build().status).toBe('INVALID');
  });

  it('a key of another algorithm is INVALID with key_algorithm_mismatch', () => {
    const builder = new ReportBuilder('typed/x');
    const entry: KeyEntry = { key_id: keyId, algorithm: 'ML-DSA-65', public_key: new Uint8Array(1952) };
    checkKeyedSignature(builder, createVerifyContext(crypto, { now, pinned: [entry] }), {
      checkId: 'signature',
      keyId,
      signature: new Uint8Array(64),
      message: new Uint8Array(32),
      keyIdPath: '/key_id',
      signaturePath: '/sig_b64u',
    });
    const report = builder.build();
    expect(report.status).toBe('INVALID');
    expect(report.errors[0]).toMatchObject({ code: 'key_algorithm_mismatch', path: '/key_id' });
  });
});

describe('an Ed25519 signature under an embedded key', () => {
  const publicKey = crypto.ed25519PublicKey(seed);
  const message = utf8Encode('signed bytes');
  const words = { over: 'the bytes', problemOver: 'the signed bytes', keyName: 'the embedded key' };

  function run(signature: Uint8Array, context = createVerifyContext(crypto, { now })) {
    const builder = new ReportBuilder('hahs', ['signature']);
    const key = checkEmbeddedEd25519(builder, context, { publicKey, signature, message, ...words });
    return { report: builder.build(), key };
  }

  it('passes under the key it carries, unpinned, or trusted when a pinned entry holds its bytes', () => {
    const signature = crypto.ed25519Sign(message, seed);
    const { report, key } = run(signature);
    expect(report.status).toBe('PASS');
    expect(report.checks[0]?.detail).toBe(`The Ed25519 signature over the bytes verifies under ${key.key_id}.`);
    expect(report.trust.status).toBe('unpinned');
    const pinned: KeyEntry = { ...(advertised[0] as KeyEntry), status: 'pinned' };
    expect(run(signature, createVerifyContext(crypto, { now, pinned: [pinned] })).report.trust).toMatchObject({
      status: 'trusted',
      key_id: keyId,
    });
  });

  it('a signature that does not verify is INVALID at /signature, with the trust of the key', () => {
    const { report } = run(crypto.ed25519Sign(utf8Encode('other bytes'), seed));
    expect(report.status).toBe('INVALID');
    expect(report.errors).toEqual([
      expect.objectContaining({
        code: 'signature_invalid',
        path: '/signature',
        message: 'The signature does not verify over the signed bytes.',
      }),
    ]);
    expect(report.trust.status).toBe('unpinned');
  });
});
