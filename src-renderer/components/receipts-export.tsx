/**
 * The receipts list's hand-over actions: export the filtered list as CSV or JSON, and make a
 * report of the same receipts.
 *
 * An export is the whole filtered set, not the rows on screen. It is fetched from the ledger a
 * page at a time through the app API (`receipts.export`, the same call over IPC and in web mode,
 * so the session token and the Origin checks apply to every page), each page kept as a Blob
 * (Chromium holds blob data outside the page's heap and spills large ones to disk), and the
 * pages joined into one file offered as a download. No page holds more than a thousand rows, in
 * the main process or here.
 */
import { useEffect, useRef, useState } from 'react';
import type { ReceiptExportForm, ReceiptFilters, ReceiptSortColumn } from '../../src-shared/api/contract';
import { api, errorMessage } from '../api';
import { hrefFor } from '../router';
import { formatCount } from './ui';
import { FILTER_PARAMETERS } from './receipts-shared';
import './receipts-export.css';

/** Rows per `receipts.export` call: the ledger's page cap. */
const EXPORT_PAGE_ROWS = 1000;

/** The receipts filters a report's scope takes (src-main/operations/report.ts, scopeOf). */
export const REPORT_SCOPE_FILTERS = ['format', 'status', 'trust', 'issuer', 'from', 'to', 'text'] as const;

/** Why a filter of the list cannot be carried to a report, by URL name. */
const NOT_CARRIED_REASON: Record<string, string> = {
  bundle: 'a report’s scope cannot select receipts by the bundle they came from',
};

/**
 * Which of the list's filters a report carries and which it cannot.
 *
 * @param query - The receipts list's URL query.
 * @returns the carried filters (URL names and values) and the names of the others that are set
 */
export function reportScopeOf(query: URLSearchParams): {
  carried: [string, string][];
  notCarried: { name: string; value: string; reason: string }[];
} {
  const carried: [string, string][] = [];
  const notCarried: { name: string; value: string; reason: string }[] = [];
  for (const name of FILTER_PARAMETERS as readonly string[]) {
    const value = query.get(name)?.trim();
    if (!value) continue;
    if ((REPORT_SCOPE_FILTERS as readonly string[]).includes(name)) carried.push([name, value]);
    else notCarried.push({ name, value, reason: NOT_CARRIED_REASON[name] ?? 'a report’s scope has no such filter' });
  }
  return { carried, notCarried };
}

/** A file name for an export made now: `receipts-20261125T224700Z.csv`. */
function exportName(form: ReceiptExportForm): string {
  const stamp = new Date()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `receipts-${stamp}.${form}`;
}

