/**
 * Byte encodings: hex, base64url, base64, base58btc, UTF-8, and small byte helpers.
 *
 * Every decoder is strict and canonical: for each byte string there is exactly one accepted
 * text, so two documents that differ only in their encoding cannot both verify. Decoders throw
 * TypeError for a value of the wrong type and RangeError for malformed text; they never return
 * partial results. Free of Buffer so the module runs in any JavaScript engine.
 *
 * base58btc (did:key identifiers) is @scure/base's (audited, by noble's author). base64 and
 * base64url stay table driven, both ways and at every size: they are on the verification and
 * issuing hot paths, where @scure/base's digit arrays cost the service's verify route about a
 * tenth of its CPU (keys, signatures, did:keys decoded per request; a CPU profile of
 * bench/service.ts) and its emit route about 4 µs a receipt, and megabytes took seconds (a
 * 16 MiB field: 2.9 s and 650 MB). @scure/base is the reference they are held to:
 * encoding.test.ts feeds both the same valid and hostile texts and expects the same bytes and
 * the same refusals (padding errors, characters outside the alphabet, whitespace, non-zero
 * unused bits). Hex stays table driven too: lowerHexDecode is on the verification hot path.
 */

import { base58 } from '@scure/base';
import { assertBytes, assertString } from './assert';

const HEX_DIGITS = '0123456789abcdef';
/** The alphabets, to say which character of a refused text is wrong. */
const B64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64U_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Marks a character that is not in an alphabet (every real digit value is below 64). */
const INVALID = 255;
/** Characters per String.fromCharCode call; well below every engine's argument limit. */
const CHARACTER_CHUNK = 8192;

/** The two-character lowercase hex spelling of every byte value. */
const HEX_BY_BYTE: readonly string[] = Array.from(
  { length: 256 },
  (_, value) => (HEX_DIGITS[value >> 4] ?? '') + (HEX_DIGITS[value & 15] ?? ''),
);
const HEX_VALUE = decodeTable(
  '0123456789abcdefABCDEF',
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15],
);
const LOWER_HEX_VALUE = decodeTable(HEX_DIGITS);
/** Set in the OR of all digit values exactly when one of them was not a digit. */
const INVALID_BITS = 0x10;
/** Hex digit values by byte, {@link INVALID_BITS} for every byte that is not a lowercase hex digit. */
const LOWER_HEX_BYTE_VALUE = Uint8Array.from({ length: 256 }, (_, byte) => {
  const value = byte < 128 ? (LOWER_HEX_VALUE[byte] ?? INVALID) : INVALID;
  return value === INVALID ? INVALID_BITS : value;
});
/** Where {@link lowerHexDecode} copies short strings as bytes (keys, signatures, digests). */
const HEX_SCRATCH = new Uint8Array(1024);
const B64_VALUE = decodeTable(B64_ALPHABET);
const B64U_VALUE = decodeTable(B64U_ALPHABET);
const B64_CODES = charCodes(B64_ALPHABET);
const B64U_CODES = charCodes(B64U_ALPHABET);
const EQUALS_SIGN = 61;

const utf8Encoder = new TextEncoder();
const latin1Decoder = new TextDecoder('latin1');
/** Size of the slabs small {@link utf8Encode} results share. */
const SLAB_BYTES = 8192;
/** Strings up to this length are encoded into a slab (3 KiB at most each). */
const SLAB_MAX_CHARACTERS = 1024;
let slab = new Uint8Array(0);
let slabUsed = 0;
// fatal: invalid UTF-8 throws instead of becoming U+FFFD. ignoreBOM: a leading U+FEFF is kept,
// so decoding never silently drops bytes that a signature covered.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Any surrogate half: the quick screen before {@link LONE_SURROGATE}. */
const SURROGATE = /[\uD800-\uDFFF]/;
/** A high surrogate without a low one after it, or a low surrogate without a high one before. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function decodeTable(alphabet: string, values?: readonly number[]): Uint8Array {
  const table = new Uint8Array(128).fill(INVALID);
  for (let index = 0; index < alphabet.length; index++) {
    table[alphabet.charCodeAt(index)] = values?.[index] ?? index;
  }
  return table;
}

function charCodes(alphabet: string): Uint8Array {
  const codes = new Uint8Array(alphabet.length);
  for (let index = 0; index < alphabet.length; index++) codes[index] = alphabet.charCodeAt(index);
  return codes;
}

/** Turns character codes (all below 128) into a string without huge argument lists. */
function codesToString(codes: Uint8Array): string {
  let text = '';
  for (let start = 0; start < codes.length; start += CHARACTER_CHUNK) {
    const chunk = codes.subarray(start, start + CHARACTER_CHUNK);
    text += String.fromCharCode.apply(null, chunk as unknown as number[]);
  }
  return text;
}

