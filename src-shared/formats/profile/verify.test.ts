import { fromPlain } from '../../json';
import { describe, expect, it } from 'vitest';
import { b64uEncode, createPortableProvider, didKeyFromEd25519 } from '../../crypto';
import { createVerifyContext, type KeyEntry, type VerifyContext } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { ed25519KeyEntry } from '../../verify/keys';
import type { Report } from '../../verify/report';
import { verifyDocument } from '../../verify/verify';
import { issueLegacyReceipt, issueProfileReceipt, type PqFields, type StandardFields } from './sign';
import {
  LEGACY_NOTE,
  NANO_BYTE_BUDGET,
  NANO_NOT_OK_NOTE,
  PQ_POSTURE_NOTE,
  SETTLEMENT_NOTE,
  STANDARD_BYTE_BUDGET,
  detectProfile,
  profileByteLength,
  profileDigest,
  profileOf,
  profileSigningText,
  profileSigningTextOfTree,
} from './verify';
import { parseJsonTree, toPlain } from '../../json';

const crypto = createPortableProvider();
const NOW = new Date('2026-06-01T12:00:00.000Z');
const ID = 'rcp_01KT1GW6G0040G2081040G2081';
const seed = new Uint8Array(32).fill(7);
const otherSeed = new Uint8Array(32).fill(8);
const KEY_ID = 'did:svc:test:profile-k1';
const pinned: KeyEntry = { ...ed25519KeyEntry(crypto, KEY_ID, seed), label: 'Test profile key', status: 'pinned' };
const CONTENT = { sha256: 'ab'.repeat(32), type: 'application/json' };

const nanoFields = { ok: true, a: 'did:web:agent.example.com', h: `sha256:${'cd'.repeat(32)}`, t: 'text/plain' };
const standardFields: StandardFields = {
  agent_did: 'did:web:agent.example.com',
  content: CONTENT,
  settlement_reference: { rail: 'stablecoin', chain_id: 8453, asset: 'USDC' },
  smsh: { sealed: false, declaration: 'nothing sealed' },
  hktn_context: { reputation_tier: 'gold' },
};
const pqFields: PqFields = {
  agent_did: 'did:web:agent.example.com',
  content: CONTENT,
  crypto_agile_metadata: { current_alg: 'Ed25519', signature_posture: 'classical', envelope_posture: 'pq-ready' },
  pq_posture: 'declared',
  auditor_verifier: false,
};

function context(options: Partial<Omit<VerifyContext, 'crypto'>> = {}): VerifyContext {
  return createVerifyContext(crypto, { now: NOW, pinned: [pinned], ...options });
}

function verify(document: JsonObject | string, ctx: VerifyContext = context()): Report {
  return verifyDocument(typeof document === 'string' ? document : JSON.stringify(document), ctx);
}

function statuses(report: Report): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

function copy(document: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(document)) as JsonObject;
}

function receiptOf(document: JsonObject): JsonObject {
  return document['receipt'] as JsonObject;
}

/** Re-sign a document as it stands (for documents the issuer would refuse). */
function resign(document: JsonObject, signingSeed = seed): JsonObject {
  const signed = copy(document);
  receiptOf(signed)['sig_b64u'] = b64uEncode(crypto.ed25519Sign(profileDigest(signed, crypto.sha256), signingSeed));
  return signed;
}

interface Variant {
  name: string;
  format: string;
  keyPath: string;
  make: (signingSeed?: Uint8Array, keyId?: string) => JsonObject;
  tamper: (document: JsonObject) => void;
}

