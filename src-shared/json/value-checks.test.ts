import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { describeNonJson, findLoneSurrogate, isPlainObject } from './value-checks';

describe('findLoneSurrogate', () => {
  it('finds unpaired halves and passes pairs', () => {
    expect(findLoneSurrogate('')).toBe(-1);
    expect(findLoneSurrogate('a\u{1f602}b')).toBe(-1);
    expect(findLoneSurrogate('\ud800')).toBe(0);
    expect(findLoneSurrogate('ab\udc00')).toBe(2);
    expect(findLoneSurrogate('\ude02\ud83d')).toBe(0);
    expect(findLoneSurrogate('\ud83d\ud83d\ude02')).toBe(0);
    expect(findLoneSurrogate('\u{1f602}\ud83d')).toBe(2);
  });
});

describe('isPlainObject', () => {
  it('accepts object literals, null-prototype objects and objects from another realm', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject(JSON.parse('{"a":1}'))).toBe(true);
    expect(isPlainObject(runInNewContext('({ a: 1 })'))).toBe(true);
  });

  it('refuses arrays, class instances and built-in objects', () => {
    for (const value of [
      [],
      new Date(),
      new Map(),
      /x/,
      new (class Thing {
        readonly kind = 'thing';
      })(),
      Object.create({}),
      null,
      1,
      'x',
    ]) {
      expect(isPlainObject(value)).toBe(false);
    }
  });
});

describe('describeNonJson', () => {
  it('names the kind of value', () => {
    expect(describeNonJson(undefined)).toBe('undefined');
    expect(describeNonJson(() => 1)).toBe('a function');
    expect(describeNonJson(Symbol('s'))).toBe('a symbol');
    expect(describeNonJson(1n)).toBe('a bigint');
    expect(describeNonJson(NaN)).toBe('the number NaN');
    expect(describeNonJson(new Map())).toBe('a Map object');
    expect(describeNonJson(Object.create(Object.create(null)))).toBe('a non-plain object');
  });
});
