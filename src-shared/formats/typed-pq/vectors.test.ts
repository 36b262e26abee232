import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { describe, expect, it } from 'vitest';
import { b64Decode, b64Encode, createPortableProvider, hexDecode } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { verifyDocument } from '../../verify/verify';
import { signTypedPq } from './sign';

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

  it('an attestation from signTypedPq verifies with noble ml_dsa65.verify called directly, pure, empty context, over the 32 payload_digest bytes', () => {
    const document = signTypedPq(
      [
        { text: 'one', type: 'reasoning' },
        { text: 'two', type: 'final' },
      ],
      signer.secretKey,
      signer.publicKey,
      crypto,
      { issuedAt: NOW.toISOString() },
    );
    const envelope = document['envelope'] as JsonObject;
    const digest = hexDecode(envelope['payload_digest'] as string);
    const signature = b64Decode(envelope['envelope_signature'] as string);
    const publicKey = b64Decode(envelope['public_key'] as string);
    expect(digest.length).toBe(32);
    expect(signature.length).toBe(SIGNATURE_BYTES);
    expect((envelope['envelope_signature'] as string).length).toBe(4412);
    expect(ml_dsa65.verify(signature, digest, publicKey, { context: EMPTY_CONTEXT })).toBe(true);
    expect(ml_dsa65.verify(signature, digest, publicKey)).toBe(true);
    // The settings matter: a non-empty context, the internal interface (no 0 || len(ctx) prefix)
    // or the hex text of the digest instead of its bytes all refuse the same signature.
    expect(ml_dsa65.verify(signature, digest, publicKey, { context: Uint8Array.of(0) })).toBe(false);
    expect(ml_dsa65.internal.verify(signature, digest, publicKey)).toBe(false);
    expect(ml_dsa65.verify(signature, new TextEncoder().encode(envelope['payload_digest'] as string), publicKey)).toBe(
      false,
    );
  });

  it('every 32-byte-message vector without context, as a stated payload_digest, gives the signature check its expected result', () => {
    // The vectors' messages are not payload digests of any attestation we could write down, so
    // the payload link cannot hold: the attestation is MISMATCH by construction. What the vectors
    // test is the last link: the signature over the stated 32-byte payload_digest under the key.
    const group = vectors.testGroups[0];
    if (group === undefined) throw new Error('vector group 0 missing');
    const publicKey = hexDecode(group.publicKey);
    const cases = group.tests.filter(
      (test) => test.ctx === undefined && test.msg.length === 64 && test.sig.length === SIGNATURE_BYTES * 2,
    );
    expect(cases.length).toBeGreaterThan(40);
    expect(cases.some((test) => test.result === 'invalid')).toBe(true);
    const base = signTypedPq([{ text: 'stands in', type: 'reasoning' }], signer.secretKey, signer.publicKey, crypto, {
      issuedAt: NOW.toISOString(),
    });
    const ctx = createVerifyContext(crypto, { now: NOW });
    for (const test of cases) {
      const document = JSON.parse(JSON.stringify(base)) as JsonObject;
      const envelope = document['envelope'] as JsonObject;
      envelope['public_key'] = b64Encode(publicKey);
      envelope['payload_digest'] = test.msg;
      envelope['envelope_signature'] = b64Encode(hexDecode(test.sig));
      const report = verifyDocument(JSON.stringify(document), ctx);
      const checks = Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
      expect(checks['fragment.0'], `tcId ${test.tcId}`).toBe('pass');
      expect(checks['payload_digest'], `tcId ${test.tcId}`).toBe('fail');
      expect(checks['signature'], `tcId ${test.tcId} ${test.comment}`).toBe(test.result === 'valid' ? 'pass' : 'fail');
      expect(report.status).toBe('MISMATCH');
    }
  });
});
