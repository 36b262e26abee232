import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import type { JsonValue } from '../../json/types';
import { WEARABLE_EXAMPLE_KEY_ID, wearableWorkedExample } from './example';
import { WEARABLE_BOUNDARY } from './fields';
import { WEARABLE_SCHEMA_ID, wearableShapeProblems } from './schema';

const crypto = createPortableProvider();
const SCHEMA_FILE = fileURLToPath(new URL('../../../resources/schemas/wearable-r2.0.0.schema.json', import.meta.url));
const SPEC_FILE = fileURLToPath(new URL('../../../../shared/spec/service-interface.md', import.meta.url));

interface Schema {
  $id: string;
  $schema: string;
  additionalProperties: boolean;
  $defs: {
    signed_body: {
      additionalProperties: boolean;
      properties: Record<string, { const?: unknown; additionalProperties?: boolean }>;
    };
  };
}

function receipt(): { [name: string]: JsonValue } {
  return JSON.parse(JSON.stringify(wearableWorkedExample(crypto).receipt)) as { [name: string]: JsonValue };
}

function body(document: { [name: string]: JsonValue }): { [name: string]: JsonValue } {
  return document['signed_body'] as { [name: string]: JsonValue };
}

describe('the published wearable schema', () => {
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Schema;

  it('is JSON Schema 2020-12 with the project $id and closed objects at all three levels', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(WEARABLE_SCHEMA_ID);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.$defs.signed_body.additionalProperties).toBe(false);
    expect(schema.$defs.signed_body.properties['verdict']?.additionalProperties).toBe(false);
  });

  it('its boundary constant is spec rule 8, fragments (a) to (d) joined by single spaces', () => {
    const rule = readFileSync(SPEC_FILE, 'utf8')
      .split('\n')
      .find((line) => line.startsWith('8. boundary'));
    const match = / \(a\) (.*) \(b\) (.*) \(c\) (.*) \(d\) (.*)$/.exec(rule ?? '');
    expect(match).not.toBeNull();
    const fromSpec = match?.slice(1).join(' ');
    expect(schema.$defs.signed_body.properties['boundary']?.const).toBe(fromSpec);
    expect(WEARABLE_BOUNDARY).toBe(fromSpec);
  });
});

describe('wearableShapeProblems', () => {
  it('finds nothing wrong with an issued receipt', () => {
    expect(wearableShapeProblems(receipt())).toEqual([]);
  });

  it('says which case breaks "exactly one of value and value_commitment_sha256"', () => {
    const both = receipt();
    body(both)['value_commitment_sha256'] = '0'.repeat(64);
    expect(wearableShapeProblems(both)).toEqual([
      {
        code: 'not_exactly_one',
        path: '/signed_body',
        message: 'Exactly one of "value" and "value_commitment_sha256" must be present; both are.',
      },
    ]);
    const neither = receipt();
    delete body(neither)['value'];
    expect(wearableShapeProblems(neither)).toEqual([
      {
        code: 'not_exactly_one',
        path: '/signed_body',
        message: 'Exactly one of "value" and "value_commitment_sha256" must be present; neither is.',
      },
    ]);
  });

  it('reports a value of the wrong type once, naming the allowed types', () => {
    for (const value of [null, [], { n: 1 }]) {
      const document = receipt();
      body(document)['value'] = value;
      expect(wearableShapeProblems(document)).toEqual([
        { code: 'wrong_type', path: '/signed_body/value', message: '"value" must be a number, a string or a boolean.' },
      ]);
    }
  });

  it('refuses TS values that match the pattern but name no real instant', () => {
    const cases: [string, string][] = [
      ['observed_at', '2026-02-30T00:00:00Z'],
      ['gateway_received_at', '2026-04-31T00:00:00.5Z'],
      ['recorded_at', '2025-02-29T00:00:00.000Z'],
      ['observed_at', '2026-01-01T24:00:00Z'],
      ['observed_at', '2026-01-01T00:60:00Z'],
      ['observed_at', '2026-01-01T00:00:60Z'],
      ['observed_at', '2026-13-01T00:00:00Z'],
    ];
    for (const [name, value] of cases) {
      const document = receipt();
      body(document)[name] = value;
      expect(wearableShapeProblems(document), value).toEqual([
        expect.objectContaining({ code: 'invalid_timestamp', path: `/signed_body/${name}` }),
      ]);
    }
    const leap = receipt();
    body(leap)['observed_at'] = '2024-02-29T23:59:59.999999999Z';
    expect(wearableShapeProblems(leap)).toEqual([]);
  });

  it('reports a classification without a reference at the missing reference', () => {
    const document = receipt();
    delete body(document)['calibration_ref'];
    expect(wearableShapeProblems(document)).toEqual([
      {
        code: 'missing_property',
        path: '/signed_body/calibration_ref',
        message: 'required property "calibration_ref" is missing',
      },
    ]);
  });

  it('holds every integer to the safe range, so JCS can sign it faithfully', () => {
    const document = receipt();
    body(document)['sequence_no'] = 2 ** 53;
    body(document)['clock_lag_ms'] = -(2 ** 53);
    expect(wearableShapeProblems(document).map((problem) => [problem.code, problem.path])).toEqual([
      ['out_of_range', '/signed_body/sequence_no'],
      ['out_of_range', '/signed_body/clock_lag_ms'],
    ]);
  });

  it('checks key_id against the spec form did:<svc|web|key>:<identifier>', () => {
    for (const keyId of ['did:example:x', 'did:svc:', 'did:svc:a b', 'svc:a']) {
      const document = receipt();
      document['key_id'] = keyId;
      expect(wearableShapeProblems(document), keyId).toEqual([
        expect.objectContaining({ code: 'pattern_mismatch', path: '/key_id' }),
      ]);
    }
    const document = receipt();
    document['key_id'] = WEARABLE_EXAMPLE_KEY_ID.replace('did:svc:', 'did:web:');
    expect(wearableShapeProblems(document)).toEqual([]);
  });

  it('answers for any JSON value without throwing', () => {
    for (const value of [null, 1, 'x', [], {}]) {
      expect(wearableShapeProblems(value).length).toBeGreaterThan(0);
    }
    expect(wearableShapeProblems({ signed_body: 'x' }).length).toBeGreaterThan(0);
  });
});
