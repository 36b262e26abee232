import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, queryFingerprint } from './cursor';
import { LedgerError } from './errors';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof LedgerError ? error.code : `not a LedgerError: ${String(error)}`;
  }
  return undefined;
}

describe('cursor', () => {
  const fingerprint = queryFingerprint({ filters: { status: 'PASS' }, sort: { column: 'format', direction: 'asc' } });

  it('round-trips values as an opaque base64url string', () => {
    const cursor = encodeCursor(fingerprint, ['classical', -1, 42]);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, fingerprint, ['text', 'integer', 'integer'])).toEqual(['classical', -1, 42]);
  });

  it('refuses a cursor from another query', () => {
    const other = queryFingerprint({ filters: {}, sort: { column: 'format', direction: 'asc' } });
    const cursor = encodeCursor(other, ['classical', 1, 2]);
    expect(codeOf(() => decodeCursor(cursor, fingerprint, ['text', 'integer', 'integer']))).toBe('bad_cursor');
  });

  it('refuses garbage, wrong arity and wrong types', () => {
    expect(codeOf(() => decodeCursor('not a cursor!', fingerprint, ['integer']))).toBe('bad_cursor');
    expect(codeOf(() => decodeCursor('', fingerprint, ['integer']))).toBe('bad_cursor');
    expect(codeOf(() => decodeCursor(Buffer.from('{').toString('base64url'), fingerprint, ['integer']))).toBe(
      'bad_cursor',
    );
    expect(codeOf(() => decodeCursor(encodeCursor(fingerprint, [1, 2]), fingerprint, ['integer']))).toBe('bad_cursor');
    expect(codeOf(() => decodeCursor(encodeCursor(fingerprint, ['1']), fingerprint, ['integer']))).toBe('bad_cursor');
    expect(codeOf(() => decodeCursor(encodeCursor(fingerprint, [1.5]), fingerprint, ['integer']))).toBe('bad_cursor');
    expect(codeOf(() => decodeCursor('A'.repeat(9000), fingerprint, ['integer']))).toBe('bad_cursor');
    expect(() => decodeCursor(5 as unknown as string, fingerprint, ['integer'])).toThrow(TypeError);
  });
});
