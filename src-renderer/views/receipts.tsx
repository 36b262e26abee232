/**
 * The receipts list (`#/receipts?status=PASS&sort=issued_at&dir=desc`): every receipt in the
 * ledger, filtered and sorted, in a virtualized grid that pages through the ledger by keyset.
 *
 * The URL query holds every filter and the order, so the list can be reloaded, bookmarked and
 * returned to exactly as it was. Rows arrive a page at a time as the view nears the end of what
 * is loaded; the total is counted separately (a count over a million rows takes longer than a
 * page) and may arrive after the rows.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ReceiptFilters, ReceiptRow, ReceiptSortColumn } from '../../src-shared/api/contract';
import { api, errorMessage } from '../api';
import { hrefFor, navigate } from '../router';
import { EmptyState, ErrorNotice, Loading, Page, formatCount } from '../components/ui';
import { ReceiptsFilters, type FilterValues } from '../components/receipts-filters';
import { ReceiptsGrid } from '../components/receipts-grid';
import { ReceiptsExport } from '../components/receipts-export';
import { AnchorCheckControl } from '../components/anchor-check-job';
import {
  FILTER_PARAMETERS,
  lastOpened,
  readListQuery,
  rememberListQuery,
  rememberOpened,
  withQuery,
} from '../components/receipts-shared';
import './receipts.css';

/** Rows per request: a few screens' worth, well under the API's cap of 500. */
const PAGE_SIZE = 200;
/**
 * The most rows the list holds at once. Every loaded row adds ROW_HEIGHT pixels to the scroll
 * spacer, and Chromium lays out at most about 33 million pixels (2^25) in one element; 500,000
 * rows of 40 px stay well inside that, and in a few hundred megabytes of memory.
 */
const MAX_LOADED = 500_000;
/** Counting waits this long after the filters settle, so quick changes count once. */
const COUNT_DELAY_MS = 250;

/** Columns whose natural first reading is newest first. */
const DESCENDING_FIRST: readonly ReceiptSortColumn[] = ['issued_at', 'imported_at'];

function countText(total: number): string {
  return `${formatCount(total)} ${total === 1 ? 'receipt' : 'receipts'}`;
}

/** Why a time range cannot match anything, or undefined when it can. */
function rangeProblem(filters: ReceiptFilters): string | undefined {
  if (filters.from === undefined || filters.to === undefined) return undefined;
  const from = Date.parse(filters.from);
  const to = Date.parse(filters.to);
  if (Number.isNaN(from) || Number.isNaN(to)) return undefined;
  return from > to
    ? 'The “issued from” time is after the “issued to” time, so no receipt can match. Change one of them.'
    : undefined;
}

/**
 * The receipts list view.
 *
 * @param query - The route's query: filters, `sort` and `dir`.
 */
