/**
 * The filtered receipts list as CSV or JSON, a page at a time (the encoding is
 * src-shared/api/receipts-export.ts).
 *
 * The app asks for one page per call and joins the pages itself (`receipts.export`); the CLI
 * writes every page as it comes (`evroom ledger list --csv`). Either way at most one page of
 * rows is in memory here, whatever the size of the ledger. Pages follow the ledger's keyset
 * cursor, so rows are neither repeated nor skipped between pages.
 */
import { receiptExportPage, type ReceiptExportForm } from '../../src-shared/api/receipts-export';
import { listReceipts, MAX_PAGE_SIZE, type ListReceiptsQuery } from '../ledger';
import { toReceiptRow } from './ledger-views';
import type { Workspace } from './workspace';

/** One page of an export. */
export interface ReceiptExportChunk {
  /** The page's text; the chunks of one export, joined in order, are one document. */
  text: string;
  /** Rows in this page. */
  rows: number;
  /** The cursor of the next page, or null when this page closed the export. */
  nextCursor: string | null;
}

/**
 * One page of an export of the receipts the query selects.
 *
 * The first page (no `after`) carries the CSV header or opens the JSON array; the last closes
 * it. A keyset page is full unless it is the last, so a page after the first always follows
 * rows already written.
 *
 * @param workspace - The open workspace (only its ledger is read).
 * @param form - `csv` or `json`.
 * @param query - Filters, order, the previous page's cursor and the page size (at most MAX_PAGE_SIZE).
 * @returns the page
 * @throws LedgerError (`bad_cursor`) for a cursor of another listing.
 */
export function receiptExportChunk(
  workspace: Pick<Workspace, 'ledger'>,
  form: ReceiptExportForm,
  query: ListReceiptsQuery,
): ReceiptExportChunk {
  const page = listReceipts(workspace.ledger.readable, { ...query, limit: query.limit ?? MAX_PAGE_SIZE });
  const first = query.after === undefined;
  const text = receiptExportPage(form, page.rows.map(toReceiptRow), {
    first,
    rowsBefore: first ? 0 : 1,
    last: page.nextCursor === null,
  });
  return { text, rows: page.rows.length, nextCursor: page.nextCursor };
}

/**
 * Every page of an export, in order, one at a time.
 *
 * @param workspace - The open workspace (only its ledger is read).
 * @param form - `csv` or `json`.
 * @param query - Filters and order (`after` and `limit` are set here).
 * @returns the chunks; write each before asking for the next
 */
export function* receiptExportChunks(
  workspace: Pick<Workspace, 'ledger'>,
  form: ReceiptExportForm,
  query: Omit<ListReceiptsQuery, 'after' | 'limit'>,
): Generator<ReceiptExportChunk> {
  let after: string | undefined;
  for (;;) {
    const chunk = receiptExportChunk(workspace, form, {
      ...query,
      limit: MAX_PAGE_SIZE,
      ...(after === undefined ? {} : { after }),
    });
    yield chunk;
    if (chunk.nextCursor === null) return;
    after = chunk.nextCursor;
  }
}
