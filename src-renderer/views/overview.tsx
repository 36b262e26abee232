/**
 * Overview: what the ledger holds at a glance, what needs attention, and what came in last.
 *
 * Every count links to the receipts table filtered to it, so a number is always one click from
 * the receipts behind it. A fresh ledger gets a welcome with the next steps instead.
 */
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { ReportStatus, TrustStatus } from '../../src-shared/verify/report';
import {
  REPORT_STATUSES,
  TRUST_STATUSES,
  type BundleSummary,
  type FormatCount,
  type ImportProgress,
  type Overview,
  type ReceiptRow,
} from '../../src-shared/api/contract';
import { formatShare } from '../../src-shared/numbers/share';
import { api, errorMessage, useApi } from '../api';
import { hrefFor } from '../router';
import { Button, EmptyState, ErrorNotice, Loading, Page, Panel, formatCount, formatInstant } from '../components/ui';
import { StatusBadge, TrustBadge, statusMeaning, trustMeaning } from '../components/status';
import { CopyButton } from '../components/receipts-shared';
import { AnchorSummary } from '../components/anchor-summary';
import { SplitViewAlert } from '../components/log-completeness';
import './overview.css';

/** The tone of each status's bar, matching its badge (the badge's word and icon carry the meaning). */
const STATUS_TONE: Record<ReportStatus, string> = {
  PASS: 'good',
  INDETERMINATE: 'warn',
  UNSUPPORTED: 'other',
  INVALID: 'bad',
  MISMATCH: 'bad',
  AUTH_FAILED: 'bad',
  MALFORMED: 'bad',
};

const TRUST_TONE: Record<TrustStatus, string> = {
  trusted: 'good',
  unpinned: 'neutral',
  revoked: 'bad',
  expired: 'warn',
  unattributed: 'bad',
  not_applicable: 'neutral',
};

/** How often a running sample import is polled. */
const POLL_MS = 400;

/** The Overview page. */
export function OverviewView() {
  const { data, error, loading, reload } = useApi('overview', undefined);
  return (
    <Page
      title="Overview"
      subtitle={
        data && data.receipts > 0 ? 'Your ledger at a glance. Every count opens the receipts behind it.' : undefined
      }
      actions={
        data && (data.receipts > 0 || data.bundles > 0 || data.splitViews.length > 0) ? (
          <Button onClick={reload} disabled={loading}>
            Refresh
          </Button>
        ) : undefined
      }
    >
      {error && (
        <ErrorNotice
          title="The overview could not be loaded"
          message={error}
          hint={
            <button type="button" className="button button-secondary" onClick={reload}>
              Try again
            </button>
          }
        />
      )}
      {!data && !error && <Loading />}
      {data &&
        (data.receipts === 0 && data.bundles === 0 && data.splitViews.length === 0 ? (
          <Welcome onLoaded={reload} pinnedKeys={data.pinnedKeys} />
        ) : (
          <Dashboard overview={data} />
        ))}
    </Page>
  );
}

