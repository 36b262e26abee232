import fc from 'fast-check';
import { base64, base64urlnopad } from '@scure/base';
import { describe, expect, it } from 'vitest';

import {
  b64Decode,
  b64Encode,
  b64uDecode,
  b64uEncode,
  base58btcDecode,
  base58btcEncode,
  compareBytes,
  concatBytes,
  equalBytes,
  hexDecode,
  hexEncode,
  isHex64,
  bytesKey,
  lowerHexDecode,
  utf8Decode,
  utf8Encode,
  utf8Length,
} from './encoding';

const ascii = (text: string): Uint8Array => Uint8Array.from(text, (character) => character.charCodeAt(0));

describe('hex', () => {
  it('encodes lowercase and decodes either case', () => {
    expect(hexEncode(Uint8Array.of(0x00, 0x0f, 0xab, 0xff))).toBe('000fabff');
    expect(hexDecode('000FabfF')).toEqual(Uint8Array.of(0x00, 0x0f, 0xab, 0xff));
    expect(hexEncode(new Uint8Array(0))).toBe('');
    expect(hexDecode('')).toEqual(new Uint8Array(0));
  });

  it('refuses odd lengths and non-hex characters with a clear message', () => {
    expect(() => hexDecode('abc')).toThrow(RangeError);
    expect(() => hexDecode('abc')).toThrow(/even number/);
    expect(() => hexDecode('0g')).toThrow(/invalid character "g" at position 1/);
    expect(() => hexDecode(' 00')).toThrow(RangeError);
    expect(() => hexDecode('0x00')).toThrow(RangeError);
    expect(() => hexDecode('éé')).toThrow(RangeError);
    expect(() => hexDecode(12 as unknown as string)).toThrow(TypeError);
    expect(() => hexEncode([1, 2] as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('round-trips and matches Node Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = hexEncode(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('hex'));
        expect(hexDecode(text)).toEqual(bytes);
        expect(hexDecode(text.toUpperCase())).toEqual(bytes);
      }),
    );
  });

  it('utf8Length is the length of utf8Encode, lone surrogates included', () => {
    expect(utf8Length('')).toBe(0);
    expect(utf8Length('a\u00e9\u20ac\u{1f600}')).toBe(1 + 2 + 3 + 4);
    expect(utf8Length('\ud800x\udc00')).toBe(7);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        expect(utf8Length(text)).toBe(utf8Encode(text).length);
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0xd7f0, max: 0xe010 }), { maxLength: 12 }), (units) => {
        const text = String.fromCharCode(...units);
        // TextEncoder writes U+FFFD for a lone surrogate (utf8Encode refuses one).
        expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
      }),
    );
  });

  it('bytesKey gives one character per byte, equal keys exactly for equal bytes', () => {
    const keys = new Set(Array.from({ length: 256 }, (_, byte) => bytesKey(Uint8Array.of(byte))));
    expect(keys.size).toBe(256);
    for (const key of keys) expect(key).toHaveLength(1);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 }), (a, b) => {
        expect(bytesKey(a) === bytesKey(b)).toBe(a.length === b.length && a.every((byte, index) => byte === b[index]));
      }),
    );
    const backing = Uint8Array.of(9, 1, 2, 3, 9);
    expect(bytesKey(backing.subarray(1, 4))).toBe(bytesKey(Uint8Array.of(1, 2, 3)));
    expect(() => bytesKey([1] as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('lowerHexDecode decodes lowercase hex and answers undefined for anything else', () => {
    expect(lowerHexDecode('')).toEqual(new Uint8Array(0));
    expect(lowerHexDecode('00ff7a')).toEqual(Uint8Array.of(0, 255, 0x7a));
    for (const bad of ['0', '00FF', 'Ff', 'gg', ' 00', '00\n', '0x00', '\u0660\u0660', 5, null, undefined]) {
      expect(lowerHexDecode(bad)).toBeUndefined();
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(lowerHexDecode(hexEncode(bytes))).toEqual(bytes);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (text) => {
        const decoded = lowerHexDecode(text);
        // Accepted exactly when the text is canonical lowercase hex.
        expect(decoded === undefined ? undefined : hexEncode(decoded)).toBe(
          /^(?:[0-9a-f]{2})*$/.test(text) ? text : undefined,
        );
      }),
    );
    // Mostly digits with an odd character, short and past the 1,024-character scratch copy.
    const unit = fc.constantFrom(
      ...'0123456789abcdef'.split(''),
      'A',
      'F',
      'g',
      '\u00e9',
      '\u0000',
      '\ud800',
      '\udc00',
      '\u{1f600}',
      '\u0130',
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit, maxLength: 40 }), fc.string({ unit, minLength: 1000, maxLength: 1100 })),
        (text) => {
          const decoded = lowerHexDecode(text);
          expect(decoded === undefined ? undefined : hexEncode(decoded)).toBe(
            /^(?:[0-9a-f]{2})*$/.test(text) ? text : undefined,
          );
        },
      ),
    );
    for (const length of [1024, 1026, 4096]) {
      const valid = 'a0'.repeat(length / 2);
      expect(lowerHexDecode(valid)).toEqual(new Uint8Array(length / 2).fill(0xa0));
      expect(lowerHexDecode(`${valid.slice(0, -1)}G`)).toBeUndefined();
    }
  });

  it('isHex64 accepts exactly 64 lowercase hex digits', () => {
    expect(isHex64('a'.repeat(64))).toBe(true);
    expect(isHex64('0123456789abcdef'.repeat(4))).toBe(true);
    expect(isHex64('A'.repeat(64))).toBe(false);
    expect(isHex64('a'.repeat(63))).toBe(false);
    expect(isHex64('a'.repeat(65))).toBe(false);
    expect(isHex64(`${'a'.repeat(64)}\n`)).toBe(false);
    expect(isHex64('g'.repeat(64))).toBe(false);
    expect(isHex64(null)).toBe(false);
    expect(isHex64(hexDecode('00'.repeat(32)))).toBe(false);
  });
});

