import { describe, expect, it } from 'vitest';
import { createPortableProvider, hexEncode, utf8Encode } from '../../crypto';
import { canonicalObservation } from './canonical';
import {
  METRIC_UNITS,
  assignmentRelation,
  calibrationRelation,
  clockLagMs,
  deriveWearable,
  metricUnitRelation,
  observationEvidence,
  provenanceElements,
  provenanceOutcome,
  sequenceRelation,
  type ElementInputs,
} from './derive';
import { wearableExampleDeviceSeed, wearableExampleObservation } from './example';
import { WEARABLE_BOUNDARY, type WearableCallerFields } from './fields';
import { signObservation } from './sign';

const crypto = createPortableProvider();

function signed(overrides: Partial<Record<keyof WearableCallerFields, unknown>> = {}): WearableCallerFields {
  const fields = wearableExampleObservation(crypto) as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) Reflect.deleteProperty(fields, name);
    else fields[name] = value;
  }
  const typed = fields as unknown as WearableCallerFields;
  typed.device_signature = signObservation(typed, wearableExampleDeviceSeed(), crypto);
  return typed;
}

const RESOLVED: ElementInputs = {
  signature: 'valid',
  sequence: 'contiguous',
  clockLagMs: 0,
  calibration: 'resolved',
  assignment: 'resolved',
};

describe('metric_unit_relation', () => {
  it('matches every registered metric with each of its UCUM units, exactly', () => {
    const expected: Record<string, string[]> = {
      heart_rate: ['/min'],
      respiratory_rate: ['/min'],
      spo2: ['%'],
      body_temperature: ['Cel', '[degF]'],
      step_count: ['1', '{steps}'],
      blood_glucose: ['mg/dL', 'mmol/L'],
      systolic_bp: ['mm[Hg]'],
      diastolic_bp: ['mm[Hg]'],
      hrv_rmssd: ['ms'],
      body_weight: ['kg', '[lb_av]'],
      sleep_duration: ['min', 'h'],
    };
    expect(Object.fromEntries(METRIC_UNITS)).toEqual(expected);
    for (const [metric, units] of Object.entries(expected)) {
      for (const unit of units) expect(metricUnitRelation(metric, unit), `${metric} ${unit}`).toBe('matched');
    }
  });

  it('a known metric with another unit is mismatch; case and spacing matter', () => {
    expect(metricUnitRelation('heart_rate', 'bpm')).toBe('mismatch');
    expect(metricUnitRelation('body_temperature', 'cel')).toBe('mismatch');
    expect(metricUnitRelation('spo2', ' %')).toBe('mismatch');
    expect(metricUnitRelation('sleep_duration', 'ms')).toBe('mismatch');
  });

  it('an unknown metric is indeterminate, including names on Object.prototype', () => {
    expect(metricUnitRelation('glucose', 'mg/dL')).toBe('indeterminate');
    expect(metricUnitRelation('Heart_rate', '/min')).toBe('indeterminate');
    expect(metricUnitRelation('constructor', '/min')).toBe('indeterminate');
    expect(metricUnitRelation('__proto__', '/min')).toBe('indeterminate');
  });
});

describe('sequence_relation', () => {
  it('without a prior number: initial for 0, indeterminate otherwise', () => {
    expect(sequenceRelation(0)).toBe('initial');
    expect(sequenceRelation(1)).toBe('indeterminate');
    expect(sequenceRelation(900)).toBe('indeterminate');
  });

  it('with a prior number: contiguous, gap, out_of_order', () => {
    expect(sequenceRelation(5, 4)).toBe('contiguous');
    expect(sequenceRelation(0, 0)).toBe('out_of_order');
    expect(sequenceRelation(6, 4)).toBe('gap');
    expect(sequenceRelation(4, 4)).toBe('out_of_order');
    expect(sequenceRelation(3, 4)).toBe('out_of_order');
    expect(sequenceRelation(1, 0)).toBe('contiguous');
  });

  it('is exact at the top of the safe integer range', () => {
    const top = Number.MAX_SAFE_INTEGER;
    expect(sequenceRelation(top, top - 1)).toBe('contiguous');
    expect(sequenceRelation(top, top - 2)).toBe('gap');
    expect(sequenceRelation(top, top)).toBe('out_of_order');
  });
});