const variants: Variant[] = [
  {
    name: 'nano',
    format: 'profile/nano',
    keyPath: '/receipt/k',
    make: (signingSeed = seed, keyId = KEY_ID) =>
      issueProfileReceipt('nano', nanoFields, signingSeed, keyId, crypto, { now: NOW, id: ID }),
    tamper: (document) => (document['t'] = 'text/html'),
  },
  {
    name: 'standard',
    format: 'profile/standard',
    keyPath: '/receipt/key_id',
    make: (signingSeed = seed, keyId = KEY_ID) =>
      issueProfileReceipt('standard', standardFields, signingSeed, keyId, crypto, { now: NOW, id: ID }),
    tamper: (document) => ((document['settlement_reference'] as JsonObject)['chain_id'] = 1),
  },
  {
    name: 'pq',
    format: 'profile/pq',
    keyPath: '/receipt/key_id',
    make: (signingSeed = seed, keyId = KEY_ID) =>
      issueProfileReceipt('pq', pqFields, signingSeed, keyId, crypto, { now: NOW, id: ID }),
    tamper: (document) => (document['auditor_verifier'] = true),
  },
  {
    name: 'legacy standard',
    format: 'legacy/proof_tier',
    keyPath: '/receipt/key_id',
    make: (signingSeed = seed, keyId = KEY_ID) =>
      issueLegacyReceipt('standard', standardFields, signingSeed, keyId, crypto, { now: NOW, id: ID }),
    tamper: (document) => (document['issued_at'] = '2026-06-01T12:00:00.001Z'),
  },
  {
    name: 'legacy pq',
    format: 'legacy/proof_tier',
    keyPath: '/receipt/key_id',
    make: (signingSeed = seed, keyId = KEY_ID) =>
      issueLegacyReceipt('pq', pqFields, signingSeed, keyId, crypto, { now: NOW, id: ID }),
    tamper: (document) => (document['pq_posture'] = 'executed'),
  },
];

