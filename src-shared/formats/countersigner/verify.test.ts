import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { fromPlain, parseJsonTree } from '../../json';
import { createVerifyContext } from '../../verify/context';
import { verifyDocument } from '../../verify/verify';
import { countersign, inclusionAnswer, verifyRequest, type CountersignedEntry } from './sign';
import { COUNTERSIGNER_NOTE, detectCountersigner } from './verify';

const crypto = createPortableProvider();
const ctx = createVerifyContext(crypto, { now: new Date('2026-06-01T00:00:00Z') });
const seed = new Uint8Array(32).fill(3);
const records = [1, 2, 3].map((n) => fromPlain({ receipt: `r-${n}`, amount: 12.5, holder: 'Zoë' }));
const log: CountersignedEntry[] = [];
for (const record of records) {
  log.push(
    countersign(
      { record, operator_signature: 'x'.repeat(1000), operator_signature_scheme: 'ml-dsa-65' },
      seed,
      crypto,
      {
        time: 1_780_000_000.5 + log.length,
        previousLeaves: log.map((entry) => entry.leaf),
      },
    ),
  );
}
const [first, second] = log as [CountersignedEntry, CountersignedEntry, CountersignedEntry];
const inclusion = inclusionAnswer(log, 2, crypto);

function checks(text: string): [string, string][] {
  return verifyDocument(text, ctx).checks.map((check) => [check.id, check.status]);
}

function errorsOf(text: string): [string, string][] {
  return verifyDocument(text, ctx).errors.map((error) => [error.code, error.path]);
}

describe('countersigner detection', () => {
  it.each<[string, string, boolean]>([
    ['a countersign answer', first.answer, true],
    ['a verify request', verifyRequest(second), true],
    ['signed_over with a leaf beside a key', '{"signed_over":{"leaf":""},"countersigner_public_key_b64":""}', true],
    ['the old guessed layout (signed_over as a digest)', '{"signed_over":"00","countersignature":""}', false],
    ['signed_over without the countersigner members', '{"signed_over":{"a":1},"countersignature":""}', false],
    ['a countersignature alone', '{"countersignature":"x"}', false],
    ['signed_over alone', '{"signed_over":{"leaf":"x","record_digest":"y"}}', false],
  ])('%s', (_name, text, detected) => {
    expect(detectCountersigner(parseJsonTree(text))).toBe(detected ? 'countersigner' : undefined);
  });
});

describe("the countersigner's briefing receipt", () => {
  // The shape of srotzin/hive-countersigner briefing.py (commit 23b22cf) /briefing/issue answer:
  // the countersign answer nested under countersignature, beside the record it signs.
  const answer = JSON.parse(first.answer) as Record<string, unknown>;
  const briefing = JSON.stringify({
    receipt_id: 'r_brf_1780000000_0123456789abcdef',
    signed_body: { receipt_type: 'briefing.action', schema: 'r1.0.0', action_text: 'Ship it.' },
    signed_body_canonical: '{"action_text":"Ship it.","receipt_type":"briefing.action","schema":"r1.0.0"}',
    operator_signature: { scheme: 'ml-dsa-65', signature: 'x'.repeat(4412), post_quantum: true },
    countersignature: {
      signed_over: answer['signed_over'],
      signed_over_canonical: answer['signed_over_canonical'],
      countersignature: answer['countersignature'],
      countersignature_scheme: 'Ed25519',
      countersigner_public_key_b64: answer['countersigner_public_key_b64'],
      log_root_after: answer['log_root_after'],
      independent: false,
    },
    verify_url: 'https://example.invalid/briefing/check?id=r_brf_1780000000_0123456789abcdef',
  });

  it('is UNSUPPORTED with its name, never MALFORMED and never PASS', () => {
    expect(detectCountersigner(parseJsonTree(briefing))).toBe('unknown');
    const report = verifyDocument(briefing, ctx);
    expect([report.format, report.status]).toEqual(['unknown', 'UNSUPPORTED']);
    expect(report.errors).toEqual([expect.objectContaining({ code: 'unsupported_format', path: '/countersignature' })]);
    expect(report.checks[0]?.detail).toContain('briefing receipt');
  });

  it('is only that shape: a countersignature object without signed_body is not taken for one', () => {
    const bare = JSON.stringify({ countersignature: JSON.parse(briefing).countersignature as unknown });
    expect(detectCountersigner(parseJsonTree(bare))).toBeUndefined();
  });
});

