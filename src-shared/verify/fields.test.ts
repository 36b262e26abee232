import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { b64uEncode } from '../crypto';
import { fromPlain, parseJsonTree } from '../json';
import type { JsonObjectNode } from '../json/types';
import {
  decodeB64Field,
  decodeB64uField,
  decodeHexField,
  isPlainNonNegativeInteger,
  memberNode,
  memberNodeProblems,
  memberProblems,
  memberString,
  objectMember,
  quote,
} from './fields';

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

  it('b64u: accepts a text exactly when it is the encoding of what it decodes to', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'AQgw_-=+/ \n'), maxLength: 12 }), (text) => {
        const decoded = decodeB64uField(text);
        expect(decoded === undefined ? undefined : b64uEncode(decoded)).toBe(
          /^[A-Za-z0-9_-]*$/.test(text) && text.length % 4 !== 1 && b64uEncode(b64uDecodeLoose(text)) === text
            ? text
            : undefined,
        );
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (bytes) => {
        expect(decodeB64uField(b64uEncode(bytes), bytes.length)).toEqual(bytes);
        expect(decodeB64uField(b64uEncode(bytes), bytes.length + 1)).toBeUndefined();
      }),
    );
  });

  it('b64: padded, canonical, exact length', () => {
    expect(decodeB64Field('AAE=', 2)).toEqual(Uint8Array.of(0, 1));
    expect(decodeB64Field('AAE')).toBeUndefined();
    expect(decodeB64Field('AAF=')).toBeUndefined();
    expect(decodeB64Field('_-8=')).toBeUndefined();
    expect(decodeB64Field('AA==AA==')).toBeUndefined();
  });

  it('plain non-negative integers only', () => {
    const node = parseJsonTree(
      '{"a":0,"b":42,"c":-1,"d":1.0,"e":1e3,"f":9007199254740992,"g":"1","h":9007199254740991}',
    ) as JsonObjectNode;
    const answers = Object.fromEntries(
      node.members.map(([name]) => [name, isPlainNonNegativeInteger(memberNode(node, name))]),
    );
    expect(answers).toEqual({ a: true, b: true, c: false, d: false, e: false, f: false, g: false, h: true });
    expect(isPlainNonNegativeInteger(undefined)).toBe(false);
  });

  it('member problems name missing and unknown members by pointer', () => {
    expect(memberProblems({ a: 1, 'x/y': 2 }, '/top', ['a', 'b'], ['c'])).toEqual([
      { code: 'missing_property', path: '/top/b', message: 'Required member "b" is missing.' },
      { code: 'unknown_property', path: '/top/x~1y', message: 'Unknown member "x/y".' },
    ]);
  });

  it('member problems of a node are those of its plain value, in the same order', () => {
    const names = fc.constantFrom('a', 'b', 'c', 'x/y', '~', '__proto__', '');
    fc.assert(
      fc.property(
        fc.dictionary(names, fc.integer()),
        fc.uniqueArray(names, { maxLength: 4 }),
        fc.uniqueArray(names, { maxLength: 4 }),
        (object, required, optional) => {
          const node = fromPlain(object) as JsonObjectNode;
          expect(memberNodeProblems(node, '/p', required, optional)).toEqual(
            memberProblems(object, '/p', required, optional),
          );
        },
      ),
    );
  });

  it('reads members of object nodes only, strings as strings', () => {
    const node = parseJsonTree('{"s":"text","n":1,"o":{"s":"inner"},"a":["s"]}');
    expect(memberString(node, 's')).toBe('text');
    expect(memberString(node, 'n')).toBeUndefined();
    expect(memberString(node, 'missing')).toBeUndefined();
    expect(memberString(objectMember(node, 'o'), 's')).toBe('inner');
    expect(memberString(objectMember(node, 'a'), 's')).toBeUndefined();
    expect(objectMember(objectMember(node, 'missing'), 's')).toBeUndefined();
    expect(objectMember(parseJsonTree('["s"]'), '0')).toBeUndefined();
    expect(objectMember(node, 'n')).toEqual({ type: 'number', lexeme: '1', value: 1 });
  });

  it('quotes and shortens untrusted text', () => {
    expect(quote('a"b')).toBe('"a\\"b"');
    expect(quote('x'.repeat(100))).toHaveLength(2 + 64 + 1);
  });
});

/** Decode b64u ignoring the unused trailing bits: the reference the strict decoder is held to. */
function b64uDecodeLoose(text: string): Uint8Array {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const character of text) {
    value = (value << 6) | alphabet.indexOf(character);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >> bits) & 255);
    }
  }
  return Uint8Array.from(out);
}