describe('calibration_relation and assignment_relation', () => {
  it('calibration: not_applicable without a reference, else by classification', () => {
    expect(calibrationRelation(undefined, undefined)).toBe('not_applicable');
    expect(calibrationRelation('cal-1', 'trusted')).toBe('resolved');
    expect(calibrationRelation('cal-1', 'untrusted')).toBe('untrusted');
    expect(calibrationRelation('cal-1', 'unknown')).toBe('indeterminate');
    expect(calibrationRelation('cal-1', undefined)).toBe('indeterminate');
  });

  it('assignment: resolved, untrusted, indeterminate (unknown is never trusted)', () => {
    expect(assignmentRelation('trusted')).toBe('resolved');
    expect(assignmentRelation('untrusted')).toBe('untrusted');
    expect(assignmentRelation('unknown')).toBe('indeterminate');
  });
});

describe('clock_lag_ms', () => {
  it('is gateway minus observed in whole milliseconds, negative when the device clock is ahead', () => {
    expect(clockLagMs('2026-01-01T00:00:00Z', '2026-01-01T00:00:01.250Z')).toBe(1250);
    expect(clockLagMs('2026-01-01T00:00:01.250Z', '2026-01-01T00:00:00Z')).toBe(-1250);
    expect(clockLagMs('2025-12-31T23:59:59.999Z', '2026-01-01T00:00:00.000Z')).toBe(1);
    expect(clockLagMs('2024-02-28T00:00:00Z', '2024-03-01T00:00:00Z')).toBe(2 * 86_400_000);
  });

  it('truncates each instant to milliseconds before subtracting (no rounding, no float error)', () => {
    expect(clockLagMs('2026-01-01T00:00:00.000999999Z', '2026-01-01T00:00:00.001Z')).toBe(1);
    expect(clockLagMs('2026-01-01T00:00:00.1Z', '2026-01-01T00:00:00.3Z')).toBe(200);
    expect(clockLagMs('2026-01-01T00:00:00.123456789Z', '2026-01-01T00:00:00.123999999Z')).toBe(0);
    expect(clockLagMs('2026-01-01T00:00:02.000999999Z', '2026-01-01T00:00:00.000000001Z')).toBe(-2000);
  });

  it('throws RangeError for a value that is not a real TS', () => {
    expect(() => clockLagMs('2026-02-30T00:00:00Z', '2026-03-01T00:00:00Z')).toThrow(RangeError);
  });
});

describe('elements', () => {
  it('is empty when everything is resolved', () => {
    expect(provenanceElements(RESOLVED)).toEqual([]);
    expect(provenanceElements({ ...RESOLVED, sequence: 'initial', calibration: 'not_applicable' })).toEqual([]);
    expect(provenanceElements({ ...RESOLVED, sequence: 'indeterminate' })).toEqual([]);
  });

  it('names each unresolved part alone', () => {
    expect(provenanceElements({ ...RESOLVED, signature: 'invalid' })).toEqual(['signature_invalid']);
    expect(provenanceElements({ ...RESOLVED, sequence: 'gap' })).toEqual(['sequence_gap']);
    expect(provenanceElements({ ...RESOLVED, sequence: 'out_of_order' })).toEqual(['sequence_gap']);
    expect(provenanceElements({ ...RESOLVED, clockLagMs: -2001 })).toEqual(['clock_unresolved']);
    expect(provenanceElements({ ...RESOLVED, clockLagMs: 300_001 })).toEqual(['clock_unresolved']);
    expect(provenanceElements({ ...RESOLVED, calibration: 'untrusted' })).toEqual(['calibration_unresolved']);
    expect(provenanceElements({ ...RESOLVED, calibration: 'indeterminate' })).toEqual(['calibration_unresolved']);
    expect(provenanceElements({ ...RESOLVED, assignment: 'untrusted' })).toEqual(['assignment_unresolved']);
    expect(provenanceElements({ ...RESOLVED, assignment: 'indeterminate' })).toEqual(['assignment_unresolved']);
  });

  it('keeps the clock window inclusive: -2000 and 300000 are resolved', () => {
    expect(provenanceElements({ ...RESOLVED, clockLagMs: -2000 })).toEqual([]);
    expect(provenanceElements({ ...RESOLVED, clockLagMs: 300_000 })).toEqual([]);
  });

  it('lists all five in PROTOCOL order', () => {
    expect(
      provenanceElements({
        signature: 'invalid',
        sequence: 'gap',
        clockLagMs: -5000,
        calibration: 'indeterminate',
        assignment: 'untrusted',
      }),
    ).toEqual([
      'signature_invalid',
      'sequence_gap',
      'clock_unresolved',
      'calibration_unresolved',
      'assignment_unresolved',
    ]);
  });
});

