/**
 * The receipts list's filter bar: format, status, trust, issuer, issue-time range and words.
 *
 * The URL is the single source of truth: every control shows what the URL says and writes its
 * change back to it. Typed fields (words, issuer) commit after a pause so each keystroke does
 * not start a query over a million rows.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { STATUS_OPTIONS, TRUST_OPTIONS } from './receipts-shared';
import { ANCHOR_LEDGER_OPTIONS } from './anchor-ledger';

/** How long typing must pause before a typed filter applies. */
const TYPING_DELAY_MS = 300;

/**
 * A text input that shows the committed value and commits what is typed after a pause (or at
 * once on Enter). A value arriving from outside (Clear filters, history) replaces the draft,
 * unless it is the value this input just committed and the user has typed on since.
 */
function DelayedInput({
  label,
  value,
  onCommit,
  placeholder,
  type = 'text',
  testId,
  className = '',
}: {
  label: string;
  value: string;
  onCommit: (value: string) => void;
  placeholder?: string;
  type?: 'text' | 'search';
  testId?: string;
  className?: string;
}) {
  const [draft, setDraft] = useState(value);
  const committed = useRef(value);
  const timer = useRef<number | undefined>(undefined);
  const commitRef = useRef(onCommit);
  commitRef.current = onCommit;

  useEffect(() => {
    if (value !== committed.current) {
      committed.current = value;
      setDraft(value);
    }
  }, [value]);

  useEffect(() => () => window.clearTimeout(timer.current), []);

  function commit(next: string): void {
    window.clearTimeout(timer.current);
    if (next.trim() === committed.current.trim()) return;
    committed.current = next.trim();
    commitRef.current(next.trim());
  }

  return (
    <label className={`receipts-filter ${className}`}>
      {label}
      <input
        type={type}
        value={draft}
        placeholder={placeholder}
        data-testid={testId}
        spellCheck={false}
        autoComplete="off"
        onChange={(event) => {
          const next = event.target.value;
          setDraft(next);
          window.clearTimeout(timer.current);
          timer.current = window.setTimeout(() => commit(next), TYPING_DELAY_MS);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit(draft);
        }}
        onBlur={() => commit(draft)}
      />
    </label>
  );
}

/** `2026-03-14T09:26:00Z` (TS) to the `2026-03-14T09:26` a datetime-local input shows. */
function toInputValue(timestamp: string | undefined): string {
  if (!timestamp) return '';
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})/.exec(timestamp);
  return match?.[1] ?? '';
}

/**
 * A datetime-local value (read as UTC, as every time in the app is shown) to a TS. `to` takes
 * the end of the chosen minute so the range includes it.
 */
function toTimestamp(value: string, edge: 'from' | 'to'): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(?::(\d{2}))?/.exec(value);
  if (!match?.[1]) return undefined;
  if (match[2] !== undefined) return `${match[1]}:${match[2]}${edge === 'to' ? '.999' : ''}Z`;
  return edge === 'from' ? `${match[1]}:00Z` : `${match[1]}:59.999Z`;
}

/** The filters as written in the URL query (all text; absent when not set). */
export interface FilterValues {
  format?: string;
  status?: string;
  trust?: string;
  issuer?: string;
  from?: string;
  to?: string;
  text?: string;
  bundle?: string;
  anchor?: string;
}

/**
 * The filter bar.
 *
 * @param values - The filters as the URL has them.
 * @param formats - The formats present in the ledger, for the format select.
 * @param onChange - Called with the names to change (`undefined` removes a filter).
 * @param onClear - Clears every filter.
 */
export function ReceiptsFilters({
  values,
  formats,
  onChange,
  onClear,
}: {
  values: FilterValues;
  formats: readonly string[];
  onChange: (changes: Partial<Record<keyof FilterValues, string | undefined>>) => void;
  onClear: () => void;
}) {
  const id = useId();
  const formatOptions = values.format && !formats.includes(values.format) ? [...formats, values.format] : formats;
  const anyFilter = Object.values(values).some((value) => value !== undefined && value !== '');
  return (
    <form
      className="receipts-filters"
      role="search"
      aria-label="Filter receipts"
      onSubmit={(event) => event.preventDefault()}
    >
      <DelayedInput
        label="Search"
        type="search"
        className="receipts-filter-text"
        value={values.text ?? ''}
        placeholder="Receipt id, key id or SHA-256"
        testId="filter-text"
        onCommit={(text) => onChange({ text })}
      />
      <label className="receipts-filter">
        Status
        <select
          value={values.status ?? ''}
          data-testid="filter-status"
          onChange={(event) => onChange({ status: event.target.value })}
        >
          <option value="">Any status</option>
          {STATUS_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      <label className="receipts-filter">
        Trust
        <select
          value={values.trust ?? ''}
          data-testid="filter-trust"
          onChange={(event) => onChange({ trust: event.target.value })}
        >
          <option value="">Any trust</option>
          {TRUST_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      <label className="receipts-filter">
        Anchor
        <select
          value={values.anchor ?? ''}
          data-testid="filter-anchor"
          onChange={(event) => onChange({ anchor: event.target.value })}
        >
          <option value="">Any anchor state</option>
          {ANCHOR_LEDGER_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      <label className="receipts-filter">
        Format
        <select
          value={values.format ?? ''}
          data-testid="filter-format"
          onChange={(event) => onChange({ format: event.target.value })}
        >
          <option value="">Any format</option>
          {formatOptions.map((format) => (
            <option key={format} value={format}>
              {format}
            </option>
          ))}
        </select>
      </label>
      <DelayedInput
        label="Issuer key id"
        className="receipts-filter-issuer"
        value={values.issuer ?? ''}
        placeholder="did:… (exact)"
        testId="filter-issuer"
        onCommit={(issuer) => onChange({ issuer })}
      />
      <fieldset className="receipts-filter-range">
        <legend>Issued (UTC)</legend>
        <div className="receipts-range-inputs">
          <label htmlFor={`${id}-from`} className="visually-hidden">
            Issued from (UTC)
          </label>
          <input
            id={`${id}-from`}
            type="datetime-local"
            value={toInputValue(values.from)}
            data-testid="filter-from"
            onChange={(event) => onChange({ from: toTimestamp(event.target.value, 'from') })}
          />
          <span aria-hidden="true" className="muted">
            to
          </span>
          <label htmlFor={`${id}-to`} className="visually-hidden">
            Issued to (UTC)
          </label>
          <input
            id={`${id}-to`}
            type="datetime-local"
            value={toInputValue(values.to)}
            data-testid="filter-to"
            onChange={(event) => onChange({ to: toTimestamp(event.target.value, 'to') })}
          />
        </div>
      </fieldset>
      <div className="receipts-filter-actions">
        <button
          type="button"
          className="button button-ghost"
          onClick={onClear}
          disabled={!anyFilter}
          data-testid="clear-filters"
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
