import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson, parseJsonTree } from './parse';
import { fromPlain, toPlain } from './plain';
import type { JsonNode, JsonValue } from './types';

describe('toPlain', () => {
  it('gives what JSON.parse gives', () => {
    const text = '{"b":[1.50,-0,true,null,"s",{"x":{}}],"a":1E3,"10":2,"2":3}';
    const plain = toPlain(parseJsonTree(text));
    expect(plain).toStrictEqual(JSON.parse(text));
    expect(Object.keys(plain as object)).toEqual(Object.keys(JSON.parse(text) as object));
    expect(Object.is((plain as { b: number[] }).b[1], -0)).toBe(true);
  });

  it('makes a __proto__ member an own data property, never the prototype', () => {
    const plain = toPlain(
      parseJsonTree('{"__proto__":{"polluted":true,"isAdmin":true},"a":{"__proto__":[1]}}'),
    ) as Record<string, unknown>;
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.hasOwn(plain, '__proto__')).toBe(true);
    expect(Object.keys(plain)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(plain, '__proto__')).toEqual({
      value: { polluted: true, isAdmin: true },
      writable: true,
      enumerable: true,
      configurable: true,
    });
    expect(plain.polluted).toBeUndefined();
    expect(plain.isAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const inner = plain.a as Record<string, unknown>;
    expect(Object.getPrototypeOf(inner)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(inner, '__proto__')?.value).toEqual([1]);
    expect(plain).toStrictEqual(JSON.parse('{"__proto__":{"polluted":true,"isAdmin":true},"a":{"__proto__":[1]}}'));
  });

  it('keeps members named like Object.prototype methods as plain data', () => {
    const plain = parseJson('{"constructor":1,"hasOwnProperty":2,"toString":"x"}') as Record<string, unknown>;
    expect(plain).toStrictEqual({ constructor: 1, hasOwnProperty: 2, toString: 'x' });
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
  });

  it('refuses hand-built trees with repeated names or unknown node types', () => {
    const one: JsonNode = { type: 'null' };
    expect(() =>
      toPlain({
        type: 'object',
        members: [
          [
            'a',
            {
              type: 'object',
              members: [
                ['b', one],
                ['b', one],
              ],
            },
          ],
        ],
      }),
    ).toThrow(/duplicate member name at \/a\/b/);
    expect(() =>
      toPlain({
        type: 'object',
        members: [
          ['__proto__', one],
          ['__proto__', one],
        ],
      }),
    ).toThrow(TypeError);
    expect(() => toPlain({ type: 'bigint' } as unknown as JsonNode)).toThrow(TypeError);
    expect(() => toPlain(null as unknown as JsonNode)).toThrow(TypeError);
  });

  it('refuses trees nested deeper than 64', () => {
    let node: JsonNode = { type: 'null' };
    for (let depth = 0; depth < 64; depth++) node = { type: 'array', items: [node] };
    expect(() => toPlain(node)).not.toThrow();
    expect(() => toPlain({ type: 'array', items: [node] })).toThrow(RangeError);
  });
});

describe('fromPlain', () => {
  it('spells numbers as ECMAScript does, -0 as 0', () => {
    expect(fromPlain([1.5, -0, 1e21, 1e-7, 0.000001, 100])).toEqual({
      type: 'array',
      items: [
        { type: 'number', lexeme: '1.5', value: 1.5 },
        { type: 'number', lexeme: '0', value: 0 },
        { type: 'number', lexeme: '1e+21', value: 1e21 },
        { type: 'number', lexeme: '1e-7', value: 1e-7 },
        { type: 'number', lexeme: '0.000001', value: 0.000001 },
        { type: 'number', lexeme: '100', value: 100 },
      ],
    });
    const zero = fromPlain(-0);
    expect(zero.type === 'number' && Object.is(zero.value, 0)).toBe(true);
  });

  it('keeps own key order and accepts null-prototype objects', () => {
    const bare = Object.create(null) as Record<string, JsonValue>;
    bare.z = null;
    bare.a = 'x';
    expect(fromPlain({ b: true, a: bare })).toEqual({
      type: 'object',
      members: [
        ['b', { type: 'boolean', value: true }],
        [
          'a',
          {
            type: 'object',
            members: [
              ['z', { type: 'null' }],
              ['a', { type: 'string', value: 'x' }],
            ],
          },
        ],
      ],
    });
  });

  it('refuses non-JSON values with TypeError, naming where', () => {
    const cases: [unknown, RegExp][] = [
      [undefined, /undefined at the root/],
      [() => 1, /a function/],
      [Symbol('s'), /a symbol/],
      [10n, /a bigint/],
      [NaN, /the number NaN/],
      [Infinity, /the number Infinity/],
      [-Infinity, /the number -Infinity/],
      [new Date(0), /a Date object/],
      [new Map(), /a Map object/],
      [
        new (class Receipt {
          readonly kind = 'receipt';
        })(),
        /a Receipt object/,
      ],
      ['\ud800', /lone surrogate/],
    ];
    for (const [value, message] of cases) {
      expect(() => fromPlain(value as JsonValue)).toThrow(TypeError);
      expect(() => fromPlain(value as JsonValue)).toThrow(message);
      expect(() => fromPlain({ list: [0, { key: value }] } as unknown as JsonValue)).toThrow(/at \/list\/1\/key/);
    }
    // eslint-disable-next-line no-sparse-arrays -- the hole is the input under test: a sparse array has an undefined member
    expect(() => fromPlain([1, , 2] as unknown as JsonValue)).toThrow(/undefined at \/1/);
    expect(() => fromPlain({ [Symbol('s')]: 1 } as unknown as JsonValue)).toThrow(/symbol-keyed/);
    expect(() => fromPlain({ '\udc00': 1 })).toThrow(/lone surrogate/);
  });

  it('refuses nesting beyond 64 and cycles with RangeError', () => {
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expect(() => fromPlain(cycle as JsonValue)).toThrow(RangeError);
    let deep: JsonValue = [];
    for (let depth = 1; depth < 64; depth++) deep = [deep];
    expect(() => fromPlain(deep)).not.toThrow();
    expect(() => fromPlain([deep])).toThrow(RangeError);
  });

  it('round-trips through toPlain (with -0 read as 0)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8, stringUnit: 'binary' }) as Arbitrary<JsonValue>, (value) => {
        expect(toPlain(fromPlain(value))).toStrictEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });
});