describe.each(variants)('$name receipts', (variant) => {
  it('a valid receipt under a pinned key is PASS and trusted', () => {
    const report = verify(variant.make());
    expect(report.format).toBe(variant.format);
    expect(report.status).toBe('PASS');
    expect(report.errors).toEqual([]);
    expect(report.trust).toMatchObject({ status: 'trusted', key_id: KEY_ID, label: 'Test profile key' });
    expect(report.checks.every((check) => check.status === 'pass')).toBe(true);
  });

  it('a tampered field is INVALID: there is no digest member, so only the signature can disagree', () => {
    const document = variant.make();
    variant.tamper(document);
    const report = verify(document);
    expect(report.status).toBe('INVALID');
    expect(statuses(report)['schema']).toBe('pass');
    expect(statuses(report)['signature']).toBe('fail');
    expect(report.errors).toEqual([
      { code: 'signature_invalid', path: '/receipt/sig_b64u', message: expect.any(String) },
    ]);
  });

  it('a tampered receipt block (the id is signed too) is INVALID', () => {
    const document = variant.make();
    receiptOf(document)['id'] = 'rcp_01KT1GW6G0040G2081040G2082';
    expect(verify(document).status).toBe('INVALID');
  });

  it('a forged signature (another key, same key id) is INVALID', () => {
    const report = verify(variant.make(otherSeed));
    expect(report.status).toBe('INVALID');
    // PROTOCOL 1: the pinned key it names did not sign it, so it is never `trusted`.
    expect(report.trust).toMatchObject({ status: 'unattributed', claimed_key_id: KEY_ID });
    expect(report.trust.key_id).toBeUndefined();
  });

  it('a duplicate member name is MALFORMED with its path', () => {
    const text = JSON.stringify(variant.make()).replace('"verify_uri":', '"verify_uri":"/elsewhere","verify_uri":');
    const report = verify(text);
    expect(report.status).toBe('MALFORMED');
    expect(report.errors).toEqual([
      { code: 'duplicate_name', path: '/receipt/verify_uri', message: expect.any(String) },
    ]);
  });

  it('an unknown member is MALFORMED (unknown_property), at the top and inside blocks', () => {
    const top = variant.make();
    top['extra'] = 1;
    const inner = variant.make();
    receiptOf(inner)['alg'] = 'Ed25519';
    for (const [document, path] of [
      [top, '/extra'],
      [inner, '/receipt/alg'],
    ] as const) {
      const report = verify(resign(document));
      expect(report.status).toBe('MALFORMED');
      expect(report.errors.map((error) => [error.code, error.path])).toContainEqual(['unknown_property', path]);
      expect(statuses(report)['signature']).toBe('unchecked');
    }
  });

  it('no key for the key id is INDETERMINATE, the signature unavailable', () => {
    const report = verify(variant.make(), context({ pinned: [] }));
    expect(report.status).toBe('INDETERMINATE');
    expect(statuses(report)['signature']).toBe('unavailable');
    expect(report.errors).toEqual([{ code: 'key_unavailable', path: variant.keyPath, message: expect.any(String) }]);
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: KEY_ID });
  });

  it('trust follows the key: advertised and did:key unpinned, revoked, expired, not yet valid', () => {
    const document = variant.make();
    const advertised = verify(document, context({ pinned: [], advertised: [{ ...pinned, status: undefined }] }));
    expect([advertised.status, advertised.trust.status]).toEqual(['PASS', 'unpinned']);
    const didKey = didKeyFromEd25519(crypto.ed25519PublicKey(seed));
    const offline = verify(variant.make(seed, didKey), context({ pinned: [] }));
    expect([offline.status, offline.trust.status, offline.trust.key_id]).toEqual(['PASS', 'unpinned', didKey]);
    const revoked = verify(document, context({ pinned: [{ ...pinned, status: 'revoked' }] }));
    expect([revoked.status, revoked.trust.status]).toEqual(['PASS', 'revoked']);
    const expired = verify(document, context({ pinned: [{ ...pinned, not_after: '2026-01-01T00:00:00.000Z' }] }));
    expect([expired.status, expired.trust.status]).toEqual(['PASS', 'expired']);
    const early = verify(document, context({ pinned: [{ ...pinned, not_before: '2027-01-01T00:00:00.000Z' }] }));
    expect([early.status, early.trust.status]).toEqual(['PASS', 'expired']);
  });

  it('a key id pinned as ML-DSA-65 cannot verify an Ed25519 receipt: INVALID', () => {
    const mldsa: KeyEntry = {
      key_id: KEY_ID,
      algorithm: 'ML-DSA-65',
      public_key: new Uint8Array(1952),
      status: 'pinned',
    };
    const report = verify(variant.make(), context({ pinned: [mldsa] }));
    expect(report.status).toBe('INVALID');
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([
      ['key_algorithm_mismatch', variant.keyPath],
    ]);
  });

  it('a did:key that does not decode is MALFORMED at the key id', () => {
    const document = variant.make();
    const name = variant.keyPath.split('/')[2] ?? '';
    receiptOf(document)[name] = 'did:key:z6MkAAAA';
    const report = verify(document);
    expect(report.status).toBe('MALFORMED');
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([['invalid_key_id', variant.keyPath]]);
  });

  it('receipt ids, signatures and hashes must be in their exact encodings', () => {
    const badId = variant.make();
    receiptOf(badId)['id'] = 'rcp_81KT1GW6G0040G2081040G2081';
    const badSignature = variant.make();
    const text = receiptOf(badSignature)['sig_b64u'] as string;
    // The last character carries 4 unused bits; a non-zero one is a second spelling of the signature.
    // A, Q, g and w are the canonical last characters; the next character code of each is not.
    receiptOf(badSignature)['sig_b64u'] = text.slice(0, 85) + String.fromCharCode(text.charCodeAt(85) + 1);
    for (const [document, path] of [
      [badId, '/receipt/id'],
      [badSignature, '/receipt/sig_b64u'],
    ] as const) {
      const report = verify(document);
      expect(report.status).toBe('MALFORMED');
      expect(report.errors.map((error) => [error.code, error.path])).toContainEqual(['pattern_mismatch', path]);
    }
  });
});

