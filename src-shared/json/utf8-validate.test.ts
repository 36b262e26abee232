import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findInvalidUtf8 } from './utf8-validate';

const fatal = new TextDecoder('utf-8', { fatal: true });

function decodes(bytes: Uint8Array): boolean {
  try {
    fatal.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

describe('findInvalidUtf8', () => {
  it('accepts well-formed UTF-8 at every length', () => {
    expect(findInvalidUtf8(new TextEncoder().encode('a é € \u{1f602} \u{10ffff} \u{ffff}'))).toBe(-1);
    expect(findInvalidUtf8(new Uint8Array(0))).toBe(-1);
  });

  it('finds the start of the first ill-formed sequence', () => {
    const cases: [number[], number][] = [
      [[0x61, 0x80], 1], // stray continuation
      [[0xc0, 0x80], 0], // overlong NUL
      [[0xc1, 0xbf], 0], // overlong
      [[0xe0, 0x80, 0x80], 0], // overlong three-byte
      [[0xed, 0xa0, 0x80], 0], // surrogate U+D800
      [[0xed, 0x9f, 0xbf, 0xed, 0xbf, 0xbf], 3], // U+D7FF then U+DFFF
      [[0xf0, 0x8f, 0xbf, 0xbf], 0], // overlong four-byte
      [[0xf4, 0x90, 0x80, 0x80], 0], // U+110000
      [[0xf5, 0x80, 0x80, 0x80], 0],
      [[0xff], 0],
      [[0x61, 0xe2, 0x82], 1], // truncated at the end
      [[0xe2, 0x82, 0x61], 0], // truncated before ASCII
      [[0xf0, 0x9f, 0x98], 0],
    ];
    for (const [bytes, offset] of cases) expect(findInvalidUtf8(Uint8Array.from(bytes))).toBe(offset);
  });

  it('agrees with a fatal TextDecoder on arbitrary bytes', () => {
    const utf8ish = fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: 255 }),
        fc.constantFrom(0x80, 0xbf, 0xc2, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0x9f, 0xa0),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(utf8ish, (list) => {
        const bytes = Uint8Array.from(list);
        expect(findInvalidUtf8(bytes) === -1).toBe(decodes(bytes));
      }),
      { numRuns: 5000 },
    );
  });

  it('rejects non-bytes with TypeError', () => {
    expect(() => findInvalidUtf8([0x61] as unknown as Uint8Array)).toThrow(TypeError);
  });
});