export function ReceiptsView({ query }: { query: URLSearchParams }) {
  const queryText = query.toString();
  const listQuery = useMemo(() => readListQuery(new URLSearchParams(queryText)), [queryText]);
  const { filters, sort, direction, filtered } = listQuery;
  const filterKey = JSON.stringify(filters);
  const listKey = JSON.stringify([filters, sort, direction]);
  const problem = rangeProblem(filters);

  const [rows, setRows] = useState<ReceiptRow[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [total, setTotal] = useState<number | undefined>(undefined);
  const [countError, setCountError] = useState<string | undefined>(undefined);
  const [selected, setSelected] = useState(-1);
  const [formats, setFormats] = useState<string[]>([]);
  // Bumped when a "check these on chain" job ends, to reload what it changed.
  const [reloads, setReloads] = useState(0);
  const generation = useRef(0);
  const fetchingMore = useRef(false);
  const restored = useRef(false);

  useEffect(() => {
    rememberListQuery(new URLSearchParams(queryText));
  }, [queryText]);

  useEffect(() => {
    api.overview().then(
      (overview) => setFormats(overview.byFormat.map((entry) => entry.value).sort()),
      () => setFormats([]),
    );
  }, []);

  // The first page, again whenever the filters or the order change.
  useEffect(() => {
    const current = ++generation.current;
    fetchingMore.current = false;
    setRows([]);
    setCursor(null);
    setSelected(-1);
    setError(undefined);
    setLoadingMore(false);
    if (problem) {
      setLoading(false);
      return;
    }
    setLoading(true);
    api['receipts.list']({ filters, sort, direction, limit: PAGE_SIZE }).then(
      (page) => {
        if (current !== generation.current) return;
        setRows(page.rows);
        setCursor(page.nextCursor);
        setLoading(false);
        if (!restored.current) {
          restored.current = true;
          const opened = lastOpened();
          const index = opened === undefined ? -1 : page.rows.findIndex((row) => row.id === opened);
          if (index >= 0) setSelected(index);
        }
      },
      (reason: unknown) => {
        if (current !== generation.current) return;
        setError(errorMessage(reason));
        setLoading(false);
      },
    );
  }, [listKey, problem, reloads]);

  // The total, after a pause; it may arrive after the rows.
  useEffect(() => {
    setTotal(undefined);
    setCountError(undefined);
    if (problem) {
      setTotal(0);
      return;
    }
    let cancelled = false;
    const timer = window.setTimeout(() => {
      api['receipts.count']({ filters }).then(
        (result) => {
          if (!cancelled) setTotal(result.count);
        },
        (reason: unknown) => {
          if (!cancelled) setCountError(errorMessage(reason));
        },
      );
    }, COUNT_DELAY_MS);
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
    };
  }, [filterKey, problem, reloads]);

  const capped = cursor !== null && rows.length >= MAX_LOADED;

  const loadMore = useCallback(() => {
    if (!cursor || fetchingMore.current || capped) return;
    const current = generation.current;
    fetchingMore.current = true;
    setLoadingMore(true);
    api['receipts.list']({ filters, sort, direction, after: cursor, limit: PAGE_SIZE }).then(
      (page) => {
        if (current !== generation.current) return;
        fetchingMore.current = false;
        setRows((previous) => [...previous, ...page.rows]);
        setCursor(page.nextCursor);
        setLoadingMore(false);
      },
      (reason: unknown) => {
        if (current !== generation.current) return;
        fetchingMore.current = false;
        setLoadingMore(false);
        // Stop asking: a failing page would otherwise be asked for again on every scroll.
        setCursor(null);
        setError(`Could not load more receipts: ${errorMessage(reason)}`);
      },
    );
  }, [cursor, listKey, capped]);

  const changeFilters = useCallback(
    (changes: Partial<Record<keyof FilterValues, string | undefined>>) => {
      navigate(['receipts'], withQuery(new URLSearchParams(queryText), changes), true);
    },
    [queryText],
  );

  const clearFilters = useCallback(() => {
    const cleared: Record<string, undefined> = {};
    for (const name of FILTER_PARAMETERS) cleared[name] = undefined;
    navigate(['receipts'], withQuery(new URLSearchParams(queryText), cleared), true);
  }, [queryText]);

  const changeSort = useCallback(
    (column: ReceiptSortColumn) => {
      const nextDirection =
        column === sort ? (direction === 'asc' ? 'desc' : 'asc') : DESCENDING_FIRST.includes(column) ? 'desc' : 'asc';
      navigate(['receipts'], withQuery(new URLSearchParams(queryText), { sort: column, dir: nextDirection }), true);
    },
    [queryText, sort, direction],
  );

  const open = useCallback((row: ReceiptRow) => {
    rememberOpened(row.id);
    navigate(['receipts', row.id]);
  }, []);

  const values: FilterValues = {};
  const current = new URLSearchParams(queryText);
  for (const name of FILTER_PARAMETERS) {
    const value = current.get(name);
    if (value) values[name] = value;
  }

  const shownTotal = problem !== undefined ? 0 : total;
  const subtitle =
    shownTotal !== undefined ? (
      <>
        <span data-testid="receipts-total">{countText(shownTotal)}</span>
        {filtered ? <span className="muted"> {shownTotal === 1 ? 'matches' : 'match'} these filters</span> : null}
      </>
    ) : countError ? (
      <span title={countError}>Could not count the receipts</span>
    ) : (
      'Counting…'
    );

  const empty = !loading && !error && !problem && rows.length === 0;

  return (
    <div className="receipts-layout">
      <Page
        title="Receipts"
        actions={
          <ReceiptsExport
            query={current}
            filters={filters}
            sort={sort}
            direction={direction}
            total={shownTotal}
            disabled={problem}
          />
        }
        subtitle={
          <span data-testid="receipts-count" aria-live="polite">
            {subtitle}
          </span>
        }
      >
        <div className="panel receipts-filter-panel">
          <ReceiptsFilters values={values} formats={formats} onChange={changeFilters} onClear={clearFilters} />
          {filters.bundle !== undefined && (
            <p className="receipts-bundle-filter">
              <span>
                Only receipts from <a href={hrefFor(['bundles', filters.bundle])}>bundle {filters.bundle}</a>.
              </span>
              <button
                type="button"
                className="button button-secondary receipts-small-button"
                onClick={() => changeFilters({ bundle: undefined })}
              >
                Show receipts from every source
              </button>
            </p>
          )}
          {!problem && (
            <AnchorCheckControl
              key={filterKey}
              input={{ filters }}
              label={filtered ? 'Check these on chain' : 'Check every receipt on chain'}
              what={filtered ? 'the receipts these filters select' : 'every receipt'}
              onFinished={() => setReloads((count) => count + 1)}
            />
          )}
        </div>
        <div className="panel receipts-table-panel">
          {problem && (
            <ErrorNotice
              title="These filters cannot match"
              message={problem}
              hint={
                <button type="button" className="button button-secondary" onClick={clearFilters}>
                  Clear filters
                </button>
              }
            />
          )}
          {error && (
            <ErrorNotice
              title="Could not list the receipts"
              message={error}
              hint={
                <>
                  Check the filters, or{' '}
                  <button type="button" className="button button-secondary" onClick={clearFilters}>
                    Clear filters
                  </button>
                </>
              }
            />
          )}
          {loading && <Loading label="Loading receipts…" />}
          {empty && !filtered && (
            <EmptyState
              title="No receipts yet"
              action={
                <div className="receipts-empty-actions">
                  <a className="button button-primary" href={hrefFor(['bundles'])}>
                    Import a bundle
                  </a>
                  <a className="button button-secondary" href={hrefFor(['verify'])}>
                    Verify a document
                  </a>
                </div>
              }
            >
              Import a bundle or verify a document to fill the ledger.
            </EmptyState>
          )}
          {empty && filtered && (
            <EmptyState
              title="No receipt matches these filters"
              action={
                <button type="button" className="button button-secondary" onClick={clearFilters}>
                  Clear filters
                </button>
              }
            >
              Loosen or clear a filter to see more of the ledger.
            </EmptyState>
          )}
          {rows.length > 0 && (
            <>
              <ReceiptsGrid
                key={listKey}
                label="Receipts"
                rows={rows}
                total={problem ? 0 : total}
                hasMore={cursor !== null && !capped}
                sort={sort}
                direction={direction}
                selected={selected}
                onSort={changeSort}
                onSelect={setSelected}
                onOpen={open}
                onNearEnd={loadMore}
              />
              <p className="receipts-footer">
                <span data-testid="receipts-loaded">
                  {formatCount(rows.length)} loaded
                  {total !== undefined ? ` of ${formatCount(total)}` : ''}
                  {loadingMore ? ' · loading more…' : ''}
                  {capped
                    ? ` · the list stops at ${formatCount(MAX_LOADED)} rows: narrow the filters or reverse the order to reach the others`
                    : ''}
                </span>
                <span className="receipts-keys" aria-hidden="true">
                  <kbd>↑</kbd> <kbd>↓</kbd> move · <kbd>PgUp</kbd> <kbd>PgDn</kbd> page · <kbd>Home</kbd> <kbd>End</kbd>{' '}
                  · <kbd>Enter</kbd> opens · <kbd>C</kbd> copies the id · middle-click opens in a new tab
                </span>
              </p>
            </>
          )}
        </div>
      </Page>
    </div>
  );
}
