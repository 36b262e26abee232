/**
 * Receipt ids (PROTOCOL section 3): `rcp_` followed by a 26-character ULID.
 *
 * A ULID is 128 bits written in Crockford base32: a 48-bit big-endian Unix time in milliseconds
 * (10 characters) then 80 random bits (16 characters). 26 characters hold 130 bits, so the two
 * top bits are always zero and the first character is 0-7.
 */
import { assertBytes } from '../../crypto';

/** Crockford's base32 alphabet: digits and capitals without I, L, O and U. */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The prefix every receipt id carries. */
export const RECEIPT_ID_PREFIX = 'rcp_';

/** A receipt id: `rcp_` and a canonical ULID (first character 0-7, Crockford capitals). */
export const RECEIPT_ID_PATTERN = /^rcp_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** The largest ULID time: 48 bits of milliseconds (the year 10889). */
export const MAX_ULID_TIME = 2 ** 48 - 1;

/** The number of random bytes in a ULID (80 bits). */
export const ULID_RANDOM_LENGTH = 10;

/**
 * Encode a ULID from its time and randomness.
 *
 * @param timeMillis - Milliseconds since the Unix epoch, 0 to {@link MAX_ULID_TIME}.
 * @param random - Exactly {@link ULID_RANDOM_LENGTH} random bytes.
 * @returns 26 Crockford base32 characters.
 * @throws TypeError if `timeMillis` is not a number or `random` is not a Uint8Array.
 * @throws RangeError if the time is not an integer in range or `random` is not 10 bytes.
 * @example encodeUlid(0, new Uint8Array(10)) // '00000000000000000000000000'
 */
export function encodeUlid(timeMillis: number, random: Uint8Array): string {
  if (typeof timeMillis !== 'number') throw new TypeError('A ULID time must be a number of milliseconds');
  if (!Number.isInteger(timeMillis) || timeMillis < 0 || timeMillis > MAX_ULID_TIME) {
    throw new RangeError(`A ULID time must be an integer from 0 to 2^48 - 1 milliseconds, got ${String(timeMillis)}`);
  }
  assertBytes(random, 'encodeUlid: random', ULID_RANDOM_LENGTH);
  let value = BigInt(timeMillis);
  for (const byte of random) value = (value << 8n) | BigInt(byte);
  const characters: string[] = [];
  for (let index = 0; index < 26; index += 1) {
    characters.push(CROCKFORD_ALPHABET.charAt(Number(value & 31n)));
    value >>= 5n;
  }
  return characters.reverse().join('');
}

/**
 * Make a receipt id for an instant, with fresh randomness.
 *
 * @param now - The issuing instant (its milliseconds become the ULID time).
 * @param randomBytes - A source of cryptographically secure random bytes (a provider's).
 * @returns `rcp_` and a ULID.
 * @throws TypeError if `now` is not a Date or `randomBytes` is not a function.
 * @throws RangeError if `now` is invalid or outside the ULID time range.
 */
export function createReceiptId(now: Date, randomBytes: (length: number) => Uint8Array): string {
  if (!(now instanceof Date)) throw new TypeError('createReceiptId needs a Date');
  if (typeof randomBytes !== 'function') throw new TypeError('createReceiptId needs a random byte source');
  return RECEIPT_ID_PREFIX + encodeUlid(now.getTime(), randomBytes(ULID_RANDOM_LENGTH));
}

/**
 * Whether a value is a well-formed receipt id.
 *
 * @param value - Anything.
 * @returns True for `rcp_` followed by a canonical ULID.
 */
export function isReceiptId(value: unknown): value is string {
  return typeof value === 'string' && RECEIPT_ID_PATTERN.test(value);
}

/**
 * The time a receipt id's ULID records.
 *
 * @param receiptId - A receipt id.
 * @returns Milliseconds since the Unix epoch.
 * @throws TypeError if `receiptId` is not a string.
 * @throws RangeError if it is not a receipt id.
 */
export function receiptIdTime(receiptId: string): number {
  if (typeof receiptId !== 'string') throw new TypeError('A receipt id must be a string');
  if (!RECEIPT_ID_PATTERN.test(receiptId))
    throw new RangeError(`Not a receipt id (rcp_ + ULID): ${JSON.stringify(receiptId.slice(0, 40))}`);
  let time = 0;
  for (const character of receiptId.slice(RECEIPT_ID_PREFIX.length, RECEIPT_ID_PREFIX.length + 10)) {
    time = time * 32 + CROCKFORD_ALPHABET.indexOf(character);
  }
  return time;
}
