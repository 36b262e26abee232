/**
 * Importing an evidence bundle: a drop zone and file chooser, reading and encoding the zip,
 * then the import job's live progress with a Cancel button, and its outcome.
 *
 * In local web mode the zip is uploaded as raw bytes (the transport's `uploadFile`, streamed to a
 * temporary file); in Electron it travels as base64url (`imports.start` with `{ name, data }`); the
 * import then runs as a job that this component polls (`imports.progress`) every 250 ms. The
 * job id is kept in sessionStorage so leaving the page and coming back shows the same import.
 */
import { useCallback, useEffect, useRef, useState, type DragEvent, type ReactNode } from 'react';
import type { ImportProgress } from '../../src-shared/api/contract';
import { b64uEncode } from '../../src-shared/crypto/encoding';
import { progressPercent } from '../../src-shared/numbers/share';
import { api, errorMessage, uploadFile } from '../api';
import { hrefFor } from '../router';
import { Button, Code, ErrorNotice, formatCount } from './ui';
import { refusalReason } from './bundles-shapes';

/** How often the job is polled. */
const POLL_MS = 250;
/** Files at least this large show a "reading file…" bar (smaller ones read in a blink). */
const SHOW_READING_BYTES = 2 * 1024 * 1024;
/** Bytes encoded per slice: a multiple of 3, so the slices' texts join into the whole's. */
const ENCODE_SLICE = 3 * 256 * 1024;
const JOB_STORAGE_KEY = 'evroom.bundles.importJob';

const PHASE_WORDS: Record<string, string> = {
  starting: 'Starting',
  hashing: 'Hashing the zip',
  checking: 'Checking every file against the manifest',
  verifying: 'Verifying and storing receipts',
  finishing: 'Writing the results',
  done: 'Done',
  failed: 'Refused',
  cancelled: 'Cancelled',
};

/** A phase of the import in words. */
export function phaseWords(phase: string): string {
  return PHASE_WORDS[phase] ?? phase;
}

/**
 * Encodes bytes as base64url without padding, a slice at a time.
 *
 * The one codec (b64uEncode, src-shared/crypto/encoding.ts); slicing only yields to the event
 * loop between slices so the page can show progress.
 *
 * @param bytes - the bytes to encode
 * @param onProgress - called with the bytes encoded so far
 * @returns the base64url text
 */
export async function encodeBase64Url(bytes: Uint8Array, onProgress?: (done: number) => void): Promise<string> {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('encodeBase64Url expects a Uint8Array');
  const parts: string[] = [];
  for (let offset = 0; offset < bytes.length; offset += ENCODE_SLICE) {
    const slice = bytes.subarray(offset, Math.min(offset + ENCODE_SLICE, bytes.length));
    parts.push(b64uEncode(slice));
    onProgress?.(offset + slice.length);
    if (slice.length === ENCODE_SLICE) await new Promise((resolveTick) => setTimeout(resolveTick, 0));
  }
  return parts.join('');
}

function readFile(file: File, onProgress: (loaded: number) => void): Promise<ArrayBuffer> {
  return new Promise((resolveRead, rejectRead) => {
    const reader = new FileReader();
    reader.onprogress = (event) => onProgress(event.loaded);
    reader.onerror = () => rejectRead(new Error(reader.error?.message ?? 'the file could not be read'));
    reader.onload = () => {
      if (reader.result instanceof ArrayBuffer) resolveRead(reader.result);
      else rejectRead(new Error('the file could not be read as bytes'));
    };
    reader.readAsArrayBuffer(file);
  });
}