/** The value of the character at `index` in `table`, or INVALID. */
function lookup(table: Uint8Array, text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? (table[code] ?? INVALID) : INVALID;
}

function invalidCharacter(name: string, text: string, index: number): RangeError {
  const character = JSON.stringify(text.charAt(index));
  return new RangeError(`${name}: invalid character ${character} at position ${index}`);
}

/**
 * Lowercase hex of a byte array.
 *
 * @param bytes - the bytes to encode
 * @returns two lowercase hex digits per byte
 * @throws TypeError when `bytes` is not a Uint8Array
 * @example hexEncode(new Uint8Array([0xab, 0x01])) // 'ab01'
 */
export function hexEncode(bytes: Uint8Array): string {
  assertBytes(bytes, 'hexEncode: bytes');
  let text = '';
  for (let index = 0; index < bytes.length; index++) text += HEX_BY_BYTE[bytes[index] ?? 0];
  return text;
}

/**
 * Bytes of a hex string.
 *
 * Accepts upper and lower case digits; the length must be even. Use `isHex64` where a
 * protocol field must be lowercase.
 *
 * @param text - the hex text
 * @returns the decoded bytes
 * @throws TypeError when `text` is not a string
 * @throws RangeError when the length is odd or a character is not a hex digit
 */
export function hexDecode(text: string): Uint8Array {
  assertString(text, 'hexDecode: text');
  if (text.length % 2 !== 0) {
    throw new RangeError(`hexDecode: expected an even number of hex digits, got ${text.length}`);
  }
  const bytes = new Uint8Array(text.length / 2);
  for (let index = 0; index < bytes.length; index++) {
    const high = lookup(HEX_VALUE, text, 2 * index);
    if (high === INVALID) throw invalidCharacter('hexDecode', text, 2 * index);
    const low = lookup(HEX_VALUE, text, 2 * index + 1);
    if (low === INVALID) throw invalidCharacter('hexDecode', text, 2 * index + 1);
    bytes[index] = (high << 4) | low;
  }
  return bytes;
}

/**
 * The number of bytes of a string's UTF-8 encoding, without encoding it.
 *
 * A lone surrogate counts 3 bytes, as the U+FFFD a TextEncoder writes for it ({@link utf8Encode}
 * refuses one).
 *
 * @param text - the text
 * @returns its UTF-8 length in bytes
 * @throws TypeError when `text` is not a string
 */
