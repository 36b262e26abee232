import { fromPlain } from '../../json';
import { describe, expect, it } from 'vitest';
import { b64uEncode, createPortableProvider, didKeyFromEd25519, hexDecode, hexEncode, utf8Encode } from '../../crypto';
import { createVerifyContext, type VerifyContext } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { ed25519KeyEntry } from '../../verify/keys';
import type { Report } from '../../verify/report';
import { ruleD1Payload, signRuleD1 } from '../../verify/signature';
import { verifyDocument } from '../../verify/verify';
import {
  WEARABLE_EXAMPLE_KEY_ID,
  WEARABLE_EXAMPLE_TS,
  wearableExampleDeviceSeed,
  wearableExampleObservation,
  wearableExampleServiceSeed,
} from './example';
import type { WearableCallerFields, WearableDerivedFields, WearableReceipt } from './fields';
import { issueWearable, signObservation } from './sign';
import { WEARABLE_CHECKS, WEARABLE_DEVICE_KEY_NOTE, WEARABLE_SCOPE_NOTE, detectWearable } from './verify';

const crypto = createPortableProvider();
const serviceSeed = wearableExampleServiceSeed();
const now = new Date('2026-06-01T00:00:00Z');
const serviceKey = ed25519KeyEntry(crypto, WEARABLE_EXAMPLE_KEY_ID, serviceSeed);
const ctx = createVerifyContext(crypto, { now, advertised: [serviceKey] });

type Overrides = Record<string, unknown>;

function apply(target: Record<string, unknown>, overrides: Overrides): void {
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) Reflect.deleteProperty(target, name);
    else target[name] = value;
  }
}

/** Caller fields from the worked example with overrides, signed by the device; `afterSigning` changes them afterwards. */
function caller(overrides: Overrides = {}, afterSigning: Overrides = {}): WearableCallerFields {
  const fields = wearableExampleObservation(crypto) as unknown as Record<string, unknown>;
  apply(fields, overrides);
  const typed = fields as unknown as WearableCallerFields;
  typed.device_signature = signObservation(typed, wearableExampleDeviceSeed(), crypto);
  apply(fields, afterSigning);
  return typed;
}

function issued(overrides: Overrides = {}, afterSigning: Overrides = {}): WearableReceipt {
  return issueWearable(caller(overrides, afterSigning), serviceSeed, WEARABLE_EXAMPLE_KEY_ID, crypto, {
    ts: WEARABLE_EXAMPLE_TS,
  });
}

function copy(receipt: WearableReceipt): Record<string, unknown> & { signed_body: Record<string, unknown> } {
  return JSON.parse(JSON.stringify(receipt)) as Record<string, unknown> & { signed_body: Record<string, unknown> };
}

/** Change a receipt and sign it again under Rule D1 with the service key, as a dishonest issuer could. */
function resigned(receipt: WearableReceipt, change: (document: ReturnType<typeof copy>) => void): JsonObject {
  const document = copy(receipt);
  change(document);
  return signRuleD1(document as unknown as JsonObject, serviceSeed, crypto);
}

function verify(document: unknown, context: VerifyContext = ctx): Report {
  return verifyDocument(JSON.stringify(document), context);
}

function notPassing(report: Report): string[] {
  return report.checks.filter((check) => check.status !== 'pass').map((check) => `${check.id}:${check.status}`);
}

function errorPaths(report: Report): string[] {
  return report.errors.map((error) => error.path);
}

