/**
 * Bundles: import an evidence bundle, list every bundle in the ledger, and show one bundle's
 * manifest, signature (and, apart from it, the signer's trust), counts and findings.
 */
import { useEffect, type ReactNode } from 'react';
import type {
  BundleCounts,
  BundleDetail,
  BundleFinding,
  BundleSignature,
  BundleSummary,
  ImportProgress,
} from '../../src-shared/api/contract';
import { useApi } from '../api';
import { hrefFor, navigate, useRoute } from '../router';
import {
  Code,
  EmptyState,
  ErrorNotice,
  Fields,
  Loading,
  Page,
  Panel,
  formatCount,
  formatInstant,
  TableScroll,
} from '../components/ui';
import { StatusBadge, TrustBadge, statusMeaning, trustMeaning } from '../components/status';
import { BundleImport } from '../components/bundles-import';
import { PrintRecordButton } from '../components/print-record';
import { LogCompletenessFields, LogCompletenessLine } from '../components/log-completeness';
import {
  SignatureBadge,
  SignatureWithTrust,
  findingWords,
  groupFindings,
  signatureStyle,
} from '../components/bundles-shapes';
import {
  FINDINGS_TARGET_ID,
  FindingsBadge,
  VerdictBadge,
  VerdictBanner,
  focusFindings,
} from '../components/bundles-verdict';
import './bundles.css';

/** Imports finished in this window, by bundle id: the detail page says what just happened. */
const justImported = new Map<number, ImportProgress>();

/** The Bundles page: the list at `#/bundles`, one bundle at `#/bundles/:id`. */
export function BundlesView({ id }: { id: number | undefined }) {
  if (id === undefined) return <BundleList />;
  if (!Number.isSafeInteger(id) || id < 1) {
    return (
      <Page title="Bundle not found">
        <ErrorNotice
          title="Bundle not found"
          message="That address does not name a bundle."
          hint={<a href={hrefFor(['bundles'])}>See every bundle</a>}
        />
      </Page>
    );
  }
  return <BundleDetailPage id={id} />;
}

function BundleStatusBadge({ status }: { status: BundleSummary['status'] }) {
  return status === 'complete' ? (
    <span
      className="badge badge-neutral"
      title="every file and receipt of the bundle was processed"
      data-bundle-status="complete"
    >
      <span aria-hidden="true" className="badge-icon">
        ●
      </span>
      complete
    </span>
  ) : (
    <span
      className="badge badge-warn"
      title="the import stopped part-way; import the same zip again to finish it"
      data-bundle-status="partial"
    >
      <span aria-hidden="true" className="badge-icon">
        ◐
      </span>
      partial
    </span>
  );
}

function numberOrDash(value: number | undefined): string {
  return value === undefined ? '—' : formatCount(value);
}