export function utf8Length(text: string): number {
  assertString(text, 'utf8Length: text');
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two code units, four bytes.
      bytes += 2;
      index++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * Bytes of a lowercase hex string, or undefined when it is not one.
 *
 * The strict form protocol fields use: an even number of the digits `0-9a-f`, nothing else (no
 * uppercase, whitespace or prefix). Lowercase hex has one spelling per byte string, so what this
 * accepts re-encodes to the same text. One pass, no exception on bad input: it sits on the
 * verification hot path.
 *
 * @param text - any value
 * @returns the decoded bytes, or undefined
 * @example lowerHexDecode('00ff') // Uint8Array [0, 255]; lowerHexDecode('00FF') is undefined
 */
export function lowerHexDecode(text: unknown): Uint8Array | undefined {
  if (typeof text !== 'string' || text.length % 2 !== 0) return undefined;
  const bytes = new Uint8Array(text.length / 2);
  if (text.length <= HEX_SCRATCH.length) {
    // Reading a string character by character costs several nanoseconds each (more for a slice
    // of a parsed document); copying it into bytes natively first and reading those is quicker.
    // All-ASCII text, and only that, writes one byte per character.
    const { read, written } = utf8Encoder.encodeInto(text, HEX_SCRATCH);
    if (read !== text.length || written !== text.length) return undefined;
    let invalid = 0;
    for (let index = 0, position = 0; index < bytes.length; index++, position += 2) {
      const high = LOWER_HEX_BYTE_VALUE[HEX_SCRATCH[position] ?? 0] ?? INVALID;
      const low = LOWER_HEX_BYTE_VALUE[HEX_SCRATCH[position + 1] ?? 0] ?? INVALID;
      invalid |= high | low;
      bytes[index] = (high << 4) | low;
    }
    return (invalid & INVALID_BITS) !== 0 ? undefined : bytes;
  }
  for (let index = 0, position = 0; index < bytes.length; index++, position += 2) {
    const high = lookup(LOWER_HEX_VALUE, text, position);
    const low = lookup(LOWER_HEX_VALUE, text, position + 1);
    if (high === INVALID || low === INVALID) return undefined;
    bytes[index] = (high << 4) | low;
  }
  return bytes;
}

/**
 * Whether a value is exactly 64 lowercase hex digits (PROTOCOL section 0, HEX64).
 *
 * @param text - any value
 * @returns true for a 64-character string of [0-9a-f]
 */
export function isHex64(text: unknown): text is string {
  return typeof text === 'string' && /^[0-9a-f]{64}$/.test(text);
}

/** The table-driven encoder (every size; see the module's note). */
function base64Encode(bytes: Uint8Array, alphabet: Uint8Array, pad: boolean): string {
  const whole = bytes.length - (bytes.length % 3);
  const rest = bytes.length - whole;
  const outputLength = (whole / 3) * 4 + (rest === 0 ? 0 : pad ? 4 : rest + 1);
  const codes = new Uint8Array(outputLength);
  let out = 0;
  for (let index = 0; index < whole; index += 3) {
    const triple = ((bytes[index] ?? 0) << 16) | ((bytes[index + 1] ?? 0) << 8) | (bytes[index + 2] ?? 0);
    codes[out++] = alphabet[triple >> 18] ?? 0;
    codes[out++] = alphabet[(triple >> 12) & 63] ?? 0;
    codes[out++] = alphabet[(triple >> 6) & 63] ?? 0;
    codes[out++] = alphabet[triple & 63] ?? 0;
  }
  if (rest > 0) {
    const first = bytes[whole] ?? 0;
    const second = rest === 2 ? (bytes[whole + 1] ?? 0) : 0;
    const pair = (first << 8) | second;
    codes[out++] = alphabet[pair >> 10] ?? 0;
    codes[out++] = alphabet[(pair >> 4) & 63] ?? 0;
    if (rest === 2) codes[out++] = alphabet[(pair << 2) & 63] ?? 0;
    else if (pad) codes[out++] = EQUALS_SIGN;
    if (pad) codes[out++] = EQUALS_SIGN;
  }
  return codesToString(codes);
}

/** The table-driven decoder: decodes unpadded base64 digits `text[0, length)`; checks characters and unused bits. */
function base64DecodeDigits(text: string, length: number, table: Uint8Array, name: string): Uint8Array {
  if (length % 4 === 1) {
    throw new RangeError(`${name}: invalid length ${length} (a length of 4n+1 encodes no whole byte)`);
  }
  const whole = length - (length % 4);
  const bytes = new Uint8Array((whole / 4) * 3 + (length % 4 === 0 ? 0 : (length % 4) - 1));
  let out = 0;
  for (let index = 0; index < whole; index += 4) {
    const a = lookup(table, text, index);
    const b = lookup(table, text, index + 1);
    const c = lookup(table, text, index + 2);
    const d = lookup(table, text, index + 3);
    // Every digit value is below 64 and INVALID is 255, so one test covers all four characters.
    if ((a | b | c | d) > 63) {
      throw invalidCharacter(name, text, firstInvalid(table, text, index));
    }
    const quad = (a << 18) | (b << 12) | (c << 6) | d;
    bytes[out++] = quad >> 16;
    bytes[out++] = (quad >> 8) & 255;
    bytes[out++] = quad & 255;
  }
  const rest = length - whole;
  if (rest > 0) {
    const a = lookup(table, text, whole);
    const b = lookup(table, text, whole + 1);
    const c = rest === 3 ? lookup(table, text, whole + 2) : 0;
    if ((a | b | c) > 63) {
      throw invalidCharacter(name, text, firstInvalid(table, text, whole));
    }
    // Canonical form: the bits below the last whole byte must be zero, otherwise several texts
    // would decode to the same bytes.
    if (rest === 2 ? (b & 15) !== 0 : (c & 3) !== 0) {
      throw new RangeError(`${name}: non-canonical encoding (unused trailing bits are not zero)`);
    }
    bytes[out++] = (a << 2) | (b >> 4);
    if (rest === 3) bytes[out++] = ((b & 15) << 4) | (c >> 2);
  }
  return bytes;
}

function firstInvalid(table: Uint8Array, text: string, from: number): number {
  let index = from;
  while (lookup(table, text, index) !== INVALID) index++;
  return index;
}

/**
 * Unpadded base64url (RFC 4648 section 5) of a byte array.
 *
 * @param bytes - the bytes to encode
 * @returns base64url text without `=` padding
 * @throws TypeError when `bytes` is not a Uint8Array
 */
export function b64uEncode(bytes: Uint8Array): string {
  assertBytes(bytes, 'b64uEncode: bytes');
  return base64Encode(bytes, B64U_CODES, false);
}

/**
 * Bytes of unpadded base64url text, strictly.
 *
 * Only A-Z a-z 0-9 - _ are accepted: no padding, no whitespace, no standard-alphabet `+` or
 * `/`. The text must be canonical: a length of 4n+1 and non-zero unused trailing bits are
 * rejected.
 *
 * @param text - base64url text
 * @returns the decoded bytes
 * @throws TypeError when `text` is not a string
 * @throws RangeError when the text is not canonical unpadded base64url
 */
export function b64uDecode(text: string): Uint8Array {
  assertString(text, 'b64uDecode: text');
  return base64DecodeDigits(text, text.length, B64U_VALUE, 'b64uDecode');
}

/**
 * Standard base64 (RFC 4648 section 4) with `=` padding.
 *
 * @param bytes - the bytes to encode
 * @returns padded base64 text
 * @throws TypeError when `bytes` is not a Uint8Array
 */
export function b64Encode(bytes: Uint8Array): string {
  assertBytes(bytes, 'b64Encode: bytes');
  return base64Encode(bytes, B64_CODES, true);
}

/**
 * Bytes of standard padded base64 text, strictly.
 *
 * The length must be a multiple of 4 with exactly the padding the data needs (zero, one or two
 * `=` at the end only), the alphabet is A-Z a-z 0-9 + /, no whitespace, and unused trailing bits
 * must be zero.
 *
 * @param text - padded base64 text
 * @returns the decoded bytes
 * @throws TypeError when `text` is not a string
 * @throws RangeError when the text is not canonical padded base64
 */
export function b64Decode(text: string): Uint8Array {
  assertString(text, 'b64Decode: text');
  if (text.length % 4 !== 0) {
    throw new RangeError(`b64Decode: length ${text.length} is not a multiple of 4 (padding is required)`);
  }
  let digits = text.length;
  if (digits > 0 && text.charCodeAt(digits - 1) === EQUALS_SIGN) digits--;
  if (digits > 0 && text.charCodeAt(digits - 1) === EQUALS_SIGN) digits--;
  // A third '=' (or a lone '=' group) leaves 4n+1 digits; any '=' left inside the digits is an
  // invalid character.
  return base64DecodeDigits(text, digits, B64_VALUE, 'b64Decode');
}

/**
 * UTF-8 bytes of a string.
 *
 * Results of up to {@link SLAB_MAX_CHARACTERS} characters are views into a shared 8 KiB slab,
 * as Node's `Buffer.from(string)` does: a fresh ArrayBuffer costs about two microseconds here,
 * more than encoding a receipt's payload. Each result has its own bytes (slab space is never
 * handed out twice), but its `.buffer` is the slab: use `byteOffset` and `byteLength` with it,
 * and copy (`slice()`) a small result that is kept for a long time.
 *
 * @param text - a well-formed string
 * @returns its UTF-8 encoding
 * @throws TypeError when `text` is not a string
 * @throws RangeError when the string holds a lone surrogate, which UTF-8 cannot represent
 *   (TextEncoder would silently write U+FFFD and so change what gets hashed or signed)
 */
export function utf8Encode(text: string): Uint8Array {
  assertString(text, 'utf8Encode: text');
  if (SURROGATE.test(text)) {
    const match = LONE_SURROGATE.exec(text);
    if (match !== null) {
      throw new RangeError(`utf8Encode: lone surrogate at position ${match.index} cannot be encoded as UTF-8`);
    }
  }
  if (text.length > SLAB_MAX_CHARACTERS) return utf8Encoder.encode(text);
  // UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair, 2 units, takes 4).
  if (slab.length - slabUsed < text.length * 3) {
    slab = new Uint8Array(SLAB_BYTES);
    slabUsed = 0;
  }
  const start = slabUsed;
  const { written } = utf8Encoder.encodeInto(text, slab.subarray(start));
  // The next result starts 8-byte aligned, as Node's pool does.
  slabUsed = (start + written + 7) & ~7;
  return slab.subarray(start, start + written);
}

/**
 * The string of UTF-8 bytes, fatally.
 *
 * Invalid UTF-8 (overlong forms, surrogates, truncated sequences) throws; a leading byte order
 * mark is kept as U+FEFF rather than dropped.
 *
 * @param bytes - UTF-8 bytes
 * @returns the decoded string
 * @throws TypeError when `bytes` is not a Uint8Array
 * @throws RangeError when the bytes are not valid UTF-8
 */
export function utf8Decode(bytes: Uint8Array): string {
  assertBytes(bytes, 'utf8Decode: bytes');
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw new RangeError('utf8Decode: the bytes are not valid UTF-8');
  }
}

