import { describe, expect, it } from 'vitest';
import { b64uEncode, createPortableProvider, didKeyFromEd25519, utf8Encode } from '../../crypto';
import { jcs } from '../../json';
import { createVerifyContext, type KeyEntry } from '../../verify/context';
import { ed25519KeyEntry } from '../../verify/keys';
import { verifyDocument } from '../../verify/verify';
import { signEnvelope } from './sign';
import { envelopeDigest } from './verify';

const crypto = createPortableProvider();
const now = new Date('2026-06-01T00:00:00Z');
const seeds = {
  requester: new Uint8Array(32).fill(7),
  operator: new Uint8Array(32).fill(8),
  service: new Uint8Array(32).fill(9),
};
const signers = {
  requester: { key_id: 'did:svc:requester', seed: seeds.requester },
  operator: { key_id: 'did:svc:operator', seed: seeds.operator },
  service: { key_id: 'did:svc:service', seed: seeds.service },
};
const advertised: KeyEntry[] = Object.values(signers).map((signer) =>
  ed25519KeyEntry(crypto, signer.key_id, signer.seed),
);
const ctx = createVerifyContext(crypto, { now, advertised });
const fields = { v: 'svc-receipt-v1', receipt_id: 'rcp_1', settlement: { chain: 'base', asset: 'USDC', tx: '0x00' } };

