/**
 * The receipts table: a virtualized ARIA grid that stays smooth over a million ledger rows.
 *
 * Only the rows in view (plus a few either side) exist in the DOM; a spacer as tall as every
 * loaded row keeps the scroll bar honest. Rows have one fixed height, so a row's position is
 * its index times that height and nothing has to be measured. The grid is one tab stop: the
 * selected row is its active descendant, moved with the arrow, page and Home/End keys, and
 * Enter opens it. Each row is also a real link (stretched over the row) so middle-click and
 * "open in new tab" work.
 */
import {
  memo,
  useCallback,
  useEffect,
  useLayoutEffect,
  useId,
  useRef,
  useState,
  type KeyboardEvent,
  type MouseEvent,
} from 'react';
import type { ReceiptRow, ReceiptSortColumn } from '../../src-shared/api/contract';
import { describeFormat } from './format-names';
import { StatusBadge, TrustBadge } from './status';
import { formatInstant } from './ui';
import { hrefFor } from '../router';
import { MiddleTruncated, copyText } from './receipts-shared';
import { AnchorLedgerBadge } from './anchor-ledger';

/** One row's height in pixels; the CSS uses the same number (receipts.css, --receipts-row). */
export const ROW_HEIGHT = 40;
/** The header row's height in pixels (receipts.css, --receipts-header). */
export const HEADER_HEIGHT = 38;
/** Rows rendered beyond each edge of the view, so fast scrolling does not show blanks. */
const OVERSCAN = 8;
/** Ask for the next page when the view comes this close to the last loaded row. */
const LOAD_AHEAD = 60;

interface Column {
  label: string;
  sort: ReceiptSortColumn;
  className: string;
}

/** The columns, in order; every one sorts. */
/** A format cell's tooltip: its id and, when known, what people call it. */
function formatTitle(format: string): string {
  const label = describeFormat(format)?.label;
  return label ? `${format}: ${label}` : format;
}

const COLUMNS: readonly Column[] = [
  { label: 'Status', sort: 'status', className: 'col-status' },
  { label: 'Trust', sort: 'trust', className: 'col-trust' },
  { label: 'Anchor', sort: 'anchor', className: 'col-anchor' },
  { label: 'Format', sort: 'format', className: 'col-format' },
  { label: 'Receipt id', sort: 'receipt_id', className: 'col-id' },
  { label: 'Issuer key id', sort: 'issuer', className: 'col-issuer' },
  { label: 'Issued at', sort: 'issued_at', className: 'col-issued' },
  { label: 'Imported at', sort: 'imported_at', className: 'col-imported' },
];

/** The DOM id of a row, for aria-activedescendant. */
function rowDomId(row: ReceiptRow): string {
  return `receipt-row-${row.id}`;
}

/** One row; memoized so scrolling renders only the rows that come into view. */
const ReceiptGridRow = memo(function ReceiptGridRow({
  row,
  index,
  selected,
  onSelect,
  onOpen,
}: {
  row: ReceiptRow;
  index: number;
  selected: boolean;
  onSelect: (index: number) => void;
  onOpen: (row: ReceiptRow) => void;
}) {
  const href = hrefFor(['receipts', row.id]);
  return (
    <div
      role="row"
      id={rowDomId(row)}
      className="receipts-row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-receipt-id={row.id}
      style={{ transform: `translateY(${index * ROW_HEIGHT}px)` }}
      onClick={() => onSelect(index)}
      onDoubleClick={() => onOpen(row)}
    >
      <div role="gridcell" className="receipts-cell col-status receipts-raised">
        <StatusBadge status={row.status} />
      </div>
      <div role="gridcell" className="receipts-cell col-trust receipts-raised">
        <TrustBadge trust={row.trust} />
      </div>
      <div role="gridcell" className="receipts-cell col-anchor receipts-raised">
        <AnchorLedgerBadge state={row.anchor_state} />
      </div>
      <div role="gridcell" className="receipts-cell col-format receipts-raised">
        <span className="receipts-format" title={formatTitle(row.format)}>
          {row.format}
        </span>
      </div>
      <div role="gridcell" className="receipts-cell col-id">
        <a
          href={href}
          tabIndex={-1}
          className="receipts-row-link"
          title={`Open receipt ${row.receipt_id ?? row.id}`}
          onClick={(event: MouseEvent<HTMLAnchorElement>) => {
            // A plain click selects (the row's handler); modified clicks open as links do.
            if (event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey && !event.altKey)
              event.preventDefault();
          }}
        >
          {row.receipt_id !== null ? (
            <MiddleTruncated text={row.receipt_id} tail={6} />
          ) : (
            <span className="muted" title={`No id in the document; SHA-256 ${row.receipt_sha256}`}>
              sha256:{row.receipt_sha256.slice(0, 12)}…
            </span>
          )}
        </a>
      </div>
      <div role="gridcell" className="receipts-cell col-issuer receipts-raised">
        {row.issuer_key_id !== null ? <MiddleTruncated text={row.issuer_key_id} /> : <span className="muted">—</span>}
      </div>
      <div
        role="gridcell"
        className="receipts-cell col-issued receipts-time"
        title={
          row.issued_at !== null && describeFormat(row.format)?.issuedAtUnsigned
            ? 'As the document states it: this format does not sign its issue time'
            : undefined
        }
      >
        {formatInstant(row.issued_at)}
        {row.issued_at !== null && describeFormat(row.format)?.issuedAtUnsigned && (
          <span className="muted" data-testid="issued-unsigned">
            <span aria-hidden="true">*</span>
            <span className="visually-hidden">, not signed</span>
          </span>
        )}
      </div>
      <div role="gridcell" className="receipts-cell col-imported receipts-time">
        {formatInstant(row.imported_at)}
      </div>
    </div>
  );
});

