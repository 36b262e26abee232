/**
 * Verify: drop, choose or paste one document and read its report at once.
 *
 * The document is verified in the main process (the renderer never runs the verifier itself), and
 * nothing is stored unless the user asks: "Save to ledger" sends it again with `save: true`.
 */
import { useCallback, useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { MAX_VERIFY_TEXT, type VerifyResult } from '../../src-shared/api/contract';
import { api, errorMessage } from '../api';
import { hrefFor } from '../router';
import { Button, ErrorNotice, Loading, Page, Panel, formatCount } from '../components/ui';
import { ReportView } from '../components/report-view';
import { filesForCall, rememberedFiles, VerifyFiles, type ChosenFiles } from '../components/verify-files';
import './verify.css';

/** Where the document being verified came from. */
interface DocumentSource {
  /** The file name, or undefined for pasted text. */
  name: string | undefined;
  text: string;
  bytes: number;
}

interface Problem {
  title: string;
  message: string;
  hint?: string;
}

/** Formats a byte count for people: 1.2 kB, 3.4 MB (binary multiples, labelled as such). */
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = value >= 100 || Number.isInteger(value) ? 0 : 1;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

/** Whether bytes are well-formed UTF-8. */
function isUtf8(bytes: ArrayBuffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads a chosen or dropped file as text, refusing what `verify` cannot take as it is.
 *
 * The size is checked before reading so a huge file is never loaded. A file that is not UTF-8
 * text is refused rather than decoded with replacement characters, which would verify bytes
 * other than the file's.
 */
async function readDocument(file: File): Promise<DocumentSource | Problem> {
  if (file.size > MAX_VERIFY_TEXT) {
    return {
      title: `“${file.name}” is too large`,
      message: `It is ${formatBytes(file.size)} (${formatCount(file.size)} bytes); Verify takes documents up to ${formatBytes(MAX_VERIFY_TEXT)} (${formatCount(MAX_VERIFY_TEXT)} bytes).`,
      hint: 'An evidence bundle (.zip) of many receipts is imported on the Bundles page instead.',
    };
  }
  if (file.size === 0)
    return {
      title: `“${file.name}” is empty`,
      message: 'The file has no content to verify.',
      hint: 'Choose the receipt file itself.',
    };
  const text = await file.text();
  const binary = text.includes('\u0000') || (text.includes('\uFFFD') && !isUtf8(await file.arrayBuffer()));
  if (binary) {
    return {
      title: `“${file.name}” is not a text file`,
      message: 'Verify reads JSON documents (UTF-8 text); this file holds binary data.',
      hint: /\.zip$/i.test(file.name)
        ? 'This looks like an evidence bundle: import it on the Bundles page.'
        : 'Choose a receipt in JSON, or paste its text below.',
    };
  }
  return { name: file.name, text, bytes: file.size };
}

function isProblem(value: DocumentSource | Problem): value is Problem {
  return 'title' in value;
}

/** The Verify page. */
export function VerifyView() {
  const [pasted, setPasted] = useState('');
  const [source, setSource] = useState<DocumentSource | undefined>(undefined);
  const [result, setResult] = useState<VerifyResult | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | undefined>(undefined);
  const [dragging, setDragging] = useState(false);
  const [files, setFiles] = useState<ChosenFiles>(rememberedFiles);
  const filesRef = useRef(files);
  filesRef.current = files;
  const latest = useRef(0);
  const fileInput = useRef<HTMLInputElement>(null);

  // A file dropped outside the drop zone would make the window open it in place of the app.
  useEffect(() => {
    const block = (event: globalThis.DragEvent): void => event.preventDefault();
    window.addEventListener('dragover', block);
    window.addEventListener('drop', block);
    return () => {
      window.removeEventListener('dragover', block);
      window.removeEventListener('drop', block);
    };
  }, []);

  const run = useCallback(async (next: DocumentSource) => {
    const request = ++latest.current;
    setSource(next);
    setResult(undefined);
    setProblem(undefined);
    setSaveError(undefined);
    setBusy(true);
    try {
      const answer = await api.verify({ text: next.text, ...filesForCall(filesRef.current) });
      if (request === latest.current) setResult(answer);
    } catch (reason) {
      if (request === latest.current)
        setProblem({ title: 'The document could not be verified', message: errorMessage(reason) });
    } finally {
      if (request === latest.current) setBusy(false);
    }
  }, []);

  const openFile = useCallback(
    async (files: FileList | null) => {
      const file = files?.[0];
      if (!file) return;
      const request = ++latest.current;
      let loaded: DocumentSource | Problem;
      try {
        loaded = await readDocument(file);
      } catch (reason) {
        loaded = {
          title: `“${file.name}” could not be read`,
          message: errorMessage(reason),
          hint: 'Check that the file still exists and that you may read it.',
        };
      }
      if (request !== latest.current) return;
      if (isProblem(loaded)) {
        setSource(undefined);
        setResult(undefined);
        setBusy(false);
        setProblem(loaded);
        return;
      }
      await run(loaded);
    },
    [run],
  );

  const verifyPasted = useCallback(() => {
    if (pasted.trim() === '') {
      latest.current += 1;
      setSource(undefined);
      setResult(undefined);
      setProblem({
        title: 'Nothing to verify',
        message: 'The text box is empty.',
        hint: 'Paste a receipt’s JSON into it, or drop a file above.',
      });
      return;
    }
    void run({ name: undefined, text: pasted, bytes: new TextEncoder().encode(pasted).length });
  }, [pasted, run]);

  const save = useCallback(async () => {
    if (!source) return;
    setSaving(true);
    setSaveError(undefined);
    try {
      const answer = await api.verify({
        text: source.text,
        save: true,
        ...(source.name ? { name: source.name } : {}),
        // The ledger judges trust by its own trust store: a trust file is for this window only.
        ...filesForCall({ ...files, trust: undefined }),
      });
      setResult(answer);
    } catch (reason) {
      setSaveError(errorMessage(reason));
    } finally {
      setSaving(false);
    }
  }, [source, files]);

  // A document on screen is verified again with the files as they now are (a secrets file chosen
  // after a sealed document opens it; forgotten files close it again).
  const changeFiles = useCallback(
    (next: ChosenFiles) => {
      filesRef.current = next;
      setFiles(next);
      if (source) void run(source);
    },
    [source, run],
  );

  const onDrop = (event: DragEvent<HTMLDivElement>): void => {
    event.preventDefault();
    setDragging(false);
    void openFile(event.dataTransfer.files);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      verifyPasted();
    }
  };

  const clear = (): void => {
    latest.current += 1;
    setPasted('');
    setSource(undefined);
    setResult(undefined);
    setProblem(undefined);
    setSaveError(undefined);
    setBusy(false);
    if (fileInput.current) fileInput.current.value = '';
  };

  const sourceLabel = source ? (source.name ? `“${source.name}”` : 'pasted text') : '';

  return (
    <Page
      title="Verify"
      subtitle="Check one signed document offline. Nothing is stored unless you save it to the ledger."
    >
      <div className="verify-layout">
        <Panel title="Document" className="verify-input">
          <div
            className={`verify-drop${dragging ? ' verify-drop-active' : ''}`}
            onDragEnter={(event) => {
              event.preventDefault();
              setDragging(true);
            }}
            onDragOver={(event) => {
              event.preventDefault();
              event.dataTransfer.dropEffect = 'copy';
            }}
            onDragLeave={(event) => {
              if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
            }}
            onDrop={onDrop}
            data-testid="drop-zone"
          >
            <p className="verify-drop-title">Drop a document here</p>
            <p className="muted verify-drop-text">
              A receipt of any supported format, as JSON, up to {formatBytes(MAX_VERIFY_TEXT)}. It is verified as soon
              as it lands.
            </p>
            <label className="button button-secondary verify-file-button">
              <input
                ref={fileInput}
                type="file"
                className="visually-hidden"
                accept=".json,application/json,text/plain,text/*"
                onChange={(event) => void openFile(event.currentTarget.files)}
              />
              Choose a file…
            </label>
          </div>

          <div className="verify-paste">
            <label htmlFor="verify-text" className="verify-paste-label">
              Or paste a document
            </label>
            <textarea
              id="verify-text"
              rows={12}
              spellCheck={false}
              value={pasted}
              placeholder='{"signed_payload": { … }, "signature": "…"}'
              onChange={(event) => setPasted(event.target.value)}
              onKeyDown={onKeyDown}
              aria-describedby="verify-shortcut"
            />
            <div className="verify-actions">
              <Button variant="primary" onClick={verifyPasted} disabled={busy}>
                Verify
              </Button>
              <Button variant="ghost" onClick={clear} disabled={!pasted && !source && !problem}>
                Clear
              </Button>
              <span id="verify-shortcut" className="muted verify-shortcut">
                or press <kbd>Ctrl</kbd>+<kbd>Enter</kbd> (<kbd>⌘</kbd>+<kbd>Enter</kbd> on a Mac)
              </span>
            </div>
          </div>

          <VerifyFiles files={files} onChange={changeFiles} />
        </Panel>

        <section className="panel verify-result" aria-labelledby="verify-report-heading">
          <div className="verify-report-header">
            <h2 id="verify-report-heading" className="panel-title verify-report-title">
              Report
              {source && (
                <span className="muted verify-source">
                  for {sourceLabel} · {formatBytes(source.bytes)}
                </span>
              )}
            </h2>
            {result && !busy && !result.saved && (
              <Button
                onClick={() => void save()}
                disabled={saving}
                title="Keep the document and this report in your ledger, whatever its status"
              >
                {saving ? 'Saving…' : 'Save to ledger'}
              </Button>
            )}
          </div>
          <div aria-live="polite" className="verify-live">
            {busy && <Loading label="Verifying…" />}
            {problem && <ErrorNotice title={problem.title} message={problem.message} hint={problem.hint} />}
            {!busy && !problem && !result && (
              <div className="verify-placeholder">
                <p className="empty-title">No document yet</p>
                <p className="muted">
                  Drop a file, choose one, or paste a document and press Verify. The report shows the cryptographic
                  status and the issuer’s trust side by side, with every check.
                </p>
              </div>
            )}
            {result && !busy && (
              <>
                {saveError && (
                  <ErrorNotice
                    title="Not saved to the ledger"
                    message={saveError}
                    hint="Nothing was stored; try again."
                  />
                )}
                {result.saved && <SavedNotice saved={result.saved} />}
                <ReportView report={result.report} />
              </>
            )}
          </div>
        </section>
      </div>
    </Page>
  );
}

/** Where a saved document is now, and whether it was new to the ledger. */
function SavedNotice({ saved }: { saved: NonNullable<VerifyResult['saved']> }) {
  return (
    <div className="notice notice-info verify-saved" role="status" data-testid="saved-notice">
      <p>
        <span aria-hidden="true">✓ </span>
        {saved.created ? 'Saved to the ledger as ' : 'Already in the ledger as '}
        <a href={hrefFor(['receipts', saved.id])}>receipt #{saved.id}</a>
        {saved.created ? '.' : ': the same document was stored before, so nothing changed.'}
      </p>
    </div>
  );
}