describe('wearable receipt verification: the receipt as a whole', () => {
  it('an honestly issued receipt is PASS, every check listed and passing, trust of the service key', () => {
    const report = verify(issued());
    expect(report.format).toBe('wearable/r2.0.0');
    expect(report.status).toBe('PASS');
    expect(report.checks.map((check) => check.id)).toEqual([...WEARABLE_CHECKS]);
    expect(notPassing(report)).toEqual([]);
    expect(report.errors).toEqual([]);
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: WEARABLE_EXAMPLE_KEY_ID });
    expect(report.notes).toContain(WEARABLE_SCOPE_NOTE);
    expect(report.notes).toContain(WEARABLE_DEVICE_KEY_NOTE);
    expect(report.notes).toContain('The receipt records the outcome measurement_provenance_complete.');
  });

  it('trust follows the service key: pinned, revoked, expired; the status stays the cryptographic result', () => {
    const receipt = issued();
    const pinned = { ...serviceKey, label: 'Wearable service', status: 'pinned' as const };
    expect(verify(receipt, { ...ctx, pinned: [pinned] })).toMatchObject({
      status: 'PASS',
      trust: { status: 'trusted', key_id: WEARABLE_EXAMPLE_KEY_ID, label: 'Wearable service' },
    });
    expect(verify(receipt, { ...ctx, pinned: [{ ...pinned, status: 'revoked' }] })).toMatchObject({
      status: 'PASS',
      trust: { status: 'revoked' },
    });
    expect(verify(receipt, { ...ctx, pinned: [{ ...pinned, not_after: '2026-01-01T00:00:00Z' }] })).toMatchObject({
      status: 'PASS',
      trust: { status: 'expired' },
    });
  });

  it('a device key that is pinned does not make the receipt trusted: trust is the service key only', () => {
    const deviceKey = ed25519KeyEntry(crypto, 'did:svc:device', wearableExampleDeviceSeed());
    expect(verify(issued(), { ...ctx, pinned: [{ ...deviceKey, status: 'pinned' }] }).trust.status).toBe('unpinned');
  });

  it('a did:key service key id resolves offline (unpinned)', () => {
    const didKey = didKeyFromEd25519(crypto.ed25519PublicKey(serviceSeed));
    const receipt = issueWearable(caller(), serviceSeed, didKey, crypto, { ts: WEARABLE_EXAMPLE_TS });
    expect(verify(receipt, createVerifyContext(crypto, { now }))).toMatchObject({
      status: 'PASS',
      trust: { status: 'unpinned', key_id: didKey },
    });
  });

  it('a signed_body field changed after signing is MISMATCH on the digest', () => {
    const document = copy(issued());
    document.signed_body['record_id'] = 'rec-forged';
    const report = verify(document);
    expect(report.status).toBe('MISMATCH');
    expect(notPassing(report)).toEqual(['payload_sha256:fail', 'signature:fail']);
    expect(report.errors[0]).toMatchObject({ code: 'digest_mismatch', path: '/payload_sha256' });
  });

  it('a changed measurement value is MISMATCH: digest, and the device signature and hash no longer fit', () => {
    const document = copy(issued());
    document.signed_body['value'] = 180;
    const report = verify(document);
    expect(report.status).toBe('MISMATCH');
    expect(notPassing(report)).toEqual([
      'payload_sha256:fail',
      'signature:fail',
      'device_signature:fail',
      'receipt_id:fail',
      'derived.observation_sha256:fail',
      'derived.signature_relation:fail',
      'derived.elements:fail',
      'derived.outcome:fail',
    ]);
  });

  it('a forged service signature over the right digest is INVALID', () => {
    const document = copy(issued());
    const digest = crypto.sha256(utf8Encode(ruleD1Payload(document as unknown as JsonObject)));
    document['sig_b64u'] = b64uEncode(crypto.ed25519Sign(digest, new Uint8Array(32).fill(0x99)));
    const report = verify(document);
    expect(report.status).toBe('INVALID');
    expect(notPassing(report)).toEqual(['signature:fail']);
    expect(report.errors).toEqual([expect.objectContaining({ code: 'signature_invalid', path: '/sig_b64u' })]);
  });

  it('an unknown service key is INDETERMINATE, trust unpinned, and everything else still checked', () => {
    const report = verify(issued(), createVerifyContext(crypto, { now }));
    expect(report.status).toBe('INDETERMINATE');
    expect(notPassing(report)).toEqual(['signature:unavailable']);
    expect(report.trust).toMatchObject({ status: 'unpinned', key_id: WEARABLE_EXAMPLE_KEY_ID });
    expect(report.errors).toEqual([expect.objectContaining({ code: 'key_unavailable', path: '/key_id' })]);
  });

  it('a duplicate member name is MALFORMED with its path', () => {
    const text = JSON.stringify(issued()).replace('"record_id":', '"record_id":"rec-1","record_id":');
    const report = verifyDocument(text, ctx);
    expect(report.status).toBe('MALFORMED');
    expect(report.errors[0]).toMatchObject({ code: 'duplicate_name', path: '/signed_body/record_id' });
  });
});

