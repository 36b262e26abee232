import { describe, expect, it } from 'vitest';
import { b64uDecode, createPortableProvider, hexDecode, hexEncode, utf8Encode } from '../../crypto';
import type { JsonObject } from '../../verify/fields';
import { ruleD1Payload } from '../../verify/signature';
import { canonicalObservation } from './canonical';
import { deriveWearable } from './derive';
import {
  WEARABLE_EXAMPLE_KEY_ID,
  WEARABLE_EXAMPLE_TS,
  wearableExampleDeviceSeed,
  wearableExampleObservation,
  wearableExampleServiceSeed,
} from './example';
import { WEARABLE_BOUNDARY, WEARABLE_DERIVED_FIELDS, type WearableCallerFields } from './fields';
import { WearableInputError, issueWearable, signObservation, wearableReceiptId } from './sign';

const crypto = createPortableProvider();
const serviceSeed = wearableExampleServiceSeed();

function caller(overrides: Record<string, unknown> = {}): WearableCallerFields {
  const fields = wearableExampleObservation(crypto) as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) Reflect.deleteProperty(fields, name);
    else fields[name] = value;
  }
  const typed = fields as unknown as WearableCallerFields;
  typed.device_signature = signObservation(typed, wearableExampleDeviceSeed(), crypto);
  return typed;
}

function issue(fields: WearableCallerFields | JsonObject, ts = WEARABLE_EXAMPLE_TS) {
  return issueWearable(fields, serviceSeed, WEARABLE_EXAMPLE_KEY_ID, crypto, { ts });
}

function refusal(action: () => unknown): WearableInputError {
  try {
    action();
  } catch (error) {
    if (error instanceof WearableInputError) return error;
    throw error;
  }
  throw new Error('expected a WearableInputError');
}

describe('signObservation', () => {
  it('signs the UTF-8 of M itself with the device key', () => {
    const fields = caller();
    const signature = b64uDecode(signObservation(fields, wearableExampleDeviceSeed(), crypto));
    expect(signature).toHaveLength(64);
    const message = utf8Encode(canonicalObservation(fields));
    expect(crypto.ed25519Verify(signature, message, hexDecode(fields.device_public_key))).toBe(true);
    expect(crypto.ed25519Verify(signature, crypto.sha256(message), hexDecode(fields.device_public_key))).toBe(false);
  });

  it('ignores an existing device_signature and members outside M', () => {
    const fields = caller();
    const changed: WearableCallerFields = {
      ...fields,
      device_signature: 'x',
      record_id: 'other',
      gateway_received_at: '2027-01-01T00:00:00Z',
    };
    const again = signObservation(changed, wearableExampleDeviceSeed(), crypto);
    expect(again).toBe(fields.device_signature);
  });

  it('throws for missing observation fields and bad seeds', () => {
    expect(() => signObservation(caller({ metric_type: undefined }), wearableExampleDeviceSeed(), crypto)).toThrow(
      TypeError,
    );
    expect(() => signObservation(caller(), new Uint8Array(31), crypto)).toThrow(RangeError);
  });
});

