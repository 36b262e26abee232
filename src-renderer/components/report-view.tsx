/**
 * A verification report as people read it: status and trust side by side, then every check,
 * error and note, and a sealed document's inner report nested inside.
 *
 * Status (what the cryptography says) and trust (what you know about the signing key) stay two
 * separate verdicts: a PASS from an unknown issuer reads "cryptographically valid, issuer
 * unknown", never just "valid".
 */
import type {
  Check,
  CheckStatus,
  Report,
  ReportError,
  ReportStatus,
  TrustResult,
  TrustStatus,
} from '../../src-shared/verify/report';
import { describeFormat } from './format-names';
import { CheckBadge, StatusBadge, TrustBadge, statusMeaning, trustMeaning } from './status';
import './report-view.css';

/** How each status reads as the first half of a one-line verdict. */
const STATUS_READING: Record<ReportStatus, string> = {
  PASS: 'Cryptographically valid',
  INDETERMINATE: 'Could not be decided',
  INVALID: 'Not valid: a signature does not verify',
  MISMATCH: 'Not valid: the document disagrees with itself',
  AUTH_FAILED: 'Could not be decrypted',
  UNSUPPORTED: 'Not checked: it uses something Evidence Room does not execute',
  MALFORMED: 'Not a well-formed document',
};

/** How each trust status reads as the second half of the verdict. */
const TRUST_READING: Record<TrustStatus, string> = {
  trusted: 'signed by a key you pinned',
  unpinned: 'issuer unknown',
  revoked: 'signed by a key that was revoked',
  expired: 'signed outside the pinned key’s validity window',
  unattributed: 'not signed by the key it names',
  not_applicable: 'no signing key to judge',
};

/**
 * The one-line reading of a report, both verdicts kept apart by a comma.
 *
 * @param status - The cryptographic status.
 * @param trust - The trust status of the signing key.
 * @returns e.g. "Cryptographically valid, issuer unknown".
 */
export function reportReading(status: ReportStatus, trust: TrustStatus): string {
  return `${STATUS_READING[status]}, ${TRUST_READING[trust]}`;
}

/** The order check results are counted in: passed, failed, then what was not decided. */
const CHECK_ORDER: readonly CheckStatus[] = ['pass', 'fail', 'unsupported', 'unavailable', 'unchecked'];

/**
 * Counts a report's checks by result, so a PASS with checks left unchecked says how many and
 * which kind rather than "not passed".
 *
 * @param checks - The report's checks.
 * @returns e.g. "19 checks: 15 pass, 4 unchecked" (or "1 check: 1 pass").
 */
export function checkSummary(checks: readonly Check[]): string {
  if (checks.length === 0) return 'no checks';
  const counts = new Map<CheckStatus, number>();
  for (const check of checks) counts.set(check.status, (counts.get(check.status) ?? 0) + 1);
  const parts = CHECK_ORDER.filter((status) => counts.has(status)).map((status) => `${counts.get(status)} ${status}`);
  return `${checks.length} ${checks.length === 1 ? 'check' : 'checks'}: ${parts.join(', ')}`;
}

