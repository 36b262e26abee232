import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { b64Decode, concatBytes, createPortableProvider, hexDecode, hexEncode, utf8Encode } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { verifyDocument } from '../../verify/verify';
import { signTypedPq, type TypedPqFragmentSource } from './sign';

const crypto = createPortableProvider();
const keys = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x81));
const other = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x82));
const ISSUED_AT = '2026-05-01T12:00:00.000Z';
const SOURCES: TypedPqFragmentSource[] = [
  { text: 'Plan the lookup.', type: 'decomposition' },
  { text: 'According to the policy, 30 days.', type: 'retrieval' },
  { text: 'Final answer: allowed.', type: 'final', id: 'answer' },
];
const sha = (text: string): Uint8Array => crypto.sha256(utf8Encode(text));
const producerDocument = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../test-vectors/typed-pq/linear-valid.json', import.meta.url)), 'utf8'),
) as { envelope: JsonObject };

describe('signTypedPq', () => {
  it('computes every digest as PROTOCOL section 7 says, by hand, and signs the payload bytes', () => {
    const document = signTypedPq(SOURCES, keys.secretKey, keys.publicKey, crypto, {
      signTypes: ['decomposition', 'final'],
      policyId: 'p1',
      issuedAt: ISSUED_AT,
    });
    const envelope = document['envelope'] as JsonObject;
    const texts = [
      `{"fragment_id":"f1","fragment_type":"decomposition","index":0,"text_hash":"${hexEncode(sha('Plan the lookup.'))}"}`,
      `{"fragment_id":"f2","fragment_type":"retrieval","index":1,"text_hash":"${hexEncode(sha('According to the policy, 30 days.'))}"}`,
      `{"fragment_id":"answer","fragment_type":"final","index":2,"text_hash":"${hexEncode(sha('Final answer: allowed.'))}"}`,
    ];
    const digests = texts.map((text) => hexEncode(sha(text)));
    expect((envelope['fragments'] as JsonObject[]).map((fragment) => fragment['canon_digest'])).toEqual(digests);
    expect((envelope['fragments'] as JsonObject[]).map((fragment) => fragment['attested'])).toEqual([
      true,
      false,
      true,
    ]);
    const attested = [digests[0] as string, digests[2] as string].sort();
    const root = crypto.sha256(hexDecode(attested.join('')));
    expect(envelope['agg_root']).toBe(hexEncode(root));
    expect(envelope['merkle_root']).toBe(hexEncode(root));
    const policy = sha('{"absence_bound":0,"sign_types":["decomposition","final"]}');
    expect(envelope['policy_digest']).toBe(hexEncode(policy));
    const base = sha(
      `{"object":"afir.attestation","public_key":"${envelope['public_key'] as string}","sig_scheme":"ml-dsa-65","version":"1.0.0-typed-pq"}`,
    );
    const payload = crypto.sha256(concatBytes(base, root, policy));
    expect(envelope['payload_digest']).toBe(hexEncode(payload));
    expect(crypto.mldsa65Verify(b64Decode(envelope['envelope_signature'] as string), payload, keys.publicKey)).toBe(
      true,
    );
    expect(envelope).toMatchObject({ fragment_count: 3, attested: 2, policy_id: 'p1', issued_at: ISSUED_AT });
    expect(document['fragments']).toEqual(
      texts.map((text) => JSON.parse(text) as JsonObject).map((input) => ({ ...input })),
    );
  });

  it("writes the producer's envelope members in the producer's order (less its patent_pending)", () => {
    const document = signTypedPq(SOURCES, keys.secretKey, keys.publicKey, crypto, { issuedAt: ISSUED_AT });
    const producerKeys = Object.keys(producerDocument.envelope).filter((name) => name !== 'patent_pending');
    expect(Object.keys(document['envelope'] as JsonObject)).toEqual(producerKeys);
    expect(Object.keys(document)).toEqual(['envelope', 'fragments']);
  });

  it('defaults: every type attested, linear, sha-256 (no hash_suite written), policy_id default', () => {
    const envelope = signTypedPq(SOURCES, keys.secretKey, keys.publicKey, crypto, { issuedAt: ISSUED_AT })[
      'envelope'
    ] as JsonObject;
    expect(envelope).toMatchObject({ agg_mode: 'linear', attested: 3, policy_id: 'default' });
    expect(Object.hasOwn(envelope, 'hash_suite')).toBe(false);
  });

  it.each([
    ['merkle', 'sha-256', false],
    ['merkle', 'sha-384', true],
    ['linear', 'sha-384', false],
    ['linear', 'sha-256', true],
  ] as const)('%s %s temporal=%s verifies PASS', (aggMode, hashSuite, temporal) => {
    const document = signTypedPq(SOURCES, keys.secretKey, keys.publicKey, crypto, {
      aggMode,
      hashSuite,
      issuedAt: ISSUED_AT,
      ...(temporal ? { temporal: { object: 'hive.temporal.proof', tier1_capture: { wall_unix_ms: 1 } } } : {}),
    });
    const envelope = document['envelope'] as JsonObject;
    expect((envelope['payload_digest'] as string).length).toBe(hashSuite === 'sha-384' ? 96 : 64);
    expect(envelope['hash_suite']).toBe(hashSuite === 'sha-384' ? 'sha-384' : undefined);
    const report = verifyDocument(JSON.stringify(document), createVerifyContext(crypto));
    expect(report.status, JSON.stringify(report.errors)).toBe('PASS');
    expect(report.checks.some((check) => check.id === 'temporal')).toBe(temporal);
  });

  it('refuses bad input before signing', () => {
    const sign = (sources: unknown, options: unknown = { issuedAt: ISSUED_AT }, publicKey = keys.publicKey) =>
      signTypedPq(sources as TypedPqFragmentSource[], keys.secretKey, publicKey, crypto, options as never);
    expect(() => sign([])).toThrow(RangeError);
    expect(() => sign('x')).toThrow(TypeError);
    expect(() => sign([{ text: 1, type: 'final' }])).toThrow(TypeError);
    expect(() => sign([{ text: 'a', type: '' }])).toThrow(TypeError);
    expect(() =>
      sign([
        { text: 'a', type: 'final', id: 'x' },
        { text: 'b', type: 'final', id: 'x' },
      ]),
    ).toThrow(RangeError);
    expect(() => sign(SOURCES, {})).toThrow(TypeError);
    expect(() => sign(SOURCES, { issuedAt: ISSUED_AT, aggMode: 'xor' })).toThrow(RangeError);
    expect(() => sign(SOURCES, { issuedAt: ISSUED_AT, hashSuite: 'sha-512' })).toThrow(RangeError);
    expect(() => sign(SOURCES, undefined, other.publicKey)).toThrow(/does not verify/);
    expect(() => sign(SOURCES, undefined, new Uint8Array(10))).toThrow(RangeError);
  });
});