/** Offers a Blob as a download (web mode; the desktop shell shows its save dialog). */
function offer(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // Long enough for a large file to be handed to the download manager.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

type ExportState =
  | { kind: 'idle' }
  | { kind: 'running'; form: ReceiptExportForm; rows: number }
  | { kind: 'done'; form: ReceiptExportForm; rows: number; name: string }
  | { kind: 'cancelled' }
  | { kind: 'failed'; message: string };

/**
 * The toolbar: Export CSV, Export JSON, Report from these filters.
 *
 * @param query - The list's URL query (for the report's scope).
 * @param filters - The list's filters, as `receipts.list` takes them.
 * @param sort - The list's order, kept in the export.
 * @param total - How many rows match (undefined while counting), for the progress.
 * @param disabled - Why nothing can be exported now (filters that cannot match), if so.
 */
export function ReceiptsExport({
  query,
  filters,
  sort,
  direction,
  total,
  disabled,
}: {
  query: URLSearchParams;
  filters: ReceiptFilters;
  sort: ReceiptSortColumn;
  direction: 'asc' | 'desc';
  total: number | undefined;
  disabled?: string;
}) {
  const [state, setState] = useState<ExportState>({ kind: 'idle' });
  const run = useRef(0);
  const filterKey = JSON.stringify([filters, sort, direction]);

  // Changing the filters ends a running export: its file would no longer match the list.
  useEffect(() => {
    run.current++;
    setState((current) => (current.kind === 'running' ? { kind: 'cancelled' } : { kind: 'idle' }));
  }, [filterKey]);
  useEffect(
    () => () => {
      run.current++;
    },
    [],
  );

  async function start(form: ReceiptExportForm): Promise<void> {
    const current = ++run.current;
    setState({ kind: 'running', form, rows: 0 });
    const parts: Blob[] = [];
    let rows = 0;
    let after: string | undefined;
    try {
      for (;;) {
        const chunk = await api['receipts.export']({
          form,
          filters,
          sort,
          direction,
          limit: EXPORT_PAGE_ROWS,
          ...(after === undefined ? {} : { after }),
        });
        if (current !== run.current) return;
        parts.push(new Blob([chunk.text]));
        rows += chunk.rows;
        setState({ kind: 'running', form, rows });
        if (chunk.nextCursor === null) break;
        after = chunk.nextCursor;
      }
      const name = exportName(form);
      offer(new Blob(parts, { type: form === 'csv' ? 'text/csv;charset=utf-8' : 'application/json' }), name);
      setState({ kind: 'done', form, rows, name });
    } catch (reason: unknown) {
      if (current === run.current) setState({ kind: 'failed', message: errorMessage(reason) });
    }
  }

  const running = state.kind === 'running';
  const { carried, notCarried } = reportScopeOf(query);
  const reportQuery = new URLSearchParams(carried);
  // The Reports view says what came from the list and what could not.
  reportQuery.set('from_list', '1');
  for (const { name, value } of notCarried) reportQuery.set(`not_${name}`, value);
  const reportTitle =
    notCarried.length === 0
      ? 'Open Reports with these filters as the report’s scope'
      : `Open Reports with these filters as the report’s scope; not carried: ${notCarried.map((item) => item.name).join(', ')} (${notCarried.map((item) => item.reason).join('; ')})`;

  return (
    <div className="receipts-export">
      <div className="receipts-export-actions" role="group" aria-label="Hand over this list">
        <button
          type="button"
          className="button button-secondary"
          disabled={running || disabled !== undefined}
          title={disabled ?? 'Every receipt these filters select, not only those on screen, as CSV'}
          onClick={() => void start('csv')}
          data-testid="export-csv"
        >
          Export CSV
        </button>
        <button
          type="button"
          className="button button-secondary"
          disabled={running || disabled !== undefined}
          title={disabled ?? 'Every receipt these filters select, not only those on screen, as JSON'}
          onClick={() => void start('json')}
          data-testid="export-json"
        >
          Export JSON
        </button>
        <a
          className="button button-secondary"
          href={hrefFor(['reports'], reportQuery)}
          title={reportTitle}
          data-testid="report-from-filters"
        >
          Report from these filters
        </a>
      </div>
      <p className="receipts-export-status" role="status" aria-live="polite" data-testid="export-status">
        {state.kind === 'running' && (
          <>
            Exporting {state.form.toUpperCase()}: {formatCount(state.rows)}
            {total !== undefined ? ` of ${formatCount(total)}` : ''} receipts…{' '}
            <button
              type="button"
              className="link-button"
              onClick={() => {
                run.current++;
                setState({ kind: 'cancelled' });
              }}
            >
              Cancel
            </button>
          </>
        )}
        {state.kind === 'done' && (
          <>
            <span aria-hidden="true">✓ </span>Exported {formatCount(state.rows)}{' '}
            {state.rows === 1 ? 'receipt' : 'receipts'} to {state.name}
          </>
        )}
        {state.kind === 'cancelled' && 'Export cancelled; nothing was saved.'}
        {state.kind === 'failed' && (
          <span className="receipts-export-failed">
            <span aria-hidden="true">✗ </span>The export failed, nothing was saved: {state.message}
          </span>
        )}
      </p>
    </div>
  );
}