describe('base64 (RFC 4648 section 10 test vectors)', () => {
  const vectors: readonly [string, string, string][] = [
    ['', '', ''],
    ['f', 'Zg==', 'Zg'],
    ['fo', 'Zm8=', 'Zm8'],
    ['foo', 'Zm9v', 'Zm9v'],
    ['foob', 'Zm9vYg==', 'Zm9vYg'],
    ['fooba', 'Zm9vYmE=', 'Zm9vYmE'],
    ['foobar', 'Zm9vYmFy', 'Zm9vYmFy'],
  ];

  it.each(vectors)('%j encodes to %j and %j', (plain, padded, unpadded) => {
    expect(b64Encode(ascii(plain))).toBe(padded);
    expect(b64Decode(padded)).toEqual(ascii(plain));
    expect(b64uEncode(ascii(plain))).toBe(unpadded);
    expect(b64uDecode(unpadded)).toEqual(ascii(plain));
  });

  it('uses - and _ for base64url, + and / for base64', () => {
    const bytes = Uint8Array.of(0xfb, 0xff, 0xbf);
    expect(b64Encode(bytes)).toBe('+/+/');
    expect(b64uEncode(bytes)).toBe('-_-_');
    expect(() => b64uDecode('+/+/')).toThrow(/invalid character "\+" at position 0/);
    expect(() => b64Decode('-_-_')).toThrow(/invalid character "-" at position 0/);
  });

  it('round-trips and matches Node Buffer on random data', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(b64Encode(bytes)).toBe(Buffer.from(bytes).toString('base64'));
        expect(b64uEncode(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
        expect(b64Decode(b64Encode(bytes))).toEqual(bytes);
        expect(b64uDecode(b64uEncode(bytes))).toEqual(bytes);
      }),
    );
  });

  it('handles inputs larger than one character chunk', () => {
    const bytes = Uint8Array.from({ length: 100_000 }, (_, index) => (index * 31) & 255);
    expect(b64uEncode(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    expect(b64uDecode(b64uEncode(bytes))).toEqual(bytes);
  });

  it('b64uDecode refuses padding, whitespace, 4n+1 lengths and non-zero trailing bits', () => {
    expect(() => b64uDecode('Zg==')).toThrow(RangeError);
    expect(() => b64uDecode('Zg=')).toThrow(RangeError);
    expect(() => b64uDecode('Zm9v\n')).toThrow(RangeError);
    expect(() => b64uDecode(' Zm9v')).toThrow(RangeError);
    expect(() => b64uDecode('Zm9vY')).toThrow(/4n\+1/);
    expect(() => b64uDecode('A')).toThrow(RangeError);
    // 'Zh' and 'Zm9' decode to the same bytes as 'Zg' and 'Zm8' in lenient decoders.
    expect(() => b64uDecode('Zh')).toThrow(/non-canonical/);
    expect(() => b64uDecode('Zm9')).toThrow(/non-canonical/);
    expect(Buffer.from('Zh', 'base64url')).toEqual(Buffer.from('Zg', 'base64url'));
    expect(() => b64uDecode(null as unknown as string)).toThrow(TypeError);
  });

  it('b64uDecode accepts exactly the texts b64uEncode produces (canonical)', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('');
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 12 }), (characters) => {
        const text = characters.join('');
        let decoded: Uint8Array | undefined;
        try {
          decoded = b64uDecode(text);
        } catch (error) {
          expect(error).toBeInstanceOf(RangeError);
        }
        if (decoded !== undefined) expect(b64uEncode(decoded)).toBe(text);
        else expect(b64uEncode(Buffer.from(text, 'base64url'))).not.toBe(text);
      }),
    );
  });

  it('b64Decode requires exactly the right padding', () => {
    expect(() => b64Decode('Zg')).toThrow(/multiple of 4/);
    expect(() => b64Decode('Zg=')).toThrow(/multiple of 4/);
    expect(() => b64Decode('Zm8==')).toThrow(RangeError);
    expect(() => b64Decode('Zg===')).toThrow(RangeError);
    expect(() => b64Decode('Z===')).toThrow(RangeError);
    expect(() => b64Decode('====')).toThrow(RangeError);
    expect(() => b64Decode('Zg==Zg==')).toThrow(/invalid character "="/);
    expect(() => b64Decode('Zm9v Zg==')).toThrow(RangeError);
    expect(() => b64Decode('Zh==')).toThrow(/non-canonical/);
    expect(() => b64Decode('Zm9=')).toThrow(/non-canonical/);
    expect(() => b64Decode([] as unknown as string)).toThrow(TypeError);
  });
});