/** The empty ledger: one sentence on what Evidence Room does, and the next steps. */
function Welcome({ onLoaded, pinnedKeys }: { onLoaded: () => void; pinnedKeys: number }) {
  const [job, setJob] = useState<ImportProgress | undefined>(undefined);
  const [problem, setProblem] = useState<{ code: string; message: string } | undefined>(undefined);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const loadSamples = useCallback(async () => {
    setProblem(undefined);
    try {
      let progress = await api['samples.load']();
      setJob(progress);
      while (progress.state === 'running' && mounted.current) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        progress = await api['imports.progress']({ jobId: progress.jobId });
        if (mounted.current) setJob(progress);
      }
      if (!mounted.current) return;
      if (progress.state === 'done') onLoaded();
      else {
        setJob(undefined);
        setProblem(
          progress.error ?? {
            code: progress.state,
            message:
              progress.state === 'cancelled' ? 'The sample import was cancelled.' : 'The sample import did not finish.',
          },
        );
      }
    } catch (reason) {
      if (!mounted.current) return;
      setJob(undefined);
      setProblem({ code: (reason as { code?: string }).code ?? 'error', message: errorMessage(reason) });
    }
  }, [onLoaded]);

  const running = job?.state === 'running';
  return (
    <Panel className="overview-welcome">
      <EmptyState
        title="Welcome to Evidence Room"
        action={
          <div className="overview-next-steps">
            <a className="button button-primary" href={hrefFor(['bundles'])}>
              Import an evidence bundle
            </a>
            <a className="button button-secondary" href={hrefFor(['verify'])}>
              Verify a document
            </a>
            <Button onClick={() => void loadSamples()} disabled={running}>
              {running ? 'Loading sample data…' : 'Load sample data'}
            </Button>
          </div>
        }
      >
        Evidence Room verifies signed receipts and evidence bundles offline and keeps them, with their reports, in a
        ledger on this computer that you can search and audit.
      </EmptyState>
      <p className="overview-welcome-state muted">
        Your ledger is empty
        {pinnedKeys > 0
          ? `; ${formatCount(pinnedKeys)} ${pinnedKeys === 1 ? 'key is' : 'keys are'} pinned in the trust store`
          : ''}
        .
      </p>
      {running && job && (
        <p className="overview-welcome-state" role="status">
          {job.phase}
          {job.receiptsTotal > 0
            ? ` · ${formatCount(job.receiptsVerified)} of ${formatCount(job.receiptsTotal)} receipts verified`
            : ''}
        </p>
      )}
      {problem &&
        (problem.code === 'not_available' ? (
          <div className="notice notice-info overview-samples-notice" role="status">
            <p className="notice-title">Sample data is not available in this build</p>
            <p>
              You can still try Evidence Room with samples: run <code className="code">evroom samples --out DIR</code>{' '}
              to write sample documents of every format, then open one on the <a href={hrefFor(['verify'])}>Verify</a>{' '}
              page.
            </p>
          </div>
        ) : (
          <ErrorNotice
            title="Sample data could not be loaded"
            message={problem.message}
            hint="Try again; if it keeps failing, import a bundle of your own instead."
          />
        ))}
    </Panel>
  );
}

/** One row of a breakdown: a badge or name that links to the filtered receipts, a bar and a count. */
function BreakdownRow({
  href,
  label,
  count,
  total,
  description,
  tone = 'neutral',
  children,
}: {
  href: string;
  label: string;
  count: number;
  total: number;
  description: string;
  tone?: string;
  children: ReactNode;
}) {
  const share = total > 0 ? (count / total) * 100 : 0;
  return (
    <li>
      <a
        className="overview-breakdown-link"
        href={href}
        aria-label={`${label}: ${formatCount(count)} ${count === 1 ? 'receipt' : 'receipts'}. Show them.`}
        title={description}
      >
        <span className="overview-breakdown-name">{children}</span>
        <span className={`overview-bar overview-bar-${tone}`} aria-hidden="true">
          <span style={{ width: `${Math.max(share, count > 0 ? 2 : 0)}%` }} />
        </span>
        <span className="overview-breakdown-count">{formatCount(count)}</span>
      </a>
    </li>
  );
}

function Stat({
  label,
  value,
  href,
  detail,
  testId,
}: {
  label: string;
  value: number;
  href: string;
  detail?: string;
  testId?: string;
}) {
  return (
    <a className="panel overview-stat" href={href} data-testid={testId}>
      <p className="stat">{formatCount(value)}</p>
      <p className="stat-label">{label}</p>
      {detail && <p className="overview-stat-detail">{detail}</p>}
    </a>
  );
}

/**
 * The pass rate in words: the share (never rounded onto 100 % or 0 %) and the exact counts, e.g.
 * "99.86 % · 20,013 of 20,041 passed; 28 did not pass".
 */
function passRate(passed: number, total: number): string | undefined {
  const share = formatShare(passed, total);
  if (share === undefined) return undefined;
  const failed = total - passed;
  return `${share} · ${formatCount(passed)} of ${formatCount(total)} passed${failed > 0 ? `; ${formatCount(failed)} did not pass` : ''}`;
}

