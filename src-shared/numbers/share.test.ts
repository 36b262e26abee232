import { describe, expect, it } from 'vitest';
import { formatShare, progressPercent } from './share';

describe('formatShare', () => {
  it('says 100 % and 0 % only when it is exactly so', () => {
    expect(formatShare(20_041, 20_041)).toBe('100 %');
    expect(formatShare(0, 20_041)).toBe('0 %');
    expect(formatShare(1, 1)).toBe('100 %');
    expect(formatShare(0, 1)).toBe('0 %');
  });

  it('never rounds a failure away: 28 of 20,041 failing is not 100 %', () => {
    expect(formatShare(20_013, 20_041)).toBe('99.86 %');
    expect(formatShare(28, 20_041)).toBe('0.14 %');
  });

  it('marks shares too close to a boundary for two decimals instead of rounding onto it', () => {
    expect(formatShare(20_040, 20_041)).toBe('>99.99 %');
    expect(formatShare(1, 20_041)).toBe('<0.01 %');
    expect(formatShare(999_999, 1_000_000)).toBe('>99.99 %');
    expect(formatShare(1, 1_000_000)).toBe('<0.01 %');
    // 99.99 and 0.01 themselves are shown as they are.
    expect(formatShare(9_999, 10_000)).toBe('99.99 %');
    expect(formatShare(1, 10_000)).toBe('0.01 %');
  });

  it('drops trailing zeros', () => {
    expect(formatShare(1, 2)).toBe('50 %');
    expect(formatShare(1, 8)).toBe('12.5 %');
    expect(formatShare(1, 3)).toBe('33.33 %');
    expect(formatShare(2, 3)).toBe('66.67 %');
  });

  it('has no share of an empty ledger', () => {
    expect(formatShare(0, 0)).toBeUndefined();
  });

  it('refuses what is not a part of a whole', () => {
    expect(() => formatShare(2, 1)).toThrow(RangeError);
    expect(() => formatShare(-1, 3)).toThrow(RangeError);
    expect(() => formatShare(1.5, 3)).toThrow(RangeError);
    expect(() => formatShare(Number.NaN, 3)).toThrow(RangeError);
  });
});

describe('progressPercent', () => {
  it('is full only when the work is, and 0 while the total is unknown', () => {
    expect(progressPercent(0, 0)).toBe(0);
    expect(progressPercent(5, 0)).toBe(0);
    expect(progressPercent(0, 10)).toBe(0);
    expect(progressPercent(1, 3)).toBe(33);
    expect(progressPercent(199, 200)).toBe(99);
    expect(progressPercent(19_999, 20_000)).toBe(99);
    expect(progressPercent(200, 200)).toBe(100);
    expect(progressPercent(201, 200)).toBe(100);
  });
});