describe('wearable receipt verification: schema (MALFORMED with the path)', () => {
  function malformed(change: (document: ReturnType<typeof copy>) => void): Report {
    const document = copy(issued());
    change(document);
    const report = verify(document);
    expect(report.status).toBe('MALFORMED');
    expect(report.format).toBe('wearable/r2.0.0');
    // Nothing after the schema ran: every other check is listed as unchecked, none passes.
    expect(report.checks.filter((check) => check.status === 'pass')).toEqual([]);
    expect(report.notes).toContain(WEARABLE_SCOPE_NOTE);
    return report;
  }

  it('refuses an unknown property at each of the three levels', () => {
    expect(errorPaths(malformed((document) => (document['foo'] = 1)))).toEqual(['/foo']);
    expect(errorPaths(malformed((document) => (document.signed_body['foo'] = 1)))).toEqual(['/signed_body/foo']);
    const verdict = malformed(
      (document) => ((document.signed_body['verdict'] as Record<string, unknown>)['foo'] = false),
    );
    expect(verdict.errors).toEqual([
      expect.objectContaining({ code: 'unknown_property', path: '/signed_body/verdict/foo' }),
    ]);
  });

  it('refuses both and neither of value and value_commitment_sha256', () => {
    const both = malformed((document) => (document.signed_body['value_commitment_sha256'] = '0'.repeat(64)));
    expect(both.errors).toEqual([
      expect.objectContaining({
        code: 'not_exactly_one',
        path: '/signed_body',
        message: expect.stringContaining('both'),
      }),
    ]);
    const neither = malformed((document) => delete document.signed_body['value']);
    expect(neither.errors).toEqual([
      expect.objectContaining({
        code: 'not_exactly_one',
        path: '/signed_body',
        message: expect.stringContaining('neither'),
      }),
    ]);
  });

  it('refuses each bound just past its limit', () => {
    const cases: [string, (document: ReturnType<typeof copy>) => void, string, string][] = [
      ['record_id empty', (d) => (d.signed_body['record_id'] = ''), 'too_short', '/signed_body/record_id'],
      ['record_id 257', (d) => (d.signed_body['record_id'] = 'r'.repeat(257)), 'too_long', '/signed_body/record_id'],
      [
        'observation_nonce 15',
        (d) => (d.signed_body['observation_nonce'] = 'n'.repeat(15)),
        'too_short',
        '/signed_body/observation_nonce',
      ],
      [
        'observation_nonce 257',
        (d) => (d.signed_body['observation_nonce'] = 'n'.repeat(257)),
        'too_long',
        '/signed_body/observation_nonce',
      ],
      [
        'metric_type 129',
        (d) => (d.signed_body['metric_type'] = 'm'.repeat(129)),
        'too_long',
        '/signed_body/metric_type',
      ],
      ['metric_type empty', (d) => (d.signed_body['metric_type'] = ''), 'too_short', '/signed_body/metric_type'],
      ['unit 65', (d) => (d.signed_body['unit'] = 'u'.repeat(65)), 'too_long', '/signed_body/unit'],
      [
        'device_model 257',
        (d) => (d.signed_body['device_model'] = 'd'.repeat(257)),
        'too_long',
        '/signed_body/device_model',
      ],
      [
        'calibration_ref 257',
        (d) => (d.signed_body['calibration_ref'] = 'c'.repeat(257)),
        'too_long',
        '/signed_body/calibration_ref',
      ],
      [
        'elements 6',
        (d) => (d.signed_body['elements'] = Array(6).fill('sequence_gap')),
        'too_many_items',
        '/signed_body/elements',
      ],
      [
        'elements unknown item',
        (d) => (d.signed_body['elements'] = ['late']),
        'not_allowed_value',
        '/signed_body/elements/0',
      ],
      ['ts 999999999', (d) => (d['ts'] = 999_999_999), 'out_of_range', '/ts'],
      ['ts not an integer', (d) => (d['ts'] = 1_773_480_420.5), 'wrong_type', '/ts'],
      ['sequence_no negative', (d) => (d.signed_body['sequence_no'] = -1), 'out_of_range', '/signed_body/sequence_no'],
      [
        'prior_sequence_no a string',
        (d) => (d.signed_body['prior_sequence_no'] = '41'),
        'wrong_type',
        '/signed_body/prior_sequence_no',
      ],
      [
        'clock_lag_ms fractional',
        (d) => (d.signed_body['clock_lag_ms'] = 513.5),
        'wrong_type',
        '/signed_body/clock_lag_ms',
      ],
      ['receipt_id form', (d) => (d['receipt_id'] = 'r_ppr.wearable_123_abc'), 'pattern_mismatch', '/receipt_id'],
      [
        'payload_sha256 uppercase',
        (d) => (d['payload_sha256'] = 'A'.repeat(64)),
        'pattern_mismatch',
        '/payload_sha256',
      ],
      ['sig_b64u padded', (d) => (d['sig_b64u'] = `${'A'.repeat(84)}==`), 'pattern_mismatch', '/sig_b64u'],
      ['algorithm', (d) => (d['algorithm'] = 'ed25519'), 'not_allowed_value', '/algorithm'],
      ['schema version', (d) => (d.signed_body['schema'] = 'r2.0.1'), 'not_allowed_value', '/signed_body/schema'],
      [
        'receipt_type',
        (d) => (d.signed_body['receipt_type'] = 'ppr.other'),
        'not_allowed_value',
        '/signed_body/receipt_type',
      ],
      [
        'relation value',
        (d) => (d.signed_body['sequence_relation'] = 'late'),
        'not_allowed_value',
        '/signed_body/sequence_relation',
      ],
      [
        'calibration classification',
        (d) => (d.signed_body['calibration_trust_classification'] = 'Trusted'),
        'not_allowed_value',
        '/signed_body/calibration_trust_classification',
      ],
      [
        'device_signature 85 chars',
        (d) => (d.signed_body['device_signature'] = 'A'.repeat(85)),
        'pattern_mismatch',
        '/signed_body/device_signature',
      ],
      [
        'observed_at with an offset',
        (d) => (d.signed_body['observed_at'] = '2026-03-14T09:26:53+00:00'),
        'pattern_mismatch',
        '/signed_body/observed_at',
      ],
      [
        'observed_at 10 fraction digits',
        (d) => (d.signed_body['observed_at'] = '2026-03-14T09:26:53.1234567891Z'),
        'pattern_mismatch',
        '/signed_body/observed_at',
      ],
      [
        'recorded_at 2026-02-30',
        (d) => (d.signed_body['recorded_at'] = '2026-02-30T00:00:00.000Z'),
        'invalid_timestamp',
        '/signed_body/recorded_at',
      ],
      ['missing ts', (d) => delete d['ts'], 'missing_property', '/ts'],
      ['missing outcome', (d) => delete d.signed_body['outcome'], 'missing_property', '/signed_body/outcome'],
      [
        'classification without a ref',
        (d) => delete d.signed_body['calibration_ref'],
        'missing_property',
        '/signed_body/calibration_ref',
      ],
    ];
    for (const [name, change, code, path] of cases) {
      const report = malformed(change);
      expect(report.errors, name).toContainEqual(expect.objectContaining({ code, path }));
    }
  });

  it('accepts each bound exactly at its limit', () => {
    const receipt = issued({
      record_id: 'r'.repeat(256),
      observation_nonce: 'n'.repeat(16),
      metric_type: 'm'.repeat(128),
      unit: 'u'.repeat(64),
      device_model: 'd'.repeat(256),
      calibration_ref: 'c'.repeat(256),
    });
    expect(verify(receipt).status).toBe('PASS');
    expect(
      verify(
        issued({
          observation_nonce: 'n'.repeat(256),
          record_id: 'r',
          metric_type: 'm',
          unit: 'u',
          device_model: 'd',
          calibration_ref: 'c',
        }),
      ).status,
    ).toBe('PASS');
    const everything = issued(
      {
        sequence_no: 50,
        gateway_received_at: '2026-03-14T10:26:54.102Z',
        calibration_trust_classification: 'unknown',
        assignment_trust_classification: 'untrusted',
      },
      { value: 1 },
    );
    // Five elements is the most there can be: the device signature is invalid, so INVALID, not MALFORMED.
    expect(everything.signed_body.elements).toHaveLength(5);
    expect(verify(everything).status).toBe('INVALID');
    const atMinimum = issueWearable(caller(), serviceSeed, WEARABLE_EXAMPLE_KEY_ID, crypto, { ts: 1_000_000_000 });
    expect(verify(atMinimum).status).toBe('PASS');
  });

  it('refuses any verdict flag that is true, and a verdict flag that is missing', () => {
    for (const flag of ['subject_identity_proven', 'clinical_validity_proven', 'diagnosis_fitness_proven']) {
      const report = malformed(
        (document) => ((document.signed_body['verdict'] as Record<string, unknown>)[flag] = true),
      );
      expect(report.errors).toEqual([
        { code: 'not_allowed_value', path: `/signed_body/verdict/${flag}`, message: 'must be false' },
      ]);
    }
    const missing = malformed(
      (document) => delete (document.signed_body['verdict'] as Record<string, unknown>)['clinical_validity_proven'],
    );
    expect(errorPaths(missing)).toEqual(['/signed_body/verdict/clinical_validity_proven']);
  });

  it('refuses a true verdict flag even when the service re-signed it', () => {
    const report = verify(
      resigned(
        issued(),
        (document) => ((document.signed_body['verdict'] as Record<string, unknown>)['diagnosis_fitness_proven'] = true),
      ),
    );
    expect(report.status).toBe('MALFORMED');
    expect(errorPaths(report)).toEqual(['/signed_body/verdict/diagnosis_fitness_proven']);
  });

  it('refuses a boundary that differs from the fixed text, even by one space', () => {
    const boundary = issued().signed_body.boundary;
    for (const wrong of [boundary.replace('. It', '.  It'), boundary.toUpperCase(), `${boundary} `, '']) {
      const report = malformed((document) => (document.signed_body['boundary'] = wrong));
      expect(report.errors).toEqual([
        expect.objectContaining({ code: 'not_allowed_value', path: '/signed_body/boundary' }),
      ]);
    }
  });
});