describe('profile detection', () => {
  it('recognizes each profile by its marker, legacy by proof_tier without receipt_profile', () => {
    expect(detectProfile(fromPlain({ profile: 'nano' }))).toBe('profile/nano');
    expect(detectProfile(fromPlain({ profile: 'standard', v: 'r1.0.0', receipt: {} }))).toBe('profile/nano');
    expect(detectProfile(fromPlain({ receipt_profile: 'standard' }))).toBe('profile/standard');
    expect(detectProfile(fromPlain({ receipt_profile: 'gold' }))).toBe('profile/standard');
    expect(detectProfile(fromPlain({ receipt_profile: 'pq' }))).toBe('profile/pq');
    expect(detectProfile(fromPlain({ proof_tier: 'pq' }))).toBe('legacy/proof_tier');
    expect(detectProfile(fromPlain({ proof_tier: 'pq', receipt_profile: 'pq' }))).toBe('profile/pq');
    expect(detectProfile(fromPlain({ profile: 'x' }))).toBeUndefined();
    expect(detectProfile(fromPlain([{ profile: 'nano' }]))).toBeUndefined();
    expect(profileOf({ proof_tier: 'pq' })).toBe('pq');
    expect(profileOf({ receipt_profile: 'gold' })).toBeUndefined();
  });

  it('a receipt_profile outside standard and pq is a MALFORMED standard receipt, not an unknown document', () => {
    const document = issueProfileReceipt('standard', standardFields, seed, KEY_ID, crypto, { now: NOW, id: ID });
    document['receipt_profile'] = 'gold';
    const report = verify(resign(document));
    expect([report.format, report.status]).toEqual(['profile/standard', 'MALFORMED']);
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([['not_allowed_value', '/receipt_profile']]);
  });

  it('a nano document with another profile value is MALFORMED at /profile', () => {
    const document = issueProfileReceipt('nano', nanoFields, seed, KEY_ID, crypto, { now: NOW, id: ID });
    document['profile'] = 'standard';
    const report = verify(resign(document));
    expect([report.format, report.status]).toEqual(['profile/nano', 'MALFORMED']);
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([['not_allowed_value', '/profile']]);
  });
});

describe('nano receipts', () => {
  it('the byte budget is 600 bytes of JCS: 600 is PASS, 601 is MALFORMED with the signature still checked', () => {
    const sized = (bytes: number): JsonObject => {
      const probe = issueProfileReceipt('nano', { ...nanoFields, t: 'text/plain;p=' }, seed, KEY_ID, crypto, {
        now: NOW,
        id: ID,
      });
      const padding = bytes - profileByteLength(probe);
      return resign({ ...probe, t: `text/plain;p=${'x'.repeat(padding)}` });
    };
    const atLimit = sized(NANO_BYTE_BUDGET);
    expect(profileByteLength(atLimit)).toBe(600);
    const pass = verify(atLimit);
    expect(pass.status).toBe('PASS');
    expect(pass.checks.find((check) => check.id === 'size_budget')).toMatchObject({ status: 'pass' });
    // The budget is measured on JCS, not on the bytes received: indentation does not count.
    const indented = JSON.stringify(atLimit, null, 2);
    expect(indented.length).toBeGreaterThan(600);
    expect(verify(indented).status).toBe('PASS');

    const over = sized(NANO_BYTE_BUDGET + 1);
    expect(profileByteLength(over)).toBe(601);
    const report = verify(over);
    expect(report.status).toBe('MALFORMED');
    expect(statuses(report)).toEqual({ schema: 'pass', size_budget: 'fail', signature: 'pass' });
    expect(report.errors).toEqual([
      { code: 'size_budget_exceeded', path: '', message: expect.stringContaining('601') },
    ]);
  });

  it('states ok: false in a note and otherwise verifies it like any receipt', () => {
    const report = verify(
      issueProfileReceipt('nano', { ...nanoFields, ok: false }, seed, KEY_ID, crypto, { now: NOW, id: ID }),
    );
    expect(report.status).toBe('PASS');
    expect(report.notes).toEqual([NANO_NOT_OK_NOTE]);
    expect(verify(variants[0]?.make() ?? {}).notes).toEqual([]);
  });

  it('checks h, i and v exactly', () => {
    const base = issueProfileReceipt('nano', nanoFields, seed, KEY_ID, crypto, { now: NOW, id: ID });
    const cases: [string, (document: JsonObject) => void, string, string][] = [
      ['h without prefix', (document) => (document['h'] = 'cd'.repeat(32)), 'pattern_mismatch', '/h'],
      ['negative i', (document) => (document['i'] = -1), 'out_of_range', '/i'],
      ['fractional i', (document) => (document['i'] = 1.5), 'wrong_type', '/i'],
      ['i as text', (document) => (document['i'] = '1780315200'), 'wrong_type', '/i'],
      ['other version', (document) => (document['v'] = 'r2.0.0'), 'not_allowed_value', '/v'],
      ['missing ok', (document) => delete document['ok'], 'missing_property', '/ok'],
    ];
    for (const [name, change, code, path] of cases) {
      const document = copy(base);
      change(document);
      const report = verify(resign(document));
      expect(report.status, name).toBe('MALFORMED');
      expect(
        report.errors.map((error) => [error.code, error.path]),
        name,
      ).toEqual([[code, path]]);
    }
  });

  it('signs values, not spellings: i written as 1.7803152e9 still verifies (JCS normalizes it)', () => {
    const text = JSON.stringify(issueProfileReceipt('nano', nanoFields, seed, KEY_ID, crypto, { now: NOW, id: ID }));
    const respelled = text.replace('"i":1780315200', '"i":1.7803152e9');
    expect(respelled).not.toBe(text);
    expect(verify(respelled).status).toBe('PASS');
  });
});

