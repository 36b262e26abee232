import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { concatBytes, hexEncode } from './encoding';
import { sha256Batch, sha256PairWords, sha256Prefix32Words, sha256Words, sha256WordsToBytes } from './sha256-batch';

const nodeSha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

function words(bytes: Uint8Array): Int32Array {
  const out = new Int32Array(bytes.length / 4);
  sha256Words(bytes, 0, out.length, out);
  return out;
}

function bytes(source: Int32Array): Uint8Array {
  const out = new Uint8Array(source.length * 4);
  sha256WordsToBytes(source, source.length, out);
  return out;
}

describe('sha256Batch', () => {
  it('gives the FIPS 180-2 example digests', () => {
    // FIPS 180-2, appendix B (and NIST's SHA-256 examples): one block, two blocks, 896 bits,
    // one million "a"; and the empty message.
    const vectors: [Uint8Array, string][] = [
      [ascii(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
      [ascii('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      [
        ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'),
        '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
      ],
      [
        ascii(
          'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
        ),
        'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
      ],
      [new Uint8Array(1_000_000).fill(0x61), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
    ];
    for (const [message, digest] of vectors) expect(hexEncode(sha256Batch(message, message.length))).toBe(digest);
  });

  it("agrees with Node's SHA-256 on random inputs of every length from 0 to 300 bytes, several per call", () => {
    for (let length = 0; length <= 300; length += 1) {
      const count = 3;
      const data = randomBytes(length * count);
      const out = sha256Batch(data, length, count);
      expect(out.length).toBe(32 * count);
      for (let input = 0; input < count; input += 1) {
        expect(hexEncode(out.subarray(32 * input, 32 * input + 32)), `length ${length}, input ${input}`).toBe(
          nodeSha256(data.subarray(length * input, length * (input + 1))),
        );
      }
    }
  });

  it('writes into a given output and refuses bad arguments', () => {
    const data = randomBytes(66);
    const out = new Uint8Array(70);
    expect(sha256Batch(data, 33, 2, out)).toBe(out);
    expect(hexEncode(out.subarray(32, 64))).toBe(nodeSha256(data.subarray(33)));
    expect(() => sha256Batch(data, 20)).toThrow(/not a whole number of 20-byte inputs/);
    expect(() => sha256Batch(data, 33, 3)).toThrow(/need 99 bytes/);
    expect(() => sha256Batch(data, 33, 2, new Uint8Array(63))).toThrow(/output needs 64 bytes/);
    expect(() => sha256Batch('abc' as unknown as Uint8Array, 3)).toThrow(TypeError);
    expect(() => sha256Batch(data, -1)).toThrow(RangeError);
  });
});

describe('sha256Prefix32Words: prefix || 32 bytes', () => {
  it("agrees with Node's SHA-256 for each prefix byte kind and many items, in place too", () => {
    for (const prefix of [0x00, 0x01, 0x7f, 0x80, 0xff]) {
      const items = randomBytes(32 * 500);
      const input = words(items);
      const output = new Int32Array(input.length);
      sha256Prefix32Words(prefix, input, 500, output);
      const digests = bytes(output);
      for (let item = 0; item < 500; item += 1) {
        expect(hexEncode(digests.subarray(32 * item, 32 * item + 32))).toBe(
          nodeSha256(concatBytes(Uint8Array.of(prefix), items.subarray(32 * item, 32 * item + 32))),
        );
      }
      sha256Prefix32Words(prefix, input, 500, input);
      expect(input).toEqual(output);
    }
  });

  it('refuses a bad prefix, the wrong array type and short arrays', () => {
    const input = new Int32Array(16);
    expect(() => sha256Prefix32Words(256, input, 2, input)).toThrow(/prefix must be a byte/);
    expect(() => sha256Prefix32Words(0, new Uint32Array(16) as unknown as Int32Array, 2, input)).toThrow(TypeError);
    expect(() => sha256Prefix32Words(0, input, 3, input)).toThrow(/need 24 words/);
  });
});

describe('sha256PairWords: prefix || a || b', () => {
  it("agrees with Node's SHA-256 in order and sorted, for every value of the last byte", () => {
    // The second block of a 65-byte input depends on the last byte alone and is scheduled
    // ahead for each of its 256 values: every value is covered here.
    const pairs = 768;
    const items = randomBytes(64 * pairs);
    for (let pair = 0; pair < pairs; pair += 1) items[64 * pair + 63] = pair & 0xff;
    // Some pairs share a long prefix, so the sort looks past the first word.
    for (let pair = 0; pair < pairs; pair += 3) items.copyWithin(64 * pair + 32, 64 * pair, 64 * pair + 28);
    const input = words(items);
    for (const sorted of [false, true]) {
      const output = new Int32Array(8 * pairs);
      sha256PairWords(0x01, input, pairs, output, sorted);
      const digests = bytes(output);
      for (let pair = 0; pair < pairs; pair += 1) {
        let a = items.subarray(64 * pair, 64 * pair + 32);
        let b = items.subarray(64 * pair + 32, 64 * pair + 64);
        if (sorted && Buffer.compare(a, b) > 0) [a, b] = [b, a];
        expect(hexEncode(digests.subarray(32 * pair, 32 * pair + 32)), `pair ${pair}, sorted ${sorted}`).toBe(
          nodeSha256(concatBytes(Uint8Array.of(1), a, b)),
        );
      }
    }
  });

  it('hashes equal items either way, works in place, and refuses short arrays', () => {
    const item = randomBytes(32);
    const input = words(concatBytes(item, item));
    const expected = nodeSha256(concatBytes(Uint8Array.of(1), item, item));
    for (const sorted of [false, true]) {
      const output = new Int32Array(8);
      sha256PairWords(0x01, input, 1, output, sorted);
      expect(hexEncode(bytes(output))).toBe(expected);
    }
    const level = words(randomBytes(32 * 4));
    const copy = level.slice();
    const separate = new Int32Array(16);
    sha256PairWords(0x01, copy, 2, separate);
    sha256PairWords(0x01, level, 2, level);
    expect(level.subarray(0, 16)).toEqual(separate);
    expect(() => sha256PairWords(0x01, new Int32Array(24), 2, new Int32Array(16))).toThrow(/input needs 32 words/);
    expect(() => sha256PairWords(0x01, new Int32Array(32), 2, new Int32Array(8))).toThrow(/output 16/);
  });
});

describe('words and bytes', () => {
  it('round-trip big-endian words and refuse short arrays', () => {
    const data = randomBytes(40);
    const out = new Int32Array(10);
    sha256Words(data, 0, 10, out);
    expect(out[0]).toBe(data.readInt32BE(0));
    expect(bytes(out)).toEqual(new Uint8Array(data));
    expect(() => sha256Words(data, 4, 10, out)).toThrow(/too short/);
    expect(() => sha256WordsToBytes(out, 10, new Uint8Array(39))).toThrow(/too short/);
  });
});