/** Where @scure/base's digit arrays stopped being usable (64 Ki characters); our codec is the same on both sides. */
const BULK_CHARACTERS = 64 * 1024;
const BULK_BYTES = (BULK_CHARACTERS / 4) * 3;

describe('base64 and base64url against @scure/base, the reference', () => {
  const outcome = (run: () => Uint8Array): string => {
    try {
      return `bytes ${Array.from(run()).join(',')}`;
    } catch {
      return 'refused';
    }
  };
  const hostile = [
    '',
    'Zg',
    'Zg==',
    'Zg=',
    'Zm8',
    'Zm8=',
    'Zm9v',
    'Zm9vYg',
    'Zm9vYg==',
    'Zh',
    'Zh==',
    'Zm9',
    'Zm9=',
    'Z',
    'Z===',
    '====',
    'Zg==Zg==',
    'Zm9v\n',
    ' Zm9v',
    'Zm9v ',
    'Zm 9v',
    'Zm9vY',
    '+/+/',
    '-_-_',
    '+/8',
    '-_8',
    'é',
    '\u0000AAA',
    'AAAA=',
    'AA=A',
    'AAA=A',
    '=AAA',
  ];
  it('accepts exactly what @scure/base accepts, with the same bytes, on hand-picked hostile texts', () => {
    for (const text of hostile) {
      expect(
        outcome(() => b64uDecode(text)),
        `b64u ${JSON.stringify(text)}`,
      ).toBe(outcome(() => base64urlnopad.decode(text)));
      expect(
        outcome(() => b64Decode(text)),
        `b64 ${JSON.stringify(text)}`,
      ).toBe(outcome(() => base64.decode(text)));
    }
  });
  it('accepts exactly what @scure/base accepts on random texts of the alphabets and their neighbours', () => {
    const characters = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_= \n.'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...characters), { maxLength: 24 }), (chars) => {
        const text = chars.join('');
        expect(outcome(() => b64uDecode(text))).toBe(outcome(() => base64urlnopad.decode(text)));
        expect(outcome(() => b64Decode(text))).toBe(outcome(() => base64.decode(text)));
      }),
      { numRuns: 5000 },
    );
  });
  it('encodes as @scure/base does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(b64uEncode(bytes)).toBe(base64urlnopad.encode(bytes));
        expect(b64Encode(bytes)).toBe(base64.encode(bytes));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('base64 of bulk data', () => {
  it('encodes and decodes as Node Buffer does on both sides of the bulk sizes, and at small sizes', () => {
    for (let length = 0; length <= 100; length += 1) {
      const bytes = Uint8Array.from({ length }, (_, index) => (index * 151 + length) & 255);
      expect(b64Encode(bytes)).toBe(Buffer.from(bytes).toString('base64'));
      expect(b64uEncode(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
    }
    for (const length of [BULK_BYTES - 2, BULK_BYTES - 1, BULK_BYTES, BULK_BYTES + 1, BULK_BYTES + 2, BULK_BYTES + 3]) {
      const bytes = Uint8Array.from({ length }, (_, index) => (index * 131 + 7) & 255);
      const padded = b64Encode(bytes);
      const unpadded = b64uEncode(bytes);
      expect(padded).toBe(Buffer.from(bytes).toString('base64'));
      expect(unpadded).toBe(Buffer.from(bytes).toString('base64url'));
      expect(b64Decode(padded)).toEqual(bytes);
      expect(b64uDecode(unpadded)).toEqual(bytes);
    }
    expect(b64uEncode(new Uint8Array(BULK_BYTES + 3)).length).toBeGreaterThan(BULK_CHARACTERS);
  });

  it('refuses the same texts with the same words as @scure/base does for short ones', () => {
    // A valid prefix long enough for the bulk decoder ('A' is the digit 0), then each hostile text.
    const prefix = 'A'.repeat(BULK_CHARACTERS);
    const words = (run: () => unknown): string => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(RangeError);
        return (error as Error).message.replace(/(position|length) \d+/, '$1 N');
      }
      return 'accepted';
    };
    for (const text of ['Zg==', 'Zg=', 'Zm9v\n', ' Zm9v', 'Zm9vY', 'Zh', 'Zm9', '+/+/', 'Zm8', 'Zm9v', 'é']) {
      expect(
        words(() => b64uDecode(prefix + text)),
        text,
      ).toBe(words(() => b64uDecode(text)));
    }
    for (const text of ['Zm8==', 'Zg===', 'Z===', '====', 'Zg==Zg==', 'Zm9v Zg==', 'Zh==', 'Zm9=', '-_-_', 'Zm8=']) {
      expect(
        words(() => b64Decode(prefix + text)),
        text,
      ).toBe(words(() => b64Decode(text)));
    }
  });
});

describe('UTF-8', () => {
  it('encodes and decodes multi-byte text', () => {
    const text = 'Prüfbericht – 証拠 🔏';
    expect(utf8Encode(text)).toEqual(new Uint8Array(Buffer.from(text, 'utf8')));
    expect(utf8Decode(utf8Encode(text))).toBe(text);
  });

  it('refuses lone surrogates instead of writing U+FFFD', () => {
    expect(() => utf8Encode('a\uD800b')).toThrow(/lone surrogate at position 1/);
    expect(() => utf8Encode('\uDC00')).toThrow(RangeError);
    expect(() => utf8Encode('\uD83D')).toThrow(RangeError);
    expect(utf8Encode('\uD83D\uDD0F')).toEqual(Uint8Array.of(0xf0, 0x9f, 0x94, 0x8f));
  });

  it('gives every result its own bytes, within and across shared slabs, at any length', () => {
    const wellFormed = fc.string({ unit: 'grapheme', maxLength: 1500 });
    fc.assert(
      fc.property(fc.array(wellFormed, { minLength: 1, maxLength: 40 }), (texts) => {
        const results = texts.map((text) => utf8Encode(text));
        results.forEach((bytes, index) => {
          expect(bytes).toEqual(new Uint8Array(Buffer.from(texts[index]!, 'utf8')));
        });
        // No two results share a byte: writing into one leaves all the others as they were.
        for (const bytes of results) bytes.fill(0xff);
        const spans = results
          .filter((bytes) => bytes.length > 0)
          .map((bytes) => ({ buffer: bytes.buffer, start: bytes.byteOffset, end: bytes.byteOffset + bytes.length }));
        for (const a of spans) {
          for (const b of spans) {
            if (a !== b && a.buffer === b.buffer) expect(a.end <= b.start || b.end <= a.start).toBe(true);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('decodes fatally and keeps a leading byte order mark', () => {
    expect(() => utf8Decode(Uint8Array.of(0xc0, 0xaf))).toThrow(/not valid UTF-8/); // overlong '/'
    expect(() => utf8Decode(Uint8Array.of(0xed, 0xa0, 0x80))).toThrow(RangeError); // surrogate
    expect(() => utf8Decode(Uint8Array.of(0xe2, 0x82))).toThrow(RangeError); // truncated
    expect(() => utf8Decode(Uint8Array.of(0xff))).toThrow(RangeError);
    expect(utf8Decode(Uint8Array.of(0xef, 0xbb, 0xbf, 0x41))).toBe('\uFEFFA');
    expect(() => utf8Decode('text' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('round-trips every well-formed string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(utf8Decode(utf8Encode(text))).toBe(text);
      }),
    );
  });
});

describe('base58btc', () => {
  // Examples from the IETF draft "The Base58 Encoding Scheme" (draft-msporny-base58), section 5.
  it.each([
    ['Hello World!', '2NEpo7TZRRrLZSi2U'],
    ['The quick brown fox jumps over the lazy dog.', 'USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z'],
  ])('%j is %j', (plain, encoded) => {
    expect(base58btcEncode(ascii(plain))).toBe(encoded);
    expect(base58btcDecode(encoded)).toEqual(ascii(plain));
  });

  it('maps leading zero bytes to leading 1s', () => {
    expect(base58btcEncode(hexDecode('0000287fb4cd'))).toBe('11233QC4');
    expect(base58btcDecode('11233QC4')).toEqual(hexDecode('0000287fb4cd'));
    expect(base58btcEncode(new Uint8Array(3))).toBe('111');
    expect(base58btcDecode('111')).toEqual(new Uint8Array(3));
    expect(base58btcEncode(new Uint8Array(0))).toBe('');
    expect(base58btcDecode('')).toEqual(new Uint8Array(0));
  });

  it('refuses characters outside the alphabet', () => {
    for (const bad of ['0', 'O', 'I', 'l', '+', ' ', 'é']) {
      expect(() => base58btcDecode(`2NE${bad}`)).toThrow(/invalid character .* at position 3/);
    }
  });

  it('round-trips random data', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        expect(base58btcDecode(base58btcEncode(bytes))).toEqual(bytes);
      }),
    );
  });
});

describe('byte helpers', () => {
  it('equalBytes compares lengths and contents', () => {
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2, 0))).toBe(false);
    expect(equalBytes(new Uint8Array(0), new Uint8Array(0))).toBe(true);
    expect(() => equalBytes([1] as unknown as Uint8Array, Uint8Array.of(1))).toThrow(TypeError);
  });

  it('compareBytes orders unsigned bytes with prefixes first', () => {
    expect(compareBytes(Uint8Array.of(0x7f), Uint8Array.of(0x80))).toBeLessThan(0);
    expect(compareBytes(Uint8Array.of(1, 2), Uint8Array.of(1))).toBeGreaterThan(0);
    expect(compareBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(0);
    fc.assert(
      fc.property(fc.uint8Array(), fc.uint8Array(), (a, b) => {
        expect(Math.sign(compareBytes(a, b))).toBe(Buffer.compare(Buffer.from(a), Buffer.from(b)));
      }),
    );
  });

  it('concatBytes joins into a fresh array', () => {
    const a = Uint8Array.of(1);
    const joined = concatBytes(a, new Uint8Array(0), Uint8Array.of(2, 3));
    expect(joined).toEqual(Uint8Array.of(1, 2, 3));
    expect(concatBytes(a)).not.toBe(a);
    expect(concatBytes()).toEqual(new Uint8Array(0));
    expect(() => concatBytes(a, 'b' as unknown as Uint8Array)).toThrow(/argument 1 must be a Uint8Array/);
  });
});
