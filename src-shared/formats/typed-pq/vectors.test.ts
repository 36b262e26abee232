import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { describe, expect, it } from 'vitest';
import { b64Decode, b64Encode, createPortableProvider, hexDecode, hexEncode } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { verifyDocument } from '../../verify/verify';
import { signTypedPq } from './sign';
import { fragmentDigest } from './verify';

// Wycheproof ML-DSA-65 verify vectors (external interface, pure, optional context); described in
// /work/shared/vectors/SOURCES.md section 1.
interface VerifyTest {
  tcId: number;
  comment: string;
  msg: string;
  ctx?: string;
  sig: string;
  result: 'valid' | 'invalid';
  flags: string[];
}
interface VerifyGroup {
  publicKey: string;
  tests: VerifyTest[];
}
const vectors = JSON.parse(
  readFileSync(
    fileURLToPath(new URL('../../../../shared/vectors/mldsa65/wycheproof-mldsa_65_verify_test.json', import.meta.url)),
    'utf8',
  ),
) as { testGroups: VerifyGroup[] };

const crypto = createPortableProvider();
const NOW = new Date('2026-06-01T00:00:00.000Z');
const EMPTY_CONTEXT = new Uint8Array(0);
const signer = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x71));
const SIGNATURE_BYTES = 3309;

describe('typed-pq and the FIPS 204 vectors: pure ML-DSA-65, empty context', () => {
  it('the Wycheproof settings: an absent context and an empty one are the same pure signature', () => {
    const group = vectors.testGroups[0];
    const absent = group?.tests.find((test) => test.tcId === 1);
    const empty = group?.tests.find((test) => test.tcId === 2);
    expect(empty?.comment).toBe('empty provided context');
    expect(empty?.ctx).toBe('');
    for (const test of [absent, empty]) {
      if (group === undefined || test === undefined) throw new Error('vector tcId 1 or 2 missing');
      const args = [hexDecode(test.sig), hexDecode(test.msg), hexDecode(group.publicKey)] as const;
      expect(ml_dsa65.verify(...args, { context: EMPTY_CONTEXT })).toBe(true);
      expect(crypto.mldsa65Verify(...args)).toBe(true);
    }
  });

  it('an envelope from signTypedPq verifies with noble ml_dsa65.verify called directly, pure, empty context, over the 32 digest bytes', () => {
    const document = signTypedPq(
      [{ a: 1 }, { b: [true, null] }],
      signer.secretKey,
      signer.publicKey,
      'did:svc:test:pq',
      crypto,
    );
    const envelope = document['envelope'] as JsonObject;
    const digest = hexDecode(envelope['digest'] as string);
    const signature = b64Decode(envelope['signature'] as string);
    const publicKey = b64Decode(envelope['public_key'] as string);
    expect(digest.length).toBe(32);
    expect(signature.length).toBe(SIGNATURE_BYTES);
    expect((envelope['signature'] as string).length).toBe(4412);
    expect(ml_dsa65.verify(signature, digest, publicKey, { context: EMPTY_CONTEXT })).toBe(true);
    expect(ml_dsa65.verify(signature, digest, publicKey)).toBe(true);
    // The settings matter: a non-empty context, the internal interface (no 0 || len(ctx) prefix)
    // or the hex text of the digest instead of its bytes all refuse the same signature.
    expect(ml_dsa65.verify(signature, digest, publicKey, { context: Uint8Array.of(0) })).toBe(false);
    expect(ml_dsa65.internal.verify(signature, digest, publicKey)).toBe(false);
    expect(ml_dsa65.verify(signature, new TextEncoder().encode(envelope['digest'] as string), publicKey)).toBe(false);
  });

  it('every 32-byte-message vector without context, wrapped as an envelope digest, gives the signature check its expected result', () => {
    // The vectors' messages are not SHA-256 outputs of any fragments we could write down, so the
    // digest link cannot hold: the envelope is MISMATCH by construction. What the vectors can
    // test is the last link: the signature over the stated 32-byte digest under the vector key.
    const group = vectors.testGroups[0];
    if (group === undefined) throw new Error('vector group 0 missing');
    const publicKey = hexDecode(group.publicKey);
    const cases = group.tests.filter(
      (test) => test.ctx === undefined && test.msg.length === 64 && test.sig.length === SIGNATURE_BYTES * 2,
    );
    expect(cases.length).toBeGreaterThan(40);
    expect(cases.some((test) => test.result === 'invalid')).toBe(true);
    const fragment = { note: 'stands in for fragments whose linear digest would be the vector message' };
    const ctx = createVerifyContext(crypto, {
      now: NOW,
      pinned: [
        { key_id: 'did:svc:wycheproof:mldsa65', algorithm: 'ML-DSA-65', public_key: publicKey, status: 'pinned' },
      ],
    });
    for (const test of cases) {
      const document = {
        envelope: {
          object: 'afir.attestation',
          version: '1.0.0-typed-pq',
          sig_scheme: 'ml-dsa-65',
          key_id: 'did:svc:wycheproof:mldsa65',
          public_key: b64Encode(publicKey),
          aggregation: 'linear',
          fragment_digests: [hexEncode(fragmentDigest(fragment, crypto.sha256))],
          digest: test.msg,
          signature: b64Encode(hexDecode(test.sig)),
        },
        fragments: [fragment],
      };
      const report = verifyDocument(JSON.stringify(document), ctx);
      const checks = Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
      expect(checks['fragment_digest.0'], `tcId ${test.tcId}`).toBe('pass');
      expect(checks['digest'], `tcId ${test.tcId}`).toBe('fail');
      expect(checks['signature'], `tcId ${test.tcId} ${test.comment}`).toBe(test.result === 'valid' ? 'pass' : 'fail');
      expect(report.status).toBe('MISMATCH');
      expect(report.trust.status).toBe('trusted');
    }
  });
});