/**
 * Base58btc (the Bitcoin alphabet, as used by multibase `z`) of a byte array.
 *
 * Each leading zero byte becomes a leading `1`. Quadratic in the input length, meant for keys
 * and identifiers, not bulk data.
 *
 * @param bytes - the bytes to encode
 * @returns base58btc text
 * @throws TypeError when `bytes` is not a Uint8Array
 */
export function base58btcEncode(bytes: Uint8Array): string {
  assertBytes(bytes, 'base58btcEncode: bytes');
  return base58.encode(bytes);
}

/**
 * Bytes of base58btc text.
 *
 * @param text - base58btc text (Bitcoin alphabet, no multibase prefix)
 * @returns the decoded bytes (each leading `1` is a zero byte)
 * @throws TypeError when `text` is not a string
 * @throws RangeError when a character is outside the alphabet
 */
export function base58btcDecode(text: string): Uint8Array {
  assertString(text, 'base58btcDecode: text');
  try {
    return base58.decode(text);
  } catch {
    for (let index = 0; index < text.length; index++) {
      if (!BASE58_ALPHABET.includes(text.charAt(index))) throw invalidCharacter('base58btcDecode', text, index);
    }
    throw new RangeError('base58btcDecode: not base58btc');
  }
}

/**
 * An exact string key for a byte array, for maps: one character per byte.
 *
 * Made natively with WHATWG's latin1 decoder, which maps the 256 byte values to 256 distinct
 * characters, so two arrays get the same key exactly when they hold the same bytes. Cheaper than
 * hex, and it does not read `bytes.buffer` (which, for a small typed array, makes V8 move the
 * array off its heap at a cost of a microsecond or two).
 *
 * @param bytes - the bytes
 * @returns a string of `bytes.length` characters
 * @throws TypeError when `bytes` is not a Uint8Array
 */
