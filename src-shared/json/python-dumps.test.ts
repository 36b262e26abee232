import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJsonTree } from './parse';
import { compareCodePoints, pythonFloatRepr, pythonJsonDumps, pythonNumber, pythonString } from './python-dumps';

// Made by Python 3's own json module (see test-vectors/countersigner/README.md): for each JSON
// text, json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")) as `canonical` (the
// countersigner's text) and with ensure_ascii=False as `canonical_unicode` (HAHS's text).
const vectors = JSON.parse(
  readFileSync(new URL('../../test-vectors/countersigner/python-canonical.json', import.meta.url), 'utf8'),
) as { cases: { json: string; canonical: string; canonical_unicode: string }[] };

describe("Python's compact sorted JSON text", () => {
  it('agrees with Python on every vector (numbers, strings, member order)', () => {
    expect(vectors.cases.length).toBeGreaterThan(800);
    for (const { json, canonical } of vectors.cases) {
      expect(pythonJsonDumps(parseJsonTree(json)), json).toBe(canonical);
    }
  });

  it('agrees with Python on every vector with ensure_ascii=False', () => {
    expect(vectors.cases.filter((entry) => entry.canonical_unicode !== entry.canonical).length).toBeGreaterThan(10);
    for (const { json, canonical_unicode } of vectors.cases) {
      expect(pythonJsonDumps(parseJsonTree(json), { ensureAscii: false }), json).toBe(canonical_unicode);
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
    // More reprs from /usr/bin/python3.
    const python: [number, string][] = [
      [1.5, '1.5'],
      [100, '100.0'],
      [1.2345678901234568e17, '1.2345678901234568e+17'],
      [1.5e-5, '1.5e-05'],
      [0.00012, '0.00012'],
      [0, '0.0'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [9999999999999998, '9999999999999998.0'],
      [-3.25e-7, '-3.25e-07'],
    ];
    for (const [value, repr] of python) expect([value, pythonFloatRepr(value)]).toEqual([value, repr]);
    expect(pythonNumber('-0')).toBe('0');
    expect(pythonNumber('12345678901234567890')).toBe('12345678901234567890');
    expect(pythonNumber('1152921504606846977')).toBe('1152921504606846977');
    expect(pythonNumber('1.50')).toBe('1.5');
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
    expect(compareCodePoints('\uffff', '\u{10000}')).toBeLessThan(0);
    expect(
      pythonJsonDumps(parseJsonTree('{"\u{10000}":1,"\uffff":2,"b":"é\\n","a":[true,null,1.0]}'), {
        ensureAscii: false,
      }),
    ).toBe('{"a":[true,null,1.0],"b":"é\\n","\uffff":2,"\u{10000}":1}');
  });
});
