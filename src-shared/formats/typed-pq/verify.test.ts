import { fromPlain } from '../../json';
import { describe, expect, it } from 'vitest';
import { b64Encode, createPortableProvider, didKeyFromEd25519, hexEncode } from '../../crypto';
import type { JsonValue } from '../../json/types';
import { createVerifyContext, type KeyEntry, type VerifyContext } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { ed25519KeyEntry } from '../../verify/keys';
import type { Report } from '../../verify/report';
import { verifyDocument } from '../../verify/verify';
import { signTypedPq } from './sign';
import { detectTypedPq, fragmentDigest, typedPqChecks } from './verify';

const crypto = createPortableProvider();
const NOW = new Date('2026-06-01T00:00:00.000Z');
// Two fixed keys: ML-DSA-65 key generation is slowish, so no more.
const signer = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x61));
const intruder = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x62));
const KEY_ID = 'did:svc:test:pq-k1';
const pinnedById: KeyEntry = {
  key_id: KEY_ID,
  algorithm: 'ML-DSA-65',
  public_key: signer.publicKey,
  label: 'PQ key',
  status: 'pinned',
};
const FRAGMENTS: JsonValue[] = [
  { kind: 'request', n: 1 },
  'plain text fragment',
  [1, 2.5, null],
  { kind: 'response', ok: true },
];

const embedded = signTypedPq(FRAGMENTS, signer.secretKey, signer.publicKey, KEY_ID, crypto);
const bare = signTypedPq(FRAGMENTS, signer.secretKey, signer.publicKey, KEY_ID, crypto, { embedKey: false });

function context(options: Partial<Omit<VerifyContext, 'crypto'>> = {}): VerifyContext {
  return createVerifyContext(crypto, { now: NOW, ...options });
}

function verify(document: JsonObject | string, ctx: VerifyContext = context()): Report {
  return verifyDocument(typeof document === 'string' ? document : JSON.stringify(document), ctx);
}

function statuses(report: Report): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

function edit(
  document: JsonObject,
  change: (copy: { envelope: JsonObject; fragments: JsonValue[] }) => void,
): JsonObject {
  const copy = JSON.parse(JSON.stringify(document)) as { envelope: JsonObject; fragments: JsonValue[] };
  change(copy);
  return copy as unknown as JsonObject;
}

function codes(report: Report): [string, string][] {
  return report.errors.map((error) => [error.code, error.path]);
}

