import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson, parseJsonBytes, parseJsonTree } from './parse';
import { JsonParseError, MAX_JSON_DEPTH } from './types';
import type { JsonErrorCode } from './types';

/** Parse and return the error, failing the test if there is none or it is of another class. */
function parseError(text: string): JsonParseError {
  try {
    parseJsonTree(text);
  } catch (error) {
    if (error instanceof JsonParseError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

function expectRejected(text: string, code: JsonErrorCode, path: string, offset?: number): void {
  const error = parseError(text);
  expect({ code: error.code, path: error.path }).toEqual({ code, path });
  if (offset !== undefined) expect(error.offset).toBe(offset);
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.name).toBe('JsonParseError');
}

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

describe('parseJsonTree accepts RFC 8259 JSON', () => {
  it('builds the lossless tree, keeping lexemes and member order', () => {
    expect(parseJsonTree(' {"b": 1.50, "a": [true, false, null, "x", -0, 1E3]} ')).toEqual({
      type: 'object',
      members: [
        ['b', { type: 'number', lexeme: '1.50', value: 1.5 }],
        [
          'a',
          {
            type: 'array',
            items: [
              { type: 'boolean', value: true },
              { type: 'boolean', value: false },
              { type: 'null' },
              { type: 'string', value: 'x' },
              { type: 'number', lexeme: '-0', value: -0 },
              { type: 'number', lexeme: '1E3', value: 1000 },
            ],
          },
        ],
      ],
    });
  });

  it('accepts scalars at the root and all four whitespace characters', () => {
    expect(parseJson('\t\r\n 42 \n')).toBe(42);
    expect(parseJson('"s"')).toBe('s');
    expect(parseJson('null')).toBe(null);
    expect(parseJson('[ ]')).toEqual([]);
    expect(parseJson('{ }')).toEqual({});
  });

  it('keeps every number spelling as its lexeme with the nearest double as value', () => {
    const lexemes = [
      '999999999999999',
      '-999999999999999',
      '9999999999999999',
      '9007199254740993',
      '100000000000000000000000',
      '-1',
      '7',
      '0',
      '-0',
      '1.50',
      '1E3',
      '1e+3',
      '1e-3',
      '0.000001',
      '-12.5e-7',
      '12345678901234567890123',
      '5e-324',
      '1e-400',
      '1.7976931348623157e308',
    ];
    for (const lexeme of lexemes) {
      const node = parseJsonTree(lexeme);
      expect(node).toEqual({ type: 'number', lexeme, value: Number(lexeme) });
      expect(Object.is((node as { value: number }).value, JSON.parse(lexeme))).toBe(true);
    }
  });

  it('gives every integer lexeme the value Number() gives it', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), (integer) => {
        const lexeme = integer.toString();
        const node = parseJsonTree(lexeme);
        expect(node).toEqual({ type: 'number', lexeme, value: Number(lexeme) });
        expect(Object.is((node as { value: number }).value, Number(lexeme))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('decodes every escape and surrogate pairs, raw or escaped', () => {
    expect(parseJson('"\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0041 \\u00e9 \\u20AC"')).toBe('" \\ / \b \f \n \r \t A é €');
    expect(parseJson('"\\ud83d\\ude02"')).toBe('\u{1f602}');
    expect(parseJson('"\u{1f602}"')).toBe('\u{1f602}');
    expect(parseJson('"a\\u0000b"')).toBe('a\u0000b');
    expect(parseJson('"\u2028\u2029\u007f\ufffe"')).toBe('\u2028\u2029\u007f\ufffe');
  });

  it('accepts nesting to depth 64 and rejects depth 65', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(() => parseJsonTree(nested(64))).not.toThrow();
    expectRejected(nested(65), 'too_deep', `/${Array(64).fill('0').join('/')}`, 64);
    const objects = '{"a":'.repeat(64) + '1' + '}'.repeat(64);
    expect(() => parseJsonTree(objects)).not.toThrow();
    expectRejected('{"a":'.repeat(65) + '1' + '}'.repeat(65), 'too_deep', `/${Array(64).fill('a').join('/')}`);
    // Depth is nesting, not a count of containers: many siblings at depth 64 are fine.
    const wide = '['.repeat(63) + '[],[],[]' + ']'.repeat(63);
    expect(() => parseJsonTree(wide)).not.toThrow();
  });

  it('detects duplicates in large objects too', () => {
    const names = Array.from({ length: 40 }, (_, index) => `"k${index}":${index}`);
    expect(Object.keys(parseJson(`{${names.join(',')}}`) as object)).toHaveLength(40);
    expectRejected(`{"x":{${names.join(',')},"k3":0}}`, 'duplicate_name', '/x/k3');
    // Around the switch from a linear scan to a Set (32 members), first and last names alike.
    for (const count of [7, 8, 9, 31, 32, 33, 34]) {
      expectRejected(`{${names.slice(0, count).join(',')},"k0":0}`, 'duplicate_name', '/k0');
      expectRejected(`{${names.slice(0, count).join(',')},"k${count - 1}":0}`, 'duplicate_name', `/k${count - 1}`);
      expectRejected(
        `{${names.slice(0, count).join(',')},"new":0,"k${count - 1}":0}`,
        'duplicate_name',
        `/k${count - 1}`,
      );
      expect(() => parseJsonTree(`{${names.slice(0, count).join(',')},"new":0,"other":1}`)).not.toThrow();
    }
    // Names that differ only after escape decoding are the same name.
    expectRejected('{"a":1,"\\u0061":2}', 'duplicate_name', '/a', 7);
  });
});

describe('parseJsonTree rejects, one code at a time', () => {
  it('empty_input', () => {
    expectRejected('', 'empty_input', '', 0);
    expectRejected(' \t\r\n', 'empty_input', '');
  });

  it('bom', () => {
    expectRejected('\ufeff{}', 'bom', '', 0);
    // U+FEFF is not whitespace anywhere else either.
    expectRejected('[\ufeff1]', 'unexpected_character', '/0', 1);
  });

  it('unexpected_character, naming the path of the value being read', () => {
    expectRejected('[1 2]', 'unexpected_character', '', 3);
    expectRejected('{"a" 1}', 'unexpected_character', '/a', 5);
    expectRejected('{"a":[1,2,{"b":x}]}', 'unexpected_character', '/a/2/b', 15);
    expectRejected('[\f1]', 'unexpected_character', '/0', 1);
    expectRejected('[\u00a01]', 'unexpected_character', '/0', 1);
    expectRejected('{,}', 'unexpected_character', '', 1);
    expectRejected('[,1]', 'unexpected_character', '/0', 1);
    expectRejected('trUe', 'unexpected_character', '', 2);
    expectRejected('{"a":1 "b":2}', 'unexpected_character', '', 7);
  });

  it('unexpected_end', () => {
    expectRejected('[1,', 'unexpected_end', '/1', 3);
    expectRejected('{"a":', 'unexpected_end', '/a', 5);
    expectRejected('"abc', 'unexpected_end', '', 4);
    expectRejected('"\\', 'unexpected_end', '', 2);
    expectRejected('nul', 'unexpected_end', '', 3);
    expectRejected('{"a":[{"b":"c', 'unexpected_end', '/a/0/b', 13);
  });

  it('trailing_content', () => {
    expectRejected('{} {}', 'trailing_content', '', 3);
    expectRejected('1 2', 'trailing_content', '', 2);
    expectRejected('"a""b"', 'trailing_content', '', 3);
  });

  it('trailing_comma in arrays and objects, at the comma', () => {
    expectRejected('[1,2,]', 'trailing_comma', '', 4);
    expectRejected('{"a":{"b":1 , }}', 'trailing_comma', '/a', 12);
    expectRejected('[[1,\n]]', 'trailing_comma', '/0', 3);
  });

  it('comment, wherever whitespace could stand', () => {
    expectRejected('// note\n{}', 'comment', '', 0);
    expectRejected('{"a":1 /* note */}', 'comment', '', 7);
    expectRejected('[1,/* note */2]', 'comment', '/1', 3);
    expectRejected('{} // note', 'comment', '', 3);
    expectRejected('{"a":/**/1}', 'comment', '/a', 5);
  });

  it('invalid_number for spellings RFC 8259 does not allow', () => {
    const cases: [string, number][] = [
      ['01', 1],
      ['-01', 2],
      ['00', 1],
      ['+1', 0],
      ['.5', 0],
      ['1.', 2],
      ['1.e3', 2],
      ['-', 1],
      ['-a', 1],
      ['1e', 2],
      ['1e+', 3],
      ['0x1F', 1],
      ['0X1F', 1],
      ['1.5.3', 3],
      ['12abc', 2],
      ['1-2', 1],
      ['- 1', 1],
    ];
    for (const [text, offset] of cases) expectRejected(text, 'invalid_number', '', offset);
    expectRejected('{"n":[0,01]}', 'invalid_number', '/n/1', 9);
  });

  it('non_finite_number for NaN, Infinity and overflow', () => {
    expectRejected('NaN', 'non_finite_number', '', 0);
    expectRejected('Infinity', 'non_finite_number', '', 0);
    expectRejected('[-Infinity]', 'non_finite_number', '/0', 1);
    expectRejected('{"x":1e400}', 'non_finite_number', '/x', 5);
    expectRejected('-1e309', 'non_finite_number', '', 0);
    expectRejected(`1${'0'.repeat(400)}`, 'non_finite_number', '');
    // Underflow is not overflow: it rounds to zero as JSON.parse does.
    expect(parseJson('1e-400')).toBe(0);
  });

  it('invalid_string for quoting other than double quotes', () => {
    expectRejected("'a'", 'invalid_string', '', 0);
    expectRejected('{a:1}', 'invalid_string', '', 1);
    expectRejected("{'a':1}", 'invalid_string', '', 1);
  });

  it('invalid_escape', () => {
    expectRejected('"\\x41"', 'invalid_escape', '', 1);
    expectRejected('"\\u12"', 'invalid_escape', '', 1);
    expectRejected('"\\u12G4"', 'invalid_escape', '', 1);
    expectRejected('"\\U0041"', 'invalid_escape', '', 1);
    expectRejected('"\\\'"', 'invalid_escape', '', 1);
    expectRejected('{"a":["ok","\\a"]}', 'invalid_escape', '/a/1', 12);
    expectRejected('"\\ud83d\\uZZZZ"', 'invalid_escape', '', 7);
  });

  it('control_character, raw in strings and names', () => {
    expectRejected('"a\u0000b"', 'control_character', '', 2);
    expectRejected('"\t"', 'control_character', '', 1);
    expectRejected('"line\nbreak"', 'control_character', '', 5);
    expectRejected('{"a\u001fb":1}', 'control_character', '', 3);
    expectRejected('["\\n", "x\u0001"]', 'control_character', '/1', 9);
  });

  it('lone_surrogate, raw or escaped', () => {
    expectRejected('"\\ud800"', 'lone_surrogate', '', 1);
    expectRejected('"\\udc00"', 'lone_surrogate', '', 1);
    expectRejected('"\\ud83d\\u0041"', 'lone_surrogate', '', 1);
    expectRejected('"\\ud83dx"', 'lone_surrogate', '', 1);
    expectRejected('"\\ude02\\ud83d"', 'lone_surrogate', '', 1);
    expectRejected('"\ud800"', 'lone_surrogate', '', 1);
    expectRejected('"a\udc00"', 'lone_surrogate', '', 2);
    expectRejected('"\\n\ud800"', 'lone_surrogate', '', 3);
    expectRejected('{"a":{"\ud800":1}}', 'lone_surrogate', '/a', 7);
    // Mixing a raw high surrogate with an escaped low one is not a pair in the text.
    expectRejected('"\ud83d\\ude02"', 'lone_surrogate', '', 1);
  });

  it('duplicate_name at any depth, with the path of the duplicate', () => {
    expectRejected('{"a":{"b":1,"b":2}}', 'duplicate_name', '/a/b', 12);
    expectRejected('{"a":[{"b":1,"b":2}]}', 'duplicate_name', '/a/0/b', 13);
    expectRejected('{"a":1,"a":1}', 'duplicate_name', '/a', 7);
    expectRejected('{"a/b":{"c~d":{"x":1,"x":2}}}', 'duplicate_name', '/a~1b/c~0d/x');
    expectRejected('{"":1,"":2}', 'duplicate_name', '/');
    // The same name in sibling objects is not a duplicate.
    expect(parseJson('[{"a":1},{"a":2}]')).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it('too_deep', () => {
    expectRejected(`{"x":${nested(64)}}`, 'too_deep', `/x/${Array(63).fill('0').join('/')}`);
  });

  it('reports every failure as a JsonParseError with the code in its type', () => {
    const error = parseError('[1,]');
    expect(error).toBeInstanceOf(JsonParseError);
    expect(error).toBeInstanceOf(Error);
  });

  it('rejects non-strings with TypeError', () => {
    expect(() => parseJsonTree(42 as unknown as string)).toThrow(TypeError);
    expect(() => parseJsonBytes('{}' as unknown as Uint8Array)).toThrow(TypeError);
  });
});

describe('parseJsonBytes', () => {
  const encoder = new TextEncoder();

  it('parses UTF-8 bytes', () => {
    expect(parseJsonBytes(encoder.encode('{"€":"\u{1f602}"}'))).toEqual({
      type: 'object',
      members: [['€', { type: 'string', value: '\u{1f602}' }]],
    });
  });

  it('rejects a UTF-8 BOM with bom', () => {
    const error = catchBytes(Uint8Array.of(0xef, 0xbb, 0xbf, 0x7b, 0x7d));
    expect([error.code, error.offset]).toEqual(['bom', 0]);
  });

  it('rejects ill-formed UTF-8 with invalid_utf8 and the byte offset', () => {
    const cases: [number[], number][] = [
      [[0x22, 0x61, 0xff, 0x22], 2],
      [[0x22, 0xc0, 0xaf, 0x22], 1], // overlong "/"
      [[0x22, 0xed, 0xa0, 0x80, 0x22], 1], // encoded surrogate
      [[0x22, 0x61, 0x62, 0xe2, 0x82], 3], // truncated
      [[0x22, 0xf4, 0x90, 0x80, 0x80, 0x22], 1], // above U+10FFFF
    ];
    for (const [bytes, offset] of cases) {
      const error = catchBytes(Uint8Array.from(bytes));
      expect([error.code, error.offset, error.path]).toEqual(['invalid_utf8', offset, '']);
    }
  });

  it('never throws anything but JsonParseError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          parseJsonBytes(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(JsonParseError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  function catchBytes(bytes: Uint8Array): JsonParseError {
    try {
      parseJsonBytes(bytes);
    } catch (error) {
      if (error instanceof JsonParseError) return error;
      throw error;
    }
    throw new Error('expected rejection');
  }
});

/** Codes a strict parser may add over JSON.parse, which accepts these inputs. */
const STRICTER_CODES: readonly JsonErrorCode[] = ['duplicate_name', 'lone_surrogate', 'too_deep', 'non_finite_number'];

/** Compare with JSON.parse: same result when both accept, and no acceptance JSON.parse refuses. */
function agreesWithJsonParse(text: string): void {
  let expected: unknown;
  let acceptedByJsonParse = true;
  try {
    expected = JSON.parse(text);
  } catch {
    acceptedByJsonParse = false;
  }
  let actual: unknown;
  try {
    actual = parseJson(text);
  } catch (error) {
    if (!(error instanceof JsonParseError)) throw error;
    if (acceptedByJsonParse) expect(STRICTER_CODES).toContain(error.code);
    return;
  }
  expect(acceptedByJsonParse).toBe(true);
  expect(actual).toStrictEqual(expected);
}

describe('parseJson agrees with JSON.parse', () => {
  const indent = fc.constantFrom('', ' ', '\t', '\r\n', ' \t\n\r');

  it('on JSON.stringify output of arbitrary values, full Unicode included', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 8 }),
        fc.jsonValue({ maxDepth: 8, stringUnit: 'binary' }),
        indent,
        (ascii, unicode, space) => {
          for (const value of [ascii, unicode]) {
            const text = JSON.stringify(value, null, space);
            expect(parseJson(text)).toStrictEqual(JSON.parse(text));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('on fc.json() texts', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 8 }), (text) => {
        expect(parseJson(text)).toStrictEqual(JSON.parse(text));
      }),
    );
  });

  it('on mutated JSON: rejects all JSON.parse rejects, and accepts the rest unless stricter rules apply', () => {
    const pieces = fc.constantFrom(
      ...[
        '{',
        '}',
        '[',
        ']',
        ',',
        ':',
        '"',
        '\\',
        ' ',
        '\n',
        '\u000b',
        '0',
        '1',
        '9',
        '.',
        'e',
        'E',
        '+',
        '-',
        't',
        'f',
        'n',
        'u',
        'a',
        'd',
        '/',
        '*',
        '\u0000',
        '\ud800',
        '\udc00',
        '\ufeff',
        'x',
        '\\u',
        'true',
        'null',
        '1e400',
        '"a":1',
      ],
    );
    const mutation = fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), pieces);
    fc.assert(
      fc.property(fc.json({ maxDepth: 5 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), (base, mutations) => {
        let text = base;
        for (const [at, kind, piece] of mutations) {
          const index = text.length === 0 ? 0 : at % (text.length + 1);
          if (kind === 'insert') text = text.slice(0, index) + piece + text.slice(index);
          else if (kind === 'delete') text = text.slice(0, index) + text.slice(index + 1);
          else text = text.slice(0, index) + piece + text.slice(index + 1);
        }
        agreesWithJsonParse(text);
      }),
      { numRuns: 5000 },
    );
  });

  it('on arbitrary strings, throwing nothing but JsonParseError', () => {
    const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
    const jsonUnit = fc.constantFrom(...'{}[],:"\\ \t\n\r0123456789.eE+-truefalsnl/*\ud83d\ude02'.split(''));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string({ unit: anyUnit }),
          fc.string({ unit: jsonUnit, maxLength: 40 }),
        ),
        (text) => {
          agreesWithJsonParse(text);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("on escaped strings of every length around the fast path's bound, and far past it", () => {
    for (const units of [1, 4095, 4096, 4097, 100_000]) {
      for (const unit of ['\\"', 'a', '\\u00e9', '\\ud83d\\ude00', '\u{1f600}']) {
        const body = `\\n${unit.repeat(units)}`;
        agreesWithJsonParse(`["${body}"]`);
        agreesWithJsonParse(`["${body}`);
        agreesWithJsonParse(`["${body}\\ud800"]`);
        agreesWithJsonParse(`["${body}\u0001"]`);
      }
    }
    expect(() => parseJsonTree(`["\\n${'a'.repeat(5000)}\\x"]`)).toThrow(
      expect.objectContaining({ code: 'invalid_escape', offset: 5004 }),
    );
  });

  it('on the hand-picked corner cases', () => {
    const texts = [
      '"\\u2028"',
      '"\u2028"',
      '-0',
      '0e0',
      '0E-0',
      '-0.0e+00',
      '1E400',
      '[]',
      '{}',
      '{"__proto__":1}',
      '" \\/ "',
      '[1,2',
      '"\\uD834\\uDD1E"',
      '1 ',
      ' 1',
      '\ufeff1',
    ];
    for (const text of texts) agreesWithJsonParse(text);
  });
});
