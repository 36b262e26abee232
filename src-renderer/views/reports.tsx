/**
 * Reports: make a signed audit report of the ledger, preview it, save it in each form, and
 * compare two reports.
 *
 * The preview is the report's own HTML page in a sandboxed iframe (`sandbox=""`: no scripts, an
 * opaque origin, no navigation) given as `srcdoc`. A srcdoc document inherits the app's
 * Content-Security-Policy, which allows exactly one inline style: the report page's stylesheet,
 * by its hash (see REPORT_STYLE_SHA256 and docs/reports.md). Nothing in the page can fetch.
 */
import { useState, type FormEvent } from 'react';
import {
  REPORT_STATUSES,
  TRUST_STATUSES,
  type ReceiptFilters,
  type ReportDiffView,
  type ReportFormName,
  type ReportSummary,
} from '../../src-shared/api/contract';
import { b64uDecode, utf8Decode } from '../../src-shared/crypto';
import { api, errorMessage, useApi } from '../api';
import { Button, EmptyState, ErrorNotice, Loading, Page, Panel, formatCount } from '../components/ui';
import './reports.css';

/** A date or date-time field's value as a TS, or undefined when empty. */
function toTimestamp(value: string): string | undefined {
  if (value === '') return undefined;
  const millis = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : `${value}Z`);
  return Number.isFinite(millis) ? new Date(millis).toISOString() : undefined;
}

/** A TS as a datetime-local field shows it (UTC, to the millisecond), or '' when not a TS. */
function toFieldValue(timestamp: string | null): string {
  if (!timestamp) return '';
  const millis = Date.parse(timestamp);
  return Number.isFinite(millis) ? new Date(millis).toISOString().slice(0, 23) : '';
}

/** The report form's first values, from the address (`Report from these filters` in Receipts). */
interface ScopeFromList {
  status: string;
  trust: string;
  format: string;
  issuer: string;
  text: string;
  from: string;
  to: string;
  /** Whether the address came from the receipts list. */
  fromList: boolean;
  /** Filters of the list the report's scope cannot carry, with their values. */
  notCarried: [string, string][];
}

function scopeFromQuery(query: URLSearchParams): ScopeFromList {
  const value = (name: string): string => query.get(name)?.trim() ?? '';
  const notCarried: [string, string][] = [];
  for (const [name, text] of query) if (name.startsWith('not_') && text) notCarried.push([name.slice(4), text]);
  return {
    status: (REPORT_STATUSES as readonly string[]).includes(value('status')) ? value('status') : '',
    trust: (TRUST_STATUSES as readonly string[]).includes(value('trust')) ? value('trust') : '',
    format: value('format'),
    issuer: value('issuer'),
    text: value('text'),
    from: toFieldValue(value('from')),
    to: toFieldValue(value('to')),
    fromList: query.get('from_list') === '1',
    notCarried,
  };
}

/** Why a filter of the receipts list is not part of a report's scope. */
function notCarriedReason(name: string): string {
  return name === 'bundle'
    ? 'a report’s scope cannot select receipts by the bundle they came from, so the report covers the matching receipts from every source'
    : 'a report’s scope has no such filter, so the report covers the matching receipts whatever its value';
}