describe('typed-pq verification', () => {
  it('a valid envelope with an embedded key is PASS but unpinned: an embedded key confers no trust', () => {
    const report = verify(embedded);
    expect(report.format).toBe('typed-pq');
    expect(report.status).toBe('PASS');
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: KEY_ID });
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['schema', 'pass'],
      ['sig_scheme', 'pass'],
      ['aggregation', 'pass'],
      ['fragment_digest.0', 'pass'],
      ['fragment_digest.1', 'pass'],
      ['fragment_digest.2', 'pass'],
      ['fragment_digest.3', 'pass'],
      ['digest', 'pass'],
      ['signature', 'pass'],
    ]);
    expect(typedPqChecks(4)).toEqual(report.checks.map((check) => check.id));
  });

  it('only a pinned key makes trust trusted: pinned by key id, or by the embedded key bytes', () => {
    const byId = verify(bare, context({ pinned: [pinnedById] }));
    expect([byId.status, byId.trust.status, byId.trust.label]).toEqual(['PASS', 'trusted', 'PQ key']);
    const byBytes = verify(embedded, context({ pinned: [{ ...pinnedById, key_id: 'did:svc:test:other-name' }] }));
    expect([byBytes.status, byBytes.trust.status, byBytes.trust.key_id]).toEqual([
      'PASS',
      'trusted',
      'did:svc:test:other-name',
    ]);
    const advertised = verify(bare, context({ advertised: [{ ...pinnedById, status: undefined }] }));
    expect([advertised.status, advertised.trust.status]).toEqual(['PASS', 'unpinned']);
  });

  it('revoked and expired pinned keys still verify, and say so in trust', () => {
    const revoked = verify(embedded, context({ pinned: [{ ...pinnedById, status: 'revoked' }] }));
    expect([revoked.status, revoked.trust.status]).toEqual(['PASS', 'revoked']);
    const expired = verify(bare, context({ pinned: [{ ...pinnedById, not_after: '2026-01-01T00:00:00Z' }] }));
    expect([expired.status, expired.trust.status]).toEqual(['PASS', 'expired']);
  });

  it('no embedded key and none known for the key id is INDETERMINATE', () => {
    const report = verify(bare);
    expect(report.status).toBe('INDETERMINATE');
    expect(statuses(report)['signature']).toBe('unavailable');
    expect(codes(report)).toEqual([['key_unavailable', '/envelope/key_id']]);
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: KEY_ID });
  });

  it('a tampered fragment is MISMATCH at its own check and index; the rest of the chain still holds', () => {
    const report = verify(edit(embedded, (copy) => (copy.fragments[1] = 'plain text fragment!')));
    expect(report.status).toBe('MISMATCH');
    expect(statuses(report)).toMatchObject({
      'fragment_digest.0': 'pass',
      'fragment_digest.1': 'fail',
      digest: 'pass',
      signature: 'pass',
    });
    expect(codes(report)).toEqual([['fragment_digest_mismatch', '/envelope/fragment_digests/1']]);
  });

  it('a fragment digest changed to fit a changed fragment breaks the digest: MISMATCH', () => {
    const changed = 'another fragment';
    const report = verify(
      edit(embedded, (copy) => {
        copy.fragments[1] = changed;
        (copy.envelope['fragment_digests'] as string[])[1] = hexEncode(fragmentDigest(changed, crypto.sha256));
      }),
    );
    expect(report.status).toBe('MISMATCH');
    expect(statuses(report)).toMatchObject({ 'fragment_digest.1': 'pass', digest: 'fail', signature: 'pass' });
    expect(codes(report)).toEqual([['digest_mismatch', '/envelope/digest']]);
  });

  it('a changed digest is MISMATCH even though the signature then fails too', () => {
    const report = verify(edit(embedded, (copy) => (copy.envelope['digest'] = '00'.repeat(32))));
    expect(report.status).toBe('MISMATCH');
    expect(statuses(report)).toMatchObject({ digest: 'fail', signature: 'fail' });
  });

  it('a removed or an added fragment is MISMATCH (fragment_count_mismatch) at the unmatched index', () => {
    const removed = verify(edit(embedded, (copy) => copy.fragments.pop()));
    expect(removed.status).toBe('MISMATCH');
    expect(statuses(removed)['fragment_digest.3']).toBe('fail');
    expect(codes(removed)).toEqual([['fragment_count_mismatch', '/envelope/fragment_digests/3']]);
    const added = verify(edit(embedded, (copy) => copy.fragments.push({ kind: 'extra' })));
    expect(added.status).toBe('MISMATCH');
    expect(codes(added)).toEqual([['fragment_count_mismatch', '/fragments/4']]);
    expect(added.checks.map((check) => check.id)).toContain('fragment_digest.4');
  });

  it('a forged signature (another key over the same digest, embedded key unchanged) is INVALID', () => {
    const forged = signTypedPq(FRAGMENTS, intruder.secretKey, intruder.publicKey, KEY_ID, crypto);
    const report = verify(
      edit(embedded, (copy) => (copy.envelope['signature'] = (forged['envelope'] as JsonObject)['signature'] ?? '')),
    );
    expect(report.status).toBe('INVALID');
    expect(codes(report)).toEqual([['signature_invalid', '/envelope/signature']]);
    // The intruder's own envelope verifies under its own embedded key: cryptographically valid, issuer unknown.
    expect(verify(forged)).toMatchObject({ status: 'PASS', trust: { status: 'unpinned' } });
    // Pinning the real key by its id exposes the swap: the embedded key is not the one the id names.
    const swapped = verify(forged, context({ pinned: [pinnedById] }));
    expect([swapped.status, swapped.trust.status]).toEqual(['INVALID', 'trusted']);
    expect(codes(swapped)).toEqual([['key_mismatch', '/envelope/public_key']]);
  });

  it('one key resolution: the same document and keys give the same status pinned or only given', () => {
    // The case: signed by the pinned key, another key embedded. Pinned it was PASS
    // trusted (the embedded key ignored), given as --keys INVALID (the embedded key used).
    const intruderEmbedded = edit(embedded, (copy) => (copy.envelope['public_key'] = b64Encode(intruder.publicKey)));
    // The flip side: a key_id naming an Ed25519 key, an ML-DSA-65 key embedded that did sign.
    const edKey = ed25519KeyEntry(crypto, 'did:svc:test:ed', new Uint8Array(32).fill(5));
    const edNamed = signTypedPq(FRAGMENTS, signer.secretKey, signer.publicKey, 'did:svc:test:ed', crypto);
    const cases: [string, JsonObject, KeyEntry][] = [
      ['embedded key differs from the named key', intruderEmbedded, pinnedById],
      ['key_id names an Ed25519 key', edNamed, edKey],
    ];
    for (const [name, document, key] of cases) {
      const pinned = verify(document, context({ pinned: [{ ...key, status: 'pinned' }] }));
      const given = verify(document, context({ advertised: [key] }));
      expect([pinned.status, given.status], name).toEqual(['INVALID', 'INVALID']);
      expect(codes(pinned), name).toEqual([['key_mismatch', '/envelope/public_key']]);
      expect(codes(given), name).toEqual([['key_mismatch', '/envelope/public_key']]);
      expect([pinned.trust.status, given.trust.status], name).toEqual(['trusted', 'unpinned']);
    }
    // A did:key names an Ed25519 key too: an ML-DSA-65 key embedded beside it never verifies.
    const didKey = didKeyFromEd25519(crypto.ed25519PublicKey(new Uint8Array(32).fill(6)));
    expect(verify(signTypedPq(FRAGMENTS, signer.secretKey, signer.publicKey, didKey, crypto)).status).toBe('INVALID');
    // Agreement stays PASS both ways.
    expect(verify(embedded, context({ pinned: [pinnedById] }))).toMatchObject({
      status: 'PASS',
      trust: { status: 'trusted' },
    });
    expect(verify(embedded, context({ advertised: [pinnedById] }))).toMatchObject({
      status: 'PASS',
      trust: { status: 'unpinned' },
    });
  });

  it('another sig_scheme is UNSUPPORTED, not MALFORMED, whatever its signature length', () => {
    for (const scheme of ['ml-dsa-87', 'ML-DSA-65', 'slh-dsa-sha2-128s']) {
      const report = verify(
        edit(embedded, (copy) => {
          copy.envelope['sig_scheme'] = scheme;
          copy.envelope['signature'] = b64Encode(new Uint8Array(4627).fill(1)); // an ML-DSA-87 length
        }),
      );
      expect(report.status, scheme).toBe('UNSUPPORTED');
      expect(statuses(report)).toMatchObject({ sig_scheme: 'unsupported', digest: 'pass', signature: 'unsupported' });
      expect(codes(report)).toEqual([['unsupported_scheme', '/envelope/sig_scheme']]);
      expect(report.trust.status).toBe('not_applicable');
    }
  });

  it('another aggregation is UNSUPPORTED; fragment digests unchecked, digest and signature unsupported', () => {
    const report = verify(edit(embedded, (copy) => (copy.envelope['aggregation'] = 'merkle')));
    expect(report.status).toBe('UNSUPPORTED');
    expect(statuses(report)).toMatchObject({
      aggregation: 'unsupported',
      'fragment_digest.0': 'unchecked',
      digest: 'unsupported',
      signature: 'unsupported',
    });
    expect(codes(report)).toEqual([['unsupported_aggregation', '/envelope/aggregation']]);
  });

  it('a duplicate member name is MALFORMED with its path', () => {
    const text = JSON.stringify(embedded).replace('"digest":', '"digest":"00","digest":');
    const report = verify(text);
    expect(report.status).toBe('MALFORMED');
    expect(codes(report)).toEqual([['duplicate_name', '/envelope/digest']]);
  });

  it('schema problems are MALFORMED with their paths', () => {
    const cases: [string, (copy: { envelope: JsonObject; fragments: JsonValue[] }) => void, string, string][] = [
      [
        'unknown envelope member',
        (copy) => (copy.envelope['created_at'] = 'now'),
        'unknown_property',
        '/envelope/created_at',
      ],
      [
        'other version',
        (copy) => (copy.envelope['version'] = '1.1.0-typed-pq'),
        'not_allowed_value',
        '/envelope/version',
      ],
      ['scheme not a string', (copy) => (copy.envelope['sig_scheme'] = 65), 'wrong_type', '/envelope/sig_scheme'],
      [
        'uppercase hex',
        (copy) => (copy.envelope['digest'] = (copy.envelope['digest'] as string).toUpperCase()),
        'pattern_mismatch',
        '/envelope/digest',
      ],
      ['no fragments', (copy) => (copy.fragments = []), 'too_few_items', '/fragments'],
      [
        'short signature',
        (copy) => (copy.envelope['signature'] = b64Encode(new Uint8Array(3308))),
        'invalid_signature_encoding',
        '/envelope/signature',
      ],
      [
        'short public key',
        (copy) => (copy.envelope['public_key'] = b64Encode(new Uint8Array(32))),
        'invalid_public_key',
        '/envelope/public_key',
      ],
      [
        'unpadded base64',
        (copy) => (copy.envelope['public_key'] = (copy.envelope['public_key'] as string).slice(0, -1)),
        'pattern_mismatch',
        '/envelope/public_key',
      ],
      [
        'undecodable did:key',
        (copy) => (copy.envelope['key_id'] = 'did:key:z6MkAAAA'),
        'invalid_key_id',
        '/envelope/key_id',
      ],
    ];
    for (const [name, change, code, path] of cases) {
      const report = verify(edit(embedded, change));
      expect(report.status, name).toBe('MALFORMED');
      expect(codes(report), name).toEqual([[code, path]]);
      expect(statuses(report)['signature'], name).toBe('unchecked');
    }
    const top = verify({ ...embedded, extra: true });
    expect(codes(top)).toEqual([['unknown_property', '/extra']]);
  });

  it('a key of another algorithm cannot verify: INVALID (pinned Ed25519 id, or a did:key id)', () => {
    const edSeed = new Uint8Array(32).fill(3);
    const ed = verify(bare, context({ pinned: [{ ...ed25519KeyEntry(crypto, KEY_ID, edSeed), status: 'pinned' }] }));
    expect(ed.status).toBe('INVALID');
    expect(codes(ed)).toEqual([['key_algorithm_mismatch', '/envelope/key_id']]);
    const didKey = didKeyFromEd25519(crypto.ed25519PublicKey(edSeed));
    expect(verify(edit(bare, (copy) => (copy.envelope['key_id'] = didKey))).status).toBe('INVALID');
  });

  it('recognizes typed-pq documents, including one that lost its fragments', () => {
    expect(detectTypedPq(fromPlain({ envelope: {}, fragments: [] }))).toBe('typed-pq');
    expect(detectTypedPq(fromPlain({ envelope: { object: 'afir.attestation' } }))).toBe('typed-pq');
    expect(detectTypedPq(fromPlain({ envelope: { version: '1.0.0-typed-pq' } }))).toBe('typed-pq');
    expect(detectTypedPq(fromPlain({ envelope: {} }))).toBeUndefined();
    expect(detectTypedPq(fromPlain([]))).toBeUndefined();
    const lost = verify(edit(embedded, (copy) => delete (copy as Partial<typeof copy>).fragments));
    expect([lost.format, lost.status]).toEqual(['typed-pq', 'MALFORMED']);
    expect(codes(lost)).toEqual([['missing_property', '/fragments']]);
  });
});
