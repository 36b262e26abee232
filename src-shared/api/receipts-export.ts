/**
 * The receipts list as a table to hand over: the columns of a CSV or JSON export and their
 * encoding, shared by the app (`receipts.export`) and the CLI (`evroom ledger list --csv`).
 *
 * An export is written a page at a time so a million rows never sit in memory at once: the
 * first page carries the CSV header or the JSON array's opening bracket, every page after it
 * continues the text, and the last one closes it. Concatenating the pages in order gives one
 * valid document.
 *
 * CSV follows RFC 4180 (CRLF line ends, a field quoted when it holds a comma, a quote, CR or LF,
 * quotes doubled inside). A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (and,
 * in some, a tab or CR) as a formula, so such a cell is written with a leading apostrophe
 * (OWASP's advice against CSV injection); JSON keeps every value exactly as stored.
 */
import { RECEIPT_EXPORT_FORMS, type ReceiptExportForm, type ReceiptRow } from './contract';

export { RECEIPT_EXPORT_FORMS, type ReceiptExportForm };

/** The columns of an export, in order: the CSV header and the JSON objects' members. */
export const RECEIPT_EXPORT_COLUMNS = [
  'ledger_id',
  'receipt_id',
  'receipt_sha256',
  'format',
  'status',
  'trust',
  'anchor_state',
  'issuer_key_id',
  'issued_at',
  'imported_at',
] as const;

/** One exported receipt: every column, `null` where the document does not say. */
export type ReceiptExportRecord = {
  ledger_id: number;
  receipt_id: string | null;
  receipt_sha256: string;
  format: string;
  status: string;
  trust: string;
  /** none (not anchored), pending, verified or failed (docs/anchoring.md). */
  anchor_state: string;
  issuer_key_id: string | null;
  /** ISO 8601 UTC, as the document states it (some formats do not sign it). */
  issued_at: string | null;
  /** ISO 8601 UTC: when this ledger first stored it. */
  imported_at: string;
};

/** The characters a spreadsheet may read as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;

function isoOrNull(millis: number | null): string | null {
  return millis === null ? null : new Date(millis).toISOString();
}

/**
 * A list row as an export record.
 *
 * @param row - A row of `receipts.list`.
 * @returns the record, instants as ISO 8601 UTC
 */
export function receiptExportRecord(row: ReceiptRow): ReceiptExportRecord {
  if (typeof row !== 'object' || row === null) throw new TypeError('row must be a receipt row');
  return {
    ledger_id: row.id,
    receipt_id: row.receipt_id,
    receipt_sha256: row.receipt_sha256,
    format: row.format,
    status: row.status,
    trust: row.trust,
    anchor_state: row.anchor_state,
    issuer_key_id: row.issuer_key_id,
    issued_at: isoOrNull(row.issued_at),
    imported_at: new Date(row.imported_at).toISOString(),
  };
}

/**
 * One CSV field: neutralised when a spreadsheet would read it as a formula, quoted per RFC 4180
 * when it must be.
 *
 * @param value - The value; `null` is an empty field.
 * @returns the field as written
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError('a CSV number must be finite');
    return String(value);
  }
  if (typeof value !== 'string') throw new TypeError('a CSV field is a string, a number or null');
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * One CSV record with its CRLF.
 *
 * @param values - The fields in column order.
 */
export function csvRecord(values: readonly (string | number | null)[]): string {
  if (!Array.isArray(values)) throw new TypeError('values must be an array');
  return `${values.map(csvField).join(',')}\r\n`;
}

/** Where a page sits in its export. */
export interface ReceiptExportPlace {
  /** Whether this is the first page (it carries the CSV header or the opening bracket). */
  first: boolean;
  /** How many rows the pages before this one held (a JSON page after rows starts with a comma). */
  rowsBefore: number;
  /** Whether this is the last page (it closes the JSON array). */
  last: boolean;
}

/**
 * One page of an export as text.
 *
 * @param form - `csv` or `json`.
 * @param rows - The page's rows, in order.
 * @param place - Where the page sits in the export.
 * @returns the page's text; the pages of one export, concatenated in order, are one document
 */
export function receiptExportPage(
  form: ReceiptExportForm,
  rows: readonly ReceiptRow[],
  place: ReceiptExportPlace,
): string {
  if (!RECEIPT_EXPORT_FORMS.includes(form))
    throw new RangeError(`form must be one of ${RECEIPT_EXPORT_FORMS.join(', ')}`);
  if (!Array.isArray(rows)) throw new TypeError('rows must be an array');
  if (!Number.isSafeInteger(place.rowsBefore) || place.rowsBefore < 0)
    throw new RangeError('rowsBefore must be a whole number, 0 or more');
  const records = rows.map(receiptExportRecord);
  if (form === 'csv') {
    const header = place.first ? csvRecord(RECEIPT_EXPORT_COLUMNS) : '';
    return header + records.map((record) => csvRecord(RECEIPT_EXPORT_COLUMNS.map((name) => record[name]))).join('');
  }
  // JSON: one object a line, so a reader can also take it line by line.
  const body = records.map((record) => JSON.stringify(record)).join(',\n');
  let text = place.first ? '[' : '';
  if (body !== '') text += `${place.rowsBefore > 0 ? ',' : ''}\n${body}`;
  if (place.last) text += place.rowsBefore + records.length === 0 ? ']\n' : '\n]\n';
  return text;
}
