import { describe, expect, it } from 'vitest';
import { isTimestamp, timestampToMillis } from './timestamp';

describe('TS timestamps', () => {
  it('accepts seconds and 1 to 9 fraction digits, UTC only', () => {
    expect(timestampToMillis('2026-11-22T04:05:06Z')).toBe(Date.UTC(2026, 10, 22, 4, 5, 6));
    expect(timestampToMillis('2026-11-22T04:05:06.7Z')).toBe(Date.UTC(2026, 10, 22, 4, 5, 6, 700));
    expect(timestampToMillis('2026-11-22T04:05:06.789Z')).toBe(Date.UTC(2026, 10, 22, 4, 5, 6, 789));
    expect(timestampToMillis('2026-11-22T04:05:06.789999999Z')).toBe(Date.UTC(2026, 10, 22, 4, 5, 6, 789));
    expect(timestampToMillis('0001-01-01T00:00:00Z')).toBe(new Date('0001-01-01T00:00:00Z').getTime());
  });

  it('refuses other spellings and impossible dates', () => {
    for (const text of [
      '2026-11-22T04:05:06',
      '2026-11-22T04:05:06+00:00',
      '2026-11-22 04:05:06Z',
      '2026-11-22T04:05Z',
      '2026-11-22T04:05:06.Z',
      '2026-11-22T04:05:06.1234567890Z',
      '2026-11-22t04:05:06z',
      '2026-13-01T00:00:00Z',
      '2026-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:60:00Z',
      '2026-01-01T00:00:60Z',
      '',
    ]) {
      expect(isTimestamp(text), text).toBe(false);
      expect(() => timestampToMillis(text), text).toThrow(RangeError);
    }
    expect(isTimestamp('2024-02-29T00:00:00Z')).toBe(true);
    expect(isTimestamp('2000-02-29T00:00:00Z')).toBe(true);
    expect(isTimestamp(1700000000)).toBe(false);
    expect(() => timestampToMillis(5 as never)).toThrow(TypeError);
  });
});