/** Bytes in words: 12.4 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Seconds left in words. */
export function formatSecondsLeft(seconds: number | null): string {
  if (seconds === null) return 'estimating…';
  if (seconds < 1) return 'under a second';
  if (seconds < 60) return `about ${Math.ceil(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  return `about ${minutes} min ${Math.ceil(seconds % 60)} s`;
}

/** A progress bar with an accessible name and value. */
export function ProgressBar({ label, done, total }: { label: string; done: number; total: number }) {
  const percent = progressPercent(done, total);
  return (
    <div
      className="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      aria-valuetext={`${formatCount(done)} of ${formatCount(total)}`}
    >
      <span style={{ width: `${percent}%` }} />
    </div>
  );
}

type Stage =
  | { kind: 'idle' }
  | { kind: 'reading'; fileName: string; loaded: number; total: number }
  | { kind: 'encoding'; fileName: string; done: number; total: number }
  | { kind: 'sending'; fileName: string; bytes: number }
  | { kind: 'job'; progress: ImportProgress; cancelRequested: boolean; finishedWhileAway?: boolean }
  | { kind: 'not-sent'; fileName: string; title: string; message: string; code?: string };

function rememberJob(jobId: string | undefined): void {
  try {
    if (jobId === undefined) sessionStorage.removeItem(JOB_STORAGE_KEY);
    else sessionStorage.setItem(JOB_STORAGE_KEY, jobId);
  } catch {
    // Storage may be unavailable; the import still works, it just is not resumed on return.
  }
}

function rememberedJob(): string | undefined {
  try {
    return sessionStorage.getItem(JOB_STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * The import panel of the Bundles page.
 *
 * @param onImported - called once with the job's final progress when an import finished (not
 *   after a cancel that came too late, which is shown here instead)
 */
export function BundleImport({
  onImported,
  onFinished,
}: {
  onImported: (progress: ImportProgress) => void;
  onFinished?: () => void;
}) {
  const [stage, setStage] = useState<Stage>({ kind: 'idle' });
  const [dragging, setDragging] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const onImportedRef = useRef(onImported);
  onImportedRef.current = onImported;
  const onFinishedRef = useRef(onFinished);
  onFinishedRef.current = onFinished;
  const jobId = stage.kind === 'job' ? stage.progress.jobId : undefined;
  const running = stage.kind === 'job' && stage.progress.state === 'running';
  const busy = stage.kind === 'reading' || stage.kind === 'encoding' || stage.kind === 'sending' || running;

  // Resume an import started earlier in this session (the page was left and came back to), or
  // one the desktop menu's File > Import bundle started (it opens #/bundles?job=<id>).
  useEffect(() => {
    const fromMenu = new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('job');
    const remembered = fromMenu ?? rememberedJob();
    if (remembered === undefined) return;
    api['imports.progress']({ jobId: remembered }).then(
      (progress) =>
        setStage((current) =>
          current.kind === 'idle'
            ? { kind: 'job', progress, cancelRequested: false, finishedWhileAway: progress.state !== 'running' }
            : current,
        ),
      () => rememberJob(undefined),
    );
  }, []);

  // Poll the job while it runs.
  useEffect(() => {
    if (jobId === undefined || !running) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = (): void => {
      api['imports.progress']({ jobId }).then(
        (progress) => {
          if (stopped) return;
          setStage((current) =>
            current.kind === 'job' && current.progress.jobId === jobId ? { ...current, progress } : current,
          );
          if (progress.state === 'running') timer = setTimeout(poll, POLL_MS);
        },
        () => {
          if (!stopped) timer = setTimeout(poll, POLL_MS * 4);
        },
      );
    };
    timer = setTimeout(poll, POLL_MS);
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [jobId, running]);

  // React to the end of a job once (keyed on the job and its final state only).
  const finalState = stage.kind === 'job' && stage.progress.state !== 'running' ? stage.progress.state : undefined;
  useEffect(() => {
    if (stage.kind !== 'job' || finalState === undefined) return;
    rememberJob(undefined);
    onFinishedRef.current?.();
    // An import that ended while the page was elsewhere is only reported here, not opened.
    if (
      finalState === 'done' &&
      !stage.cancelRequested &&
      !stage.finishedWhileAway &&
      stage.progress.bundleId !== undefined
    )
      onImportedRef.current(stage.progress);
  }, [jobId, finalState]);

  const start = useCallback(async (file: File) => {
    if (!/\.zip$/i.test(file.name)) {
      setStage({
        kind: 'not-sent',
        fileName: file.name,
        title: 'Not a .zip file',
        message: `“${file.name}” is not a .zip file. An evidence bundle is a .zip with a manifest.json at its top level.`,
      });
      return;
    }
    if (file.size === 0) {
      setStage({
        kind: 'not-sent',
        fileName: file.name,
        title: 'The file is empty',
        message: `“${file.name}” has no bytes, so it cannot be an evidence bundle. Download or export it again.`,
      });
      return;
    }
    try {
      if (uploadFile) {
        setStage({ kind: 'sending', fileName: file.name, bytes: file.size });
        const progress = await uploadFile('imports.start', file, file.name);
        rememberJob(progress.jobId);
        setStage({ kind: 'job', progress, cancelRequested: false });
        return;
      }
      setStage({ kind: 'reading', fileName: file.name, loaded: 0, total: file.size });
      const buffer = await readFile(file, (loaded) =>
        setStage((current) => (current.kind === 'reading' ? { ...current, loaded } : current)),
      );
      setStage({ kind: 'encoding', fileName: file.name, done: 0, total: buffer.byteLength });
      const data = await encodeBase64Url(new Uint8Array(buffer), (done) =>
        setStage((current) => (current.kind === 'encoding' ? { ...current, done } : current)),
      );
      setStage({ kind: 'sending', fileName: file.name, bytes: buffer.byteLength });
      const progress = await api['imports.start']({ name: file.name, data });
      rememberJob(progress.jobId);
      setStage({ kind: 'job', progress, cancelRequested: false });
    } catch (reason) {
      const code = (reason as { code?: unknown }).code;
      setStage({
        kind: 'not-sent',
        fileName: file.name,
        title: 'The bundle could not be handed to the importer',
        message: `${errorMessage(reason)}. Nothing was imported.`,
        ...(typeof code === 'string' ? { code } : {}),
      });
    }
  }, []);

  const choose = (files: FileList | null): void => {
    const file = files?.[0];
    if (file && !busy) void start(file);
    if (inputRef.current) inputRef.current.value = '';
  };

  const onDrop = (event: DragEvent<HTMLDivElement>): void => {
    event.preventDefault();
    setDragging(false);
    if (busy) return;
    choose(event.dataTransfer.files);
  };

  const cancel = (): void => {
    if (stage.kind !== 'job') return;
    const id = stage.progress.jobId;
    setStage({ ...stage, cancelRequested: true });
    api['imports.cancel']({ jobId: id }).then(
      (progress) =>
        setStage((current) =>
          current.kind === 'job' && current.progress.jobId === id
            ? { ...current, progress: current.progress.state === 'running' ? progress : current.progress }
            : current,
        ),
      () => undefined,
    );
  };

  return (
    <div className="bundle-import">
      <div
        className={`drop-zone${dragging ? ' drop-zone-active' : ''}${busy ? ' drop-zone-busy' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = busy ? 'none' : 'copy';
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        data-testid="bundle-drop-zone"
      >
        <span className="drop-zone-icon" aria-hidden="true">
          ▣
        </span>
        <p className="drop-zone-title">Drop an evidence bundle (.zip) here</p>
        <p className="muted drop-zone-text">or</p>
        <label className="button button-primary drop-zone-choose">
          Choose a .zip file…
          <input
            ref={inputRef}
            className="visually-hidden"
            type="file"
            accept=".zip,application/zip"
            aria-label="Evidence bundle (.zip) to import"
            disabled={busy}
            onChange={(event) => choose(event.currentTarget.files)}
          />
        </label>
        <p className="muted drop-zone-text">
          Every file is checked against the signed manifest and every receipt is verified before it is stored. Hostile
          zips are refused before anything is written.
        </p>
      </div>
      <ImportStatus stage={stage} onCancel={cancel} onDismiss={() => setStage({ kind: 'idle' })} />
    </div>
  );
}

