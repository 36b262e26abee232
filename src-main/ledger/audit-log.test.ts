import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { execute } from './database';
import { LedgerError } from './errors';
import { sql } from './sql';
import { appendAudit, auditRowHash, checkAuditChain, GENESIS_SHA256, listAuditEntries } from './audit-log';
import type { Ledger } from './open-ledger';
import { makeTemporaryLedger } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): { ledger: Ledger; file: string } {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  return made;
}

function withFiveRows(): { ledger: Ledger; file: string } {
  const made = temporary();
  appendAudit(made.ledger.writable, 'import', '/tmp/a.zip', { receipts: 3 }, { at: 1 });
  appendAudit(made.ledger.writable, 'pin', 'did:svc:evroom:k1', { label: 'Acme' }, { at: 2 });
  appendAudit(made.ledger.writable, 'label', 'did:svc:evroom:k1', { label: 'Acme “prod” ✓' }, { at: 3 });
  appendAudit(made.ledger.writable, 'revoke', 'did:svc:evroom:k1', { reason: null }, { at: 4 });
  appendAudit(made.ledger.writable, 'export', '', [], { at: 5 });
  return made;
}

/** A second, raw connection to the same file, as someone editing it with sqlite3 would have. */
function tamper(file: string, statements: string): void {
  const raw = new BetterSqlite3(file);
  raw.exec(statements);
  raw.close();
}