describe('svc-receipt-v1 envelope verification', () => {
  it('signs the 32 raw bytes of SHA-256(JCS(envelope without signatures))', () => {
    const envelope = signEnvelope(fields, signers, crypto);
    const digest = crypto.sha256(utf8Encode(jcs(fields)));
    expect(envelopeDigest(envelope, crypto.sha256)).toEqual(digest);
    const signatures = envelope['signatures'] as Record<string, { sig_b64u: string }>;
    expect(signatures['service']?.sig_b64u).toBe(b64uEncode(crypto.ed25519Sign(digest, seeds.service)));
  });

  it('signers named by any DID method or opaque ids verify as did:svc ones do (PROTOCOL section 0)', () => {
    const named = {
      requester: { key_id: 'did:hive:requester-1', seed: seeds.requester },
      operator: { key_id: 'test-key-001', seed: seeds.operator },
      service: { key_id: 'did:example:123', seed: seeds.service },
    };
    const keys = Object.values(named).map((signer) => ed25519KeyEntry(crypto, signer.key_id, signer.seed));
    const report = verifyDocument(
      JSON.stringify(signEnvelope(fields, named, crypto)),
      createVerifyContext(crypto, { now, advertised: keys, pinned: [keys[2]!] }),
    );
    expect(report.status).toBe('PASS');
    expect(report.trust).toMatchObject({ status: 'trusted', key_id: 'did:example:123' });
  });

  it('a signature over the JCS text instead of its digest is INVALID', () => {
    const envelope = signEnvelope(fields, signers, crypto);
    const signatures = envelope['signatures'] as Record<string, { key_id: string; sig_b64u: string }>;
    signatures['operator'] = {
      key_id: signers.operator.key_id,
      sig_b64u: b64uEncode(crypto.ed25519Sign(utf8Encode(jcs(fields)), seeds.operator)),
    };
    const report = verifyDocument(JSON.stringify(envelope), ctx);
    expect(report.status).toBe('INVALID');
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['schema', 'pass'],
      ['signature.requester', 'pass'],
      ['signature.operator', 'fail'],
      ['signature.service', 'pass'],
      ['content', 'pass'],
    ]);
  });

  it('content altered after signing is MISMATCH: no signer signed what is there', () => {
    const text = JSON.stringify(signEnvelope(fields, signers, crypto));
    const report = verifyDocument(text.replace('"asset":"USDC"', '"asset":"USDT"'), ctx);
    expect(report.status).toBe('MISMATCH');
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['schema', 'pass'],
      ['signature.requester', 'fail'],
      ['signature.operator', 'fail'],
      ['signature.service', 'fail'],
      ['content', 'fail'],
    ]);
    expect(report.errors).toContainEqual(expect.objectContaining({ code: 'content_mismatch', path: '' }));
  });

  it('with a single signer, a failing signature stays INVALID and content is unchecked', () => {
    const { service } = signers;
    const text = JSON.stringify(signEnvelope(fields, { service }, crypto));
    const report = verifyDocument(text.replace('"asset":"USDC"', '"asset":"USDT"'), ctx);
    expect(report.status).toBe('INVALID');
    expect(report.checks.at(-1)).toMatchObject({ id: 'content', status: 'unchecked' });
  });

  it('states each role key and trust in its check; trust is the service key', () => {
    const pinned = { ...ed25519KeyEntry(crypto, signers.service.key_id, seeds.service), label: 'Service' };
    const report = verifyDocument(JSON.stringify(signEnvelope(fields, signers, crypto)), { ...ctx, pinned: [pinned] });
    expect(report.status).toBe('PASS');
    expect(report.trust).toMatchObject({ status: 'trusted', key_id: 'did:svc:service', label: 'Service' });
    expect(report.checks[1]?.detail).toContain('did:svc:requester (advertised, trust unpinned)');
    expect(report.checks[3]?.detail).toContain('did:svc:service (pinned, trust trusted)');
  });

  it('without a service signature trust is not_applicable and status never PASS', () => {
    const { service: _service, ...others } = signers;
    const report = verifyDocument(JSON.stringify(signEnvelope(fields, others, crypto)), ctx);
    expect(report.status).toBe('INDETERMINATE');
    expect(report.trust.status).toBe('not_applicable');
    expect(report.checks[3]).toMatchObject({ id: 'signature.service', status: 'unavailable' });
  });

  it('an envelope with no signatures at all is INDETERMINATE, every role unavailable', () => {
    const report = verifyDocument(JSON.stringify({ ...fields, signatures: {} }), ctx);
    expect(report.status).toBe('INDETERMINATE');
    expect(report.checks.slice(1).map((check) => check.status)).toEqual([
      'unavailable',
      'unavailable',
      'unavailable',
      'unchecked',
    ]);
  });

  it('number spellings are not significant: JCS canonicalizes them', () => {
    const text = JSON.stringify(signEnvelope({ ...fields, amount: 1.5 }, signers, crypto));
    expect(verifyDocument(text.replace('"amount":1.5', '"amount":1.50'), ctx).status).toBe('PASS');
    expect(verifyDocument(text.replace('"amount":1.5', '"amount":1.51'), ctx).status).toBe('MISMATCH');
  });

  it('signs a member named __proto__ like any other', () => {
    const signed = signEnvelope(JSON.parse('{"v":"svc-receipt-v1","__proto__":{"x":1}}'), signers, crypto);
    const text = JSON.stringify(signed);
    expect(text).toContain('"__proto__":{"x":1}');
    expect(verifyDocument(text, ctx).status).toBe('PASS');
    expect(verifyDocument(text.replace('"x":1', '"x":2'), ctx).status).toBe('MISMATCH');
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['no signatures', { v: 'svc-receipt-v1' }, 'missing_property', '/signatures'],
    ['signatures not an object', { v: 'svc-receipt-v1', signatures: [] }, 'invalid_type', '/signatures'],
    [
      'role not an object',
      { v: 'svc-receipt-v1', signatures: { service: 'x' } },
      'invalid_type',
      '/signatures/service',
    ],
    [
      'bad key id',
      { v: 'svc-receipt-v1', signatures: { service: { key_id: 'k 1', sig_b64u: b64uEncode(new Uint8Array(64)) } } },
      'invalid_key_id',
      '/signatures/service/key_id',
    ],
    [
      'short signature',
      { v: 'svc-receipt-v1', signatures: { service: { key_id: 'did:svc:s', sig_b64u: 'AAAA' } } },
      'invalid_signature_encoding',
      '/signatures/service/sig_b64u',
    ],
    [
      'extra role member',
      {
        v: 'svc-receipt-v1',
        signatures: { service: { key_id: 'did:svc:s', sig_b64u: b64uEncode(new Uint8Array(64)), alg: 'x' } },
      },
      'unknown_property',
      '/signatures/service/alg',
    ],
    [
      'receipt id prefix',
      { v: 'svc-receipt-v1', receipt_id: 'r_1', signatures: {} },
      'invalid_receipt_id',
      '/receipt_id',
    ],
    [
      'issued_at not TS',
      { v: 'svc-receipt-v1', issued_at: '2026-06-01', signatures: {} },
      'invalid_timestamp',
      '/issued_at',
    ],
  ])('%s is MALFORMED', (_name, document, code, path) => {
    const report = verifyDocument(JSON.stringify(document), ctx);
    expect(report.status).toBe('MALFORMED');
    expect(report.errors.map((error) => [error.code, error.path])).toContainEqual([code, path]);
  });

  describe('who signed: one key, one role', () => {
    const pinnedAll: KeyEntry[] = advertised.map((entry) => ({ ...entry, status: 'pinned' }));
    const trusted = createVerifyContext(crypto, { now, pinned: pinnedAll });
    type Signatures = Record<string, { key_id: string; sig_b64u: string }>;
    function withSignatures(change: (signatures: Signatures) => void): string {
      const envelope = signEnvelope(fields, signers, crypto);
      change(envelope['signatures'] as Signatures);
      return JSON.stringify(envelope);
    }

    it('the service entry pasted in as the missing operator is never PASS and is not counted as a third signer', () => {
      const pasted = withSignatures((signatures) => {
        signatures['operator'] = { ...(signatures['service'] as Signatures[string]) };
      });
      for (const context of [ctx, trusted]) {
        const report = verifyDocument(pasted, context);
        expect(report.status).toBe('INVALID');
        expect(report.errors.map((error) => [error.code, error.path])).toEqual([
          ['key_reused', '/signatures/service/key_id'],
        ]);
        const content = report.checks.find((check) => check.id === 'content');
        expect(content?.detail).toBe('The content is what 2 signers signed.');
      }
    });

    it('one key under two key ids (a did:key and a did:svc) for two roles is refused too', () => {
      const didKey = didKeyFromEd25519(crypto.ed25519PublicKey(seeds.service));
      const envelope = signEnvelope(fields, { ...signers, requester: { key_id: didKey, seed: seeds.service } }, crypto);
      const report = verifyDocument(JSON.stringify(envelope), ctx);
      expect(report.status).toBe('INVALID');
      expect(report.errors.map((error) => error.code)).toEqual(['key_reused']);
    });

    it('a pinned key used outside its pinned roles is not trusted, so permuted roles are never PASS trusted', () => {
      const withRoles: KeyEntry[] = pinnedAll.map((entry) => ({
        ...entry,
        roles: [entry.key_id.slice('did:svc:'.length) as 'requester' | 'operator' | 'service'],
      }));
      const roled = createVerifyContext(crypto, { now, pinned: withRoles });
      const valid = JSON.stringify(signEnvelope(fields, signers, crypto));
      expect(verifyDocument(valid, roled)).toMatchObject({ status: 'PASS', trust: { status: 'trusted' } });
      const permuted = withSignatures((signatures) => {
        const requester = signatures['requester'];
        signatures['requester'] = signatures['operator'] as Signatures[string];
        signatures['operator'] = requester as Signatures[string];
      });
      // Cryptographically each signature still holds; who signed as what does not.
      const report = verifyDocument(permuted, roled);
      expect(report.status).toBe('PASS');
      expect(report.trust.status).toBe('unpinned');
      expect(report.trust.detail).toContain('pinned for operator only; here it signs as requester');
      const serviceSwapped = withSignatures((signatures) => {
        const service = signatures['service'];
        signatures['service'] = signatures['operator'] as Signatures[string];
        signatures['operator'] = service as Signatures[string];
      });
      expect(verifyDocument(serviceSwapped, roled).trust.status).toBe('unpinned');
      // Without roles in the trust store a permutation cannot be seen: documented, not hidden.
      expect(verifyDocument(permuted, trusted)).toMatchObject({ status: 'PASS', trust: { status: 'trusted' } });
    });
  });
});
