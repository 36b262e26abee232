import { describe, expect, it } from 'vitest';
import type { ReceiptRow } from './contract';
import { RECEIPT_EXPORT_COLUMNS, csvField, csvRecord, receiptExportPage, receiptExportRecord } from './receipts-export';

function row(id: number, changes: Partial<ReceiptRow> = {}): ReceiptRow {
  return {
    id,
    receipt_sha256: 'ab'.repeat(32),
    format: 'profile/standard',
    receipt_id: `rcp_${id}`,
    issuer_key_id: 'did:key:z6MkExample',
    issued_at: Date.UTC(2026, 10, 1, 12, 0, 0),
    imported_at: Date.UTC(2026, 10, 2, 8, 30, 0, 5),
    status: 'PASS',
    trust: 'trusted',
    anchor_state: 'none',
    ...changes,
  };
}

/** A small RFC 4180 reader, written from the RFC's grammar, to read back what was written. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let fields: string[] = [];
  let index = 0;
  while (index < text.length) {
    if (text[index] === '"') {
      index++;
      for (;;) {
        const quote = text.indexOf('"', index);
        if (quote < 0) throw new Error('unterminated quote');
        field += text.slice(index, quote);
        index = quote + 1;
        if (text[index] === '"') {
          field += '"';
          index++;
        } else break;
      }
    }
    const char = text[index];
    if (char === ',') {
      fields.push(field);
      field = '';
      index++;
    } else if (char === '\r' && text[index + 1] === '\n') {
      fields.push(field);
      records.push(fields);
      fields = [];
      field = '';
      index += 2;
    } else if (char === undefined) break;
    else {
      if (char === '"' || char === '\n' || char === '\r') throw new Error(`bare ${JSON.stringify(char)} at ${index}`);
      field += char;
      index++;
    }
  }
  if (field !== '' || fields.length > 0) throw new Error('the last record has no CRLF');
  return records;
}

describe('csvField', () => {
  it('writes plain values as they are and null as an empty field', () => {
    expect(csvField('rcp_01')).toBe('rcp_01');
    expect(csvField(42)).toBe('42');
    expect(csvField(null)).toBe('');
    expect(csvField('')).toBe('');
  });

  it('quotes a field holding a comma, a quote, CR or LF, doubling quotes (RFC 4180)', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('one\ntwo')).toBe('"one\ntwo"');
    expect(csvField('one\r\ntwo')).toBe('"one\r\ntwo"');
  });

  it('neutralises a cell a spreadsheet would run as a formula with a leading apostrophe', () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tcmd')).toBe("'\tcmd");
    expect(csvField('\rcmd')).toBe('"\'\rcmd"');
    // Only the first character counts.
    expect(csvField('a=b')).toBe('a=b');
    expect(csvField('did:key:z6Mk-x')).toBe('did:key:z6Mk-x');
  });

  it('refuses what is not a field', () => {
    expect(() => csvField(Number.NaN)).toThrow(RangeError);
    expect(() => csvField({} as unknown as string)).toThrow(TypeError);
  });
});

describe('csvRecord', () => {
  it('joins fields with commas and ends with CRLF', () => {
    expect(csvRecord(['a', null, 3, 'x,y'])).toBe('a,,3,"x,y"\r\n');
  });
});

describe('receiptExportRecord', () => {
  it('names every column and writes instants as ISO 8601 UTC', () => {
    const record = receiptExportRecord(row(7, { issued_at: null, receipt_id: null }));
    expect(Object.keys(record)).toEqual([...RECEIPT_EXPORT_COLUMNS]);
    expect(record).toMatchObject({
      ledger_id: 7,
      receipt_id: null,
      issued_at: null,
      imported_at: '2026-11-02T08:30:00.005Z',
    });
  });
});

describe('receiptExportPage', () => {
  const rows = [row(1), row(2, { receipt_id: '=1+1', issuer_key_id: null }), row(3, { format: 'a,"b"' })];

  it('writes CSV pages that concatenate to one RFC 4180 document with one header', () => {
    const text =
      receiptExportPage('csv', rows.slice(0, 2), { first: true, rowsBefore: 0, last: false }) +
      receiptExportPage('csv', rows.slice(2), { first: false, rowsBefore: 2, last: true });
    const records = parseCsv(text);
    expect(records[0]).toEqual([...RECEIPT_EXPORT_COLUMNS]);
    expect(records).toHaveLength(4);
    expect(records[1]).toEqual([
      '1',
      'rcp_1',
      'ab'.repeat(32),
      'profile/standard',
      'PASS',
      'trusted',
      'none',
      'did:key:z6MkExample',
      '2026-11-01T12:00:00.000Z',
      '2026-11-02T08:30:00.005Z',
    ]);
    expect(records[2]?.[1]).toBe("'=1+1");
    expect(records[2]?.[7]).toBe('');
    expect(records[3]?.[3]).toBe('a,"b"');
  });

  it('writes JSON pages that concatenate to one array of the same records, values unchanged', () => {
    const pages = [
      receiptExportPage('json', rows.slice(0, 1), { first: true, rowsBefore: 0, last: false }),
      receiptExportPage('json', [], { first: false, rowsBefore: 1, last: false }),
      receiptExportPage('json', rows.slice(1), { first: false, rowsBefore: 1, last: true }),
    ];
    const parsed = JSON.parse(pages.join('')) as unknown[];
    expect(parsed).toEqual(rows.map(receiptExportRecord));
    expect((parsed[1] as { receipt_id: string }).receipt_id).toBe('=1+1');
  });

  it('writes an empty export as a header alone or an empty array', () => {
    expect(receiptExportPage('csv', [], { first: true, rowsBefore: 0, last: true })).toBe(
      `${RECEIPT_EXPORT_COLUMNS.join(',')}\r\n`,
    );
    expect(JSON.parse(receiptExportPage('json', [], { first: true, rowsBefore: 0, last: true }))).toEqual([]);
    // An empty first page that is not the last still joins the rows that follow.
    const text =
      receiptExportPage('json', [], { first: true, rowsBefore: 0, last: false }) +
      receiptExportPage('json', rows.slice(0, 1), { first: false, rowsBefore: 0, last: true });
    expect(JSON.parse(text)).toHaveLength(1);
  });

  it('refuses an unknown form or a bad place', () => {
    expect(() => receiptExportPage('xml' as 'csv', rows, { first: true, rowsBefore: 0, last: true })).toThrow(
      RangeError,
    );
    expect(() => receiptExportPage('csv', rows, { first: true, rowsBefore: -1, last: true })).toThrow(RangeError);
  });
});