describe('standard receipts', () => {
  it('the byte budget is 3072 bytes of JCS counted in UTF-8: 3072 is PASS, 3073 is MALFORMED', () => {
    const sized = (bytes: number): JsonObject => {
      const probe = issueProfileReceipt(
        'standard',
        { ...standardFields, smsh: { sealed: true, declaration: 'x' } },
        seed,
        KEY_ID,
        crypto,
        {
          now: NOW,
          id: ID,
        },
      );
      const extra = bytes - profileByteLength(probe);
      // '€' is one character but three UTF-8 bytes: the budget counts bytes.
      const declaration = '€'.repeat(Math.floor(extra / 3)) + 'x'.repeat((extra % 3) + 1);
      expect(declaration.length).toBeLessThanOrEqual(1024);
      return resign({ ...probe, smsh: { sealed: true, declaration } });
    };
    const atLimit = sized(STANDARD_BYTE_BUDGET);
    expect(profileByteLength(atLimit)).toBe(3072);
    expect(verify(atLimit).status).toBe('PASS');
    const over = sized(STANDARD_BYTE_BUDGET + 1);
    expect(profileByteLength(over)).toBe(3073);
    const report = verify(over);
    expect(report.status).toBe('MALFORMED');
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([['size_budget_exceeded', '']]);
    expect(statuses(report)['signature']).toBe('pass');
  });

  it('settlement_reference is optional and, when present, noted as no proof of payment or anchoring', () => {
    expect(verify(variants[1]?.make() ?? {}).notes).toEqual([SETTLEMENT_NOTE]);
    const fields: StandardFields = { ...standardFields };
    delete fields.settlement_reference;
    const report = verify(issueProfileReceipt('standard', fields, seed, KEY_ID, crypto, { now: NOW, id: ID }));
    expect(report.status).toBe('PASS');
    expect(report.notes).toEqual([]);
  });

  it('issued_at must be a TS naming a real instant; chain_id a positive integer', () => {
    const base = variants[1]?.make() ?? {};
    const february = copy(base);
    february['issued_at'] = '2026-02-30T00:00:00Z';
    expect(verify(resign(february)).errors.map((error) => [error.code, error.path])).toEqual([
      ['invalid_timestamp', '/issued_at'],
    ]);
    const offset = copy(base);
    offset['issued_at'] = '2026-06-01T12:00:00+00:00';
    expect(verify(resign(offset)).errors.map((error) => [error.code, error.path])).toEqual([
      ['pattern_mismatch', '/issued_at'],
    ]);
    const chain = copy(base);
    (chain['settlement_reference'] as JsonObject)['chain_id'] = 0;
    expect(verify(resign(chain)).errors.map((error) => [error.code, error.path])).toEqual([
      ['out_of_range', '/settlement_reference/chain_id'],
    ]);
  });
});