function BundleList() {
  const bundles = useApi('bundles.list', undefined);
  const rows = bundles.data ?? [];
  return (
    <Page
      title="Bundles"
      subtitle="Evidence bundles are signed zips of receipts. Import one to check it file by file and store its receipts in your ledger."
    >
      <Panel title="Import a bundle">
        <BundleImport
          onImported={(progress) => {
            if (progress.bundleId === undefined) return;
            justImported.set(progress.bundleId, progress);
            navigate(['bundles', progress.bundleId]);
          }}
          onFinished={bundles.reload}
        />
      </Panel>
      <Panel title={bundles.data ? `Imported bundles (${formatCount(rows.length)})` : 'Imported bundles'}>
        {bundles.error ? (
          <ErrorNotice
            title="The bundles could not be loaded"
            message={bundles.error}
            hint="Check that the app is still running, then reload the page."
          />
        ) : !bundles.data ? (
          <Loading label="Loading bundles…" />
        ) : rows.length === 0 ? (
          <EmptyState title="No evidence bundles yet">
            An evidence bundle is a .zip that a service (or another Evidence Room) exports: its receipts, their anchor
            records and the service’s public keys, all listed with their SHA-256 in a signed manifest.json. Drop one on
            the area above or choose it with “Choose a .zip file…”: every file is checked against the manifest, every
            receipt is verified, and the receipts are stored in your ledger. You can export bundles of your own with{' '}
            <Code>evroom export --out FILE.zip</Code>.
          </EmptyState>
        ) : (
          <TableScroll label="Imported bundles">
            <table className="table bundle-table" data-testid="bundle-table">
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Tenant</th>
                  <th scope="col">Generated · imported (UTC)</th>
                  <th scope="col">Verdict · log</th>
                  <th scope="col">Signature · signer</th>
                  <th scope="col" className="numeric">
                    Receipts
                  </th>
                  <th scope="col">Findings</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((bundle) => (
                  <BundleRow key={bundle.id} bundle={bundle} />
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
      </Panel>
    </Page>
  );
}

function BundleRow({ bundle }: { bundle: BundleSummary }) {
  const { counts, signature } = bundle;
  return (
    <tr data-bundle-id={bundle.id}>
      <td>
        <a href={hrefFor(['bundles', bundle.id])} className="bundle-name">
          {bundle.file_name ?? `Bundle ${bundle.id}`}
        </a>
        <span className="muted bundle-hash" title={`SHA-256 ${bundle.bundle_sha256}`}>
          {bundle.bundle_sha256.slice(0, 12)}…
        </span>
      </td>
      <td>{bundle.tenant_id ?? <span className="muted">—</span>}</td>
      <td className="nowrap bundle-dates">
        <span>
          <span className="muted">generated</span> {formatInstant(bundle.generated_at)}
        </span>
        <span>
          <span className="muted">imported</span> {formatInstant(bundle.imported_at)}
        </span>
      </td>
      <td className="bundle-verdict-cell">
        <VerdictBadge verdict={bundle.verdict} />
        <span className="bundle-log">
          <LogCompletenessLine log={bundle.log} />
        </span>
      </td>
      <td>
        <SignatureWithTrust signature={signature} />
      </td>
      <td className="numeric">
        {numberOrDash(counts.receipts)}
        {counts.receiptsNew !== undefined && (
          <span className="muted bundle-new">{formatCount(counts.receiptsNew)} new</span>
        )}
      </td>
      <td>
        <FindingsBadge verdict={bundle.verdict} total={counts.findingsTotal} />
      </td>
    </tr>
  );
}

function BundleDetailPage({ id }: { id: number }) {
  const bundle = useApi('bundles.get', { id }, String(id));
  if (bundle.error) {
    return (
      <Page title={`Bundle ${id}`}>
        <ErrorNotice
          title="This bundle could not be shown"
          message={bundle.error}
          hint={<a href={hrefFor(['bundles'])}>See every bundle</a>}
        />
      </Page>
    );
  }
  if (!bundle.data) {
    return (
      <Page title={`Bundle ${id}`}>
        <Loading label="Loading the bundle…" />
      </Page>
    );
  }
  return <BundleDetailContent bundle={bundle.data} />;
}

function BundleDetailContent({ bundle }: { bundle: BundleDetail }) {
  const { manifest, signature, counts, findings } = bundle;
  const recent = justImported.get(bundle.id);
  const receiptsHref = hrefFor(['receipts'], { bundle: String(bundle.id) });
  // `#/bundles/ID?at=findings` (the banner's link, opened in a new tab or bookmarked) opens at the findings.
  const at = useRoute().query.get('at');
  useEffect(() => {
    if (at === 'findings') focusFindings();
  }, [at, bundle.id]);
  return (
    <Page
      title={bundle.file_name ?? `Bundle ${bundle.id}`}
      subtitle={
        <>
          Bundle {bundle.id} · imported {formatInstant(bundle.imported_at)} · SHA-256{' '}
          <Code>{bundle.bundle_sha256}</Code>
        </>
      }
      actions={
        <>
          <a className="button button-primary" href={receiptsHref}>
            Show receipts from this bundle
          </a>
          <a className="button button-secondary" href={hrefFor(['bundles'])}>
            All bundles
          </a>
          <PrintRecordButton bundle={bundle} />
        </>
      }
    >
      <VerdictBanner verdict={bundle.verdict} bundleId={bundle.id} findingsTotal={counts.findingsTotal} />
      {recent && <JustImportedNotice progress={recent} />}
      {bundle.status === 'partial' && (
        <div className="notice notice-warn" role="status">
          <p className="notice-title">This import stopped part-way</p>
          <p>
            The bundle is marked partial: some of its receipts may be missing from the ledger, and its counts and
            findings are not final. Import the same zip again to finish it; nothing is stored twice.
          </p>
        </div>
      )}
      <SignerTrustNotice signature={signature} />
      <div className="grid grid-2">
        <Panel title="Manifest">
          {manifest ? (
            <Fields
              rows={[
                ['Bundle format', manifest.bundleFormat ? <Code>{manifest.bundleFormat}</Code> : '—'],
                ['Tenant', manifest.tenantId ?? bundle.tenant_id ?? '—'],
                ['Generated', manifest.generatedAt ?? formatInstant(bundle.generated_at)],
                ['Manifest key id', manifest.keyId ? <Code>{manifest.keyId}</Code> : '—'],
                ['Files listed', manifest.fileCount === undefined ? '—' : formatCount(manifest.fileCount)],
                ...(manifest.declaredCounts.length > 0
                  ? ([
                      [
                        'Declared counts',
                        manifest.declaredCounts.map(([name, value]) => `${name} ${formatCount(value)}`).join(' · '),
                      ],
                    ] as [string, ReactNode][])
                  : []),
                ['Import', <BundleStatusBadge key="status" status={bundle.status} />],
              ]}
            />
          ) : (
            <p className="muted">The manifest was not recorded for this bundle.</p>
          )}
        </Panel>
        <SignaturePanel signature={signature} />
      </div>
      <Panel title="Log completeness">
        {bundle.log === null ? (
          <p className="muted" data-testid="log-completeness" data-log-status="none">
            This bundle carries no log evidence (no <Code>log/checkpoint.txt</Code> and <Code>log/proofs.json</Code>):
            it shows that its receipts are genuine, not that none was left out. A bundle exported by a service that logs
            its receipts shows whether it is complete for its period.
          </p>
        ) : (
          <LogCompletenessFields log={bundle.log} />
        )}
      </Panel>
      <CountsPanel counts={counts} bundleId={bundle.id} />
      <div id={FINDINGS_TARGET_ID} tabIndex={-1} className="findings-target">
        <FindingsPanel
          findings={findings}
          counts={counts}
          receiptsHref={receiptsHref}
          complete={bundle.status === 'complete'}
        />
      </div>
    </Page>
  );
}

function JustImportedNotice({ progress }: { progress: ImportProgress }) {
  const already = progress.result?.alreadyImported === true;
  const resumed = progress.result?.resumed === true;
  return (
    <div className="notice notice-info" role="status" data-testid="just-imported">
      <p className="notice-title">
        {already
          ? 'This bundle had been imported before'
          : resumed
            ? 'Import finished (it had stopped part-way before)'
            : 'Import finished'}
      </p>
      <p>
        {already
          ? 'The same zip (same SHA-256) is already in the ledger, so nothing new was stored; it was checked again all the same.'
          : `${formatCount(progress.receiptsTotal)} receipts were checked and stored. The counts and findings below are this import's.`}
      </p>
    </div>
  );
}

/** Trust in the signer, said apart from the signature's validity. */
function SignerTrustNotice({ signature }: { signature: BundleSignature | undefined }) {
  if (!signature || signature.status !== 'valid') return null;
  const trustLink = <a href={hrefFor(['trust'])}>Open the trust store</a>;
  if (signature.trust === 'unpinned') {
    return (
      <div className="notice notice-info" role="status" data-testid="signer-unpinned">
        <p className="notice-title">Signature valid, signer not in your trust store</p>
        <p>
          The manifest verifies with the key <Code>{signature.keyId ?? 'named in manifest.sig'}</Code>: the signature
          covers the manifest, and the files are compared with it below. You have not pinned that key, so this says
          nothing about who made the bundle. This is not a finding; pin the key only if you know it belongs to the
          sender.
        </p>
        <p className="notice-hint">{trustLink}</p>
      </div>
    );
  }
  if (signature.trust === 'revoked' || signature.trust === 'expired') {
    return (
      <div className="notice notice-warn" role="status">
        <p className="notice-title">Signature valid, but the signer’s key is {signature.trust}</p>
        <p>{signature.trustDetail ?? trustMeaning(signature.trust)}</p>
        <p className="notice-hint">{trustLink}</p>
      </div>
    );
  }
  return null;
}

function SignaturePanel({ signature }: { signature: BundleSignature | undefined }) {
  if (!signature) {
    return (
      <Panel title="Manifest signature">
        <p className="muted">No signature result was recorded (the import stopped before the signature was checked).</p>
      </Panel>
    );
  }
  const style = signatureStyle(signature.status);
  return (
    <Panel title="Manifest signature">
      <div className="signature-head">
        <SignatureBadge status={signature.status} large />
        {signature.keyId !== undefined && <TrustBadge trust={signature.trust} large />}
      </div>
      <p className="muted signature-meaning">{signature.detail ?? style.meaning}</p>
      <Fields
        rows={[
          ['Validity', style.label],
          ['Signing key', signature.keyId ? <Code>{signature.keyId}</Code> : <span className="muted">none named</span>],
          [
            'Signer trust',
            signature.keyId ? (
              <span>
                <TrustBadge trust={signature.trust} /> {signature.trustLabel && <>“{signature.trustLabel}”</>}
                <span className="muted signer-trust-detail">
                  {signature.trustDetail ?? trustMeaning(signature.trust)}
                  {signature.trust !== 'trusted' && (
                    <>
                      {' '}
                      <a href={hrefFor(['trust'])}>Open the trust store</a>
                    </>
                  )}
                </span>
              </span>
            ) : (
              <span className="muted">not applicable: no key was used</span>
            ),
          ],
          ['Manifest SHA-256', signature.manifestSha256 ? <Code>{signature.manifestSha256}</Code> : '—'],
        ]}
      />
    </Panel>
  );
}

function Stat({ label, value, testId }: { label: string; value: number | undefined; testId: string }) {
  return (
    <div className="bundle-stat">
      <p className="stat" data-testid={testId}>
        {numberOrDash(value)}
      </p>
      <p className="stat-label">{label}</p>
    </div>
  );
}

function CountsPanel({ counts, bundleId }: { counts: BundleCounts; bundleId: number }) {
  return (
    <Panel title="Counts">
      <div className="bundle-stats">
        <Stat label="Receipts" value={counts.receipts} testId="count-receipts" />
        <Stat label="New to the ledger" value={counts.receiptsNew} testId="count-new" />
        <Stat label="Already known" value={counts.receiptsKnown} testId="count-known" />
        <Stat label="Files in the zip" value={counts.files} testId="count-files" />
        <Stat label="Anchor records" value={counts.anchors} testId="count-anchors" />
        <Stat label="Keys advertised" value={counts.advertisedKeys} testId="count-keys" />
      </div>
      <div className="grid grid-2 bundle-breakdowns">
        <div>
          <h3 className="bundle-subtitle">By status</h3>
          {counts.byStatus.length === 0 ? (
            <p className="muted">No receipts recorded.</p>
          ) : (
            <ul className="breakdown" data-testid="by-status">
              {counts.byStatus.map(([status, amount]) => (
                <li key={status}>
                  <a href={hrefFor(['receipts'], { bundle: String(bundleId), status })} title={statusMeaning(status)}>
                    <StatusBadge status={status} />
                  </a>
                  <span className="breakdown-count" data-status-count={status}>
                    {formatCount(amount)}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h3 className="bundle-subtitle">By trust</h3>
          {counts.byTrust.length === 0 ? (
            <p className="muted">No receipts recorded.</p>
          ) : (
            <ul className="breakdown" data-testid="by-trust">
              {counts.byTrust.map(([trust, amount]) => (
                <li key={trust}>
                  <a href={hrefFor(['receipts'], { bundle: String(bundleId), trust })} title={trustMeaning(trust)}>
                    <TrustBadge trust={trust} />
                  </a>
                  <span className="breakdown-count" data-trust-count={trust}>
                    {formatCount(amount)}
                  </span>
                </li>
              ))}
            </ul>
          )}
          <p className="muted breakdown-note">
            Trust as judged at import time. Pinning, revoking or unpinning a key later updates the stored receipts, not
            these counts: <a href={hrefFor(['receipts'], { bundle: String(bundleId) })}>the receipts</a> show trust as
            it is now.
          </p>
        </div>
      </div>
    </Panel>
  );
}

function FindingsPanel({
  findings,
  counts,
  receiptsHref,
  complete,
}: {
  findings: BundleFinding[];
  counts: BundleCounts;
  receiptsHref: string;
  complete: boolean;
}) {
  const total = counts.findingsTotal ?? findings.length;
  const groups = groupFindings(findings);
  return (
    <Panel title={`Findings (${formatCount(total)})`}>
      {total === 0 ? (
        complete ? (
          <p className="findings-none" data-testid="no-findings">
            <span aria-hidden="true">✓</span> No findings: every file matches the manifest, nothing is missing or extra,
            and every receipt verified PASS.
          </p>
        ) : (
          <p className="muted">No findings recorded yet: the import did not finish.</p>
        )
      ) : (
        <>
          <p className="muted findings-intro">
            Findings are problems that did not stop the import: the bundle and its receipts were stored, and these are
            what an auditor should look at.
            {total > findings.length &&
              ` The first ${formatCount(findings.length)} of ${formatCount(total)} are listed; counts by kind: ${counts.findingsByCode.map(([code, amount]) => `${findingWords(code)} ${formatCount(amount)}`).join(', ')}.`}
          </p>
          {groups.map((group) => (
            <section key={group.id} className="finding-group" data-finding-group={group.id}>
              <h3 className="bundle-subtitle">
                {group.title} <span className="muted">({formatCount(group.findings.length)})</span>
              </h3>
              <p className="muted finding-description">
                {group.description}
                {group.id === 'not-pass' && (
                  <>
                    {' '}
                    <a href={receiptsHref}>Show receipts from this bundle</a>
                  </>
                )}
              </p>
              <TableScroll label={`${group.title}: findings`}>
                <table className="table finding-table">
                  <thead>
                    <tr>
                      <th scope="col">File</th>
                      <th scope="col">Kind</th>
                      <th scope="col">What is wrong</th>
                      <th scope="col">Evidence</th>
                    </tr>
                  </thead>
                  <tbody>
                    {group.findings.map((finding, index) => (
                      <tr key={index}>
                        <td className="finding-path">
                          {finding.path === '' ? (
                            <span className="muted">whole bundle</span>
                          ) : (
                            <Code>{finding.path}</Code>
                          )}
                        </td>
                        <td className="nowrap">{findingWords(finding.code)}</td>
                        <td>{finding.message}</td>
                        <td className="nowrap">
                          <FindingEvidence finding={finding} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
            </section>
          ))}
        </>
      )}
    </Panel>
  );
}

/** Where a finding's evidence is: the receipt stored from its file, or why there is none to open. */
function FindingEvidence({ finding }: { finding: BundleFinding }) {
  if (finding.receiptRowId !== undefined) {
    return (
      <a
        href={hrefFor(['receipts', finding.receiptRowId])}
        title={`The receipt the import stored from ${finding.path}`}
        data-finding-receipt={finding.receiptRowId}
      >
        Open receipt {finding.receiptRowId}
      </a>
    );
  }
  if (finding.code === 'file_missing') return <span className="muted">not in the zip</span>;
  return <span className="muted">no stored receipt</span>;
}
