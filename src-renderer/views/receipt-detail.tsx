/**
 * One receipt (`#/receipts/:id`): its verdicts, every check, where it came from, its decoded
 * fields, the exact bytes its signatures cover and the document itself.
 *
 * Status (what the cryptography says) and trust (what is known of the signing key) are shown
 * side by side and never merged. The signed bytes are shown so an auditor can recompute the
 * hash with their own tools rather than take the app's word for it.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { AnchorDetail, ReceiptDetail, ReceiptSource, SignedContent } from '../../src-shared/api/contract';
import { api, errorMessage } from '../api';
import { ApiCallError } from '../transport';
import { hrefFor } from '../router';
import { Code, ErrorNotice, Fields, Loading, Page, Panel, formatInstant } from '../components/ui';
import { describeFormat } from '../components/format-names';
import { ReportView } from '../components/report-view';
import { AnchorPanel, AnchorStateBadge } from '../components/anchor-panel';
import { DecodedFields, DocumentText, parseDocument } from '../components/receipts-decoded';
import { CopyButton, listHref } from '../components/receipts-shared';
import { CopyableValue } from '../components/copyable-value';
import { PinThisKey } from '../components/pin-this-key';
import { PrintRecordButton } from '../components/print-record';
import './receipt-detail.css';

type LoadState =
  | { kind: 'loading' }
  | { kind: 'loaded'; receipt: ReceiptDetail }
  | { kind: 'missing' }
  | { kind: 'failed'; message: string };

/** How a source kind reads. */
function sourceKind(kind: string): string {
  switch (kind) {
    case 'bundle':
      return 'Evidence bundle';
    case 'paste':
      return 'Verified in the app';
    case 'file':
      return 'File';
    default:
      return kind;
  }
}

function Sources({ sources }: { sources: ReceiptSource[] }) {
  if (sources.length === 0) return <p className="muted detail-none">No source was recorded for this receipt.</p>;
  return (
    <ul className="detail-sources">
      {sources.map((source, index) => (
        <li key={index} className="detail-source" data-source-kind={source.kind}>
          <span className="detail-source-kind">{sourceKind(source.kind)}</span>
          {source.bundle_id !== undefined ? (
            <a href={hrefFor(['bundles', source.bundle_id])} data-testid="source-bundle-link">
              Bundle {source.bundle_id}
            </a>
          ) : (
            <span className="code detail-source-ref">{source.ref}</span>
          )}
          <span className="muted detail-source-time">imported {formatInstant(source.imported_at)}</span>
        </li>
      ))}
    </ul>
  );
}

function SignedBytes({ signed }: { signed: SignedContent[] }) {
  if (signed.length === 0) {
    return (
      <p className="muted detail-none">
        No signed content to show: the document is not well-formed, or what it signs is not readable (a sealed
        document’s signatures are inside its ciphertext).
      </p>
    );
  }
  return (
    <ol className="detail-signed">
      {signed.map((content, index) => (
        <li key={index} className="detail-signed-item" data-testid="signed-content">
          <div className="detail-signed-head">
            <h3 className="detail-signed-label">{content.label}</h3>
            <CopyButton text={content.text} label="Copy bytes" what={`the bytes of ${content.label}`} />
          </div>
          <p className="detail-signed-coverage">{content.coverage}</p>
          <p className="detail-signed-hash">
            <span className="muted">SHA-256</span> <Code>{content.sha256}</Code>{' '}
            <CopyButton text={content.sha256} label="Copy hash" what={`the SHA-256 of ${content.label}`} />
          </p>
          {content.encoding === 'hex' && <p className="muted detail-signed-note">Binary content, shown as hex.</p>}
          <pre className="code-block detail-signed-text">{content.text}</pre>
        </li>
      ))}
    </ol>
  );
}