describe('issueWearable', () => {
  it('issues a Rule D1 receipt: every derived field computed, receipt_id, ts and recorded_at', () => {
    const fields = caller();
    const receipt = issue(fields);
    const derived = deriveWearable(fields, crypto);
    expect(receipt.receipt_id).toBe(`r_ppr.wearable_${WEARABLE_EXAMPLE_TS}_${derived.observation_sha256.slice(0, 12)}`);
    expect(receipt).toMatchObject({ key_id: WEARABLE_EXAMPLE_KEY_ID, algorithm: 'Ed25519', ts: WEARABLE_EXAMPLE_TS });
    expect(receipt.signed_body).toEqual({
      receipt_type: 'ppr.wearable',
      schema: 'r2.0.0',
      ...fields,
      recorded_at: '2026-03-14T09:27:00.000Z',
      ...derived,
    });
    expect(receipt.signed_body.boundary).toBe(WEARABLE_BOUNDARY);
    const digest = crypto.sha256(utf8Encode(ruleD1Payload(receipt as unknown as JsonObject)));
    expect(receipt.payload_sha256).toBe(hexEncode(digest));
    expect(crypto.ed25519Verify(b64uDecode(receipt.sig_b64u), digest, crypto.ed25519PublicKey(serviceSeed))).toBe(true);
  });

  it('defaults ts to the current second and keeps recorded_at the same instant', () => {
    const before = Math.floor(Date.now() / 1000);
    const receipt = issueWearable(caller(), serviceSeed, WEARABLE_EXAMPLE_KEY_ID, crypto);
    const after = Math.floor(Date.now() / 1000);
    expect(receipt.ts).toBeGreaterThanOrEqual(before);
    expect(receipt.ts).toBeLessThanOrEqual(after);
    expect(receipt.signed_body.recorded_at).toBe(new Date(receipt.ts * 1000).toISOString());
    expect(receipt.signed_body.recorded_at).toMatch(/\.000Z$/);
  });

  it('records an invalid device signature as signature_relation invalid rather than refusing it', () => {
    const fields = caller();
    const receipt = issue({ ...fields, value: 99 });
    expect(receipt.signed_body).toMatchObject({
      signature_relation: 'invalid',
      elements: ['signature_invalid'],
      outcome: 'measurement_provenance_inconsistent',
    });
  });

  it('refuses every derived field and the verdict by name, with the path a 400 answer needs', () => {
    for (const name of WEARABLE_DERIVED_FIELDS) {
      const error = refusal(() => issue({ ...caller(), [name]: 'x' } as unknown as JsonObject));
      expect(error.details, name).toEqual([expect.objectContaining({ code: 'derived_field', path: `/${name}` })]);
      expect(error.message).toContain(`/${name}:`);
    }
    const verdict = refusal(() =>
      issue({ ...caller(), verdict: { subject_identity_proven: false } } as unknown as JsonObject),
    );
    expect(verdict.details[0]?.message).toBe('The verdict is computed by the service and cannot be supplied.');
  });

  it('refuses service-set and unknown members', () => {
    const error = refusal(() =>
      issue({
        ...caller(),
        receipt_type: 'ppr.wearable',
        recorded_at: '2026-01-01T00:00:00Z',
        key_id: 'did:svc:x',
        'a/b': 1,
      } as unknown as JsonObject),
    );
    expect(error.details.map((detail) => [detail.code, detail.path])).toEqual([
      ['service_field', '/receipt_type'],
      ['service_field', '/recorded_at'],
      ['unknown_property', '/key_id'],
      ['unknown_property', '/a~1b'],
    ]);
  });

  it('validates caller fields against the published schema, with caller paths', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ record_id: '' }, 'too_short', '/record_id'],
      [{ record_id: 'a'.repeat(257) }, 'too_long', '/record_id'],
      [{ record_id: 'has space' }, 'pattern_mismatch', '/record_id'],
      [{ observation_nonce: 'n'.repeat(15) }, 'too_short', '/observation_nonce'],
      [{ sequence_no: -1 }, 'out_of_range', '/sequence_no'],
      [{ device_public_key: 'AB'.repeat(32) }, 'pattern_mismatch', '/device_public_key'],
      [{ assignment_trust_classification: 'maybe' }, 'not_allowed_value', '/assignment_trust_classification'],
      [{ unit: undefined }, 'missing_property', '/unit'],
      [{ value_commitment_sha256: '0'.repeat(64) }, 'not_exactly_one', ''],
      [{ calibration_ref: undefined }, 'missing_property', '/calibration_ref'],
      [{ observed_at: '2026-02-30T00:00:00Z' }, 'invalid_timestamp', '/observed_at'],
      [{ gateway_received_at: '2026-03-14 09:26:54Z' }, 'pattern_mismatch', '/gateway_received_at'],
    ];
    for (const [overrides, code, path] of cases) {
      // Signing needs a valid M; the signature itself does not matter to these refusals.
      const fields = { ...caller(), ...overrides } as Record<string, unknown>;
      for (const [name, value] of Object.entries(overrides))
        if (value === undefined) Reflect.deleteProperty(fields, name);
      const error = refusal(() => issue(fields as unknown as JsonObject));
      expect(error.details, JSON.stringify(overrides)).toContainEqual(expect.objectContaining({ code, path }));
    }
    expect(refusal(() => issue({ ...caller(), device_signature: 'short' })).details).toEqual([
      expect.objectContaining({ code: 'pattern_mismatch', path: '/device_signature' }),
    ]);
  });

  it('checks its own arguments', () => {
    expect(() => issueWearable(null as unknown as JsonObject, serviceSeed, WEARABLE_EXAMPLE_KEY_ID, crypto)).toThrow(
      TypeError,
    );
    expect(() => issueWearable([] as unknown as JsonObject, serviceSeed, WEARABLE_EXAMPLE_KEY_ID, crypto)).toThrow(
      TypeError,
    );
    expect(() => issueWearable(caller(), serviceSeed, 'did:example:1', crypto)).toThrow(TypeError);
    expect(() => issueWearable(caller(), new Uint8Array(16), WEARABLE_EXAMPLE_KEY_ID, crypto)).toThrow(RangeError);
    for (const ts of [999_999_999, 253_402_300_800, 1.5e9 + 0.5, Number.NaN]) {
      expect(() => issue(caller(), ts), String(ts)).toThrow(RangeError);
    }
    expect(issue(caller(), 1_000_000_000).signed_body.recorded_at).toBe('2001-09-09T01:46:40.000Z');
    expect(issue(caller(), 253_402_300_799).signed_body.recorded_at).toBe('9999-12-31T23:59:59.000Z');
  });

  it('copies the caller fields: later changes to the input do not reach the receipt', () => {
    const fields = caller();
    const receipt = issue(fields);
    fields.device_model = 'changed';
    expect(receipt.signed_body.device_model).toBe('Evidence Room Reference Band 2');
  });

  it('receipt ids follow r_ppr.wearable_<ts>_<12 hex>', () => {
    expect(wearableReceiptId(1_773_480_420, '0123456789abcdef'.repeat(4))).toBe(
      'r_ppr.wearable_1773480420_0123456789ab',
    );
  });
});