describe('pq receipts', () => {
  it('every pq report carries the posture note, whatever its status', () => {
    const valid = variants[2]?.make() ?? {};
    const reports = [
      verify(valid),
      verify(valid, context({ pinned: [] })),
      verify({ ...valid, extra: 1 }),
      verify('{"receipt_profile":"pq"}'),
    ];
    const tampered = copy(valid);
    tampered['pq_posture'] = 'executed';
    reports.push(verify(tampered));
    expect(reports.map((report) => report.status)).toEqual([
      'PASS',
      'INDETERMINATE',
      'MALFORMED',
      'MALFORMED',
      'INVALID',
    ]);
    for (const report of reports) expect(report.notes).toContain(PQ_POSTURE_NOTE);
  });

  it('current_alg other than Ed25519 is UNSUPPORTED and the signature is not executed', () => {
    for (const algorithm of ['ML-DSA-65', 'ed25519']) {
      const document = issueProfileReceipt(
        'pq',
        { ...pqFields, crypto_agile_metadata: { ...pqFields.crypto_agile_metadata, current_alg: algorithm } },
        seed,
        KEY_ID,
        crypto,
        { now: NOW, id: ID },
      );
      const report = verify(document);
      expect(report.status).toBe('UNSUPPORTED');
      expect(statuses(report)).toEqual({ schema: 'pass', algorithm: 'unsupported', signature: 'unsupported' });
      expect(report.errors.map((error) => [error.code, error.path])).toEqual([
        ['unsupported_algorithm', '/crypto_agile_metadata/current_alg'],
      ]);
      expect(report.notes).toContain(PQ_POSTURE_NOTE);
      expect(report.trust.status).toBe('not_applicable');
    }
  });

  it('has no byte budget: a pq receipt over 3072 bytes is PASS with no size_budget check', () => {
    const wide = '😀'.repeat(128); // 128 characters, 512 UTF-8 bytes
    const document = issueProfileReceipt(
      'pq',
      {
        ...pqFields,
        agent_did: `did:web:${'a'.repeat(240)}`,
        content: { sha256: CONTENT.sha256, type: `text/plain;p=${'x'.repeat(240)}` },
        crypto_agile_metadata: { current_alg: 'Ed25519', signature_posture: wide, envelope_posture: wide },
        pq_posture: wide,
      },
      seed,
      KEY_ID,
      crypto,
      { now: NOW, id: ID, verifyUri: `/v1/receipt/verify?${'q'.repeat(480)}` },
    );
    expect(profileByteLength(document)).toBeGreaterThan(STANDARD_BYTE_BUDGET);
    const report = verify(document);
    expect(report.status).toBe('PASS');
    expect(report.checks.map((check) => check.id)).toEqual(['schema', 'algorithm', 'signature']);
  });

  it('sealed_evidence_ref must be null in r1.0.0', () => {
    const document = copy(variants[2]?.make() ?? {});
    document['sealed_evidence_ref'] = 'sha256:00';
    const report = verify(resign(document));
    expect(report.status).toBe('MALFORMED');
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([['wrong_type', '/sealed_evidence_ref']]);
  });
});