function ImportStatus({
  stage,
  onCancel,
  onDismiss,
}: {
  stage: Stage;
  onCancel: () => void;
  onDismiss: () => void;
}): ReactNode {
  switch (stage.kind) {
    case 'idle':
      return null;
    case 'reading':
      return (
        <div className="import-progress" role="status" aria-live="polite">
          <p className="import-title">Reading file… {stage.fileName}</p>
          {stage.total >= SHOW_READING_BYTES && (
            <ProgressBar label="Reading the file" done={stage.loaded} total={stage.total} />
          )}
          <p className="muted">
            {formatBytes(stage.loaded)} of {formatBytes(stage.total)}
          </p>
        </div>
      );
    case 'encoding':
      return (
        <div className="import-progress" role="status" aria-live="polite">
          <p className="import-title">Reading file… preparing {stage.fileName} for the importer</p>
          {stage.total >= SHOW_READING_BYTES && (
            <ProgressBar label="Preparing the file" done={stage.done} total={stage.total} />
          )}
          <p className="muted">
            {formatBytes(stage.done)} of {formatBytes(stage.total)}
          </p>
        </div>
      );
    case 'sending':
      return (
        <div className="import-progress" role="status" aria-live="polite">
          <p className="import-title">
            <span className="spinner" aria-hidden="true" /> Handing {stage.fileName} ({formatBytes(stage.bytes)}) to the
            importer…
          </p>
        </div>
      );
    case 'not-sent':
      return (
        <div className="import-outcome">
          <ErrorNotice
            title={stage.title}
            message={stage.message}
            hint={
              <>
                {stage.code && (
                  <>
                    Code <Code>{stage.code}</Code>.{' '}
                  </>
                )}
                <button type="button" className="link-button" onClick={onDismiss}>
                  Dismiss
                </button>
              </>
            }
          />
        </div>
      );
    case 'job':
      return (
        <JobStatus
          progress={stage.progress}
          cancelRequested={stage.cancelRequested}
          finishedWhileAway={stage.finishedWhileAway === true}
          onCancel={onCancel}
          onDismiss={onDismiss}
        />
      );
  }
}

