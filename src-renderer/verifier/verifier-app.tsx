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
import { keyFingerprint } from '../../src-shared/crypto/fingerprint';
import type { BundleCheck, BundleReceiptReport } from '../../src-shared/evidence/check-bundle';
import type { KeyEntry, SecretEntry } from '../../src-shared/verify/context';
import { checkKeySources, KeyFileError, parseKeyFile, parseSecretsFile } from '../../src-shared/verify/key-file';
import type { Report } from '../../src-shared/verify/report';
import { ReportView } from '../components/report-view';
import { StatusBadge, TrustBadge } from '../components/status';
import type { ReportStatus, TrustStatus } from '../../src-shared/verify/report';
import type { VerifierKeys, VerifyJob, WorkerAnswer } from './protocol';
import {
  bundleFindingWords,
  bundleVerdict,
  documentVerdict,
  summaryCounts,
  VERDICT_STYLE,
  type VerdictKind,
} from './verdict';
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

/** The keys of a loaded key or trust file, each with the fingerprint to read to its owner. */
function LoadedKeys({ testId, entries }: { testId: string; entries: readonly KeyEntry[] }) {
  if (entries.length === 0) return null;
  return (
    <ul className="verifier-loaded-keys" data-testid={`${testId}-fingerprints`}>
      {entries.map((entry, index) => (
        <li key={`${entry.key_id}-${index}`} data-key-id={entry.key_id}>
          <code className="code verifier-key-id">{entry.key_id}</code>{' '}
          <span className="muted">{entry.algorithm}, fingerprint</span>{' '}
          <code className="code" data-fingerprint>
            {keyFingerprint(entry.public_key)}
          </code>
        </li>
      ))}
    </ul>
  );
}

function KeyInput<T>({
  label,
  testId,
  help,
  loaded,
  onFile,
  keys,
}: {
  label: string;
  testId: string;
  help: string;
  loaded: Loaded<T> | undefined;
  onFile: (file: File) => void;
  /** The loaded keys, listed with their fingerprints. */
  keys?: readonly KeyEntry[];
}) {
  return (
    <div className="verifier-option">
      <label className="verifier-option-input">
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
      {keys && <LoadedKeys testId={testId} entries={keys} />}
    </div>
  );
}

/** A verdict as people see it: colour, an icon and words (colour is never the only signal). */
function VerdictBanner({ kind, detail }: { kind: VerdictKind; detail: string }) {
  const style = VERDICT_STYLE[kind];
  const words = style.words.charAt(0).toUpperCase() + style.words.slice(1);
  return (
    <p className={`verifier-verdict verdict-${style.tone}`} data-testid="verdict" data-verdict={kind}>
      <span aria-hidden="true" className="verdict-icon">
        {style.icon}
      </span>
      <span>
        <strong>{words}</strong>
        {detail === '' ? '' : `: ${detail}`}
      </span>
    </p>
  );
}

/** The fingerprint of the key a document or bundle names, to read aloud to the sender. */
function Fingerprint({ trust, what }: { trust: { status: TrustStatus; key_fingerprint?: string }; what: string }) {
  if (trust.key_fingerprint === undefined) return null;
  return (
    <p className="verifier-fingerprint">
      <span className="muted">
        {trust.status === 'unattributed'
          ? `Fingerprint of the key ${what} names (it did not sign) `
          : `${what} key fingerprint `}
      </span>
      <code className="code" data-testid="fingerprint">
        {trust.key_fingerprint}
      </code>
    </p>
  );
}

/** What a document's verdict adds after its words. */
function documentDetail(report: Report): string {
  const { trust } = report;
  if (report.status === 'PASS') {
    if (trust.status === 'trusted') return `signed by ${trust.key_id ?? 'a key you pinned'}, a key you pinned`;
    if (trust.status === 'unpinned')
      return `the signing key ${trust.key_id ?? '(inline)'} is not in a trust file you loaded`;
    return trust.detail ?? '';
  }
  if (trust.status === 'unattributed' && trust.claimed_key_id)
    return `it names ${trust.claimed_key_id}, but that key did not sign what is here`;
  return report.errors[0]?.message ?? '';
}