describe('wearable receipt verification: every relation value, issued honestly and verified', () => {
  interface Scenario {
    name: string;
    overrides?: Overrides;
    afterSigning?: Overrides;
    expect: Partial<WearableDerivedFields>;
    status?: Report['status'];
  }
  const scenarios: Scenario[] = [
    { name: 'metric matched', expect: { metric_unit_relation: 'matched', outcome: 'measurement_provenance_complete' } },
    {
      name: 'metric mismatch',
      overrides: { unit: 'bpm' },
      expect: { metric_unit_relation: 'mismatch', elements: [], outcome: 'measurement_provenance_inconsistent' },
    },
    {
      name: 'metric indeterminate',
      overrides: { metric_type: 'stress_index', unit: '1' },
      expect: { metric_unit_relation: 'indeterminate', elements: [], outcome: 'measurement_provenance_partial' },
    },
    { name: 'signature valid', expect: { signature_relation: 'valid' } },
    {
      name: 'signature invalid',
      afterSigning: { observation_nonce: 'nonce-replayed-0000' },
      expect: {
        signature_relation: 'invalid',
        elements: ['signature_invalid'],
        outcome: 'measurement_provenance_inconsistent',
      },
      status: 'INVALID',
    },
    {
      name: 'sequence initial',
      overrides: { sequence_no: 0, prior_sequence_no: undefined },
      expect: { sequence_relation: 'initial', outcome: 'measurement_provenance_complete' },
    },
    {
      name: 'sequence contiguous',
      expect: { sequence_relation: 'contiguous', outcome: 'measurement_provenance_complete' },
    },
    {
      name: 'sequence gap',
      overrides: { sequence_no: 44 },
      expect: { sequence_relation: 'gap', elements: ['sequence_gap'], outcome: 'measurement_provenance_partial' },
    },
    {
      name: 'sequence out_of_order (repeat)',
      overrides: { sequence_no: 41 },
      expect: {
        sequence_relation: 'out_of_order',
        elements: ['sequence_gap'],
        outcome: 'measurement_provenance_inconsistent',
      },
    },
    {
      name: 'sequence out_of_order (backwards)',
      overrides: { sequence_no: 3 },
      expect: {
        sequence_relation: 'out_of_order',
        elements: ['sequence_gap'],
        outcome: 'measurement_provenance_inconsistent',
      },
    },
    {
      name: 'sequence indeterminate (no prior, not 0)',
      overrides: { prior_sequence_no: undefined },
      expect: { sequence_relation: 'indeterminate', elements: [], outcome: 'measurement_provenance_partial' },
    },
    {
      name: 'sequence indeterminate (no prior, 1)',
      overrides: { prior_sequence_no: undefined, sequence_no: 1 },
      expect: { sequence_relation: 'indeterminate', outcome: 'measurement_provenance_partial' },
    },
    { name: 'calibration resolved', expect: { calibration_relation: 'resolved' } },
    {
      name: 'calibration untrusted',
      overrides: { calibration_trust_classification: 'untrusted' },
      expect: {
        calibration_relation: 'untrusted',
        elements: ['calibration_unresolved'],
        outcome: 'measurement_provenance_partial',
      },
    },
    {
      name: 'calibration indeterminate (unknown)',
      overrides: { calibration_trust_classification: 'unknown' },
      expect: {
        calibration_relation: 'indeterminate',
        elements: ['calibration_unresolved'],
        outcome: 'measurement_provenance_partial',
      },
    },
    {
      name: 'calibration indeterminate (ref without classification)',
      overrides: { calibration_trust_classification: undefined },
      expect: { calibration_relation: 'indeterminate', elements: ['calibration_unresolved'] },
    },
    {
      name: 'calibration not_applicable',
      overrides: { calibration_ref: undefined, calibration_trust_classification: undefined },
      expect: { calibration_relation: 'not_applicable', elements: [], outcome: 'measurement_provenance_complete' },
    },
    { name: 'assignment resolved', expect: { assignment_relation: 'resolved' } },
    {
      name: 'assignment untrusted',
      overrides: { assignment_trust_classification: 'untrusted' },
      expect: {
        assignment_relation: 'untrusted',
        elements: ['assignment_unresolved'],
        outcome: 'measurement_provenance_partial',
      },
    },
    {
      name: 'assignment indeterminate',
      overrides: { assignment_trust_classification: 'unknown' },
      expect: {
        assignment_relation: 'indeterminate',
        elements: ['assignment_unresolved'],
        outcome: 'measurement_provenance_partial',
      },
    },
    {
      name: 'clock -2000 resolved',
      overrides: { observed_at: '2026-03-14T09:26:56.102Z', gateway_received_at: '2026-03-14T09:26:54.102Z' },
      expect: { clock_lag_ms: -2000, elements: [], outcome: 'measurement_provenance_complete' },
    },
    {
      name: 'clock -2001 unresolved',
      overrides: { observed_at: '2026-03-14T09:26:56.103Z', gateway_received_at: '2026-03-14T09:26:54.102Z' },
      expect: { clock_lag_ms: -2001, elements: ['clock_unresolved'], outcome: 'measurement_provenance_partial' },
    },
    {
      name: 'clock 300000 resolved',
      overrides: { observed_at: '2026-03-14T09:21:54.102Z', gateway_received_at: '2026-03-14T09:26:54.102Z' },
      expect: { clock_lag_ms: 300_000, elements: [] },
    },
    {
      name: 'clock 300001 unresolved',
      overrides: { observed_at: '2026-03-14T09:21:54.101Z', gateway_received_at: '2026-03-14T09:26:54.102Z' },
      expect: { clock_lag_ms: 300_001, elements: ['clock_unresolved'], outcome: 'measurement_provenance_partial' },
    },
    {
      name: 'clock nanoseconds truncated, -2000 stays resolved',
      overrides: {
        observed_at: '2026-03-14T09:26:56.102999999Z',
        gateway_received_at: '2026-03-14T09:26:54.102000001Z',
      },
      expect: { clock_lag_ms: -2000, elements: [] },
    },
    {
      name: 'clock nanoseconds truncated, 300000 stays resolved',
      overrides: {
        observed_at: '2026-03-14T09:21:54.102000001Z',
        gateway_received_at: '2026-03-14T09:26:54.102999999Z',
      },
      expect: { clock_lag_ms: 300_000, elements: [] },
    },
    {
      name: 'every element, in order',
      overrides: {
        sequence_no: 50,
        gateway_received_at: '2026-03-14T10:26:54.102Z',
        calibration_trust_classification: 'unknown',
        assignment_trust_classification: 'untrusted',
      },
      afterSigning: { value: 73 },
      expect: {
        elements: [
          'signature_invalid',
          'sequence_gap',
          'clock_unresolved',
          'calibration_unresolved',
          'assignment_unresolved',
        ],
        outcome: 'measurement_provenance_inconsistent',
      },
      status: 'INVALID',
    },
    {
      name: 'value commitment in place of a value',
      overrides: { value: undefined, value_commitment_sha256: 'c'.repeat(64) },
      expect: { signature_relation: 'valid', outcome: 'measurement_provenance_complete' },
    },
    { name: 'string value', overrides: { value: 'normal sinus rhythm' }, expect: { signature_relation: 'valid' } },
    { name: 'boolean value', overrides: { value: true }, expect: { signature_relation: 'valid' } },
  ];

  for (const scenario of scenarios) {
    it(scenario.name, () => {
      const receipt = issued(scenario.overrides, scenario.afterSigning);
      expect(receipt.signed_body).toMatchObject(scenario.expect);
      const report = verify(receipt);
      expect(report.status).toBe(scenario.status ?? 'PASS');
      expect(notPassing(report)).toEqual(scenario.status === 'INVALID' ? ['device_signature:fail'] : []);
    });
  }

  it('covers every value of every relation, every element and every outcome', () => {
    const seen = new Map<string, Set<string>>();
    for (const scenario of scenarios) {
      for (const [name, value] of Object.entries(scenario.expect)) {
        const values = seen.get(name) ?? new Set<string>();
        for (const item of Array.isArray(value) ? value : [value]) values.add(String(item));
        seen.set(name, values);
      }
    }
    const sorted = (name: string): string[] => [...(seen.get(name) ?? [])].sort();
    expect(sorted('metric_unit_relation')).toEqual(['indeterminate', 'matched', 'mismatch']);
    expect(sorted('signature_relation')).toEqual(['invalid', 'valid']);
    expect(sorted('sequence_relation')).toEqual(['contiguous', 'gap', 'indeterminate', 'initial', 'out_of_order']);
    expect(sorted('calibration_relation')).toEqual(['indeterminate', 'not_applicable', 'resolved', 'untrusted']);
    expect(sorted('assignment_relation')).toEqual(['indeterminate', 'resolved', 'untrusted']);
    expect(sorted('elements')).toEqual([
      'assignment_unresolved',
      'calibration_unresolved',
      'clock_unresolved',
      'sequence_gap',
      'signature_invalid',
    ]);
    expect(sorted('outcome')).toEqual([
      'measurement_provenance_complete',
      'measurement_provenance_inconsistent',
      'measurement_provenance_partial',
    ]);
  });
});

