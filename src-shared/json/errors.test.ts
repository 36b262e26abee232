import { describe, expect, it } from 'vitest';
import { describeCharacter, formatJsonError } from './errors';
import { parseJsonBytes, parseJsonTree } from './parse';
import { JsonParseError } from './types';

function errorOf(parse: () => unknown): JsonParseError {
  try {
    parse();
  } catch (error) {
    if (error instanceof JsonParseError) return error;
    throw error;
  }
  throw new Error('expected a JsonParseError');
}

describe('formatJsonError', () => {
  it('names the code, the path, the offset and the problem on one line', () => {
    const error = errorOf(() => parseJsonTree('{"a":{"b":1,"b":2}}'));
    expect(formatJsonError(error)).toBe(
      'Malformed JSON (duplicate_name) at /a/b, offset 12: duplicate member name "b"',
    );
  });

  it('names the root in words', () => {
    expect(formatJsonError(errorOf(() => parseJsonTree('[1,]')))).toBe(
      'Malformed JSON (trailing_comma) at the document root, offset 2: a trailing comma is not allowed in an array',
    );
  });

  it('speaks of bytes for UTF-8 errors', () => {
    const line = formatJsonError(errorOf(() => parseJsonBytes(Uint8Array.of(0x22, 0xff, 0x22))));
    expect(line).toBe(
      'Malformed JSON (invalid_utf8) at the document root, byte 1: the input is not valid UTF-8 at byte offset 1 (byte 0xff)',
    );
  });

  it('stays on one line whatever the input holds', () => {
    const error = errorOf(() => parseJsonTree('{"a\\nb\\u2028":{"x":1,"x":2}}'));
    expect(error.path).toBe('/a\nb\u2028/x');
    const line = formatJsonError(error);
    expect(line).not.toMatch(/[\n\r\u2028\u2029]/);
    expect(line).toContain('/a\\u000ab\\u2028/x');
    expect(formatJsonError(new JsonParseError('comment', 'two\nlines', '', 0))).toBe(
      'Malformed JSON (comment) at the document root, offset 0: two\\u000alines',
    );
  });

  it('rejects other errors with TypeError', () => {
    expect(() => formatJsonError(new Error('x') as JsonParseError)).toThrow(TypeError);
  });
});

describe('describeCharacter', () => {
  it('quotes printable ASCII and names everything else by code point', () => {
    expect(describeCharacter(0x78)).toBe('"x"');
    expect(describeCharacter(0x22)).toBe('"\\""');
    expect(describeCharacter(0x0a)).toBe('U+000A');
    expect(describeCharacter(0xfeff)).toBe('U+FEFF');
    expect(describeCharacter(NaN)).toBe('end of input');
  });
});