describe('countersigner verification', () => {
  it('lists every check; absent record and path are unavailable without changing the status', () => {
    const report = verifyDocument(second.answer, ctx);
    expect(report.status).toBe('PASS');
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['schema', 'pass'],
      ['signed_over_canonical', 'pass'],
      ['seq', 'pass'],
      ['leaf', 'pass'],
      ['prev_leaf', 'unavailable'],
      ['countersignature', 'pass'],
      ['record_digest', 'unavailable'],
      ['inclusion', 'unavailable'],
      ['checkpoint_freshness', 'unchecked'],
      ['log_consistency', 'unchecked'],
    ]);
    expect(report.notes).toEqual([COUNTERSIGNER_NOTE]);
    const broken = verifyDocument('{"signed_over":{"leaf":1},"countersignature":2}', ctx);
    expect(broken.status).toBe('MALFORMED');
    expect(broken.notes).toEqual([COUNTERSIGNER_NOTE]);
    expect(broken.checks.find((check) => check.id === 'log_consistency')?.status).toBe('unchecked');
  });

  it('checks record, path, genesis and log_root_after when they are there', () => {
    const full = verifyRequest(second, { record: records[1], inclusion });
    expect(verifyDocument(full, ctx).status).toBe('PASS');
    expect(checks(full)).toContainEqual(['record_digest', 'pass']);
    expect(checks(full)).toContainEqual(['inclusion', 'pass']);
    expect(checks(first.answer)).toContainEqual(['prev_leaf', 'pass']);
    expect(checks(first.answer)).toContainEqual(['inclusion', 'pass']);
    // The record as written elsewhere (1.50, \u escapes, other member order) is the same record to Python.
    const respelled = full
      .replace('"amount":12.5', '"amount":1.250E1')
      .replace('"holder":"Zoë"', '"holder":"Zo\\u00eb"');
    expect(respelled).not.toBe(full);
    expect(verifyDocument(respelled, ctx).status).toBe('PASS');
    expect(errorsOf(full.replace('"receipt":"r-2"', '"receipt":"r-3"'))).toEqual([['digest_mismatch', '/record']]);
  });

  it('signs the exact bytes of signed_over_canonical, which must be the canonical text of signed_over', () => {
    const spaced = inclusion.replace(
      '"signed_over_canonical":"{\\"countersigner_time\\":',
      '"signed_over_canonical":"{\\"countersigner_time\\": ',
    );
    expect(spaced).not.toBe(inclusion);
    expect(verifyDocument(spaced, ctx).status).toBe('MISMATCH');
    expect(errorsOf(spaced)).toContainEqual(['canonical_mismatch', '/signed_over_canonical']);
    expect(errorsOf(spaced)).toContainEqual(['signature_invalid', '/countersignature']);
  });

  it('rebuilds a float time by Python rules: an integral float keeps its .0, an integer does not', () => {
    const integral = countersign({ record: records[0] ?? fromPlain({}), operator_signature: 's' }, seed, crypto, {
      time: 1_780_000_000,
    });
    const request = verifyRequest(integral);
    expect(request).toContain('"countersigner_time":1780000000.0');
    expect(verifyDocument(request, ctx).status).toBe('PASS');
    expect(verifyDocument(request.replace('1780000000.0', '1.78e9'), ctx).status).toBe('PASS');
    // As an integer Python writes 1780000000: another text, so neither the leaf nor the signature holds.
    expect(verifyDocument(request.replace('1780000000.0', '1780000000'), ctx).status).toBe('MISMATCH');
  });

  it('takes a whole log entry as signed_over only with the same countersignature', () => {
    const entry = JSON.parse(verifyRequest(second)) as Record<string, Record<string, unknown>>;
    const signedOver = entry['signed_over'] ?? {};
    signedOver['countersignature'] = second.countersignature;
    expect(verifyDocument(JSON.stringify(entry), ctx).status).toBe('PASS');
    signedOver['countersignature'] = first.countersignature;
    expect(errorsOf(JSON.stringify(entry))).toContainEqual([
      'countersignature_mismatch',
      '/signed_over/countersignature',
    ]);
    // Only the verify request takes it: an answer's signed_over is closed.
    const answer = second.answer.replace(
      '"signed_over":{',
      `"signed_over":{"countersignature":"${second.countersignature}",`,
    );
    expect(errorsOf(answer)).toContainEqual(['unknown_property', '/signed_over/countersignature']);
  });

  it('notes an independence claim without relying on it', () => {
    const claimed = second.answer.replace('"independent":false', '"independent":true');
    const report = verifyDocument(claimed, ctx);
    expect(report.status).toBe('PASS');
    expect(report.notes).toHaveLength(2);
  });

  it.each<[string, (text: string) => string, string, string]>([
    ['seq 0', (text) => text.replace('"seq":2', '"seq":0'), 'invalid_integer', '/seq'],
    ['seq 2.0', (text) => text.replace('"seq":2}', '"seq":2.0}'), 'invalid_integer', '/signed_over/seq'],
    [
      'countersigned false',
      (text) => text.replace('"countersigned":true', '"countersigned":false'),
      'invalid_value',
      '/countersigned',
    ],
    [
      'uppercase leaf',
      (text) => text.replace(/"leaf":"([0-9a-f]{64})"/, (_m, hex: string) => `"leaf":"${hex.toUpperCase()}"`),
      'invalid_digest',
      '/signed_over/leaf',
    ],
    [
      'time as a string',
      (text) => text.replace(/"countersigner_time":([0-9.]+)/, '"countersigner_time":"$1"'),
      'invalid_type',
      '/signed_over/countersigner_time',
    ],
    [
      'an unknown member',
      (text) => text.replace('"countersigned":true', '"countersigned":true,"extra":1'),
      'unknown_property',
      '/extra',
    ],
    [
      'an unknown signed_over member',
      (text) => text.replace('"signed_over":{', '"signed_over":{"extra":1,'),
      'unknown_property',
      '/signed_over/extra',
    ],
    [
      'unpadded countersignature',
      (text) => text.replace(/==","countersignature_scheme/, '","countersignature_scheme'),
      'invalid_signature_encoding',
      '/countersignature',
    ],
    [
      'a short key',
      (text) => text.replace(/"countersigner_public_key_b64":"[^"]+"/, '"countersigner_public_key_b64":"AAAA"'),
      'invalid_public_key',
      '/countersigner_public_key_b64',
    ],
  ])('%s is MALFORMED', (_name, change, code, path) => {
    const text = change(second.answer);
    expect(text).not.toBe(second.answer);
    expect(verifyDocument(text, ctx).status).toBe('MALFORMED');
    expect(errorsOf(text)).toContainEqual([code, path]);
  });

  it.each<[string, string, string, string]>([
    [
      'a path step with another side',
      '"audit_path":[["up","' + '0'.repeat(64) + '"]]',
      'invalid_path_step',
      '/audit_path/0',
    ],
    [
      'a path too long',
      `"audit_path":${JSON.stringify(Array(65).fill(['left', '0'.repeat(64)]))}`,
      'path_too_long',
      '/audit_path',
    ],
    ['a path not an array', '"audit_path":"x"', 'invalid_type', '/audit_path'],
  ])('an inclusion answer with %s is MALFORMED', (_name, member, code, pointer) => {
    const path = `"audit_path":${JSON.stringify((JSON.parse(inclusion) as { audit_path: unknown }).audit_path)}`;
    const text = inclusion.replace(path, member);
    expect(text).not.toBe(inclusion);
    expect(errorsOf(text)).toContainEqual([code, pointer]);
  });

  it('wants audit_path and root together in a verify request, and a record that is an object', () => {
    const request = JSON.parse(verifyRequest(second, { inclusion })) as Record<string, unknown>;
    delete request['root'];
    expect(errorsOf(JSON.stringify(request))).toContainEqual(['missing_property', '/root']);
    const withRecord = JSON.parse(verifyRequest(second)) as Record<string, unknown>;
    withRecord['record'] = 'r-2';
    expect(errorsOf(JSON.stringify(withRecord))).toContainEqual(['invalid_type', '/record']);
  });

  it('is UNSUPPORTED for another countersignature scheme, INDETERMINATE without a key', () => {
    expect(
      verifyDocument(
        second.answer.replace('"countersignature_scheme":"Ed25519"', '"countersignature_scheme":"ed25519"'),
        ctx,
      ).status,
    ).toBe('UNSUPPORTED');
    const request = JSON.parse(verifyRequest(second)) as Record<string, unknown>;
    delete request['countersigner_public_key_b64'];
    const report = verifyDocument(JSON.stringify(request), ctx);
    expect([report.status, report.trust.status]).toEqual(['INDETERMINATE', 'not_applicable']);
  });

  it('is trusted only when the embedded key is pinned by its bytes', () => {
    const pinned = createVerifyContext(crypto, {
      now: new Date('2026-06-01T00:00:00Z'),
      pinned: [{ key_id: 'hive-countersigner', algorithm: 'Ed25519', public_key: crypto.ed25519PublicKey(seed) }],
    });
    const report = verifyDocument(second.answer, pinned);
    expect([report.status, report.trust.status, report.trust.key_id]).toEqual([
      'PASS',
      'trusted',
      'hive-countersigner',
    ]);
    expect(verifyDocument(second.answer, ctx).trust.status).toBe('unpinned');
  });
});
