import { describe, expect, it } from 'vitest';
import { LedgerError, toLedgerError } from './errors';

function sqliteError(code: string, message = 'x'): Error {
  return Object.assign(new Error(message), { code });
}

describe('toLedgerError', () => {
  it('maps SQLite codes to stable ledger codes', () => {
    const cases: [string, string][] = [
      ['SQLITE_BUSY', 'busy'],
      ['SQLITE_BUSY_SNAPSHOT', 'busy'],
      ['SQLITE_NOTADB', 'not_a_ledger'],
      ['SQLITE_CORRUPT', 'not_a_ledger'],
      ['SQLITE_CONSTRAINT_UNIQUE', 'constraint'],
      ['SQLITE_CANTOPEN', 'io_error'],
      ['SQLITE_READONLY', 'io_error'],
      ['SQLITE_FULL', 'io_error'],
      ['SQLITE_ERROR', 'sqlite_error'],
    ];
    for (const [code, expected] of cases) {
      const mapped = toLedgerError(sqliteError(code), 'testing');
      expect(mapped).toBeInstanceOf(LedgerError);
      expect((mapped as LedgerError).code).toBe(expected);
      expect((mapped as LedgerError).cause).toBeInstanceOf(Error);
    }
    expect(
      (toLedgerError(sqliteError('SQLITE_CONSTRAINT_TRIGGER', 'audit_log is append-only'), 'x') as LedgerError).code,
    ).toBe('audit_append_only');
  });

  it('passes other errors through unchanged', () => {
    const plain = new TypeError('bad');
    expect(toLedgerError(plain, 'x')).toBe(plain);
    const ledger = new LedgerError('closed', 'closed');
    expect(toLedgerError(ledger, 'x')).toBe(ledger);
    expect(toLedgerError('text', 'x')).toBe('text');
  });
});
