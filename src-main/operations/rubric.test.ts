import { describe, expect, it } from 'vitest';
import { recommendProfile } from './rubric';

describe('recommendProfile (PROTOCOL 3)', () => {
  it('recommends nano for free verification or a sub-cent amount', () => {
    expect(recommendProfile({ intent: 'free_verify' }).recommended_profile).toBe('nano');
    expect(recommendProfile({ intent: 'commerce', amount_usd: 0.009 }).recommended_profile).toBe('nano');
    expect(recommendProfile({ amount_usd: 0.01 }).recommended_profile).toBe('standard');
  });

  it('recommends pq for a regulated intent or retention over 365 days, even for a small amount', () => {
    expect(recommendProfile({ intent: 'regulated' }).recommended_profile).toBe('pq');
    expect(recommendProfile({ retention_days: 366 }).recommended_profile).toBe('pq');
    expect(recommendProfile({ retention_days: 365 }).recommended_profile).toBe('standard');
    const both = recommendProfile({ intent: 'free_verify', retention_days: 3650 });
    expect(both.recommended_profile).toBe('pq');
    expect(both.reasons).toEqual(['retention of 3650 days is over 365 days']);
  });

  it('recommends standard for commerce and by default', () => {
    expect(recommendProfile({ intent: 'commerce', amount_usd: 20 }).recommended_profile).toBe('standard');
    expect(recommendProfile({}).recommended_profile).toBe('standard');
    expect(recommendProfile({ intent: 'something else' }).reasons).toEqual([
      'no rule for nano or pq applies: standard is the default',
    ]);
  });

  it('refuses input of the wrong type or range', () => {
    expect(() => recommendProfile(null as never)).toThrow(TypeError);
    expect(() => recommendProfile({ amount_usd: '1' as never })).toThrow(TypeError);
    expect(() => recommendProfile({ amount_usd: -1 })).toThrow(RangeError);
    expect(() => recommendProfile({ retention_days: Number.NaN })).toThrow(RangeError);
  });
});