function Dashboard({ overview }: { overview: Overview }) {
  const total = overview.receipts;
  const passed = overview.byStatus.PASS ?? 0;
  const statuses = REPORT_STATUSES.filter((status) => (overview.byStatus[status] ?? 0) > 0).sort(
    (a, b) => (b === 'PASS' ? 1 : 0) - (a === 'PASS' ? 1 : 0),
  );
  const trusts = TRUST_STATUSES.filter((trust) => (overview.byTrust[trust] ?? 0) > 0);
  const trusted = overview.byTrust.trusted ?? 0;
  return (
    <>
      <div className="grid grid-4">
        <Stat
          label={total === 1 ? 'receipt' : 'receipts'}
          value={total}
          href={hrefFor(['receipts'])}
          detail={`${formatCount(overview.byFormat.length)} ${overview.byFormat.length === 1 ? 'format' : 'formats'}`}
        />
        <Stat
          label="passed every check"
          value={passed}
          href={hrefFor(['receipts'], { status: 'PASS' })}
          detail={passRate(passed, total)}
          testId="pass-rate"
        />
        <Stat
          label={overview.bundles === 1 ? 'bundle imported' : 'bundles imported'}
          value={overview.bundles}
          href={hrefFor(['bundles'])}
          detail={
            overview.recentImports[0] ? `latest ${formatInstant(overview.recentImports[0].imported_at)}` : 'none yet'
          }
        />
        <Stat
          label={overview.pinnedKeys === 1 ? 'pinned key' : 'pinned keys'}
          value={overview.pinnedKeys}
          href={hrefFor(['trust'])}
          detail={`${formatCount(trusted)} ${trusted === 1 ? 'receipt' : 'receipts'} from trusted issuers`}
        />
      </div>

      <Panel title="Needs attention" className="overview-attention-panel">
        <Attention overview={overview} />
      </Panel>

      <div className="grid grid-3">
        <Panel title="By status">
          <ul className="overview-breakdown" aria-label="Receipts by status">
            {statuses.map((status) => (
              <BreakdownRow
                key={status}
                href={hrefFor(['receipts'], { status })}
                label={status}
                count={overview.byStatus[status] ?? 0}
                total={total}
                description={statusMeaning(status)}
                tone={STATUS_TONE[status]}
              >
                <StatusBadge status={status} />
              </BreakdownRow>
            ))}
          </ul>
        </Panel>
        <Panel title="By trust">
          <ul className="overview-breakdown" aria-label="Receipts by trust">
            {trusts.map((trust) => (
              <BreakdownRow
                key={trust}
                href={hrefFor(['receipts'], { trust })}
                label={`trust ${trust.replace('_', ' ')}`}
                count={overview.byTrust[trust] ?? 0}
                total={total}
                description={trustMeaning(trust)}
                tone={TRUST_TONE[trust]}
              >
                <TrustBadge trust={trust} />
              </BreakdownRow>
            ))}
          </ul>
        </Panel>
        <Panel title="By format">
          <FormatBreakdown formats={overview.byFormat} total={total} />
        </Panel>
      </div>
      <AnchorSummary />

      <Panel title="Recent imports">
        <RecentImports bundles={overview.recentImports} total={overview.bundles} />
      </Panel>
    </>
  );
}

/** Formats shown before "Show all": enough for the common case without a very tall panel. */
const FORMATS_SHOWN = 8;

function FormatBreakdown({ formats, total }: { formats: FormatCount[]; total: number }) {
  const [expanded, setExpanded] = useState(false);
  const shown = expanded ? formats : formats.slice(0, FORMATS_SHOWN);
  return (
    <>
      <ul className="overview-breakdown" aria-label="Receipts by format" id="overview-formats">
        {shown.map((format) => (
          <BreakdownRow
            key={format.value}
            href={hrefFor(['receipts'], { format: format.value })}
            label={`format ${format.value}`}
            count={format.count}
            total={total}
            description={`Receipts of format ${format.value}`}
          >
            <code className="code">{format.value}</code>
          </BreakdownRow>
        ))}
      </ul>
      {formats.length > FORMATS_SHOWN && (
        <button
          type="button"
          className="button button-ghost overview-more-button"
          aria-expanded={expanded}
          aria-controls="overview-formats"
          onClick={() => setExpanded(!expanded)}
        >
          {expanded ? 'Show fewer formats' : `Show all ${formats.length} formats`}
        </button>
      )}
    </>
  );
}