export function bytesKey(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('bytesKey: bytes must be a Uint8Array');
  return latin1Decoder.decode(bytes);
}

/**
 * Whether two byte arrays hold the same bytes.
 *
 * Runs in time that depends only on the length, so it may compare secrets such as tags.
 *
 * @param a - first array
 * @param b - second array
 * @returns true when the lengths and all bytes are equal
 * @throws TypeError when either argument is not a Uint8Array
 */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  assertBytes(a, 'equalBytes: a');
  assertBytes(b, 'equalBytes: b');
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= (a[index] ?? 0) ^ (b[index] ?? 0);
  return difference === 0;
}

/**
 * Orders byte arrays lexicographically (unsigned bytes, a proper prefix first).
 *
 * @param a - first array
 * @param b - second array
 * @returns a negative number, zero or a positive number, as `Array.prototype.sort` expects
 * @throws TypeError when either argument is not a Uint8Array
 */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  assertBytes(a, 'compareBytes: a');
  assertBytes(b, 'compareBytes: b');
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

/**
 * One new array holding the given arrays one after another.
 *
 * @param arrays - the arrays to join
 * @returns a fresh Uint8Array (never one of the inputs)
 * @throws TypeError when an argument is not a Uint8Array
 */
export function concatBytes(...arrays: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const [index, array] of arrays.entries()) {
    assertBytes(array, `concatBytes: argument ${index}`);
    length += array.length;
  }
  const result = new Uint8Array(length);
  let offset = 0;
  for (const array of arrays) {
    result.set(array, offset);
    offset += array.length;
  }
  return result;
}
