/**
 * Pieces the receipts list and the receipt detail share: the list's URL query, the memory of the
 * last list query (so "back to receipts" keeps the filters), a middle-truncated identifier and
 * a copy button.
 */
import { useEffect, useRef, useState } from 'react';
import { RECEIPT_SORT_COLUMNS, type ReceiptFilters, type ReceiptSortColumn } from '../../src-shared/api/contract';
import type { ReportStatus, TrustStatus } from '../../src-shared/verify/report';
import { hrefFor } from '../router';
import './copyable-value.css';

/** The sessionStorage key of the receipts list's last query string. */
const LAST_QUERY_KEY = 'evroom.receipts.query';
/** The sessionStorage key of the receipt last opened from the list, to select it on return. */
const LAST_OPENED_KEY = 'evroom.receipts.opened';

/** The URL query names of the filters, in the order they are written. */
export const FILTER_PARAMETERS = [
  'format',
  'status',
  'trust',
  'issuer',
  'from',
  'to',
  'text',
  'bundle',
  'anchor',
] as const;

/** The list's default order when the URL names none: newest issued first. */
export const DEFAULT_SORT: ReceiptSortColumn = 'issued_at';
/** The default order's direction. */
export const DEFAULT_DIRECTION: 'asc' | 'desc' = 'desc';

/** Everything the list shows, read from the URL query. */
export interface ListQuery {
  filters: ReceiptFilters;
  sort: ReceiptSortColumn;
  direction: 'asc' | 'desc';
  /** Whether any filter is set (the empty state differs). */
  filtered: boolean;
}

/**
 * Reads the list's filters and order from a URL query.
 *
 * Unknown sort columns or directions fall back to the default order; filter values are passed
 * on as written, so a bad one reaches the API and is reported with its reason.
 *
 * @param query - The route's query.
 * @returns the filters for `receipts.list` / `receipts.count` and the order
 */
export function readListQuery(query: URLSearchParams): ListQuery {
  const filters: Record<string, string | number> = {};
  for (const name of FILTER_PARAMETERS) {
    const value = query.get(name)?.trim();
    if (!value) continue;
    filters[name] = name === 'bundle' && /^\d+$/.test(value) ? Number(value) : value;
  }
  const sortText = query.get('sort');
  const sort = (RECEIPT_SORT_COLUMNS as readonly string[]).includes(sortText ?? '')
    ? (sortText as ReceiptSortColumn)
    : DEFAULT_SORT;
  const directionText = query.get('dir');
  const direction =
    directionText === 'asc' || directionText === 'desc'
      ? directionText
      : sort === DEFAULT_SORT
        ? DEFAULT_DIRECTION
        : 'asc';
  return {
    filters: filters as ReceiptFilters,
    sort,
    direction,
    filtered: Object.keys(filters).length > 0,
  };
}

/**
 * A copy of a query with some parameters set (or removed when empty), keeping the others.
 *
 * @param query - The current query.
 * @param changes - Names to set; `undefined` or `''` removes the name.
 * @returns a new query
 */
export function withQuery(query: URLSearchParams, changes: Record<string, string | undefined>): URLSearchParams {
  const next = new URLSearchParams(query);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === '') next.delete(name);
    else next.set(name, value);
  }
  return next;
}

/**
 * Remembers the list's query so the detail's back link returns to the same filters and order.
 *
 * @param query - The list's current query.
 */
export function rememberListQuery(query: URLSearchParams): void {
  try {
    sessionStorage.setItem(LAST_QUERY_KEY, query.toString());
  } catch {
    // Storage may be unavailable (privacy settings); the back link then shows the whole list.
  }
}

/** The href of the receipts list as it was last shown. */
export function listHref(): string {
  let text = '';
  try {
    text = sessionStorage.getItem(LAST_QUERY_KEY) ?? '';
  } catch {
    text = '';
  }
  return hrefFor(['receipts'], new URLSearchParams(text));
}

/** Remembers which receipt was opened from the list, so the list can select it again. */
export function rememberOpened(id: number): void {
  try {
    sessionStorage.setItem(LAST_OPENED_KEY, String(id));
  } catch {
    // Only a convenience.
  }
}

/** The receipt last opened from the list, if any. */
export function lastOpened(): number | undefined {
  try {
    const text = sessionStorage.getItem(LAST_OPENED_KEY);
    return text && /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Shortens a long identifier in the middle, keeping its recognisable start and end.
 *
 * @param text - The identifier.
 * @param keep - How many characters to keep in all (at least 8).
 * @returns the text itself when short enough, else `start…end`
 */
export function truncateMiddle(text: string, keep = 28): string {
  if (keep < 8) throw new RangeError('keep must be at least 8');
  if (text.length <= keep) return text;
  const head = Math.ceil((keep - 1) * 0.6);
  const tail = keep - 1 - head;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

/**
 * An identifier truncated in the middle to fit its box: the start shrinks with an ellipsis and
 * the last characters always show, so ids that share a prefix stay distinguishable. The whole
 * text stays in the DOM (for copying and screen readers) and in the title.
 */
export function MiddleTruncated({
  text,
  tail = 8,
  className = '',
}: {
  text: string;
  tail?: number;
  className?: string;
}) {
  if (text.length <= tail + 4) return <span className={`code ${className}`}>{text}</span>;
  return (
    <span className={`code middle-truncated ${className}`} title={text}>
      <span className="middle-truncated-head">{text.slice(0, text.length - tail)}</span>
      <span className="middle-truncated-tail">{text.slice(text.length - tail)}</span>
    </span>
  );
}

/**
 * Copies text to the clipboard: the async Clipboard API where the page may use it, else a
 * hidden textarea and execCommand (older or restricted contexts).
 *
 * @returns whether the text reached the clipboard
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Fall through to the older way (permission denied, insecure context).
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  document.body.append(area);
  const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  area.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  previous?.focus();
  return copied;
}

/** A button that copies text and says whether it worked. */
export function CopyButton({ text, label = 'Copy', what }: { text: string; label?: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const onClick = (): void => {
    void copyText(text).then((copied) => {
      setState(copied ? 'copied' : 'failed');
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => setState('idle'), 2500);
    });
  };
  return (
    <span className="copy-control">
      <button
        type="button"
        className="button button-secondary copy-button"
        onClick={onClick}
        aria-label={`${label} ${what}`}
      >
        {label}
      </button>
      <span className="copy-status" role="status" aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Could not copy: select the text and press Ctrl+C' : ''}
      </span>
    </span>
  );
}

/** Status and trust filter values as the selects offer them, with words. */
export const STATUS_OPTIONS: readonly { value: ReportStatus; label: string }[] = [
  { value: 'PASS', label: 'PASS' },
  { value: 'INDETERMINATE', label: 'INDETERMINATE' },
  { value: 'INVALID', label: 'INVALID' },
  { value: 'MISMATCH', label: 'MISMATCH' },
  { value: 'AUTH_FAILED', label: 'AUTH_FAILED' },
  { value: 'UNSUPPORTED', label: 'UNSUPPORTED' },
  { value: 'MALFORMED', label: 'MALFORMED' },
];

/** Trust filter values as the select offers them. */
export const TRUST_OPTIONS: readonly { value: TrustStatus; label: string }[] = [
  { value: 'trusted', label: 'trusted' },
  { value: 'unpinned', label: 'unpinned' },
  { value: 'revoked', label: 'revoked' },
  { value: 'expired', label: 'expired' },
  { value: 'unattributed', label: 'unattributed' },
  { value: 'not_applicable', label: 'not applicable' },
];