/** The receipts that did not pass, or whose signer is revoked or expired, newest first. */
function AttentionReceipts({ rows }: { rows: ReceiptRow[] }) {
  return (
    <section className="overview-attention-group" aria-labelledby="attention-receipts">
      <h3 className="overview-attention-heading" id="attention-receipts">
        Receipts to look at
      </h3>
      <p className="muted overview-table-intro">
        Receipts that did not pass, or whose signing key is revoked or expired; newest first.
      </p>
      <div className="overview-table-wrap">
        <table className="table overview-attention">
          <thead>
            <tr>
              <th scope="col">Receipt</th>
              <th scope="col">Status</th>
              <th scope="col">Trust</th>
              <th scope="col">Format</th>
              <th scope="col">Imported</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td className="overview-receipt-cell">
                  <a href={hrefFor(['receipts', row.id])} title={row.receipt_id ?? row.receipt_sha256}>
                    {row.receipt_id ?? `#${row.id} · ${row.receipt_sha256.slice(0, 12)}…`}
                  </a>
                </td>
                <td>
                  <StatusBadge status={row.status} />
                </td>
                <td>
                  <TrustBadge trust={row.trust} />
                </td>
                <td>
                  <code className="code">{row.format}</code>
                </td>
                <td className="overview-when">{formatInstant(row.imported_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function receiptsWord(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'receipt' : 'receipts'}`;
}

/**
 * The signing keys whose signatures verify but that are not pinned: each with its receipts and
 * "Pin this key…", which opens the Trust store's pin form filled in (the user still confirms).
 */
function UnpinnedIssuers({ overview }: { overview: Overview }) {
  const { unpinnedIssuers: issuers, unpinnedIssuerCount: count } = overview;
  const receipts = overview.byTrust.unpinned ?? 0;
  const more = count - issuers.length;
  return (
    <section className="overview-attention-group" aria-labelledby="attention-unpinned" data-testid="unpinned-issuers">
      <h3 className="overview-attention-heading" id="attention-unpinned">
        Signing keys you have not pinned ({formatCount(count)})
      </h3>
      <p className="muted overview-table-intro">
        Their signatures verify, but the keys are not in your trust store, so{' '}
        <a href={hrefFor(['receipts'], { trust: 'unpinned' })}>{receiptsWord(receipts)}</a> show trust ‘unpinned’:
        genuine, from a signer you have not vouched for. Pin a key only after checking it with its owner.
      </p>
      <div className="overview-table-wrap">
        <table className="table overview-issuers">
          <thead>
            <tr>
              <th scope="col">Signing key</th>
              <th scope="col">Receipts</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {issuers.map((issuer) =>
              issuer.issuer_key_id === null ? (
                <tr key="" data-issuer="">
                  <td className="overview-issuer-key">
                    <span className="muted">keys without an id</span>
                  </td>
                  <td className="overview-issuer-count">{receiptsWord(issuer.receipts)}</td>
                  <td className="overview-issuer-action muted">
                    Open one of the <a href={hrefFor(['receipts'], { trust: 'unpinned' })}>unpinned receipts</a> to see
                    its key.
                  </td>
                </tr>
              ) : (
                <tr key={issuer.issuer_key_id} data-issuer={issuer.issuer_key_id}>
                  <td className="overview-issuer-key">
                    <code className="code">{issuer.issuer_key_id}</code>{' '}
                    <CopyButton text={issuer.issuer_key_id} label="Copy" what={`the key id ${issuer.issuer_key_id}`} />
                  </td>
                  <td className="overview-issuer-count">
                    <a
                      href={hrefFor(['receipts'], { issuer: issuer.issuer_key_id, trust: 'unpinned' })}
                      aria-label={`${receiptsWord(issuer.receipts)} signed by ${issuer.issuer_key_id}. Show them.`}
                    >
                      {receiptsWord(issuer.receipts)}
                    </a>
                  </td>
                  <td className="overview-issuer-action">
                    <a
                      className="button button-secondary"
                      href={hrefFor(['trust'], { pin: issuer.issuer_key_id })}
                      aria-label={`Pin this key… ${issuer.issuer_key_id}`}
                    >
                      Pin this key…
                    </a>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
      {more > 0 && (
        <p className="overview-more">
          and {formatCount(more)} more {more === 1 ? 'key' : 'keys'}:{' '}
          <a href={hrefFor(['receipts'], { trust: 'unpinned' })}>all {receiptsWord(receipts)} with trust unpinned</a>
        </p>
      )}
    </section>
  );
}

/** Documents whose named key did not sign them (PROTOCOL 1): nothing to pin, said why. */
function Unattributed({ count }: { count: number }) {
  return (
    <section className="overview-attention-group" aria-labelledby="attention-unattributed" data-testid="unattributed">
      <h3 className="overview-attention-heading" id="attention-unattributed">
        Documents not signed by the key they name ({formatCount(count)})
      </h3>
      <p className="muted overview-table-intro">
        <a href={hrefFor(['receipts'], { trust: 'unattributed' })}>
          {formatCount(count)} {count === 1 ? 'document is' : 'documents are'} ‘unattributed’
        </a>
        : each names a signing key, but that key did not sign what is there (altered after signing, or a wrong
        signature). They count for no issuer, and there is no key to pin for them.
      </p>
    </section>
  );
}

/** Logs whose checkpoints disagree: the loudest finding, first in the list. */
function SplitViews({ overview }: { overview: Overview }) {
  return (
    <section className="overview-attention-group" aria-labelledby="attention-split" data-testid="attention-split-view">
      <h3 className="overview-attention-heading" id="attention-split">
        Logs with a split view ({formatCount(overview.splitViews.length)})
      </h3>
      <SplitViewAlert logs={overview.splitViews} />
      <p className="overview-more">
        <a href={hrefFor(['logs'])}>Open the Logs view</a>
      </p>
    </section>
  );
}

function Attention({ overview }: { overview: Overview }) {
  const rows = overview.attention;
  const unattributed = overview.byTrust.unattributed ?? 0;
  const splits = overview.splitViews.length;
  if (splits === 0 && rows.length === 0 && overview.unpinnedIssuerCount === 0 && unattributed === 0) {
    return (
      <p className="muted overview-none">
        Nothing needs attention: every receipt passed its checks, every signing key is pinned, none is revoked or
        expired, and no log shows a split view.
      </p>
    );
  }
  return (
    <>
      {splits > 0 && <SplitViews overview={overview} />}
      {overview.unpinnedIssuerCount > 0 && <UnpinnedIssuers overview={overview} />}
      {unattributed > 0 && <Unattributed count={unattributed} />}
      {rows.length > 0 && <AttentionReceipts rows={rows} />}
    </>
  );
}

function RecentImports({ bundles, total }: { bundles: BundleSummary[]; total: number }) {
  if (bundles.length === 0) {
    return (
      <p className="muted overview-none">
        No evidence bundles imported yet. <a href={hrefFor(['bundles'])}>Import one on the Bundles page</a>; documents
        you verify and save appear in the counts above.
      </p>
    );
  }
  return (
    <>
      <div className="overview-table-wrap">
        <table className="table overview-imports">
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Tenant</th>
              <th scope="col">Imported</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {bundles.map((bundle) => (
              <tr key={bundle.id}>
                <td className="overview-receipt-cell">
                  <a href={hrefFor(['bundles', bundle.id])}>{bundle.file_name ?? `Bundle #${bundle.id}`}</a>
                </td>
                <td className="overview-tenant">{bundle.tenant_id ?? <span className="muted">—</span>}</td>
                <td className="overview-when">{formatInstant(bundle.imported_at)}</td>
                <td>
                  <span
                    className={`badge ${bundle.status === 'complete' ? 'badge-neutral' : 'badge-warn'}`}
                    title={
                      bundle.status === 'complete'
                        ? 'every entry was imported'
                        : 'some entries were not imported; see the bundle’s findings'
                    }
                  >
                    <span aria-hidden="true" className="badge-icon">
                      {bundle.status === 'complete' ? '●' : '◐'}
                    </span>
                    {bundle.status}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {total > bundles.length && (
        <p className="overview-more">
          <a href={hrefFor(['bundles'])}>All {formatCount(total)} bundles</a>
        </p>
      )}
    </>
  );
}