function SignatureBadge({ status }: { status: string }) {
  const good = status === 'valid';
  return (
    <span className={`badge badge-${good ? 'good' : 'bad'}`} data-signature-badge={status}>
      <span aria-hidden="true" className="badge-icon">
        {good ? '✓' : '✗'}
      </span>
      signature {status}
    </span>
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

/** What a bundle's verdict adds after its words. */
function bundleDetail(result: BundleCheck, kind: VerdictKind): string {
  if (result.status === 'refused') return 'it breaks a rule of the bundle format, so nothing in it was verified';
  if (result.status === 'clean') {
    const signer = result.signature?.key_id ?? 'its key';
    const issuer =
      kind === 'verified'
        ? `, signed by ${signer}, a key you pinned`
        : kind === 'verified_unknown_issuer'
          ? `; signed by ${signer}, not in a trust file you loaded`
          : '';
    return `every file matches the signed manifest and all ${result.counts.receipts.toLocaleString('en-US')} receipts passed${issuer}`;
  }
  return bundleFindingWords(result);
}

function ReceiptList({
  title,
  caption,
  testId,
  receipts,
}: {
  title: string;
  caption: string;
  testId: string;
  receipts: BundleReceiptReport[];
}) {
  if (receipts.length === 0) return null;
  return (
    <div className="verifier-receipt-group" data-testid={testId}>
      <h4 className="verifier-receipt-group-title">{title}</h4>
      <p className="muted" data-testid={`${testId}-caption`}>
        {caption}
      </p>
      {receipts.map((receipt) => (
        <BundleReceipt key={receipt.path} receipt={receipt} />
      ))}
    </div>
  );
}

function plural(count: number, one: string, many: string): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

function BundleView({ result, name }: { result: BundleCheck; name: string }) {
  const { counts, signature, manifest } = result;
  const failed = result.receipts.filter((receipt) => receipt.report.status !== 'PASS');
  const passed = result.receipts.filter((receipt) => receipt.report.status === 'PASS');
  const passTotal = counts.byStatus.PASS ?? 0;
  return (
    <div className="verifier-bundle">
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
        <section className="report-section" aria-label={`Manifest signature of ${name}`}>
          <h3 className="report-section-title">Manifest signature</h3>
          <p data-testid="bundle-signature" data-signature={signature.status}>
            <SignatureBadge status={signature.status} /> <TrustBadge trust={signature.trust.status} />{' '}
            {signature.detail}
          </p>
          <Fingerprint trust={signature.trust} what="Manifest signing" />
          <p className="muted">
            manifest.json SHA-256 <code className="code">{signature.manifest_sha256}</code>
          </p>
        </section>
      )}
      {result.log && (
        <section className="report-section" aria-label={`Log completeness of ${name}`}>
          <h3 className="report-section-title">Log completeness</h3>
          <p data-testid="bundle-log" data-log={result.log.status}>
            {result.log.sentence}
            {result.log.origin === undefined ? '' : ` (log ${result.log.origin}, key ${result.log.signer})`}
          </p>
        </section>
      )}
      {counts.receipts > 0 && (
        <section className="report-section" aria-label={`Receipts by status of ${name}`}>
          <h3 className="report-section-title">Receipts</h3>
          <p className="verifier-counts">
            {Object.entries(counts.byStatus).map(([status, count]) => (
              <span key={status} className="verifier-count" data-count-status={status}>
                <StatusBadge status={status as ReportStatus} /> {count.toLocaleString('en-US')}
              </span>
            ))}
          </p>
          <p className="verifier-counts">
            {Object.entries(counts.byTrust).map(([trust, count]) => (
              <span key={trust} className="verifier-count" data-count-trust={trust}>
                <TrustBadge trust={trust as TrustStatus} /> {count.toLocaleString('en-US')}
              </span>
            ))}
          </p>
        </section>
      )}
      {result.totalFindings > 0 && (
        <section className="report-section" aria-label={`Findings of ${name}`}>
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
        <section className="report-section" aria-label={`Receipt reports of ${name}`}>
          <h3 className="report-section-title">Receipt reports</h3>
          <ReceiptList
            title={`Did not pass (${failed.length.toLocaleString('en-US')})`}
            caption={`Every receipt that did not pass: ${plural(failed.length, 'receipt', 'receipts')}. Open one for its report.`}
            testId="receipts-failed"
            receipts={failed}
          />
          <ReceiptList
            title={`Passed (${passTotal.toLocaleString('en-US')})`}
            caption={
              passed.length === passTotal
                ? `Every receipt that passed: ${plural(passed.length, 'receipt', 'receipts')}. Open one for its report.`
                : `The first ${passed.length.toLocaleString('en-US')} of the ${plural(passTotal, 'receipt', 'receipts')} that passed. Open one for its report.`
            }
            testId="receipts-passed"
            receipts={passed}
          />
        </section>
      )}
      {result.notes.length > 0 && (
        <section className="report-section" aria-label={`Notes of ${name}`}>
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

/** The verdict of a finished result, or undefined while it is being checked. */
function resultVerdict(result: Result): VerdictKind | undefined {
  if (result.state === 'document' && result.report) return documentVerdict(result.report);
  if (result.state === 'bundle' && result.bundle) return bundleVerdict(result.bundle);
  if (result.state === 'failed') return 'unreadable';
  return undefined;
}

function ResultView({ result }: { result: Result }) {
  const { status, trust } = resultAttributes(result);
  const verdict = resultVerdict(result);
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
      {verdict !== undefined && (
        <VerdictBanner
          kind={verdict}
          detail={
            result.report
              ? documentDetail(result.report)
              : result.bundle
                ? bundleDetail(result.bundle, verdict)
                : (result.message ?? '')
          }
        />
      )}
      {result.report && <Fingerprint trust={result.report.trust} what="Signing" />}
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

      {result.state === 'document' && result.report && <ReportView report={result.report} subject={result.name} />}
      {result.state === 'bundle' && result.bundle && <BundleView result={result.bundle} name={result.name} />}
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
  // Remounts the key, trust and secrets inputs when they are forgotten, so they show no file.
  const [inputsGeneration, setInputsGeneration] = useState(0);
  const worker = useRef<Worker | null>(null);
  const nextId = useRef(1);
  const documentsInput = useRef<HTMLInputElement | null>(null);

  const clearResults = () => {
    setResults([]);
    // The button goes with the results: focus returns to where files are opened.
    documentsInput.current?.focus();
  };
  const forgetKeys = () => {
    setKeys(undefined);
    setTrust(undefined);
    setSecrets(undefined);
    setInputsGeneration((generation) => generation + 1);
  };

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

  const verdicts = results.map(resultVerdict);
  const finished = verdicts.filter((kind): kind is VerdictKind => kind !== undefined);
  const pending = results.length - finished.length;
  const counted = summaryCounts(finished);
  const summaryText =
    `${plural(results.length, 'file', 'files')}: ` +
    [
      ...counted.map(({ kind, count }) => `${count.toLocaleString('en-US')} ${VERDICT_STYLE[kind].words}`),
      ...(pending > 0 ? [`${pending.toLocaleString('en-US')} still being checked`] : []),
    ].join(', ');
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
            ref={documentsInput}
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
        <div className="verifier-options" key={inputsGeneration}>
          <KeyInput
            label="Key file"
            testId="keys"
            help="Public keys to check signatures with; they never make an issuer trusted."
            loaded={keys}
            keys={keys?.entries}
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
            keys={trust?.entries}
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
        <div className="verifier-options-foot">
          <p className="muted">
            Keys and secrets apply to files opened after them, and stay when the results are cleared.
          </p>
          {(keys || trust || secrets) && (
            <button type="button" className="button button-secondary" data-testid="forget-keys" onClick={forgetKeys}>
              Forget key, trust and secrets files
            </button>
          )}
        </div>
      </section>
      {results.length > 0 && (
        <div className="verifier-summary-row">
          <p className="verifier-summary" data-testid="summary" data-summary={summaryText} aria-live="polite">
            <span className="verifier-summary-total">{plural(results.length, 'file', 'files')}:</span>
            {counted.map(({ kind, count }) => (
              <span
                key={kind}
                className={`verdict-chip verdict-${VERDICT_STYLE[kind].tone}`}
                data-verdict-count={kind}
                data-count={count}
              >
                <span aria-hidden="true" className="verdict-icon">
                  {VERDICT_STYLE[kind].icon}
                </span>
                {count.toLocaleString('en-US')} {VERDICT_STYLE[kind].words}
              </span>
            ))}
            {pending > 0 && (
              <span className="verdict-chip verdict-pending" data-verdict-count="pending" data-count={pending}>
                {pending.toLocaleString('en-US')} still being checked
              </span>
            )}
          </p>
          <button type="button" className="button button-secondary" data-testid="clear-results" onClick={clearResults}>
            Clear results
          </button>
        </div>
      )}
      <section className="verifier-results" aria-label="Results">
        {results.map((result) => (
          <ResultView key={result.id} result={result} />
        ))}
      </section>
    </main>
  );
}
