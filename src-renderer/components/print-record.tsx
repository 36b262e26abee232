/**
 * The printable one-page record of a receipt or a bundle: a "Print record" button for the
 * detail view's header, and beside it, while the page is printed, the record itself, alone on
 * paper (the print rules in print-record.css put it in place of the view).
 *
 * The record holds what an auditor files: status and trust, the signing key, the ids and
 * hashes, a summary of the checks or findings, when it was printed and by which version of
 * the app. The document itself, its signed bytes and every finding stay in the app.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
import type { BundleDetail, ReceiptDetail } from '../../src-shared/api/contract';
import type { Check } from '../../src-shared/verify/report';
import { api } from '../api';
import { followMedia, mediaMatches } from '../media';
import { checkSummary, reportReading } from './report-view';
import { CheckBadge, StatusBadge, TrustBadge, statusMeaning, trustMeaning } from './status';
import { SignatureBadge, findingWords, groupFindings, signatureStyle } from './bundles-shapes';
import { describeFormat } from './format-names';
import { formatCount, formatInstant } from './ui';
import './print-record.css';

/** How the log key is known, in the record's words. */
const SIGNER_WORDS = {
  pinned: 'log key pinned',
  advertised: 'log key not pinned',
  unknown: 'log key unknown',
} as const;

/** Findings listed one by one on the bundle record; the rest are counted. */
const FINDINGS_LISTED = 8;
/** Rows of checks on the receipt record (checks alike share a row); the rest are counted. */
const CHECK_ROWS = 12;
/** Check ids named in a row of checks alike; the rest are counted. */
const IDS_NAMED = 3;

/** Checks with the same result and the same detail, in the order they first appear. */
interface CheckRow {
  ids: string[];
  status: Check['status'];
  detail: string;
}

/** Puts checks with the same result and detail in one row, so a long chain fits the page. */
export function checkRows(checks: readonly Check[]): CheckRow[] {
  const rows = new Map<string, CheckRow>();
  for (const check of checks) {
    const detail = check.detail ?? '';
    const key = `${check.status}\u0000${detail}`;
    const row = rows.get(key);
    if (row) row.ids.push(check.id);
    else rows.set(key, { ids: [check.id], status: check.status, detail });
  }
  return [...rows.values()];
}

let versionAsked: Promise<string> | undefined;

/** The app's version, asked once per window. */
function appVersion(): Promise<string> {
  versionAsked ??= api.info().then(
    (info) => `v${info.version}`,
    () => 'version unknown',
  );
  return versionAsked;
}

const PRINT = 'print';

/**
 * Whether the page is being printed, with the moment printing started and the app's version.
 * The record is only in the page while printing (the browser's `beforeprint`, or print media
 * taking effect), so on screen nothing of it is in the document to be found twice.
 */
function usePrinting(): { printing: boolean; printedAt: number; version: string; start: () => void } {
  const [printing, setPrinting] = useState(() => mediaMatches(PRINT));
  const [printedAt, setPrintedAt] = useState(() => Date.now());
  const [version, setVersion] = useState('');
  // Rendered at once (flushSync): the browser lays the page out for paper right after these events.
  const start = (): void =>
    flushSync(() => {
      setPrintedAt(Date.now());
      setPrinting(true);
    });
  useEffect(() => {
    let live = true;
    void appVersion().then((value) => {
      if (live) setVersion(value);
    });
    const stop = (): void => flushSync(() => setPrinting(mediaMatches(PRINT)));
    window.addEventListener('beforeprint', start);
    window.addEventListener('afterprint', stop);
    const unfollow = followMedia(PRINT, (matches) => (matches ? start() : stop()));
    // Print media may have taken effect between this render and now (a resize remounts the
    // record's button, and print emulation can come before the listener is on): catch up.
    if (mediaMatches(PRINT)) start();
    return () => {
      live = false;
      window.removeEventListener('beforeprint', start);
      window.removeEventListener('afterprint', stop);
      unfollow();
    };
  }, []);
  return { printing, printedAt, version, start };
}