/** Offers bytes as a download (web mode; the desktop shell shows its save dialog). */
function download(name: string, mime: string, data: string): void {
  // A copy into a fresh ArrayBuffer: Blob takes no view of a possibly shared buffer.
  const bytes = b64uDecode(data);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  const url = URL.createObjectURL(new Blob([copy.buffer], { type: mime }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function scopeText(report: ReportSummary): string {
  const filters = Object.entries(report.scope.filters).map(([name, value]) => `${name} ${value}`);
  const parts = filters.length === 0 ? ['all receipts'] : filters;
  if (report.scope.as_of) parts.push(`as of ${report.scope.as_of}`);
  return parts.join(', ');
}

function MakeReport({ onMade, initial }: { onMade: (id: string) => void; initial: ScopeFromList }) {
  const [status, setStatus] = useState(initial.status);
  const [trust, setTrust] = useState(initial.trust);
  const [format, setFormat] = useState(initial.format);
  const [issuer, setIssuer] = useState(initial.issuer);
  const [text, setText] = useState(initial.text);
  const [from, setFrom] = useState(initial.from);
  const [to, setTo] = useState(initial.to);
  const [asOf, setAsOf] = useState('');
  const [allowEmpty, setAllowEmpty] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const filters: ReceiptFilters = {};
    if (status) filters.status = status as ReceiptFilters['status'];
    if (trust) filters.trust = trust as ReceiptFilters['trust'];
    if (format.trim()) filters.format = format.trim();
    if (issuer.trim()) filters.issuer = issuer.trim();
    if (text.trim()) filters.text = text.trim();
    const fromTs = toTimestamp(from);
    const toTs = toTimestamp(to);
    if (fromTs) filters.from = fromTs;
    if (toTs) filters.to = toTs;
    const asOfTs = toTimestamp(asOf);
    setBusy(true);
    setError(undefined);
    api['reports.create']({
      filters,
      ...(asOfTs ? { as_of: asOfTs } : {}),
      ...(allowEmpty ? { allow_empty: true } : {}),
    }).then(
      (made) => {
        setBusy(false);
        onMade(made.report_id);
      },
      (reason: unknown) => {
        setBusy(false);
        setError(errorMessage(reason));
      },
    );
  };
  return (
    <Panel title="Make a report">
      {initial.fromList && (
        <div className="notice notice-info reports-from-list" data-testid="report-scope-from-list">
          <p className="notice-title">Scope filled in from the receipts list</p>
          <p>Check it, then make the report: it covers the receipts these fields select, as the list showed them.</p>
          {initial.notCarried.length > 0 && (
            <ul data-testid="report-scope-not-carried">
              {initial.notCarried.map(([name, value]) => (
                <li key={name}>
                  Not carried: {name} <span className="mono">{value}</span>: {notCarriedReason(name)}.
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <form className="reports-form" onSubmit={submit} aria-label="Report scope">
        <label>
          Status
          <select value={status} onChange={(event) => setStatus(event.target.value)}>
            <option value="">any</option>
            {REPORT_STATUSES.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <label>
          Trust
          <select value={trust} onChange={(event) => setTrust(event.target.value)}>
            <option value="">any</option>
            {TRUST_STATUSES.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <label>
          Format
          <input
            value={format}
            onChange={(event) => setFormat(event.target.value)}
            placeholder="e.g. classical"
            maxLength={128}
          />
        </label>
        <label>
          Issuer key id
          <input
            value={issuer}
            onChange={(event) => setIssuer(event.target.value)}
            placeholder="exact key id"
            maxLength={2048}
            spellCheck={false}
          />
        </label>
        <label>
          Words
          <input
            value={text}
            onChange={(event) => setText(event.target.value)}
            placeholder="id, key id or hash start"
            maxLength={512}
            spellCheck={false}
          />
        </label>
        <label>
          Issued from (UTC)
          <input type="datetime-local" step="0.001" value={from} onChange={(event) => setFrom(event.target.value)} />
        </label>
        <label>
          Issued before (UTC)
          <input type="datetime-local" step="0.001" value={to} onChange={(event) => setTo(event.target.value)} />
        </label>
        <label>
          Trust as of (UTC)
          <input type="datetime-local" step="1" value={asOf} onChange={(event) => setAsOf(event.target.value)} />
        </label>
        <label className="reports-check">
          <input type="checkbox" checked={allowEmpty} onChange={(event) => setAllowEmpty(event.target.checked)} />
          Allow an empty report (marked EMPTY)
        </label>
        <div className="reports-form-actions">
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? 'Making…' : 'Make report'}
          </Button>
        </div>
      </form>
      <p className="reports-hint">
        The report is signed by this workstation’s auditor key and kept in the data folder. Leave “as of” empty to judge
        trust now. A scope with no receipts is refused unless you allow an empty report.
      </p>
      {error ? <ErrorNotice title="The report was not made" message={error} /> : null}
    </Panel>
  );
}

function DiffResult({ diff }: { diff: ReportDiffView }) {
  return (
    <div className="reports-diff" data-testid="report-diff">
      {diff.scope_warning ? (
        <p className="reports-scope-warning" role="alert" data-testid="report-diff-warning">
          <span aria-hidden="true">⚠ </span>
          {diff.scope_warning}
        </p>
      ) : null}
      <p>
        <strong>{formatCount(diff.added.length)}</strong> added · <strong>{formatCount(diff.removed.length)}</strong>{' '}
        removed · <strong>{formatCount(diff.changed.length)}</strong> changed
      </p>
      {diff.changed.length > 0 ? (
        <table className="reports-table">
          <thead>
            <tr>
              <th>receipt</th>
              <th>field</th>
              <th>from</th>
              <th>to</th>
              <th>reason</th>
            </tr>
          </thead>
          <tbody>
            {diff.changed.slice(0, 200).map((change) => (
              <tr key={`${change.receipt_sha256}-${change.field}`}>
                <td className="mono">{change.receipt_sha256.slice(0, 16)}…</td>
                <td>{change.field}</td>
                <td>{change.from}</td>
                <td>{change.to}</td>
                <td>{change.reason ?? '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

/**
 * The reports view.
 *
 * @param query - The route's query: a scope to fill in (`Report from these filters` in Receipts).
 */
export function ReportsView({ query = new URLSearchParams() }: { query?: URLSearchParams }) {
  const queryText = query.toString();
  const [made, setMade] = useState<string | undefined>(undefined);
  const list = useApi('reports.list', undefined, made ?? '');
  const [preview, setPreview] = useState<{ id: string; html: string } | undefined>(undefined);
  const [older, setOlder] = useState<string | undefined>(undefined);
  const [newer, setNewer] = useState<string | undefined>(undefined);
  const [diff, setDiff] = useState<ReportDiffView | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const fail = (reason: unknown): void => setError(errorMessage(reason));
  const open = (id: string): void => {
    api['reports.get']({ report_id: id, form: 'html' }).then(
      (file) => setPreview({ id, html: utf8Decode(b64uDecode(file.data)) }),
      fail,
    );
  };
  const save = (id: string, form: ReportFormName): void => {
    api['reports.get']({ report_id: id, form }).then((file) => download(file.name, file.mime, file.data), fail);
  };
  // Why Compare cannot run yet, said beside the button (and as its description), or undefined.
  const compareBlocked =
    list.data !== undefined && list.data.length < 2
      ? 'Make a second report to compare two.'
      : !older && !newer
        ? 'Select two reports to compare: an old one and a new one in the columns old and new.'
        : !older
          ? 'Select the old report in the column old.'
          : !newer
            ? 'Select the new report in the column new.'
            : older === newer
              ? 'Select two different reports: old and new are the same.'
              : undefined;
  const compare = (): void => {
    if (!older || !newer) return;
    setDiff(undefined);
    api['reports.diff']({ old_report: older, new_report: newer }).then(setDiff, fail);
  };
  return (
    <Page title="Reports" subtitle="Signed audit reports anyone can check with evroom verify">
      <div className="reports-sections">
        <MakeReport
          key={queryText}
          initial={scopeFromQuery(query)}
          onMade={(id) => {
            setMade(id);
            open(id);
          }}
        />
        {error ? <ErrorNotice message={error} /> : null}
        <Panel title="Reports made">
          {list.loading && !list.data ? <Loading /> : null}
          {list.error ? <ErrorNotice message={list.error} /> : null}
          {list.data && list.data.length === 0 ? (
            <EmptyState title="No reports yet">Make one above; it is kept in the data folder’s reports/.</EmptyState>
          ) : null}
          {list.data && list.data.length > 0 ? (
            <>
              <table className="reports-table" aria-label="Reports made">
                <thead>
                  <tr>
                    <th>old</th>
                    <th>new</th>
                    <th>report</th>
                    <th>generated</th>
                    <th>receipts</th>
                    <th>PASS</th>
                    <th>scope</th>
                    <th>actions</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.map((report) => (
                    <tr key={report.report_id} data-report-id={report.report_id}>
                      <td>
                        <input
                          type="radio"
                          name="old"
                          aria-label={`Compare from ${report.report_id}`}
                          checked={older === report.report_id}
                          onChange={() => setOlder(report.report_id)}
                        />
                      </td>
                      <td>
                        <input
                          type="radio"
                          name="new"
                          aria-label={`Compare to ${report.report_id}`}
                          checked={newer === report.report_id}
                          onChange={() => setNewer(report.report_id)}
                        />
                      </td>
                      <td className="mono">{report.report_id}</td>
                      <td>{report.generated_at}</td>
                      <td>{formatCount(report.receipts)}</td>
                      <td>{formatCount(report.by_status.PASS ?? 0)}</td>
                      <td>{scopeText(report)}</td>
                      <td className="reports-actions">
                        <Button onClick={() => open(report.report_id)}>Preview</Button>
                        <Button onClick={() => save(report.report_id, 'json')}>JSON</Button>
                        <Button onClick={() => save(report.report_id, 'html')}>HTML</Button>
                        <Button onClick={() => save(report.report_id, 'pdf')}>PDF</Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div className="reports-compare">
                {/* The ui Button with a description: why it is disabled, read with it. */}
                <button
                  type="button"
                  className="button button-secondary"
                  onClick={compare}
                  disabled={compareBlocked !== undefined}
                  aria-describedby={compareBlocked !== undefined ? 'reports-compare-why' : undefined}
                >
                  Compare old → new
                </button>
                {compareBlocked !== undefined ? (
                  <span id="reports-compare-why" className="reports-compare-why">
                    {compareBlocked}
                  </span>
                ) : null}
              </div>
              {diff ? <DiffResult diff={diff} /> : null}
            </>
          ) : null}
        </Panel>
        {preview ? (
          <Panel title={`Preview of ${preview.id}`}>
            <iframe className="reports-preview" title="Report preview" sandbox="" srcDoc={preview.html} />
          </Panel>
        ) : null}
      </div>
    </Page>
  );
}