function JobStatus({
  progress,
  cancelRequested,
  finishedWhileAway,
  onCancel,
  onDismiss,
}: {
  progress: ImportProgress;
  cancelRequested: boolean;
  finishedWhileAway: boolean;
  onCancel: () => void;
  onDismiss: () => void;
}): ReactNode {
  if (progress.state === 'failed') {
    const code = progress.error?.code ?? 'import_failed';
    const reason = refusalReason(code);
    return (
      <div className="import-outcome" data-testid="import-refused">
        <ErrorNotice
          title={reason.refused ? `Bundle refused: ${reason.words}` : `Import failed: ${reason.words}`}
          message={progress.error?.message ?? 'The importer gave no reason.'}
          hint={
            <>
              <span className="refusal-facts">
                <span>
                  File <strong>{progress.fileName}</strong>
                </span>
                <span>
                  Code <Code>{code}</Code>
                </span>
              </span>
              <span className="refusal-written">
                {reason.refused
                  ? 'Nothing was written: your ledger is exactly as it was before.'
                  : 'The ledger may hold part of this bundle.'}
              </span>{' '}
              {reason.advice}{' '}
              <button type="button" className="link-button" onClick={onDismiss}>
                Dismiss
              </button>
            </>
          }
        />
      </div>
    );
  }
  if (progress.state === 'cancelled') {
    return (
      <div className="notice notice-warn import-outcome" role="status" data-testid="import-cancelled">
        <p className="notice-title">Import of {progress.fileName} cancelled</p>
        <p>
          {progress.error?.message ?? 'Receipts already stored are kept; importing the same bundle again finishes it.'}
        </p>
        <p className="notice-hint">
          {progress.receiptsVerified > 0
            ? `${formatCount(progress.receiptsVerified)} of ${formatCount(progress.receiptsTotal)} receipts had been verified. `
            : 'It stopped before any receipt was stored. '}
          <button type="button" className="link-button" onClick={onDismiss}>
            Dismiss
          </button>
        </p>
      </div>
    );
  }
  if (progress.state === 'done') {
    if (finishedWhileAway) {
      return (
        <div className="notice notice-info import-outcome" role="status" data-testid="import-finished-away">
          <p className="notice-title">Import of {progress.fileName} finished</p>
          <p>
            {formatCount(progress.receiptsTotal)} receipts were checked and stored while you were on another page.{' '}
            {progress.bundleId !== undefined && <a href={hrefFor(['bundles', progress.bundleId])}>Open the bundle</a>}{' '}
            <button type="button" className="link-button" onClick={onDismiss}>
              Dismiss
            </button>
          </p>
        </div>
      );
    }
    if (!cancelRequested) {
      return (
        <div className="import-progress" role="status">
          <p className="import-title">Imported {progress.fileName}. Opening the bundle…</p>
        </div>
      );
    }
    return (
      <div className="notice notice-info import-outcome" role="status" data-testid="import-cancel-too-late">
        <p className="notice-title">The import finished before it could be cancelled</p>
        <p>
          {progress.fileName} was imported completely: {formatCount(progress.receiptsTotal)} receipts.{' '}
          {progress.bundleId !== undefined && <a href={hrefFor(['bundles', progress.bundleId])}>Open the bundle</a>}
        </p>
      </div>
    );
  }
  const unit = progress.phase === 'checking' ? 'files' : 'receipts';
  return (
    <div
      className="import-progress"
      role="status"
      aria-live="polite"
      data-testid="import-progress"
      data-phase={progress.phase}
    >
      <div className="import-progress-head">
        <p className="import-title">
          <span className="spinner" aria-hidden="true" /> Importing {progress.fileName}: {phaseWords(progress.phase)}
        </p>
        <Button variant="danger" onClick={onCancel} disabled={cancelRequested}>
          {cancelRequested ? 'Cancelling…' : 'Cancel import'}
        </Button>
      </div>
      <div className="import-bars">
        <div>
          <p className="import-bar-label">
            <span>Files checked</span>
            <span data-testid="files-read">
              {formatCount(progress.filesRead)} / {formatCount(progress.filesTotal)}
            </span>
          </p>
          <ProgressBar label="Files checked" done={progress.filesRead} total={progress.filesTotal} />
        </div>
        <div>
          <p className="import-bar-label">
            <span>Receipts verified</span>
            <span data-testid="receipts-verified">
              {formatCount(progress.receiptsVerified)} /{' '}
              {progress.receiptsTotal > 0 ? formatCount(progress.receiptsTotal) : '…'}
            </span>
          </p>
          <ProgressBar label="Receipts verified" done={progress.receiptsVerified} total={progress.receiptsTotal} />
        </div>
      </div>
      <p className="import-rate muted">
        <span>
          {formatCount(progress.perSecond)} {unit}/s
        </span>
        <span>Time left: {formatSecondsLeft(progress.secondsLeft)}</span>
        {cancelRequested && <span>Cancel requested: stopping at the next safe point…</span>}
      </p>
    </div>
  );
}