describe('wearable receipt verification: derived fields re-signed with one value altered', () => {
  const alterations: [keyof WearableDerivedFields, unknown][] = [
    ['observation_sha256', 'f'.repeat(64)],
    ['signature_relation', 'invalid'],
    ['metric_unit_relation', 'mismatch'],
    ['clock_lag_ms', 514],
    ['sequence_relation', 'gap'],
    ['calibration_relation', 'untrusted'],
    ['assignment_relation', 'indeterminate'],
    ['elements', ['clock_unresolved']],
    ['outcome', 'measurement_provenance_partial'],
  ];

  for (const [name, altered] of alterations) {
    it(`${name} altered is MISMATCH on derived.${name} alone`, () => {
      const honest = issued();
      const report = verify(resigned(honest, (document) => (document.signed_body[name] = altered)));
      expect(report.status).toBe('MISMATCH');
      expect(notPassing(report)).toEqual([`derived.${name}:fail`]);
      expect(report.errors).toEqual([
        expect.objectContaining({ code: 'derived_mismatch', path: `/signed_body/${name}` }),
      ]);
      const detail = report.checks.find((check) => check.id === `derived.${name}`)?.detail ?? '';
      expect(detail).toContain(`expected ${JSON.stringify(honest.signed_body[name])}`);
      expect(detail).toContain(`found ${JSON.stringify(altered)}`);
    });
  }

  it('elements in another order is MISMATCH', () => {
    const honest = issued({ assignment_trust_classification: 'unknown', calibration_trust_classification: 'unknown' });
    expect(honest.signed_body.elements).toEqual(['calibration_unresolved', 'assignment_unresolved']);
    const report = verify(
      resigned(
        honest,
        (document) => (document.signed_body['elements'] = ['assignment_unresolved', 'calibration_unresolved']),
      ),
    );
    expect(notPassing(report)).toEqual(['derived.elements:fail']);
  });

  it('receipt_id that does not match ts and the observation hash is MISMATCH', () => {
    const report = verify(
      resigned(issued(), (document) => (document['receipt_id'] = 'r_ppr.wearable_1773480420_000000000000')),
    );
    expect(report.status).toBe('MISMATCH');
    expect(notPassing(report)).toEqual(['receipt_id:fail']);
    expect(report.errors).toEqual([expect.objectContaining({ code: 'receipt_id_mismatch', path: '/receipt_id' })]);
  });

  it('ts moved by one second disagrees with receipt_id and recorded_at', () => {
    const report = verify(resigned(issued(), (document) => (document['ts'] = WEARABLE_EXAMPLE_TS + 1)));
    expect(report.status).toBe('MISMATCH');
    expect(notPassing(report)).toEqual(['receipt_id:fail', 'recorded_at:fail']);
  });

  it('recorded_at must fall within the second ts names; milliseconds inside it are consistent', () => {
    const inside = verify(
      resigned(issued(), (document) => (document.signed_body['recorded_at'] = '2026-03-14T09:27:00.999999999Z')),
    );
    expect(inside.status).toBe('PASS');
    const before = verify(
      resigned(issued(), (document) => (document.signed_body['recorded_at'] = '2026-03-14T09:26:59.999Z')),
    );
    expect(notPassing(before)).toEqual(['recorded_at:fail']);
    expect(before.errors).toEqual([
      expect.objectContaining({ code: 'recorded_at_mismatch', path: '/signed_body/recorded_at' }),
    ]);
    const after = verify(
      resigned(issued(), (document) => (document.signed_body['recorded_at'] = '2026-03-14T09:27:01.000Z')),
    );
    expect(after.status).toBe('MISMATCH');
  });
});

