import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJsonTree } from './parse';
import { compareCodePoints, pythonFloatRepr, pythonJsonDumps, pythonNumber, pythonString } from './python-dumps';

// Made by Python 3's own json module (see test-vectors/countersigner/README.md): for each JSON
// text, json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")).
const vectors = JSON.parse(
  readFileSync(new URL('../../test-vectors/countersigner/python-canonical.json', import.meta.url), 'utf8'),
) as { cases: { json: string; canonical: string }[] };

describe("Python's compact sorted JSON text", () => {
  it('agrees with Python on every vector (numbers, strings, member order)', () => {
    expect(vectors.cases.length).toBeGreaterThan(800);
    for (const { json, canonical } of vectors.cases) {
      expect(pythonJsonDumps(parseJsonTree(json)), json).toBe(canonical);
    }
  });

  it('writes floats as repr does and integers in their digits', () => {
    expect(pythonFloatRepr(1e16)).toBe('1e+16');
    expect(pythonFloatRepr(1e15)).toBe('1000000000000000.0');
    expect(pythonFloatRepr(0.0001)).toBe('0.0001');
    expect(pythonFloatRepr(0.00001)).toBe('1e-05');
    expect(pythonFloatRepr(-0)).toBe('-0.0');
    expect(pythonFloatRepr(1795640000)).toBe('1795640000.0');
    expect(pythonFloatRepr(1.5e300)).toBe('1.5e+300');
    expect(pythonNumber('-0')).toBe('0');
    expect(pythonNumber('12345678901234567890')).toBe('12345678901234567890');
    expect(pythonNumber('1E2')).toBe('100.0');
    expect(() => pythonNumber('1x')).toThrow(TypeError);
    expect(() => pythonNumber('1e999')).toThrow(/finite/);
  });

  it('escapes as ensure_ascii does, or only controls without it', () => {
    expect(pythonString('é\u007f/🐝')).toBe('"\\u00e9\\u007f/\\ud83d\\udc1d"');
    expect(pythonString('é\u007f/🐝\n', false)).toBe('"é\u007f/🐝\\n"');
    expect(pythonString('\u0001"\\')).toBe('"\\u0001\\"\\\\"');
    expect(() => pythonString('\ud800x')).toThrow(TypeError);
  });

  it('orders names by code point, not UTF-16 unit', () => {
    expect(compareCodePoints('\uff01', '\u{1f600}')).toBeLessThan(0);
    expect('\uff01' < '\u{1f600}').toBe(false);
    expect(pythonJsonDumps(parseJsonTree('{"\u{1f600}":2,"\uff01":1}'))).toBe('{"\\uff01":1,"\\ud83d\\ude00":2}');
    expect(pythonJsonDumps(parseJsonTree('{"b":1,"a":2}'), { ensureAscii: false })).toBe('{"a":2,"b":1}');
  });
});