/**
 * The grid.
 *
 * @param rows - Every row loaded so far, in order.
 * @param total - How many rows match in all (undefined while counting).
 * @param hasMore - Whether the ledger has rows after the last loaded one.
 * @param selected - The selected row's index, or -1.
 * @param onNearEnd - Called when the view nears the last loaded row and more exist.
 */
export function ReceiptsGrid({
  rows,
  total,
  hasMore,
  sort,
  direction,
  selected,
  onSort,
  onSelect,
  onOpen,
  onNearEnd,
  label,
}: {
  rows: readonly ReceiptRow[];
  total: number | undefined;
  hasMore: boolean;
  sort: ReceiptSortColumn;
  direction: 'asc' | 'desc';
  selected: number;
  onSort: (column: ReceiptSortColumn) => void;
  onSelect: (index: number) => void;
  onOpen: (row: ReceiptRow) => void;
  onNearEnd: () => void;
  label: string;
}) {
  const container = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const pointerFocus = useRef(false);
  const [copyStatus, setCopyStatus] = useState('');
  const keysHintId = useId();
  // A copy's word belongs to the row it was said of.
  useEffect(() => setCopyStatus(''), [selected]);

  useLayoutEffect(() => {
    const element = container.current;
    if (!element) return;
    setViewport(element.clientHeight);
    const observer = new ResizeObserver(() => setViewport(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const bodyHeight = Math.max(0, viewport - HEADER_HEIGHT);
  const pageRows = Math.max(1, Math.floor(bodyHeight / ROW_HEIGHT) - 1);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length - 1, Math.ceil((scrollTop + bodyHeight) / ROW_HEIGHT) + OVERSCAN);

  useEffect(() => {
    if (hasMore && Math.max(last, selected) + LOAD_AHEAD >= rows.length) onNearEnd();
  }, [hasMore, last, selected, rows.length, onNearEnd]);

  // Keep the selected row in view: it is where the keyboard is.
  useLayoutEffect(() => {
    const element = container.current;
    if (!element || selected < 0) return;
    const top = selected * ROW_HEIGHT;
    const visibleBody = element.clientHeight - HEADER_HEIGHT;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + ROW_HEIGHT > element.scrollTop + visibleBody) element.scrollTop = top + ROW_HEIGHT - visibleBody;
  }, [selected]);

  const move = useCallback(
    (index: number) => {
      if (rows.length === 0) return;
      onSelect(Math.min(rows.length - 1, Math.max(0, index)));
    },
    [rows.length, onSelect],
  );

  const selectByPointer = useCallback(
    (index: number) => {
      onSelect(index);
      container.current?.focus({ preventScroll: true });
    },
    [onSelect],
  );

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    if (event.target !== event.currentTarget) return;
    // C, or Ctrl/Cmd+C with no text selected, copies the selected row's whole id: the grid is
    // one tab stop, so its cells hold no copy buttons of their own.
    const copyKey =
      event.key.toLowerCase() === 'c' &&
      !event.altKey &&
      !event.shiftKey &&
      (event.ctrlKey || event.metaKey ? (window.getSelection()?.toString() ?? '') === '' : true);
    if (copyKey) {
      const row = rows[selected];
      if (row) {
        event.preventDefault();
        copyRowId(row);
      }
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const current = selected < 0 ? -1 : selected;
    switch (event.key) {
      case 'ArrowDown':
        move(current + 1);
        break;
      case 'ArrowUp':
        move(current < 0 ? 0 : current - 1);
        break;
      case 'PageDown':
        move(current + pageRows);
        break;
      case 'PageUp':
        move(current - pageRows);
        break;
      case 'Home':
        move(0);
        break;
      case 'End':
        move(rows.length - 1);
        break;
      case 'Enter': {
        const row = rows[current];
        if (row) onOpen(row);
        break;
      }
      default:
        return;
    }
    event.preventDefault();
  }

  const rendered: number[] = [];
  for (let index = first; index <= last; index++) rendered.push(index);
  // The active descendant must exist in the DOM even when scrolled away from.
  if (selected >= 0 && selected < rows.length && (selected < first || selected > last)) rendered.push(selected);

  function copyRowId(row: ReceiptRow): void {
    const [value, what] =
      row.receipt_id !== null
        ? [row.receipt_id, 'receipt id']
        : [row.receipt_sha256, 'document SHA-256 (it has no id)'];
    void copyText(value).then((copied) =>
      setCopyStatus(copied ? `Copied the ${what} ${value}` : 'Could not copy: open the receipt and copy its id there'),
    );
  }

  const activeRow = selected >= 0 ? rows[selected] : undefined;
  return (
    <>
      <div
        ref={container}
        className="receipts-grid"
        role="grid"
        aria-label={label}
        aria-rowcount={total !== undefined ? total + 1 : -1}
        aria-colcount={COLUMNS.length}
        aria-activedescendant={activeRow ? rowDomId(activeRow) : undefined}
        aria-multiselectable={false}
        aria-readonly
        aria-describedby={keysHintId}
        aria-keyshortcuts="Enter C"
        tabIndex={0}
        data-testid="receipts-grid"
        onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
        onKeyDown={onKeyDown}
        onMouseDown={() => {
          pointerFocus.current = true;
        }}
        onFocus={(event) => {
          if (event.target !== event.currentTarget) return;
          // Arriving by keyboard selects the first row so the arrows have a starting point; a
          // click selects the row clicked instead.
          if (!pointerFocus.current && selected < 0 && rows.length > 0) onSelect(0);
          pointerFocus.current = false;
        }}
        onBlur={() => {
          pointerFocus.current = false;
        }}
      >
        <div role="rowgroup" className="receipts-head">
          <div role="row" className="receipts-header-row" aria-rowindex={1}>
            {COLUMNS.map((column) => {
              const active = column.sort === sort;
              return (
                <div
                  key={column.sort}
                  role="columnheader"
                  className={`receipts-cell receipts-header-cell ${column.className}`}
                  aria-sort={active ? (direction === 'asc' ? 'ascending' : 'descending') : 'none'}
                >
                  <button
                    type="button"
                    className={`receipts-sort${active ? ' receipts-sort-active' : ''}`}
                    onClick={() => onSort(column.sort)}
                    title={`Sort by ${column.label.toLowerCase()}${active ? (direction === 'asc' ? ' (now ascending; click for descending)' : ' (now descending; click for ascending)') : ''}`}
                    data-sort-column={column.sort}
                  >
                    {column.label}
                    <span aria-hidden="true" className="receipts-sort-arrow">
                      {active ? (direction === 'asc' ? '▲' : '▼') : '↕'}
                    </span>
                  </button>
                </div>
              );
            })}
          </div>
        </div>
        <div role="rowgroup" className="receipts-body" style={{ height: `${rows.length * ROW_HEIGHT}px` }}>
          {rendered.map((index) => {
            const row = rows[index];
            if (!row) return null;
            return (
              <ReceiptGridRow
                key={row.id}
                row={row}
                index={index}
                selected={index === selected}
                onSelect={selectByPointer}
                onOpen={onOpen}
              />
            );
          })}
        </div>
      </div>
      <p id={keysHintId} className="visually-hidden">
        Arrow keys move between receipts, Enter opens the selected one, C copies its whole id.
      </p>
      <p className="receipts-copy-status" role="status" data-testid="receipts-copy-status">
        {copyStatus}
      </p>
    </>
  );
}