describe('wearable receipt verification: the device signature', () => {
  it('an honest receipt of an invalid device signature is INVALID, with the service signature and derived fields passing', () => {
    const receipt = issued({}, { value: 73 });
    expect(receipt.signed_body.signature_relation).toBe('invalid');
    const report = verify(receipt);
    expect(report.status).toBe('INVALID');
    expect(notPassing(report)).toEqual(['device_signature:fail']);
    expect(report.checks.find((check) => check.id === 'signature')?.status).toBe('pass');
    expect(report.errors).toEqual([
      expect.objectContaining({ code: 'device_signature_invalid', path: '/signed_body/device_signature' }),
    ]);
    expect(
      report.notes.some(
        (note) => note.includes('signature_relation invalid') && note.includes('provenance is inconsistent'),
      ),
    ).toBe(true);
    expect(report.notes).toContain(
      'The receipt records the outcome measurement_provenance_inconsistent (unresolved: signature_invalid).',
    );
  });

  it('a receipt that claims a valid device signature it does not have is MISMATCH', () => {
    const honest = issued({}, { value: 73 });
    const report = verify(
      resigned(honest, (document) => {
        document.signed_body['signature_relation'] = 'valid';
        document.signed_body['elements'] = [];
        document.signed_body['outcome'] = 'measurement_provenance_complete';
      }),
    );
    expect(report.status).toBe('MISMATCH');
    expect(notPassing(report)).toEqual([
      'device_signature:fail',
      'derived.signature_relation:fail',
      'derived.elements:fail',
      'derived.outcome:fail',
    ]);
    expect(report.notes).toContain(
      'The device signature does not verify, yet the receipt claims signature_relation valid.',
    );
  });

  it('a device key swapped for another key (re-signed) no longer verifies the device signature', () => {
    const other = crypto.ed25519PublicKey(new Uint8Array(32).fill(0x45));
    const report = verify(
      resigned(issued(), (document) => (document.signed_body['device_public_key'] = hexEncode(other))),
    );
    expect(report.status).toBe('MISMATCH');
    expect(notPassing(report)).toContain('device_signature:fail');
    expect(notPassing(report)).toContain('derived.signature_relation:fail');
  });

  it('the device key in the receipt is the one that verifies', () => {
    const receipt = issued();
    expect(hexDecode(receipt.signed_body.device_public_key)).toEqual(
      crypto.ed25519PublicKey(wearableExampleDeviceSeed()),
    );
  });
});