function Detail({ receipt }: { receipt: ReceiptDetail }) {
  const parsed = useMemo(() => parseDocument(receipt.raw), [receipt.raw]);
  const format = describeFormat(receipt.format);
  const back = listHref();
  return (
    <Page
      title={receipt.receipt_id ?? `Receipt ${receipt.id}`}
      subtitle={
        <>
          <span className="code">{receipt.format}</span>
          {format && ` · ${format.label}`} · ledger entry {receipt.id}
        </>
      }
      actions={
        <>
          <PrintRecordButton receipt={receipt} />
          <a className="button button-secondary detail-back" href={back} data-testid="back-to-list">
            ← Back to receipts
          </a>
        </>
      }
    >
      <Panel title="Verification">
        <ReportView report={receipt.report} />
        <PinThisKey receipt={receipt} />
      </Panel>

      <div className="grid grid-2 detail-grid">
        <Panel title="Identity">
          <Fields
            rows={[
              [
                'Receipt id',
                receipt.receipt_id !== null ? (
                  <CopyableValue value={receipt.receipt_id} what="the receipt id" testId="copy-receipt-id" />
                ) : (
                  <span className="muted">none in the document</span>
                ),
              ],
              [
                'Format',
                <>
                  <Code>{receipt.format}</Code>
                  {format && <span className="muted"> · {format.label}</span>}
                </>,
              ],
              [
                'Issuer key id',
                receipt.issuer_key_id !== null ? (
                  <>
                    <CopyableValue
                      value={receipt.issuer_key_id}
                      what="the id of the issuer's key"
                      testId="copy-issuer-key-id"
                    />
                    {receipt.report.trust.label && <span className="muted"> · {receipt.report.trust.label}</span>}
                  </>
                ) : (
                  <span className="muted">no signing key named</span>
                ),
              ],
              [
                'Issued at',
                receipt.issued_at !== null ? (
                  <>
                    {formatInstant(receipt.issued_at)}
                    {format?.issuedAtUnsigned && (
                      <span className="muted" data-testid="issued-at-unsigned">
                        {' '}
                        · as the document states it; not signed
                      </span>
                    )}
                  </>
                ) : (
                  <span className="muted">the document does not say</span>
                ),
              ],
              ['Imported at', formatInstant(receipt.imported_at)],
              [
                <span key="sha" title="SHA-256 of the document's canonical (JCS) form: its identity in the ledger">
                  Document SHA-256
                </span>,
                <CopyableValue
                  key="sha-value"
                  value={receipt.receipt_sha256}
                  what="the document SHA-256"
                  testId="copy-receipt-sha256"
                />,
              ],
              ['Ledger entry', String(receipt.id)],
            ]}
          />
        </Panel>
        <Panel title="Provenance">
          <h3 className="detail-subheading">Sources</h3>
          <Sources sources={receipt.sources} />
          <h3 className="detail-subheading">Anchor</h3>
          {receipt.anchor.anchors.length === 0 ? (
            <p className="detail-none" data-testid="anchor">
              No anchor record for this receipt.
            </p>
          ) : (
            <p className="detail-none" data-testid="anchor">
              <AnchorStateBadge state={receipt.anchor.state} />{' '}
              {receipt.anchor.anchors.length === 1
                ? 'One anchor record'
                : `${receipt.anchor.anchors.length} anchor records`}
              : <a href="#receipt-anchor">see the anchor panel below</a>.
            </p>
          )}
        </Panel>
      </div>

      {receipt.anchor.anchors.length > 0 && <ReceiptAnchorPanel receiptId={receipt.id} />}

      <Panel title="Decoded fields">
        <DecodedFields parsed={parsed} format={receipt.format} />
      </Panel>

      <Panel title="Signed bytes">
        <p className="muted detail-intro">
          The exact bytes each signature or digest covers, and their SHA-256, so the hash can be recomputed with any
          tool.
        </p>
        <SignedBytes signed={receipt.signed} />
      </Panel>

      <Panel title="Document">
        <DocumentText raw={receipt.raw} parsed={parsed} />
      </Panel>

      <p>
        <a href={back}>← Back to receipts</a>
      </p>
    </Page>
  );
}

/** The receipt's anchor records in full (loaded on their own: a receipt shows without them). */
function ReceiptAnchorPanel({ receiptId }: { receiptId: number }) {
  const [anchors, setAnchors] = useState<AnchorDetail[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let cancelled = false;
    api['anchors.ofReceipt']({ id: receiptId }).then(
      (answer) => {
        if (!cancelled) setAnchors(answer.anchors);
      },
      (reason: unknown) => {
        if (!cancelled) setError(errorMessage(reason));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [receiptId]);
  const replace = (next: AnchorDetail): void =>
    setAnchors((current) => current?.map((anchor) => (anchor.id === next.id ? next : anchor)));
  return (
    <section id="receipt-anchor" tabIndex={-1} aria-label="Anchor">
      <Panel title="Anchor">
        {error && <ErrorNotice title="The anchor records could not be loaded" message={error} />}
        {!anchors && !error && <Loading label="Loading the anchor records…" />}
        {anchors?.map((anchor) => (
          <AnchorPanel key={anchor.id} detail={anchor} onChange={replace} />
        ))}
      </Panel>
    </section>
  );
}

/**
 * The receipt detail view.
 *
 * @param id - The receipt's ledger id (from the route; may be NaN for a bad address).
 */
export function ReceiptDetailView({ id }: { id: number }) {
  const [state, setState] = useState<LoadState>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const retry = useCallback(() => setAttempt((value) => value + 1), []);
  const valid = Number.isSafeInteger(id) && id >= 1;

  useEffect(() => {
    if (!valid) {
      setState({ kind: 'missing' });
      return;
    }
    let cancelled = false;
    setState({ kind: 'loading' });
    api['receipts.get']({ id }).then(
      (receipt) => {
        if (!cancelled) setState({ kind: 'loaded', receipt });
      },
      (reason: unknown) => {
        if (cancelled) return;
        if (reason instanceof ApiCallError && reason.code === 'not_found') setState({ kind: 'missing' });
        else setState({ kind: 'failed', message: errorMessage(reason) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [id, valid, attempt]);

  useEffect(() => {
    document.title =
      state.kind === 'loaded'
        ? `${state.receipt.receipt_id ?? `Receipt ${state.receipt.id}`} · Evidence Room`
        : 'Receipt · Evidence Room';
    return () => {
      document.title = 'Evidence Room';
    };
  }, [state]);

  switch (state.kind) {
    case 'loading':
      return (
        <Page title="Receipt">
          <Loading label="Loading the receipt…" />
        </Page>
      );
    case 'missing':
      return (
        <Page title="Receipt not found">
          <ErrorNotice
            title="This receipt does not exist"
            message={
              valid
                ? `There is no receipt ${id} in the ledger. The link may be out of date, or the ledger was replaced.`
                : 'The address does not name a receipt: a receipt’s address ends in its ledger number, e.g. #/receipts/42.'
            }
            hint={<a href={listHref()}>Back to the receipts list</a>}
          />
        </Page>
      );
    case 'failed':
      return (
        <Page title="Receipt">
          <ErrorNotice
            title="Could not load the receipt"
            message={state.message}
            hint={
              <>
                <button type="button" className="button button-secondary" onClick={retry}>
                  Try again
                </button>{' '}
                or <a href={listHref()}>go back to the receipts list</a>.
              </>
            }
          />
        </Page>
      );
    case 'loaded':
      return <Detail receipt={state.receipt} />;
  }
}