/**
 * The "Print record" button and the record it prints.
 *
 * @param props - Either the receipt or the bundle the detail view shows.
 */
export function PrintRecordButton(props: { receipt: ReceiptDetail } | { bundle: BundleDetail }) {
  const stamp = usePrinting();
  const what = 'receipt' in props ? 'receipt' : 'bundle';
  return (
    <>
      <button
        type="button"
        className="button button-secondary print-record-button"
        data-testid="print-record"
        title={`Print a one-page record of this ${what} (status, trust, key, ids, hashes, ${
          what === 'receipt' ? 'checks' : 'findings'
        })`}
        onClick={() => {
          stamp.start();
          window.print();
        }}
      >
        Print record
      </button>
      {stamp.printing &&
        ('receipt' in props ? (
          <ReceiptRecord receipt={props.receipt} stamp={<Stamp {...stamp} />} />
        ) : (
          <BundleRecord bundle={props.bundle} stamp={<Stamp {...stamp} />} />
        ))}
    </>
  );
}

function Stamp({ printedAt, version }: { printedAt: number; version: string }) {
  return (
    <p className="print-record-stamp" data-testid="print-stamp">
      Printed {formatInstant(printedAt)} (UTC) by Evidence Room {version || '…'}
    </p>
  );
}

function Row({ label, children }: { label: ReactNode; children: ReactNode }) {
  return (
    <div className="print-record-row">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Hash({ children }: { children: ReactNode }) {
  return <span className="print-record-code">{children}</span>;
}

function ReceiptRecord({ receipt, stamp }: { receipt: ReceiptDetail; stamp: ReactNode }) {
  const { report } = receipt;
  const format = describeFormat(receipt.format);
  const keyId = report.trust.key_id ?? receipt.issuer_key_id;
  const rows = checkRows(report.checks);
  const listed = rows.slice(0, CHECK_ROWS);
  const unlisted = rows.slice(CHECK_ROWS).reduce((sum, row) => sum + row.ids.length, 0);
  return (
    <article className="print-record" aria-labelledby="print-record-title" data-testid="receipt-record">
      <p className="print-record-kind">Evidence Room · receipt record</p>
      <h1 id="print-record-title" className="print-record-title">
        {receipt.receipt_id ?? `Receipt ${receipt.id}`}
      </h1>
      <p className="print-record-verdict">
        <StatusBadge status={report.status} /> <TrustBadge trust={report.trust.status} />{' '}
        <strong>{reportReading(report.status, report.trust.status)}</strong>
      </p>
      <dl className="print-record-fields">
        <Row label="Status">
          {report.status}: {statusMeaning(report.status)}
        </Row>
        <Row label="Trust">
          {report.trust.status}: {report.trust.detail ?? trustMeaning(report.trust.status)}
          {report.trust.label && <> (pinned as “{report.trust.label}”)</>}
        </Row>
        <Row label={report.trust.status === 'unattributed' ? 'Key it names (did not sign)' : 'Signing key'}>
          {report.trust.status === 'unattributed' && report.trust.claimed_key_id ? (
            <Hash>{report.trust.claimed_key_id}</Hash>
          ) : keyId ? (
            <Hash>{keyId}</Hash>
          ) : (
            'none named'
          )}
        </Row>
        <Row label="Receipt id">{receipt.receipt_id ? <Hash>{receipt.receipt_id}</Hash> : 'none in the document'}</Row>
        <Row label="Format">
          <Hash>{receipt.format}</Hash>
          {format && ` · ${format.label}`}
        </Row>
        <Row label="Issued at">
          {receipt.issued_at === null ? 'the document does not say' : formatInstant(receipt.issued_at)}
          {receipt.issued_at !== null && format?.issuedAtUnsigned && ' (as the document states it; not signed)'}
        </Row>
        <Row label="Document SHA-256">
          <Hash>{receipt.receipt_sha256}</Hash>
        </Row>
        <Row label="Ledger entry">
          {receipt.id}, imported {formatInstant(receipt.imported_at)}
        </Row>
        <Row label="Sources">
          {receipt.sources.length === 0
            ? 'none recorded'
            : receipt.sources
                .map((source) =>
                  source.kind === 'bundle' && source.bundle_id !== undefined
                    ? `bundle ${source.bundle_id}${source.ref === String(source.bundle_id) ? '' : ` (${source.ref})`}`
                    : `${source.kind} ${source.ref}`,
                )
                .join('; ')}
        </Row>
        <Row label="Anchor">
          {receipt.anchor.anchors.length === 0
            ? 'no anchor record'
            : `${receipt.anchor.state} (${receipt.anchor.anchors.length} ${
                receipt.anchor.anchors.length === 1 ? 'record' : 'records'
              })`}
        </Row>
      </dl>
      <h2 className="print-record-heading">Checks: {checkSummary(report.checks)}</h2>
      {listed.length > 0 && (
        <table className="print-record-table">
          <thead>
            <tr>
              <th scope="col">Check</th>
              <th scope="col">Result</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {listed.map((row) => (
              <tr key={`${row.status}-${row.ids[0] ?? ''}`}>
                <td className="print-record-check-ids">
                  <Hash>{row.ids.slice(0, IDS_NAMED).join(', ')}</Hash>
                  {row.ids.length > IDS_NAMED && ` and ${row.ids.length - IDS_NAMED} more`}
                </td>
                <td>
                  <CheckBadge status={row.status} />
                  {row.ids.length > 1 && ` ×${row.ids.length}`}
                </td>
                <td>{row.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {unlisted > 0 && <p className="print-record-more">… and {unlisted} more checks, listed in the app.</p>}
      {report.errors.length > 0 && (
        <p className="print-record-more">
          {report.errors.length} {report.errors.length === 1 ? 'error' : 'errors'}:{' '}
          {report.errors
            .slice(0, 3)
            .map((error) => `${error.code}${error.path ? ` at ${error.path}` : ''}`)
            .join('; ')}
          {report.errors.length > 3 ? '; …' : ''}
        </p>
      )}
      <footer className="print-record-footer">
        {stamp}
        <p>
          The document, its signed bytes and its decoded fields are in the ledger as entry {receipt.id}; verify the
          document again with <span className="print-record-code">evroom verify</span> to reproduce this record.
        </p>
      </footer>
    </article>
  );
}

/** The bundle's findings in one line, e.g. "3 findings: 1 mismatching file, 1 missing file, …". */
function findingsLine(bundle: BundleDetail): string {
  if (bundle.findings.length === 0) {
    return bundle.status === 'complete'
      ? 'No findings: every file matches the signed manifest and every receipt verified PASS.'
      : 'No findings recorded, but the import stopped part-way: the findings are not final.';
  }
  const groups = groupFindings(bundle.findings).map((group) => `${group.title}: ${formatCount(group.findings.length)}`);
  const noun = bundle.findings.length === 1 ? 'finding' : 'findings';
  return `${formatCount(bundle.findings.length)} ${noun} (${groups.join('; ')}).`;
}

function BundleRecord({ bundle, stamp }: { bundle: BundleDetail; stamp: ReactNode }) {
  const { signature, counts, manifest } = bundle;
  const listed = bundle.findings.slice(0, FINDINGS_LISTED);
  return (
    <article className="print-record" aria-labelledby="print-record-title" data-testid="bundle-record">
      <p className="print-record-kind">Evidence Room · bundle record</p>
      <h1 id="print-record-title" className="print-record-title">
        {bundle.file_name ?? `Bundle ${bundle.id}`}
      </h1>
      <p className="print-record-verdict">
        {signature ? <SignatureBadge status={signature.status} /> : 'no signature result'}{' '}
        {signature?.keyId !== undefined && <TrustBadge trust={signature.trust} />}{' '}
        <strong>{findingsLine(bundle)}</strong>
      </p>
      <dl className="print-record-fields">
        <Row label="Manifest signature">
          {signature
            ? `${signatureStyle(signature.status).label}: ${signature.detail ?? signatureStyle(signature.status).meaning}`
            : 'not checked (the import stopped first)'}
        </Row>
        <Row label="Signing key">{signature?.keyId ? <Hash>{signature.keyId}</Hash> : 'none named'}</Row>
        <Row label="Signer trust">
          {signature?.keyId
            ? `${signature.trust}: ${signature.trustDetail ?? trustMeaning(signature.trust)}${
                signature.trustLabel ? ` (pinned as “${signature.trustLabel}”)` : ''
              }`
            : 'not applicable: no key was used'}
        </Row>
        <Row label="Bundle SHA-256">
          <Hash>{bundle.bundle_sha256}</Hash>
        </Row>
        <Row label="Manifest SHA-256">{signature?.manifestSha256 ? <Hash>{signature.manifestSha256}</Hash> : '—'}</Row>
        <Row label="Tenant">{manifest?.tenantId ?? bundle.tenant_id ?? '—'}</Row>
        <Row label="Generated">{manifest?.generatedAt ?? formatInstant(bundle.generated_at)}</Row>
        <Row label="Ledger">
          bundle {bundle.id}, imported {formatInstant(bundle.imported_at)}, import {bundle.status}
        </Row>
        <Row label="Counts">
          {[
            `${countText(counts.receipts)} receipts (${countText(counts.receiptsNew)} new, ${countText(
              counts.receiptsKnown,
            )} already known)`,
            `${countText(counts.files)} files`,
            `${countText(counts.anchors)} anchor records`,
            `${countText(counts.advertisedKeys)} keys advertised`,
          ].join(' · ')}
        </Row>
        <Row label="Receipts by status">
          {counts.byStatus.length === 0
            ? 'none recorded'
            : counts.byStatus.map(([status, count]) => `${status} ${formatCount(count)}`).join(' · ')}
        </Row>
        <Row label="Receipts by trust">
          {counts.byTrust.length === 0
            ? 'none recorded'
            : counts.byTrust.map(([trust, count]) => `${trust} ${formatCount(count)}`).join(' · ')}
        </Row>
        <Row label="Log completeness">
          <span data-testid="print-log-completeness">
            {bundle.log === null ? (
              'no log evidence: the bundle cannot show that no receipt was left out'
            ) : (
              <>
                {bundle.log.consistency === 'split_view' && 'SPLIT VIEW: '}
                {bundle.log.sentence}
                {bundle.log.origin !== undefined && (
                  <>
                    {' '}
                    (log <Hash>{bundle.log.origin}</Hash>, {SIGNER_WORDS[bundle.log.signer]}
                    {bundle.log.consistency === undefined ? '' : `, ${bundle.log.consistency.replace('_', ' ')}`})
                  </>
                )}
              </>
            )}
          </span>
        </Row>
      </dl>
      <h2 className="print-record-heading">
        Findings: {bundle.findings.length === 0 ? 'none' : formatCount(bundle.findings.length)}
      </h2>
      {listed.length > 0 && (
        <table className="print-record-table">
          <thead>
            <tr>
              <th scope="col">Finding</th>
              <th scope="col">Path</th>
            </tr>
          </thead>
          <tbody>
            {listed.map((finding, index) => (
              <tr key={`${finding.code}-${finding.path}-${index}`}>
                <td>{findingWords(finding.code)}</td>
                <td>
                  <Hash>{finding.path}</Hash>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {bundle.findings.length > listed.length && (
        <p className="print-record-more">
          … and {formatCount(bundle.findings.length - listed.length)} more findings, listed in the app.
        </p>
      )}
      <footer className="print-record-footer">
        {stamp}
        <p>
          Every file, finding and receipt of this bundle is in the ledger as bundle {bundle.id}; import the same zip
          (same SHA-256) again to reproduce this record.
        </p>
      </footer>
    </article>
  );
}

function countText(value: number | undefined): string {
  return value === undefined ? '—' : formatCount(value);
}
