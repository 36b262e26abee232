import { describe, expect, it } from 'vitest';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { PROSPECTOR_CHECKS, qualifySurface, REQUIRED_CHECKS } from './prospector';

const crypto = createNodeCryptoProvider();

function statusOf(payload: string, id = 'payload_strict_json'): string | undefined {
  return qualifySurface({ name: 's', sample_payload: payload }, crypto).checks.find((item) => item.id === id)?.status;
}

describe('qualifySurface', () => {
  it('lists every check once, in order, and requires all but clock_source', () => {
    const answer = qualifySurface({ name: 's' }, crypto);
    expect(answer.checks.map((item) => item.id)).toEqual([...PROSPECTOR_CHECKS]);
    expect(answer.checks.filter((item) => !item.required).map((item) => item.id)).toEqual(['clock_source']);
    expect(REQUIRED_CHECKS.size).toBe(PROSPECTOR_CHECKS.length - 1);
  });

  it('holds payloads to the strict parser: duplicates, depth, trailing commas, a BOM and integers spelled beyond 2^53−1 fail', () => {
    expect(statusOf('{"a":1,"a":1}')).toBe('fail');
    expect(statusOf(`${'['.repeat(65)}${']'.repeat(65)}`)).toBe('fail');
    expect(statusOf(`${'['.repeat(64)}${']'.repeat(64)}`)).toBe('pass');
    expect(statusOf('[1,]')).toBe('fail');
    expect(statusOf('\ufeff{}')).toBe('fail');
    expect(statusOf('9007199254740991')).toBe('pass');
    expect(statusOf('9007199254740992')).toBe('fail');
    // Spelled as a double, a large number is a double by intent and keeps its JCS form.
    expect(statusOf('9.007199254740993e15')).toBe('pass');
    expect(statusOf('"text"', 'payload_jcs')).toBe('pass');
  });

  it('gives the same answer for the same surface, down to the wrapped sizes', () => {
    const surface = { name: 's', sample_payload: '{"b":[1,2],"a":"é"}', signer: 'Ed25519', ids_stable: true };
    expect(qualifySurface(surface, crypto)).toEqual(qualifySurface(surface, createNodeCryptoProvider()));
  });

  it('refuses a surface of the wrong shape', () => {
    expect(() => qualifySurface(null as never, crypto)).toThrow(TypeError);
    expect(() => qualifySurface({ name: '' }, crypto)).toThrow(TypeError);
    expect(() => qualifySurface({ name: 's', sample_payload: {} as never }, crypto)).toThrow(TypeError);
    expect(() => qualifySurface({ name: 's', ids_stable: 'yes' as never }, crypto)).toThrow(TypeError);
    expect(() => qualifySurface({ name: 's', retention_days: 1.5 }, crypto)).toThrow(RangeError);
  });
});
