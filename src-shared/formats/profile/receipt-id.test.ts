import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import {
  MAX_ULID_TIME,
  RECEIPT_ID_PATTERN,
  createReceiptId,
  encodeUlid,
  isReceiptId,
  receiptIdTime,
} from './receipt-id';

const crypto = createPortableProvider();

describe('ULID receipt ids', () => {
  it('encodes the time as the first 10 Crockford characters (published examples)', () => {
    // ulid/javascript README: decodeTime("01ARYZ6S41TSV4RRFFQ69G5FAV") is 1469918176385;
    // evokegroup/ulid README: ulid(1698075890563) starts "01HDEKBMW3".
    expect(encodeUlid(1469918176385, new Uint8Array(10)).slice(0, 10)).toBe('01ARYZ6S41');
    expect(encodeUlid(1698075890563, new Uint8Array(10)).slice(0, 10)).toBe('01HDEKBMW3');
    expect(receiptIdTime('rcp_01ARYZ6S41TSV4RRFFQ69G5FAV')).toBe(1469918176385);
  });

  it('encodes the extremes: all zero bits and the ULID maximum 7ZZ...Z', () => {
    expect(encodeUlid(0, new Uint8Array(10))).toBe('0'.repeat(26));
    expect(encodeUlid(MAX_ULID_TIME, new Uint8Array(10).fill(0xff))).toBe(`7${'Z'.repeat(25)}`);
    expect(encodeUlid(0, Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 1))).toBe(`${'0'.repeat(25)}1`);
  });

  it('makes rcp_ ids whose ULID time is the instant and whose randomness differs', () => {
    const now = new Date('2026-06-01T12:00:00.123Z');
    const first = createReceiptId(now, crypto.randomBytes);
    const second = createReceiptId(now, crypto.randomBytes);
    expect(first).toMatch(RECEIPT_ID_PATTERN);
    expect(receiptIdTime(first)).toBe(now.getTime());
    expect(first.slice(0, 14)).toBe(second.slice(0, 14));
    expect(first).not.toBe(second);
  });

  it('recognizes only rcp_ + canonical ULIDs', () => {
    expect(isReceiptId('rcp_01ARYZ6S41TSV4RRFFQ69G5FAV')).toBe(true);
    expect(isReceiptId('rcp_81ARYZ6S41TSV4RRFFQ69G5FAV')).toBe(false); // over 2^48 ms
    expect(isReceiptId('rcp_01arz3ndektsv4rrffq69g5fav')).toBe(false); // lowercase
    expect(isReceiptId('rcp_01ARZ3NDEKTSV4RRFFQ69G5FAU')).toBe(false); // U is not Crockford
    expect(isReceiptId('rcp_01ARZ3NDEKTSV4RRFFQ69G5FA')).toBe(false); // 25 characters
    expect(isReceiptId('01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBe(false);
    expect(isReceiptId(42)).toBe(false);
  });

  it('refuses bad arguments with TypeError or RangeError', () => {
    expect(() => encodeUlid(-1, new Uint8Array(10))).toThrow(RangeError);
    expect(() => encodeUlid(MAX_ULID_TIME + 1, new Uint8Array(10))).toThrow(RangeError);
    expect(() => encodeUlid(1.5, new Uint8Array(10))).toThrow(RangeError);
    expect(() => encodeUlid('1' as unknown as number, new Uint8Array(10))).toThrow(TypeError);
    expect(() => encodeUlid(0, new Uint8Array(9))).toThrow(RangeError);
    expect(() => createReceiptId(new Date(Number.NaN), crypto.randomBytes)).toThrow(RangeError);
    expect(() => createReceiptId('now' as unknown as Date, crypto.randomBytes)).toThrow(TypeError);
    expect(() => receiptIdTime('rcp_x')).toThrow(RangeError);
  });
});
