import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations/index';
import type { Report } from '../../src-shared/verify/report';
import { openLedger, type Ledger } from './open-ledger';
import { insertReceipts, type NewReceipt } from './receipts';
import { ledgerStats } from './stats';
import { makeReceipt, makeTemporaryDirectory } from './test-support';

// PROTOCOL section 1: a MISMATCH or INVALID receipt is `unattributed`, never counted as trusted.
// Migration 7 lets the ledger hold it and re-judges receipts filed before the rule.

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporaryFile(): string {
  const { directory, cleanup } = makeTemporaryDirectory();
  cleanups.push(cleanup);
  return path.join(directory, 'ledger.sqlite');
}

/**
 * Files a receipt as insertReceipts did at schema version 6 (today's insertReceipts writes
 * tables of later migrations): the row and its counts, in one transaction.
 */
function insertAsVersion6(ledger: Ledger, receipt: NewReceipt): void {
  const report = receipt.report as Report;
  const issuer = report.trust.key_id ?? null;
  ledger.writable.transaction(() => {
    ledger.writable
      .prepare(
        `INSERT INTO receipts (receipt_sha256, raw, format, receipt_id, issuer_key_id, imported_at, status, trust, report_json, search_text)
         VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, '')`,
      )
      .run(
        receipt.receipt_sha256,
        receipt.raw,
        report.format,
        receipt.receipt_id ?? null,
        issuer,
        report.status,
        report.trust.status,
        JSON.stringify(report),
      );
    const count = ledger.writable.prepare(
      `INSERT INTO receipt_counts (dimension, value, n) VALUES (?, ?, 1)
       ON CONFLICT (dimension, value) DO UPDATE SET n = n + 1`,
    );
    count.run('format', report.format);
    count.run('status', report.status);
    count.run('trust', report.trust.status);
    count.run('issuer', issuer ?? '');
  })();
}

describe('unattributed trust in the ledger', () => {
  it('files and counts unattributed receipts apart from trusted ones', () => {
    const ledger = openLedger(temporaryFile());
    cleanups.unshift(() => ledger.close());
    insertReceipts(ledger.writable, [
      makeReceipt('good', { status: 'PASS', trust: 'trusted', key_id: 'k1' }),
      makeReceipt('tampered', { status: 'MISMATCH', trust: 'unattributed' }),
    ]);
    const stats = ledgerStats(ledger.readable);
    expect(stats.byTrust).toEqual({ trusted: 1, unattributed: 1 });
  });

  it('re-judges MISMATCH and INVALID receipts filed as trusted before migration 7', () => {
    const file = temporaryFile();
    const old = openLedger(file, { migrations: MIGRATIONS.slice(0, 6) });
    for (const receipt of [
      makeReceipt('good', { status: 'PASS', trust: 'trusted', key_id: 'k1' }),
      makeReceipt('tampered', { status: 'MISMATCH', trust: 'trusted', key_id: 'k1' }),
      makeReceipt('forged', { status: 'INVALID', trust: 'unpinned', key_id: 'k2' }),
      makeReceipt('broken', { status: 'MALFORMED', trust: 'not_applicable' }),
    ])
      insertAsVersion6(old, receipt);
    expect(() => insertAsVersion6(old, makeReceipt('new', { status: 'MISMATCH', trust: 'unattributed' }))).toThrow();
    old.close();

    const ledger = openLedger(file);
    cleanups.unshift(() => ledger.close());
    expect(ledger.schemaVersion).toBe(MIGRATIONS.length);
    expect(ledgerStats(ledger.readable).byTrust).toEqual({ trusted: 1, unattributed: 2, not_applicable: 1 });
    const rows = ledger.readable.prepare('SELECT status, trust, report_json FROM receipts ORDER BY id').all() as {
      status: string;
      trust: string;
      report_json: string;
    }[];
    const trusts = rows.map((row) => (JSON.parse(row.report_json) as { trust: Record<string, string> }).trust);
    expect(rows.map((row) => row.trust)).toEqual(['trusted', 'unattributed', 'unattributed', 'not_applicable']);
    expect(trusts[1]).toMatchObject({ status: 'unattributed', claimed_key_id: 'k1' });
    expect(trusts[1]).not.toHaveProperty('key_id');
    expect(trusts[2]).toMatchObject({ status: 'unattributed', claimed_key_id: 'k2' });
    expect(trusts[0]).toEqual({ status: 'trusted', key_id: 'k1' });
    insertReceipts(ledger.writable, [makeReceipt('new', { status: 'MISMATCH', trust: 'unattributed' })]);
  });
});