describe('detectWearable', () => {
  it('recognizes a wearable receipt by signed_body.receipt_type or by receipt_id', () => {
    const receipt = copy(issued());
    expect(detectWearable(fromPlain(receipt as unknown as JsonObject))).toBe('wearable/r2.0.0');
    expect(detectWearable(fromPlain({ signed_body: { receipt_type: 'ppr.wearable' } }))).toBe('wearable/r2.0.0');
    expect(detectWearable(fromPlain({ receipt_id: 'r_ppr.wearable_1_x' }))).toBe('wearable/r2.0.0');
    expect(detectWearable(fromPlain({ signed_body: { receipt_type: 'ppr.other' } }))).toBeUndefined();
    expect(detectWearable(fromPlain({ receipt_id: 'rcp_01' }))).toBeUndefined();
    expect(detectWearable(fromPlain([]))).toBeUndefined();
    expect(detectWearable(fromPlain('r_ppr.wearable_'))).toBeUndefined();
  });

  it('a wearable receipt that lost its signed_body is a MALFORMED wearable receipt, not an unknown document', () => {
    const document = copy(issued());
    delete (document as Record<string, unknown>)['signed_body'];
    const report = verify(document);
    expect(report).toMatchObject({ format: 'wearable/r2.0.0', status: 'MALFORMED' });
    expect(report.errors).toContainEqual(expect.objectContaining({ code: 'missing_property', path: '/signed_body' }));
  });
});
