/**
 * The browser reference verifier: one page, no install, no network.
 *
 * Open documents or evidence bundles (file picker or drag and drop); each is verified in a Web
 * Worker with the portable provider and shown with the app's own report view. A key file,
 * trust file or secrets file applies to this page only, to files verified after it is chosen.
 * Trust stays separate from validity: a key that came with a document or bundle gives
 * "valid, issuer unknown", never "trusted".
 */
import { useCallback, useEffect, useRef, useState, type DragEvent } from 'react';
import type { BundleCheck, BundleReceiptReport } from '../../src-shared/evidence/check-bundle';
import type { KeyEntry, SecretEntry } from '../../src-shared/verify/context';
import { checkKeySources, KeyFileError, parseKeyFile, parseSecretsFile } from '../../src-shared/verify/key-file';
import type { Report } from '../../src-shared/verify/report';
import { ReportView } from '../components/report-view';
import { StatusBadge, TrustBadge } from '../components/status';
import type { VerifierKeys, VerifyJob, WorkerAnswer } from './protocol';
import VerifierWorker from './verifier-worker?worker&inline';

/** One opened file and where its verification stands. */
interface Result {
  id: number;
  name: string;
  state: 'waiting' | 'verifying' | 'document' | 'bundle' | 'failed';
  progress?: { done: number; total: number };
  report?: Report;
  bundle?: BundleCheck;
  message?: string;
}

/** A key, trust or secrets file as loaded, or its error. */
interface Loaded<T> {
  name: string;
  entries?: T[];
  error?: string;
}

function describeFileError(error: unknown): string {
  if (error instanceof KeyFileError) return `${error.message}${error.path === '' ? '' : ` (at ${error.path})`}`;
  return error instanceof Error ? error.message : String(error);
}

async function loadFile<T>(file: File, parse: (text: string) => T[]): Promise<Loaded<T>> {
  try {
    return { name: file.name, entries: parse(await file.text()) };
  } catch (error) {
    return { name: file.name, error: describeFileError(error) };
  }
}

/** Trust file entries without a status count as pinned, as `evroom verify --trust` reads them. */
function parseTrustFile(text: string): KeyEntry[] {
  return parseKeyFile(text).map((entry) => ({ ...entry, status: entry.status ?? 'pinned' }));
}

/**
 * The key or trust file just loaded, not used when it gives a key_id of the other one another key
 * (one key id, one key: PROTOCOL section 0, the rule and message `evroom verify` applies).
 */
function checkedAgainst(
  loaded: Loaded<KeyEntry>,
  kind: string,
  other: Loaded<KeyEntry> | undefined,
  otherKind: string,
): Loaded<KeyEntry> {
  if (loaded.entries === undefined || other?.entries === undefined) return loaded;
  try {
    checkKeySources([
      { name: `the ${otherKind} ${other.name}`, entries: other.entries },
      { name: `the ${kind} ${loaded.name}`, entries: loaded.entries },
    ]);
    return loaded;
  } catch (error) {
    return { name: loaded.name, error: describeFileError(error) };
  }
}

function KeyInput<T>({
  label,
  testId,
  help,
  loaded,
  onFile,
}: {
  label: string;
  testId: string;
  help: string;
  loaded: Loaded<T> | undefined;
  onFile: (file: File) => void;
}) {
  return (
    <label className="verifier-option">
      <span className="verifier-option-label">{label}</span>
      <input
        type="file"
        accept=".json,application/json"
        data-testid={testId}
        onChange={(event) => event.target.files?.[0] && onFile(event.target.files[0])}
      />
      <span className="muted verifier-option-help">{help}</span>
      {loaded && (
        <span
          className={loaded.error ? 'verifier-option-error' : 'verifier-option-ok'}
          data-testid={`${testId}-status`}
          role={loaded.error ? 'alert' : undefined}
        >
          {loaded.error
            ? `${loaded.name}: not used: ${loaded.error}`
            : `${loaded.name}: ${loaded.entries?.length ?? 0} loaded`}
        </span>
      )}
    </label>
  );
}

function BundleReceipt({ receipt }: { receipt: BundleReceiptReport }) {
  const [open, setOpen] = useState(false);
  return (
    <details
      className="verifier-receipt"
      onToggle={(event) => setOpen(event.currentTarget.open)}
      data-receipt={receipt.path}
    >
      <summary>
        <StatusBadge status={receipt.report.status} /> <TrustBadge trust={receipt.report.trust.status} />{' '}
        <code className="code">{receipt.path}</code>
      </summary>
      {/* Rendered when opened: a bundle may hold hundreds of reports. */}
      {open && <ReportView report={receipt.report} level={3} subject={receipt.path} />}
    </details>
  );
}

const BUNDLE_READING: Record<BundleCheck['status'], string> = {
  clean: 'Bundle intact: every file matches the signed manifest and every receipt passed',
  findings: 'Bundle read with findings',
  refused: 'Bundle refused: it breaks a rule of the bundle format, so nothing in it was verified',
};