describe('outcome', () => {
  const base = { signature: 'valid', metricUnit: 'matched', sequence: 'contiguous', elements: [] } as const;

  it('complete: no elements, unit matched, sequence initial or contiguous', () => {
    expect(provenanceOutcome(base)).toBe('measurement_provenance_complete');
    expect(provenanceOutcome({ ...base, sequence: 'initial' })).toBe('measurement_provenance_complete');
  });

  it('partial: an element, an indeterminate unit or an indeterminate sequence', () => {
    expect(provenanceOutcome({ ...base, elements: ['clock_unresolved'] })).toBe('measurement_provenance_partial');
    expect(provenanceOutcome({ ...base, sequence: 'gap', elements: ['sequence_gap'] })).toBe(
      'measurement_provenance_partial',
    );
    expect(provenanceOutcome({ ...base, metricUnit: 'indeterminate' })).toBe('measurement_provenance_partial');
    expect(provenanceOutcome({ ...base, sequence: 'indeterminate' })).toBe('measurement_provenance_partial');
  });

  it('inconsistent: an invalid signature, a unit mismatch or an out-of-order sequence, each alone', () => {
    expect(provenanceOutcome({ ...base, signature: 'invalid', elements: ['signature_invalid'] })).toBe(
      'measurement_provenance_inconsistent',
    );
    expect(provenanceOutcome({ ...base, metricUnit: 'mismatch' })).toBe('measurement_provenance_inconsistent');
    expect(provenanceOutcome({ ...base, sequence: 'out_of_order', elements: ['sequence_gap'] })).toBe(
      'measurement_provenance_inconsistent',
    );
  });
});

describe('deriveWearable', () => {
  it('computes every derived field from real signed caller fields', () => {
    const fields = signed();
    const message = canonicalObservation(fields);
    expect(deriveWearable(fields, crypto)).toEqual({
      verdict: { subject_identity_proven: false, clinical_validity_proven: false, diagnosis_fitness_proven: false },
      boundary: WEARABLE_BOUNDARY,
      observation_sha256: hexEncode(crypto.sha256(utf8Encode(message))),
      metric_unit_relation: 'matched',
      signature_relation: 'valid',
      clock_lag_ms: 513,
      sequence_relation: 'contiguous',
      calibration_relation: 'resolved',
      assignment_relation: 'resolved',
      elements: [],
      outcome: 'measurement_provenance_complete',
    });
  });

  it('signature_relation is invalid for another key, another message, or an undecodable signature or key', () => {
    const fields = signed();
    expect(
      deriveWearable(
        { ...fields, device_public_key: hexEncode(crypto.ed25519PublicKey(new Uint8Array(32).fill(1))) },
        crypto,
      ).signature_relation,
    ).toBe('invalid');
    // A field of M changed after signing.
    expect(deriveWearable({ ...fields, value: 73 }, crypto).signature_relation).toBe('invalid');
    // Non-canonical base64url (stray bits in the last character) does not verify.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(fields.device_signature.at(-1) ?? '');
    expect(last % 16).toBe(0);
    const stray = fields.device_signature.slice(0, -1) + alphabet.charAt(last + 1);
    expect(deriveWearable({ ...fields, device_signature: stray }, crypto).signature_relation).toBe('invalid');
    expect(deriveWearable({ ...fields, device_public_key: 'zz' }, crypto).signature_relation).toBe('invalid');
  });

  it('fields outside M (gateway time, classifications) change derived fields but not the device signature', () => {
    const derived = deriveWearable(
      { ...signed(), gateway_received_at: '2026-03-14T09:36:54.102Z', assignment_trust_classification: 'unknown' },
      crypto,
    );
    expect(derived.signature_relation).toBe('valid');
    expect(derived.elements).toEqual(['clock_unresolved', 'assignment_unresolved']);
    expect(derived.outcome).toBe('measurement_provenance_partial');
  });

  it('observationEvidence hashes the UTF-8 of M', () => {
    const fields = signed({ device_model: 'Bänd ✓' });
    const evidence = observationEvidence(fields, crypto);
    expect(evidence.canonicalMessage).toContain('"device_model":"Bänd ✓"');
    expect(evidence.observationSha256).toBe(hexEncode(crypto.sha256(utf8Encode(evidence.canonicalMessage))));
    expect(evidence.signatureValid).toBe(true);
  });
});
