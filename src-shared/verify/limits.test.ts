import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../crypto';
import type { JsonValue } from '../json/types';
import { createVerifyContext } from './context';
import { decodeB64Field, decodeB64uField, MAX_ENCODED_FIELD_LENGTH } from './fields';
import { catalogueModules } from './registry';
import { createSampleKit, type SampleSet } from './sample-kit';
import { verifyDocument } from './verify';

// Limits, not engine errors: a field of a few million characters once overflowed the stack of
// a base64 pattern (`Maximum call stack size exceeded`, reported INDETERMINATE `internal`). Every
// field is bounded before any pattern runs, so such a document is MALFORMED like any other.

const crypto = createPortableProvider();
const HUGE = 'A'.repeat(4_500_000);

function sampleSet(): SampleSet {
  const set: SampleSet = { files: [], keys: [], secrets: [] };
  const kit = createSampleKit(set, crypto);
  for (const module of catalogueModules()) module.samples(kit);
  return set;
}

/** Every path to a string leaf of at least `min` characters. */
function stringLeaves(value: JsonValue, min: number, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return value.length >= min ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringLeaves(item, min, [...path, index]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([name, item]) => stringLeaves(item, min, [...path, name]));
  return [];
}

function replacedAt(document: JsonValue, path: (string | number)[], text: string): JsonValue {
  const copy = JSON.parse(JSON.stringify(document)) as JsonValue;
  let parent = copy as Record<string | number, JsonValue>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, JsonValue>;
  parent[path[path.length - 1] as string | number] = text;
  return copy;
}

describe('field length limits', () => {
  it('refuses base64 and base64url text of millions of characters without scanning it', () => {
    expect(() => decodeB64Field(HUGE)).not.toThrow();
    expect(decodeB64Field(HUGE, 32)).toBeUndefined();
    expect(decodeB64Field(`${HUGE}A=`)).toBeUndefined();
    expect(decodeB64Field('A'.repeat(MAX_ENCODED_FIELD_LENGTH + 4))).toBeUndefined();
    expect(decodeB64uField('A'.repeat(MAX_ENCODED_FIELD_LENGTH + 4))).toBeUndefined();
    // Canonical text still decodes; padding in the middle or three pads never did.
    expect(decodeB64Field('AAEC')).toEqual(Uint8Array.of(0, 1, 2));
    expect(decodeB64Field('AA==')).toEqual(Uint8Array.of(0));
    expect(decodeB64Field('A===')).toBeUndefined();
    expect(decodeB64Field('AA==AAAA')).toBeUndefined();
    expect(decodeB64Field('AB==')).toBeUndefined();
  });

  it('reports a valid sample with any encoded field blown up to 4.5 million characters without an internal error', () => {
    const set = sampleSet();
    const ctx = createVerifyContext(crypto, { advertised: set.keys, secrets: set.secrets });
    let tried = 0;
    for (const sample of set.files.filter((file) => file.expected_status === 'PASS' && file.format !== 'sealed')) {
      const document = JSON.parse(sample.text) as JsonValue;
      // Encoded keys and signatures are the strings longer than a hex digest of a sample.
      for (const path of stringLeaves(document, 65)) {
        const report = verifyDocument(JSON.stringify(replacedAt(document, path, HUGE)), ctx);
        tried += 1;
        expect(
          report.errors.map((error) => error.code),
          `${sample.file} /${path.join('/')}`,
        ).not.toContain('internal');
        expect(report.status, `${sample.file} /${path.join('/')}`).not.toBe('PASS');
      }
    }
    expect(tried).toBeGreaterThan(10);
  }, 120_000);
});