function BundleView({ result }: { result: BundleCheck }) {
  const { counts, signature, manifest } = result;
  return (
    <div className="verifier-bundle">
      <p className="report-reading">{BUNDLE_READING[result.status]}</p>
      {result.refusal && (
        <p className="verifier-refusal" role="alert" data-refusal={result.refusal.code}>
          <code className="code">{result.refusal.code}</code> {result.refusal.message}
        </p>
      )}
      {manifest && (
        <dl className="verifier-facts">
          <dt>Tenant</dt>
          <dd>{manifest.tenant_id}</dd>
          <dt>Generated</dt>
          <dd>{manifest.generated_at}</dd>
          <dt>Files listed</dt>
          <dd>{manifest.files}</dd>
          <dt>Receipts</dt>
          <dd data-testid="bundle-receipts">{counts.receipts}</dd>
        </dl>
      )}
      {signature && (
        <section className="report-section" aria-label="Manifest signature">
          <h3 className="report-section-title">Manifest signature</h3>
          <p data-testid="bundle-signature" data-signature={signature.status}>
            <code className="code">{signature.status}</code> <TrustBadge trust={signature.trust.status} />{' '}
            {signature.detail}
          </p>
          <p className="muted">
            manifest.json SHA-256 <code className="code">{signature.manifest_sha256}</code>
          </p>
        </section>
      )}
      {counts.receipts > 0 && (
        <section className="report-section" aria-label="Receipts by status">
          <h3 className="report-section-title">Receipts</h3>
          <p>
            {Object.entries(counts.byStatus).map(([status, count]) => (
              <span key={status} className="verifier-count">
                {status} {count}
              </span>
            ))}
            {Object.entries(counts.byTrust).map(([trust, count]) => (
              <span key={trust} className="verifier-count muted">
                {trust} {count}
              </span>
            ))}
          </p>
        </section>
      )}
      {result.totalFindings > 0 && (
        <section className="report-section" aria-label="Findings">
          <h3 className="report-section-title">
            Findings <span className="report-count">{result.totalFindings}</span>
          </h3>
          <ul className="report-errors">
            {result.findings.map((finding, index) => (
              <li key={index} className="report-error" data-finding={finding.code}>
                <div className="report-error-head">
                  <code className="code report-error-code">{finding.code}</code>
                  {finding.path !== '' && <code className="code report-error-path">{finding.path}</code>}
                </div>
                <p className="report-error-message">{finding.message}</p>
              </li>
            ))}
          </ul>
          {result.totalFindings > result.findings.length && (
            <p className="muted">{result.totalFindings - result.findings.length} more not listed.</p>
          )}
        </section>
      )}
      {result.receipts.length > 0 && (
        <section className="report-section" aria-label="Receipt reports">
          <h3 className="report-section-title">Receipt reports</h3>
          <p className="muted">
            Every receipt that did not pass{counts.receipts > result.receipts.length ? ', and the first that did' : ''};
            open one for its report.
          </p>
          {result.receipts.map((receipt) => (
            <BundleReceipt key={receipt.path} receipt={receipt} />
          ))}
        </section>
      )}
      {result.notes.length > 0 && (
        <section className="report-section" aria-label="Notes">
          <h3 className="report-section-title">Notes</h3>
          <ul className="report-notes">
            {result.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

/** The data-status and data-trust a result exposes: a document's report, a bundle's verdict. */
function resultAttributes(result: Result): { status: string; trust: string } {
  if (result.state === 'document' && result.report)
    return { status: result.report.status, trust: result.report.trust.status };
  if (result.state === 'bundle' && result.bundle)
    return { status: result.bundle.status, trust: result.bundle.signature?.trust.status ?? 'not_applicable' };
  return { status: result.state, trust: 'not_applicable' };
}

function ResultView({ result }: { result: Result }) {
  const { status, trust } = resultAttributes(result);
  const kind = result.state === 'bundle' ? 'bundle' : result.state === 'document' ? 'document' : 'pending';
  return (
    <article
      className="panel verifier-result"
      data-testid="result"
      data-file={result.name}
      data-status={status}
      data-trust={trust}
      data-kind={kind}
    >
      <h2 className="verifier-result-name">
        <code className="code">{result.name}</code>
      </h2>
      {result.state === 'waiting' && <p className="muted">Waiting…</p>}
      {result.state === 'verifying' && (
        <div className="verifier-progress">
          <progress data-testid="progress" max={result.progress?.total ?? 1} value={result.progress?.done ?? 0} />
          <span className="muted">
            {result.progress
              ? `${result.progress.done.toLocaleString('en-US')} of ${result.progress.total.toLocaleString('en-US')} files`
              : 'Reading…'}
          </span>
        </div>
      )}
      {result.state === 'failed' && (
        <p className="verifier-refusal" role="alert">
          Could not be read: {result.message}
        </p>
      )}
      {result.state === 'document' && result.report && <ReportView report={result.report} subject={result.name} />}
      {result.state === 'bundle' && result.bundle && <BundleView result={result.bundle} />}
    </article>
  );
}

/**
 * The reference verifier page.
 */
export function VerifierApp() {
  const [results, setResults] = useState<Result[]>([]);
  const [keys, setKeys] = useState<Loaded<KeyEntry>>();
  const [trust, setTrust] = useState<Loaded<KeyEntry>>();
  const [secrets, setSecrets] = useState<Loaded<SecretEntry>>();
  const [dragging, setDragging] = useState(false);
  const worker = useRef<Worker | null>(null);
  const nextId = useRef(1);

  const update = useCallback((id: number, change: Partial<Result>) => {
    setResults((current) => current.map((result) => (result.id === id ? { ...result, ...change } : result)));
  }, []);

  useEffect(() => {
    const created = new VerifierWorker();
    created.onmessage = (event: MessageEvent<WorkerAnswer>) => {
      const answer = event.data;
      if (answer.type === 'progress')
        update(answer.id, { state: 'verifying', progress: { done: answer.done, total: answer.total } });
      else if (answer.type === 'document') update(answer.id, { state: 'document', report: answer.report });
      else if (answer.type === 'bundle') update(answer.id, { state: 'bundle', bundle: answer.result });
      else update(answer.id, { state: 'failed', message: answer.message });
    };
    worker.current = created;
    return () => created.terminate();
  }, [update]);

  const open = useCallback(
    (files: readonly File[]) => {
      if (files.length === 0 || !worker.current) return;
      const jobs = files.map((file) => ({ id: nextId.current++, file }));
      setResults((current) => [
        ...current,
        ...jobs.map(({ id, file }): Result => ({ id, name: file.name, state: 'verifying' })),
      ]);
      const chosen: VerifierKeys = {
        pinned: trust?.entries ?? [],
        advertised: keys?.entries ?? [],
        secrets: secrets?.entries ?? [],
      };
      const job: VerifyJob = { type: 'verify', files: jobs, keys: chosen };
      worker.current.postMessage(job);
    },
    [keys, trust, secrets],
  );

  const onDrop = (event: DragEvent<HTMLElement>) => {
    event.preventDefault();
    setDragging(false);
    open([...event.dataTransfer.files]);
  };

  const done = results.filter(
    (result) => result.state === 'document' || result.state === 'bundle' || result.state === 'failed',
  ).length;
  return (
    <main
      className={`verifier${dragging ? ' verifier-dragging' : ''}`}
      data-testid="drop-zone"
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <header className="verifier-header">
        <h1>Evidence Room reference verifier</h1>
        <p className="muted">
          Checks signed receipts and evidence bundles in this page. Nothing is uploaded: the page makes no network
          request, and works from a file on your disk.
        </p>
      </header>
      <section className="panel verifier-open">
        <label className="verifier-documents">
          <span className="verifier-option-label">Documents or evidence bundles (.json, .zip)</span>
          <input
            type="file"
            multiple
            accept=".json,.zip,application/json,application/zip"
            data-testid="documents"
            onChange={(event) => {
              open([...(event.target.files ?? [])]);
              event.target.value = '';
            }}
          />
          <span className="muted">or drop files anywhere on this page.</span>
        </label>
        <div className="verifier-options">
          <KeyInput
            label="Key file"
            testId="keys"
            help="Public keys to check signatures with; they never make an issuer trusted."
            loaded={keys}
            onFile={(file) =>
              void loadFile(file, (text) => parseKeyFile(text)).then((loaded) =>
                setKeys(checkedAgainst(loaded, 'key file', trust, 'trust file')),
              )
            }
          />
          <KeyInput
            label="Trust file"
            testId="trust"
            help="Keys you pin for this page only: signatures by them read “trusted”."
            loaded={trust}
            onFile={(file) =>
              void loadFile(file, parseTrustFile).then((loaded) =>
                setTrust(checkedAgainst(loaded, 'trust file', keys, 'key file')),
              )
            }
          />
          <KeyInput
            label="Secrets file"
            testId="secrets"
            help="AES-256-GCM secrets that open sealed documents."
            loaded={secrets}
            onFile={(file) => void loadFile(file, parseSecretsFile).then(setSecrets)}
          />
        </div>
        <p className="muted">Keys and secrets apply to files opened after them.</p>
      </section>
      {results.length > 0 && (
        <p className="verifier-summary" data-testid="summary" aria-live="polite">
          {done} of {results.length} verified
        </p>
      )}
      <section className="verifier-results" aria-label="Results">
        {results.map((result) => (
          <ResultView key={result.id} result={result} />
        ))}
      </section>
    </main>
  );
}