function ChecksTable({ checks }: { checks: Check[] }) {
  if (checks.length === 0) return <p className="muted report-none">No checks ran.</p>;
  return (
    <table className="table report-checks">
      <thead>
        <tr>
          <th scope="col">Check</th>
          <th scope="col">Result</th>
          <th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        {checks.map((check, index) => (
          <tr key={`${check.id}-${index}`} data-check={check.id}>
            <td>
              <code className="code">{check.id}</code>
            </td>
            <td>
              <CheckBadge status={check.status} />
            </td>
            <td className="report-detail">{check.detail ?? <span className="muted">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ErrorList({ errors }: { errors: ReportError[] }) {
  return (
    <ul className="report-errors">
      {errors.map((error, index) => (
        <li key={index} className="report-error">
          <div className="report-error-head">
            <code className="code report-error-code">{error.code}</code>
            <span className="muted">at</span>
            <code className="code report-error-path" title="JSON Pointer (RFC 6901) to the offending value">
              {error.path === '' ? '(whole document)' : error.path}
            </code>
          </div>
          <p className="report-error-message">{error.message}</p>
        </li>
      ))}
    </ul>
  );
}

function TrustFacts({ trust }: { trust: TrustResult }) {
  return (
    <>
      <p className="report-meaning">{trust.detail ?? trustMeaning(trust.status)}</p>
      {trust.key_id && (
        <p className="report-key">
          <span className="muted">Key </span>
          <code className="code">{trust.key_id}</code>
          {trust.label && <span className="report-key-label"> · {trust.label}</span>}
        </p>
      )}
      {trust.claimed_key_id && (
        <p className="report-key">
          <span className="muted">Named key (did not sign what is here) </span>
          <code className="code">{trust.claimed_key_id}</code>
        </p>
      )}
      {trust.key_fingerprint && (
        <p className="report-key">
          <span className="muted">
            {trust.status === 'unattributed' ? 'Named key’s fingerprint ' : 'Key fingerprint '}
          </span>
          <code
            className="code"
            data-testid="key-fingerprint"
            title="SHA-256 of the public key, first 128 bits: read it aloud to the sender"
          >
            {trust.key_fingerprint}
          </code>
        </p>
      )}
    </>
  );
}

/**
 * Shows a verification report.
 *
 * @param report - The report from the main process.
 * @param level - The heading level of its sections (2 at the top, 3 when nested).
 */
export function ReportView({
  report,
  level = 2,
  subject,
}: {
  report: Report;
  level?: 2 | 3 | 4;
  /** What the report is about (a file name), when several reports share a page: it names the sections. */
  subject?: string;
}) {
  const Heading = `h${Math.min(level + 1, 6)}` as 'h3' | 'h4' | 'h5';
  // Sections are named regions; two reports on one page keep their names apart by subject.
  const regionName = (title: string): string => (subject ? `${title} of ${subject}` : title);
  const formatLabel = describeFormat(report.format)?.label;
  return (
    <div className="report" data-report-status={report.status} data-report-trust={report.trust.status}>
      <div className="report-heading">
        <p className="report-reading" data-testid={level === 2 ? 'report-reading' : undefined}>
          {reportReading(report.status, report.trust.status)}
        </p>
        <p className="report-meta">
          <span className="muted">Format </span>
          <code className="code report-format">{report.format}</code>
          {formatLabel && <span className="report-format-label"> — {formatLabel}</span>}
          <span className="muted" data-testid={level === 2 ? 'report-check-summary' : undefined}>
            {' · '}
            {checkSummary(report.checks)}
          </span>
        </p>
      </div>
      <div className="report-verdicts">
        <div className="report-verdict">
          <p className="report-verdict-label">Status</p>
          <StatusBadge status={report.status} large />
          <p className="report-meaning">{statusMeaning(report.status)}</p>
        </div>
        <div className="report-verdict">
          <p className="report-verdict-label">Trust</p>
          <TrustBadge trust={report.trust.status} large />
          <TrustFacts trust={report.trust} />
        </div>
      </div>

      <section className="report-section" aria-label={regionName('Checks')}>
        <Heading className="report-section-title">Checks</Heading>
        <ChecksTable checks={report.checks} />
      </section>

      {report.errors.length > 0 && (
        <section className="report-section" aria-label={regionName('Errors')}>
          <Heading className="report-section-title">
            Errors <span className="report-count">{report.errors.length}</span>
          </Heading>
          <ErrorList errors={report.errors} />
        </section>
      )}

      {report.notes.length > 0 && (
        <section className="report-section" aria-label={regionName('Notes')}>
          <Heading className="report-section-title">Notes</Heading>
          <ul className="report-notes">
            {report.notes.map((note, index) => (
              <li key={index}>{note}</li>
            ))}
          </ul>
        </section>
      )}

      {report.inner && (
        <section className="report-section report-inner" aria-label={regionName('Decrypted document')}>
          <Heading className="report-section-title">Decrypted document</Heading>
          <p className="muted report-inner-intro">
            The sealed document decrypted to this one; its report decides the outer status and trust.
          </p>
          <ReportView
            report={report.inner}
            level={level === 2 ? 3 : 4}
            subject={subject ? `the decrypted ${subject}` : 'the decrypted document'}
          />
        </section>
      )}
    </div>
  );
}