describe('legacy proof_tier receipts', () => {
  it('verify as the profile their tier names, with format legacy/proof_tier and the legacy note', () => {
    const standard = verify(variants[3]?.make() ?? {});
    expect([standard.format, standard.status]).toEqual(['legacy/proof_tier', 'PASS']);
    expect(standard.checks.map((check) => check.id)).toEqual(['schema', 'size_budget', 'signature']);
    expect(standard.notes).toEqual([LEGACY_NOTE, SETTLEMENT_NOTE]);
    const pq = verify(variants[4]?.make() ?? {});
    expect([pq.format, pq.status]).toEqual(['legacy/proof_tier', 'PASS']);
    expect(pq.checks.map((check) => check.id)).toEqual(['schema', 'algorithm', 'signature']);
    expect(pq.notes).toEqual([PQ_POSTURE_NOTE, LEGACY_NOTE]);
  });

  it('receipt_schema_version is optional, and r1.0.0 when present', () => {
    const withVersion = issueLegacyReceipt('standard', standardFields, seed, KEY_ID, crypto, {
      now: NOW,
      id: ID,
      schemaVersion: true,
    });
    expect(withVersion['receipt_schema_version']).toBe('r1.0.0');
    expect(verify(withVersion).status).toBe('PASS');
    withVersion['receipt_schema_version'] = 'r0.9.0';
    const report = verify(resign(withVersion));
    expect(report.status).toBe('MALFORMED');
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([
      ['not_allowed_value', '/receipt_schema_version'],
    ]);
  });

  it('a proof_tier other than standard or pq is MALFORMED at /proof_tier, and still noted as legacy', () => {
    const document = copy(variants[3]?.make() ?? {});
    document['proof_tier'] = 'pq-hybrid';
    const report = verify(resign(document));
    expect([report.format, report.status]).toEqual(['legacy/proof_tier', 'MALFORMED']);
    expect(report.errors).toContainEqual({
      code: 'not_allowed_value',
      path: '/proof_tier',
      message: 'must be one of "standard", "pq"',
    });
    expect(report.notes).toContain(LEGACY_NOTE);
  });

  it('a legacy standard receipt keeps the 3072-byte budget; a pq tier cannot carry standard fields', () => {
    const document = copy(variants[3]?.make() ?? {});
    (document['smsh'] as JsonObject)['declaration'] = '€'.repeat(1000);
    const over = verify(resign(document));
    expect(over.status).toBe('MALFORMED');
    expect(over.errors.map((error) => error.code)).toEqual(['size_budget_exceeded']);
    const mixed = copy(variants[3]?.make() ?? {});
    mixed['proof_tier'] = 'pq';
    const report = verify(resign(mixed));
    expect(report.status).toBe('MALFORMED');
    expect(report.errors.map((error) => [error.code, error.path])).toContainEqual([
      'unknown_property',
      '/settlement_reference',
    ]);
  });

  it('a document with both receipt_profile and proof_tier is a MALFORMED profile receipt', () => {
    const document = copy(variants[1]?.make() ?? {});
    document['proof_tier'] = 'standard';
    const report = verify(resign(document));
    expect([report.format, report.status]).toEqual(['profile/standard', 'MALFORMED']);
    expect(report.errors.map((error) => [error.code, error.path])).toEqual([['unknown_property', '/proof_tier']]);
  });
});

describe('the signing text from the parsed tree', () => {
  it('equals profileSigningText of the plain document, for every profile and odd members', () => {
    const documents = [
      issueProfileReceipt('nano', nanoFields, seed, KEY_ID, crypto, { now: NOW }),
      issueProfileReceipt('standard', standardFields, seed, KEY_ID, crypto, { now: NOW }),
      issueProfileReceipt('pq', pqFields, seed, KEY_ID, crypto, { now: NOW }),
    ].map((document) => JSON.stringify(document));
    documents.push(
      '{"receipt":{"sig_b64u":"x","__proto__":1,"\u00e9":[1.50,2e3]},"z":{"sig_b64u":"kept"},"a":-0.0}',
      '{"receipt":{}}',
    );
    for (const text of documents) {
      const tree = parseJsonTree(text);
      expect(profileSigningTextOfTree(tree)).toBe(profileSigningText(toPlain(tree) as JsonObject));
    }
    expect(() => profileSigningTextOfTree(parseJsonTree('{"receipt":[]}'))).toThrow(TypeError);
    expect(() => profileSigningTextOfTree(parseJsonTree('{"a":1}'))).toThrow(TypeError);
    expect(() => profileSigningTextOfTree(parseJsonTree('[]'))).toThrow(TypeError);
  });
});