describe('audit log', () => {
  it('chains rows from 64 zeros with the documented hash', () => {
    const { ledger } = withFiveRows();
    const rows = listAuditEntries(ledger.readable, { direction: 'asc' });
    expect(rows.map((row) => row.id)).toEqual([1, 2, 3, 4, 5]);
    expect(rows[0]?.prev_sha256).toBe(GENESIS_SHA256);
    for (let index = 1; index < rows.length; index += 1) {
      expect(rows[index]?.prev_sha256).toBe(rows[index - 1]?.row_sha256);
    }
    const second = rows[1];
    expect(second?.details).toEqual({ label: 'Acme' });
    // The formula, spelled out independently of auditRowHash.
    const canonical = `[2,2,"pin","did:svc:evroom:k1","{\\"label\\":\\"Acme\\"}","${rows[0]?.row_sha256 ?? ''}"]`;
    expect(second?.row_sha256).toBe(
      auditRowHash({
        id: 2,
        at: 2,
        action: 'pin',
        subject: 'did:svc:evroom:k1',
        details_json: '{"label":"Acme"}',
        prev_sha256: rows[0]?.row_sha256 ?? '',
      }),
    );
    expect(second?.row_sha256).toBe(createHash('sha256').update(canonical).digest('hex'));
    expect(checkAuditChain(ledger.readable)).toEqual({ ok: true, entries: 5 });
  });

  it('is empty and ok on a new ledger', () => {
    const { ledger } = temporary();
    expect(checkAuditChain(ledger.readable)).toEqual({ ok: true, entries: 0 });
  });

  it('pages newest first by default', () => {
    const { ledger } = withFiveRows();
    expect(listAuditEntries(ledger.readable, { limit: 2 }).map((row) => row.id)).toEqual([5, 4]);
    expect(listAuditEntries(ledger.readable, { limit: 2, afterId: 4 }).map((row) => row.id)).toEqual([3, 2]);
    expect(listAuditEntries(ledger.readable, { direction: 'asc', afterId: 3 }).map((row) => row.id)).toEqual([4, 5]);
  });

  it('refuses updates and deletes through SQLite itself', () => {
    const { ledger } = withFiveRows();
    expect(() => ledger.writable.prepare("UPDATE audit_log SET action = 'x' WHERE id = 2").run()).toThrow(
      /append-only/,
    );
    expect(() => ledger.writable.prepare('DELETE FROM audit_log WHERE id = 5').run()).toThrow(/append-only/);
    // Through the ledger's own statement helper the refusal is a LedgerError with its own code.
    try {
      execute(ledger.writable, sql`DELETE FROM audit_log`);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(LedgerError);
      expect((error as LedgerError).code).toBe('audit_append_only');
    }
    expect(checkAuditChain(ledger.readable).ok).toBe(true);
  });

  it('refuses an inserted row that does not extend the chain', () => {
    const { ledger } = withFiveRows();
    const insert = ledger.writable.prepare(
      'INSERT INTO audit_log (id, at, action, subject, details, prev_sha256, row_sha256) VALUES (?, 9, ?, ?, ?, ?, ?)',
    );
    const zeros = GENESIS_SHA256;
    expect(() => insert.run(6, 'pin', 'x', '{}', zeros, zeros)).toThrow(/extend the hash chain/);
    expect(() => insert.run(9, 'pin', 'x', '{}', zeros, zeros)).toThrow(/extend the hash chain/);
  });

  it('finds a row edited in the file', () => {
    const { ledger, file } = withFiveRows();
    tamper(file, `DROP TRIGGER audit_log_no_update; UPDATE audit_log SET details = '{"receipts":300}' WHERE id = 1;`);
    expect(checkAuditChain(ledger.readable)).toMatchObject({ ok: false, entries: 0, firstBadId: 1 });
    expect(checkAuditChain(ledger.readable).problem).toMatch(/Row 1 was changed/);
  });

  it('finds an edit that recomputed the row hash, at the next row', () => {
    const { ledger, file } = withFiveRows();
    const row = listAuditEntries(ledger.readable, { direction: 'asc' })[2];
    const forged = auditRowHash({
      id: 3,
      at: row?.at ?? 0,
      action: 'label',
      subject: 'did:svc:evroom:k1',
      details_json: '{"label":"Someone else"}',
      prev_sha256: row?.prev_sha256 ?? '',
    });
    tamper(
      file,
      `DROP TRIGGER audit_log_no_update;
       UPDATE audit_log SET details = '{"label":"Someone else"}', row_sha256 = '${forged}' WHERE id = 3;`,
    );
    const result = checkAuditChain(ledger.readable);
    expect(result).toMatchObject({ ok: false, entries: 3, firstBadId: 4 });
    expect(result.problem).toMatch(/Row 4 does not link to row 3/);
  });

  it('finds a deleted row', () => {
    const { ledger, file } = withFiveRows();
    tamper(file, 'DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE id = 2;');
    expect(checkAuditChain(ledger.readable)).toMatchObject({ ok: false, entries: 1, firstBadId: 2 });
  });

  it('finds a changed timestamp and a changed action', () => {
    const { ledger, file } = withFiveRows();
    tamper(file, 'DROP TRIGGER audit_log_no_update; UPDATE audit_log SET at = 40 WHERE id = 4;');
    expect(checkAuditChain(ledger.readable)).toMatchObject({ ok: false, firstBadId: 4 });
  });

  it('checks its arguments', () => {
    const { ledger } = temporary();
    expect(() => appendAudit(ledger.writable, 'Pin', 'x')).toThrow(RangeError);
    expect(() => appendAudit(ledger.writable, 'pin key', 'x')).toThrow(RangeError);
    expect(() => appendAudit(ledger.writable, 'pin', 5 as unknown as string)).toThrow(TypeError);
    expect(() => appendAudit(ledger.writable, 'pin', 'x', { big: 1n })).toThrow(TypeError);
    expect(() => appendAudit(ledger.writable, 'pin', 'x', undefined, { at: -1 })).toThrow(RangeError);
    expect(appendAudit(ledger.writable, 'trust-import', 'x').details).toEqual({});
    expect(checkAuditChain(ledger.readable)).toEqual({ ok: true, entries: 1 });
  });

  it('rolls back with the change it records', () => {
    const { ledger } = withFiveRows();
    expect(() =>
      ledger.runInTransaction((database) => {
        appendAudit(database, 'pin', 'did:x');
        throw new Error('the pin failed');
      }),
    ).toThrow('the pin failed');
    expect(checkAuditChain(ledger.readable)).toEqual({ ok: true, entries: 5 });
  });
});
