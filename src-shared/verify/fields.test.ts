import { describe, expect, it } from 'vitest';
import { parseJsonTree } from '../json';
import type { JsonObjectNode } from '../json/types';
import { decodeB64Field, decodeB64uField, decodeHexField, isPlainNonNegativeInteger, memberNode, memberProblems, quote } from './fields';

describe('strict field decoding', () => {
  it('hex: lowercase only, exact length', () => {
    expect(decodeHexField('00ff', 2)).toEqual(Uint8Array.of(0, 255));
    expect(decodeHexField('00FF')).toBeUndefined();
    expect(decodeHexField('00ff', 3)).toBeUndefined();
    expect(decodeHexField('0')).toBeUndefined();
    expect(decodeHexField(' 00')).toBeUndefined();
    expect(decodeHexField(12)).toBeUndefined();
    expect(decodeHexField('')).toEqual(new Uint8Array(0));
  });

  it('b64u: unpadded, canonical, exact length', () => {
    expect(decodeB64uField('AAEC', 3)).toEqual(Uint8Array.of(0, 1, 2));
    expect(decodeB64uField('_-8')).toEqual(Uint8Array.of(0xff, 0xef));
    expect(decodeB64uField('AAE=')).toBeUndefined();
    expect(decodeB64uField('AAF')).toBeUndefined(); // non-zero unused bits
    expect(decodeB64uField('A')).toBeUndefined();
    expect(decodeB64uField('+/8')).toBeUndefined();
    expect(decodeB64uField('AAEC', 4)).toBeUndefined();
    expect(decodeB64uField(null)).toBeUndefined();
  });

  it('b64: padded, canonical, exact length', () => {
    expect(decodeB64Field('AAE=', 2)).toEqual(Uint8Array.of(0, 1));
    expect(decodeB64Field('AAE')).toBeUndefined();
    expect(decodeB64Field('AAF=')).toBeUndefined();
    expect(decodeB64Field('_-8=')).toBeUndefined();
    expect(decodeB64Field('AA==AA==')).toBeUndefined();
  });

  it('plain non-negative integers only', () => {
    const node = parseJsonTree('{"a":0,"b":42,"c":-1,"d":1.0,"e":1e3,"f":9007199254740992,"g":"1","h":9007199254740991}') as JsonObjectNode;
    const answers = Object.fromEntries(node.members.map(([name]) => [name, isPlainNonNegativeInteger(memberNode(node, name))]));
    expect(answers).toEqual({ a: true, b: true, c: false, d: false, e: false, f: false, g: false, h: true });
    expect(isPlainNonNegativeInteger(undefined)).toBe(false);
  });

  it('member problems name missing and unknown members by pointer', () => {
    expect(memberProblems({ a: 1, 'x/y': 2 }, '/top', ['a', 'b'], ['c'])).toEqual([
      { code: 'missing_property', path: '/top/b', message: 'Required member "b" is missing.' },
      { code: 'unknown_property', path: '/top/x~1y', message: 'Unknown member "x/y".' },
    ]);
  });

  it('quotes and shortens untrusted text', () => {
    expect(quote('a"b')).toBe('"a\\"b"');
    expect(quote('x'.repeat(100))).toHaveLength(2 + 64 + 1);
  });
});
