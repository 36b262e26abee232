import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jcs, jcsNumber, jcsString, jcsTree, skp } from './jcs';
import { parseJson, parseJsonBytes, parseJsonTree } from './parse';
import { fromPlain } from './plain';
import type { JsonNode, JsonValue } from './types';

const vectors = fileURLToPath(new URL('../../../shared/vectors/jcs', import.meta.url));
const encoder = new TextEncoder();

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The double whose IEEE-754 bit pattern is `bits` (1 to 16 hex digits, big-endian). */
function doubleFromHex(bits: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${bits}`));
  return view.getFloat64(0);
}

describe('RFC 8785 test vectors', () => {
  const names = readdirSync(join(vectors, 'input')).filter((name) => name.endsWith('.json'));

  it('has the six published vectors', () => {
    expect(names.sort()).toEqual([
      'arrays.json',
      'french.json',
      'structures.json',
      'unicode.json',
      'values.json',
      'weird.json',
    ]);
  });

  for (const name of names) {
    it(`canonicalizes ${name} byte for byte`, () => {
      const input = readFileSync(join(vectors, 'input', name));
      const expected = new Uint8Array(readFileSync(join(vectors, 'output', name)));
      const expectedHex = readFileSync(join(vectors, 'outhex', name.replace(/\.json$/, '.txt')), 'utf8').replace(
        /\s+/g,
        '',
      );
      // The strict parser accepts every published input as it stands.
      const canonical = jcs(parseJson(input.toString('utf8')));
      const bytes = encoder.encode(canonical);
      expect(hex(bytes)).toBe(hex(expected));
      expect(hex(bytes)).toBe(expectedHex);
      // The tree route and the byte route give the same bytes.
      expect(jcsTree(parseJsonBytes(new Uint8Array(input)))).toBe(canonical);
      // Canonical text is a fixed point.
      expect(jcs(parseJson(canonical))).toBe(canonical);
    });
  }
});

interface NumberRow {
  ieee754Hex: string;
  expected: string | null;
  mustFail?: boolean;
}

describe('RFC 8785 number serialization', () => {
  const numbers = JSON.parse(readFileSync(join(vectors, 'numbers.json'), 'utf8')) as {
    rfc8785AppendixB: NumberRow[];
    es6testfileSampleLines: NumberRow[];
    es6testfileChecksums: { lines: number; sha256: string; bytes: number }[];
  };
  const rows = [...numbers.rfc8785AppendixB, ...numbers.es6testfileSampleLines];

  it('has the published rows', () => {
    expect(numbers.rfc8785AppendixB.length).toBeGreaterThanOrEqual(26);
    expect(numbers.es6testfileSampleLines.length).toBeGreaterThanOrEqual(7);
  });

  for (const row of rows) {
    it(`${row.ieee754Hex} -> ${String(row.expected)}`, () => {
      const value = doubleFromHex(row.ieee754Hex);
      if (row.mustFail === true) {
        expect(() => jcsNumber(value)).toThrow(TypeError);
        expect(() => jcs([value])).toThrow(TypeError);
        expect(() => fromPlain(value)).toThrow(TypeError);
        return;
      }
      expect(jcsNumber(value)).toBe(row.expected);
      expect(jcs({ n: value })).toBe(`{"n":${String(row.expected)}}`);
      // The canonical spelling parses back to the same double (bar the sign of zero).
      const back = (parseJson(row.expected!) as number) + 0;
      expect(Object.is(back, value + 0)).toBe(true);
    });
  }

  it('matches the es6testfile checksums for the first 100000 generated values', () => {
    // The generator is in the README: fixed values, 2000 subnormal-boundary steps, then doubles
    // drawn from a SHA-256 chain. Its static list is read from the README to avoid retyping.
    const readme = readFileSync(join(vectors, 'README.md'), 'utf8');
    const staticBlock = /staticU64s = new BigUint64Array\(\[([\s\S]*?)\]\)/.exec(readme);
    expect(staticBlock).not.toBeNull();
    const staticBits = Array.from(staticBlock![1]!.matchAll(/0x([0-9a-f]+)n/g), (match) => BigInt(`0x${match[1]}`));
    expect(staticBits.length).toBeGreaterThan(100);

    const view = new DataView(new ArrayBuffer(8));
    const checksums = [...numbers.es6testfileChecksums]
      .filter((entry) => entry.lines <= 100_000)
      .sort((a, b) => a.lines - b.lines);
    expect(checksums.map((entry) => entry.lines)).toEqual([1000, 10_000, 100_000]);
    const total = checksums[checksums.length - 1]!.lines;

    let block: Uint8Array = new Uint8Array(32);
    let pending: number[] = [];
    const hash = createHash('sha256');
    let bytes = 0;
    let next = 0;
    for (let index = 0; index < total; index++) {
      let bits: bigint;
      if (index < staticBits.length) {
        bits = staticBits[index]!;
      } else if (index < staticBits.length + 2000) {
        bits = 0x0010000000000000n + BigInt(index - staticBits.length);
      } else {
        let value = 0;
        while (value === 0 || !Number.isFinite(value)) {
          if (pending.length === 0) {
            block = new Uint8Array(createHash('sha256').update(block).digest());
            const blockView = new DataView(block.buffer, block.byteOffset, 32);
            pending = [0, 8, 16, 24].map((offset) => blockView.getFloat64(offset, true));
          }
          value = pending.shift()!;
        }
        view.setFloat64(0, value);
        bits = view.getBigUint64(0);
      }
      view.setBigUint64(0, bits);
      const line = `${bits.toString(16)},${jcsNumber(view.getFloat64(0))}\n`;
      hash.update(line);
      bytes += line.length;
      if (index + 1 === checksums[next]!.lines) {
        const entry = checksums[next]!;
        expect([index + 1, bytes, hash.copy().digest('hex')]).toEqual([entry.lines, entry.bytes, entry.sha256]);
        next++;
      }
    }
    expect(next).toBe(checksums.length);
  });
});

describe('jcs', () => {
  it('sorts member names by UTF-16 code units, not code points or locale', () => {
    // U+1F602 is D83D DE02 in UTF-16, so it sorts before U+FB33 though its code point is higher.
    expect(jcs({ '\ufb33': 1, '\u{1f602}': 2, b: 3, B: 4, '10': 5, '9': 6, '': 7 })).toBe(
      '{"":7,"10":5,"9":6,"B":4,"b":3,"\u{1f602}":2,"\ufb33":1}',
    );
  });

  it('sorts large objects (past the insertion-sort limit) the same way', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 4 }), { minLength: 20, maxLength: 120 }),
        (names) => {
          const value: Record<string, JsonValue> = {};
          names.forEach((name, index) => {
            value[name] = index;
          });
          const canonical = jcs(value);
          expect(canonical).toBe(referenceJcs(value));
          expect(skp(fromPlain(value))).toBe(canonical);
          expect(jcsTree(parseJsonTree(canonical))).toBe(canonical);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('escapes exactly what RFC 8785 requires, with lowercase hex', () => {
    const named: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };
    for (let code = 0; code < 0x20; code++) {
      const expected = named[code] ?? `\\u00${code.toString(16).padStart(2, '0')}`;
      expect(jcsString(String.fromCharCode(code))).toBe(`"${expected}"`);
    }
    expect(jcsString('"\\')).toBe('"\\"\\\\"');
    expect(jcsString('/ \u007f \u0080 \u2028 \u2029 \ufeff \u{10ffff} é')).toBe(
      '"/ \u007f \u0080 \u2028 \u2029 \ufeff \u{10ffff} é"',
    );
    expect(jcsString('\u001f')).toBe('"\\u001f"');
  });

  it('writes numbers in ECMAScript form with -0 as 0', () => {
    expect(jcs([-0, 0, 1e21, 1e-7, 123456789012345680000, 0.1, -1.5, 2 ** 53 + 2])).toBe(
      '[0,0,1e+21,1e-7,123456789012345680000,0.1,-1.5,9007199254740994]',
    );
  });

  it('rejects non-JSON values with TypeError, naming where', () => {
    const bad: unknown[] = [
      undefined,
      () => 1,
      Symbol('s'),
      1n,
      NaN,
      Infinity,
      -Infinity,
      new Date(0),
      new Map(),
      new Set(),
      /x/,
      new (class Thing {
        readonly kind = 'thing';
      })(),
      new Uint8Array(1),
    ];
    for (const value of bad) {
      expect(() => jcs(value as JsonValue)).toThrow(TypeError);
      expect(() => jcs({ a: [value] } as unknown as JsonValue)).toThrow(/\/a\/0/);
    }
    expect(() => jcs({ a: undefined } as unknown as JsonValue)).toThrow(/undefined at \/a is not a JSON value/);
    // eslint-disable-next-line no-sparse-arrays -- a hole is the input under test
    expect(() => jcs([1, , 3] as unknown as JsonValue)).toThrow(/undefined at \/1/);
    expect(() => jcs({ [Symbol('s')]: 1 } as unknown as JsonValue)).toThrow(TypeError);
  });

  it('rejects lone surrogates in strings and names with TypeError', () => {
    expect(() => jcs('\ud800')).toThrow(TypeError);
    expect(() => jcs('a\udc00')).toThrow(TypeError);
    expect(() => jcs('\ude02\ud83d')).toThrow(TypeError);
    expect(() => jcs({ x: { '\ud83d': 1 } })).toThrow(/lone surrogate at \/x\//);
    expect(() => jcsString('\ud83d')).toThrow(TypeError);
    expect(jcs('\ud83d\ude02')).toBe('"\u{1f602}"');
  });

  it('accepts null-prototype objects and refuses nesting beyond 64 (and cycles)', () => {
    const bare = Object.create(null) as Record<string, JsonValue>;
    bare.z = 1;
    bare.a = [];
    expect(jcs(bare)).toBe('{"a":[],"z":1}');
    let deep: JsonValue = 1;
    for (let depth = 0; depth < 64; depth++) deep = [deep];
    expect(jcs(deep)).toBe(`${'['.repeat(64)}1${']'.repeat(64)}`);
    expect(() => jcs([deep])).toThrow(RangeError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => jcs(cycle as JsonValue)).toThrow(RangeError);
  });

  it('keeps a __proto__ member as data', () => {
    const value = parseJson('{"b":1,"__proto__":{"x":1}}');
    expect(jcs(value)).toBe('{"__proto__":{"x":1},"b":1}');
  });
});

describe('skp and jcsTree', () => {
  it('SKP keeps each number lexeme; JCS of the same tree does not', () => {
    const text = '{"z":12345678901234567890123,"b":1.50,"a":[1E3,-0,0.000001,1e+3,2E-3,100]}';
    const tree = parseJsonTree(text);
    expect(skp(tree)).toBe('{"a":[1E3,-0,0.000001,1e+3,2E-3,100],"b":1.50,"z":12345678901234567890123}');
    expect(jcsTree(tree)).toBe('{"a":[1000,0,0.000001,1000,0.002,100],"b":1.5,"z":1.2345678901234568e+22}');
    expect(jcsTree(tree)).toBe(jcs(parseJson(text)));
  });

  it('keeps integers beyond 2^53 exactly in SKP', () => {
    for (const lexeme of [
      '9007199254740993',
      '-9007199254740993',
      '18446744073709551615',
      '340282366920938463463374607431768211457',
    ]) {
      expect(skp(parseJsonTree(`{"n":${lexeme}}`))).toBe(`{"n":${lexeme}}`);
      expect(jcsTree(parseJsonTree(lexeme))).toBe(jcsNumber(Number(lexeme)));
    }
  });

  it('sorts and escapes exactly as JCS does', () => {
    const text = '{"\\u00e9":"\\u0001\\/","A":{"b":[],"a":{}},"\\ud83d\\ude02":true,"\\ufb33":null}';
    expect(skp(parseJsonTree(text))).toBe(jcs(parseJson(text)));
  });

  it('refuses hand-built trees that are not JSON', () => {
    const number = (lexeme: string): JsonNode => ({ type: 'number', lexeme, value: 1 });
    for (const lexeme of ['NaN', '1,2', '01', '1e400', ' 1', '1 ', '+1', '.5', '1.', '', '0x1', '-']) {
      expect(() => skp(number(lexeme))).toThrow(TypeError);
    }
    expect(skp(number('-0.0e-0'))).toBe('-0.0e-0');
    expect(() => jcsTree({ type: 'number', lexeme: '1', value: NaN })).toThrow(TypeError);
    expect(() => skp({ type: 'string', value: '\ud800' })).toThrow(TypeError);
    const twice: JsonNode = {
      type: 'object',
      members: [
        ['a', number('1')],
        ['b', number('1')],
        ['a', number('1')],
      ],
    };
    expect(() => skp(twice)).toThrow(/duplicate member name at \/a/);
    expect(() => jcsTree(twice)).toThrow(TypeError);
    expect(() => skp({ type: 'date' } as unknown as JsonNode)).toThrow(TypeError);
    expect(() => skp(null as unknown as JsonNode)).toThrow(TypeError);
    expect(() => jcsTree(undefined as unknown as JsonNode)).toThrow(TypeError);
  });
});

/** Spell every number differently but equivalently: `1e+21` as `1E+21`, `1.5` as `1.5e0`. */
function respell(node: JsonNode): JsonNode {
  switch (node.type) {
    case 'number':
      return { ...node, lexeme: node.lexeme.includes('e') ? node.lexeme.toUpperCase() : `${node.lexeme}e0` };
    case 'array':
      return { type: 'array', items: node.items.map(respell) };
    case 'object':
      return { type: 'object', members: node.members.map(([name, value]) => [name, respell(value)] as const) };
    default:
      return node;
  }
}

/** An independent, obviously-correct canonicalizer to compare against. */
function referenceJcs(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(referenceJcs).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const names = Object.keys(value);
    names.sort((a, b) => {
      for (let index = 0; index < Math.min(a.length, b.length); index++) {
        const difference = a.charCodeAt(index) - b.charCodeAt(index);
        if (difference !== 0) return difference;
      }
      return a.length - b.length;
    });
    return `{${names.map((name) => `${JSON.stringify(name)}:${referenceJcs(value[name]!)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('JCS properties', () => {
  // fast-check types object members as optional; the values it generates never hold undefined.
  const values = fc.oneof(
    fc.jsonValue({ maxDepth: 8 }),
    fc.jsonValue({ maxDepth: 8, stringUnit: 'binary' }),
    fc.jsonValue({ maxDepth: 4, stringUnit: 'binary-ascii' }),
  ) as Arbitrary<JsonValue>;

  it('JCS(parse(JCS(x))) = JCS(x), and JCS agrees with a reference implementation', () => {
    fc.assert(
      fc.property(values, (value) => {
        const canonical = jcs(value);
        expect(canonical).toBe(referenceJcs(value));
        expect(jcs(parseJson(canonical))).toBe(canonical);
        expect(jcsTree(parseJsonTree(canonical))).toBe(canonical);
      }),
      { numRuns: 1000 },
    );
  });

  it('SKP equals JCS when every lexeme is canonical', () => {
    fc.assert(
      fc.property(values, (value) => {
        const canonical = jcs(value);
        expect(skp(fromPlain(value))).toBe(canonical);
        expect(skp(parseJsonTree(canonical))).toBe(canonical);
        expect(jcsTree(fromPlain(value))).toBe(canonical);
      }),
      { numRuns: 1000 },
    );
  });

  it('SKP round-trips non-canonical spellings, and JCS of the result ignores them', () => {
    fc.assert(
      fc.property(values, (value) => {
        const respelled = respell(fromPlain(value));
        const text = skp(respelled);
        expect(skp(parseJsonTree(text))).toBe(text);
        expect(jcsTree(parseJsonTree(text))).toBe(jcs(value));
        expect(jcsTree(respelled)).toBe(jcs(value));
      }),
      { numRuns: 500 },
    );
  });
});
