import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECEIPT_EXPORT_COLUMNS } from '../../src-shared/api/receipts-export';
import { countReceipts, insertReceipts, type Ledger } from '../ledger';
import { makeReceipt, makeTemporaryLedger } from '../ledger/test-support';
import { receiptExportChunk, receiptExportChunks } from './receipts-export';

/** More rows than one page of the ledger (1,000), so the export must follow the cursor. */
const ROWS = 2_503;

describe('receipts export', () => {
  let ledger: Ledger;
  let dispose: () => void;
  const workspace = (): { ledger: Ledger } => ({ ledger });

  beforeAll(() => {
    ({ ledger, dispose } = makeTemporaryLedger());
    const receipts = Array.from({ length: ROWS }, (_, index) =>
      makeReceipt(`r${index}`, {
        status: index % 5 === 0 ? 'INVALID' : 'PASS',
        key_id: 'did:key:z6MkExport',
        issued_at: Date.UTC(2026, 0, 1) + index * 1000,
        // A document may name itself anything: the CSV must not hand a spreadsheet a formula.
        receipt_id: index === 10 ? '=HYPERLINK("http://evil.example","x")' : `rcp_${index}`,
      }),
    );
    insertReceipts(
      ledger.writable,
      receipts.map((receipt) => ({ ...receipt, source: { kind: 'file' as const, ref: 'test' } })),
      { at: Date.UTC(2026, 5, 1) },
    );
  });
  afterAll(() => dispose());

  it('writes every matching row once, across pages, as one CSV document', () => {
    const chunks = [...receiptExportChunks(workspace(), 'csv', { filters: { status: 'INVALID' } })];
    const expected = countReceipts(ledger.readable, { status: 'INVALID' });
    expect(expected).toBe(501);
    const lines = chunks
      .map((chunk) => chunk.text)
      .join('')
      .split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe(RECEIPT_EXPORT_COLUMNS.join(','));
    const body = lines.slice(1, -1);
    expect(body).toHaveLength(expected);
    expect(new Set(body.map((line) => line.split(',')[0])).size).toBe(expected);
    expect(body.every((line) => line.includes(',INVALID,'))).toBe(true);
    expect(body.some((line) => line.startsWith('11,"\'=HYPERLINK(""http://evil.example"",""x"")"'))).toBe(true);
  });

  it('writes the whole ledger as one JSON array, in the asked order, over three pages', () => {
    const chunks = [...receiptExportChunks(workspace(), 'json', { sort: { column: 'issued_at', direction: 'asc' } })];
    expect(chunks.map((chunk) => chunk.rows)).toEqual([1000, 1000, 503]);
    expect(chunks.at(-1)?.nextCursor).toBeNull();
    const records = JSON.parse(chunks.map((chunk) => chunk.text).join('')) as {
      ledger_id: number;
      issued_at: string;
    }[];
    expect(records).toHaveLength(ROWS);
    expect(records[0]?.issued_at).toBe('2026-01-01T00:00:00.000Z');
    expect(records.at(-1)?.issued_at).toBe(new Date(Date.UTC(2026, 0, 1) + (ROWS - 1) * 1000).toISOString());
    const withFormula = records.find((record) => record.ledger_id === 11) as unknown as { receipt_id: string };
    expect(withFormula.receipt_id).toBe('=HYPERLINK("http://evil.example","x")');
  });

  it('continues from a cursor with pages of the asked size, and ends an empty set at once', () => {
    const first = receiptExportChunk(workspace(), 'json', { filters: { text: 'rcp_2500' }, limit: 1 });
    expect(first.rows).toBe(1);
    expect(first.nextCursor).toBeNull();
    expect(JSON.parse(first.text)).toHaveLength(1);
    const none = receiptExportChunk(workspace(), 'csv', { filters: { format: 'no/such' } });
    expect(none).toEqual({ text: `${RECEIPT_EXPORT_COLUMNS.join(',')}\r\n`, rows: 0, nextCursor: null });
  });
});
