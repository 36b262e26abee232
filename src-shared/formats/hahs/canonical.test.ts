import { describe, expect, it } from 'vitest';
import { parseJsonTree } from '../../json';
import { compareCodePoints, pythonCanonical, pythonFloatRepr, pythonNumber } from './canonical';

describe('the HAHS canonical text (Python json.dumps, sorted keys, ensure_ascii=False)', () => {
  it('writes doubles as Python repr does (values from /usr/bin/python3)', () => {
    const python: [number, string][] = [
      [1.5, '1.5'],
      [100, '100.0'],
      [1e16, '1e+16'],
      [1e15, '1000000000000000.0'],
      [1.2345678901234568e17, '1.2345678901234568e+17'],
      [1.5e-5, '1.5e-05'],
      [0.0001, '0.0001'],
      [0.00012, '0.00012'],
      [-0, '-0.0'],
      [0, '0.0'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [9999999999999998, '9999999999999998.0'],
      [-3.25e-7, '-3.25e-07'],
    ];
    for (const [value, repr] of python) expect([value, pythonFloatRepr(value)]).toEqual([value, repr]);
  });

  it('keeps integer lexemes exact and writes others as the double they denote', () => {
    expect(pythonNumber('1152921504606846977', 2 ** 60)).toBe('1152921504606846977');
    expect(pythonNumber('-0', -0)).toBe('0');
    expect(pythonNumber('1.50', 1.5)).toBe('1.5');
    expect(pythonNumber('1E2', 100)).toBe('100.0');
  });

  it('sorts names by code point, not UTF-16 code unit, and escapes as JCS does', () => {
    expect(compareCodePoints('\uffff', '\u{10000}')).toBeLessThan(0);
    expect('\u{10000}' < '\uffff').toBe(true);
    expect(pythonCanonical(parseJsonTree('{"\u{10000}":1,"\uffff":2,"b":"é\\n","a":[true,null,1.0]}'))).toBe(
      '{"a":[true,null,1.0],"b":"é\\n","\uffff":2,"\u{10000}":1}',
    );
  });
});
