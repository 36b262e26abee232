import { describe, expect, it } from 'vitest';
import { createPortableProvider, utf8Encode } from '../../crypto';
import { OBSERVATION_DOMAIN, canonicalObservation, observationObject } from './canonical';
import type { WearableObservation } from './fields';

const crypto = createPortableProvider();
const h = (fill: string): string => fill.repeat(64);

function observation(overrides: Partial<Record<keyof WearableObservation, unknown>> = {}): WearableObservation {
  const base: Record<string, unknown> = {
    observation_nonce: 'nonce-0123456789ab',
    subject_assignment_sha256: h('a'),
    device_id_commitment_sha256: h('b'),
    firmware_sha256: h('c'),
    device_model: 'Band',
    metric_type: 'heart_rate',
    unit: '/min',
    value: 72,
    observed_at: '2026-01-01T00:00:00.123Z',
    sequence_no: 0,
  };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) Reflect.deleteProperty(base, name);
    else base[name] = value;
  }
  return base as unknown as WearableObservation;
}

describe('canonical observation message M', () => {
  it('is JCS of exactly the listed members with the domain, keys sorted, no whitespace', () => {
    expect(canonicalObservation(observation())).toBe(
      `{"device_id_commitment_sha256":"${h('b')}","device_model":"Band","domain":"ppr.wearable.observation/r2.0.0",` +
        `"firmware_sha256":"${h('c')}","metric_type":"heart_rate","observation_nonce":"nonce-0123456789ab",` +
        `"observed_at":"2026-01-01T00:00:00.123Z","sequence_no":0,"subject_assignment_sha256":"${h('a')}",` +
        `"unit":"/min","value":72}`,
    );
    expect(observationObject(observation())['domain']).toBe(OBSERVATION_DOMAIN);
  });

  it('includes prior_sequence_no and calibration_ref only when present', () => {
    const plain = observationObject(observation());
    expect(Object.keys(plain)).not.toContain('prior_sequence_no');
    expect(Object.keys(plain)).not.toContain('calibration_ref');
    const full = observationObject(observation({ prior_sequence_no: 4, sequence_no: 5, calibration_ref: 'cal-1' }));
    expect(full).toMatchObject({ prior_sequence_no: 4, sequence_no: 5, calibration_ref: 'cal-1' });
    expect(canonicalObservation(observation({ prior_sequence_no: 4 }))).toContain(
      '"prior_sequence_no":4,"sequence_no":0',
    );
  });

  it('leaves out every field that is not part of M (the service record, the trust classifications, derived fields)', () => {
    const withExtras = {
      ...observation(),
      record_id: 'r1',
      evidence_digest_sha256: h('d'),
      device_public_key: h('e'),
      gateway_received_at: '2026-01-01T00:00:01Z',
      device_signature: 'x',
      assignment_trust_classification: 'trusted',
      calibration_trust_classification: 'trusted',
      observation_sha256: h('f'),
      outcome: 'measurement_provenance_complete',
    } as WearableObservation;
    expect(canonicalObservation(withExtras)).toBe(canonicalObservation(observation()));
  });

  it('carries value_commitment_sha256 in place of value', () => {
    const committed = observationObject(observation({ value: undefined, value_commitment_sha256: h('9') }));
    expect(committed['value_commitment_sha256']).toBe(h('9'));
    expect(Object.hasOwn(committed, 'value')).toBe(false);
  });

  it('writes values canonically: strings and booleans as JSON, numbers in JCS form', () => {
    expect(canonicalObservation(observation({ value: 'high' }))).toContain('"value":"high"');
    expect(canonicalObservation(observation({ value: false }))).toContain('"value":false');
    expect(canonicalObservation(observation({ value: 36.6 }))).toContain('"value":36.6');
    expect(canonicalObservation(observation({ value: 1e21 }))).toContain('"value":1e+21');
  });

  it('refuses both and neither of value and value_commitment_sha256', () => {
    expect(() => observationObject(observation({ value_commitment_sha256: h('9') }))).toThrow(/Exactly one of "value"/);
    expect(() => observationObject(observation({ value: undefined }))).toThrow(/Exactly one of "value"/);
  });

  it('refuses missing or mistyped members', () => {
    expect(() => observationObject(observation({ unit: undefined }))).toThrow(TypeError);
    expect(() => observationObject(observation({ sequence_no: -1 }))).toThrow(/non-negative safe integer/);
    expect(() => observationObject(observation({ sequence_no: 1.5 }))).toThrow(TypeError);
    expect(() => observationObject(observation({ prior_sequence_no: 2 ** 53 }))).toThrow(TypeError);
    expect(() => observationObject(observation({ value: {} }))).toThrow(/finite number, a string or a boolean/);
    expect(() => observationObject(observation({ value: Number.NaN }))).toThrow(TypeError);
    expect(() => observationObject(observation({ calibration_ref: 7 }))).toThrow(TypeError);
    expect(() => observationObject(null as unknown as WearableObservation)).toThrow(TypeError);
  });

  it('hashes to a different observation_sha256 when any member of M changes', () => {
    const digest = (fields: WearableObservation): Uint8Array => crypto.sha256(utf8Encode(canonicalObservation(fields)));
    const base = digest(observation());
    for (const change of [
      { value: 73 },
      { observation_nonce: 'nonce-0123456789ac' },
      { sequence_no: 1 },
      { calibration_ref: 'c' },
    ]) {
      expect(digest(observation(change))).not.toEqual(base);
    }
  });
});
