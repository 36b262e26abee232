/**
 * "Check these on chain": checks every anchor record of the receipts a filter selects, or of
 * one batch, against the chain RPC set in Settings, as a job with progress (start, progress,
 * cancel, result), polled as an import is. Without an RPC the button is disabled and says what
 * to set, and where.
 */
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { AnchorCheckJobProgress, AppApiParams } from '../../src-shared/api/contract';
import { api, errorMessage } from '../api';
import { hrefFor } from '../router';
import { ErrorNotice, formatCount } from './ui';
import './anchor-ledger.css';

/** How often a running job is asked for its progress. */
const POLL_MS = 300;

function plural(count: number, one: string, many: string): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/** The counts of a job in words. */
function countsText(job: AnchorCheckJobProgress): string {
  const parts = [`${formatCount(job.verified)} verified`, `${formatCount(job.failed)} failed`];
  if (job.verified_with_context > 0)
    parts.splice(1, 0, `${formatCount(job.verified_with_context)} verified with context (from a pack)`);
  parts.push(`${formatCount(job.pending)} still pending`);
  if (job.unanswered > 0) parts.push(`${formatCount(job.unanswered)} not answered by the chain`);
  if (job.skipped > 0) parts.push(`${formatCount(job.skipped)} skipped (receipt not in the ledger)`);
  return parts.join(' · ');
}

/**
 * The button, its progress and its result.
 *
 * @param input - What to check: `{filters}` (the receipts a filter selects) or `{batch_id}`.
 * @param label - The button's words, e.g. "Check these on chain".
 * @param what - What is checked, for the messages, e.g. "the 6 receipts these filters select".
 * @param onFinished - Called when a job ends (done, failed or cancelled), to reload what it changed.
 */
export function AnchorCheckControl({
  input,
  label,
  what,
  onFinished,
}: {
  input: AppApiParams['anchors.checkStart'];
  label: string;
  what: string;
  onFinished?: () => void;
}) {
  const id = useId();
  const [rpc, setRpc] = useState<string | null | undefined>(undefined);
  /** How many context packs are imported: without an RPC, they answer steps 2-3. */
  const [packs, setPacks] = useState(0);
  const [job, setJob] = useState<AnchorCheckJobProgress | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [starting, setStarting] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  const finishedRef = useRef(onFinished);
  finishedRef.current = onFinished;

  useEffect(() => {
    let live = true;
    Promise.all([api['settings.get'](), api['context.list']()]).then(
      ([settings, packs]) => {
        if (!live) return;
        setPacks(packs.length);
        setRpc(settings.chain.rpc_url);
      },
      (reason: unknown) => {
        if (live) setError(errorMessage(reason));
      },
    );
    return () => {
      live = false;
      window.clearTimeout(timer.current);
    };
  }, []);

  const poll = useCallback((jobId: string) => {
    timer.current = window.setTimeout(() => {
      api['anchors.checkProgress']({ jobId }).then(
        (progress) => {
          setJob(progress);
          if (progress.state === 'running') poll(jobId);
          else finishedRef.current?.();
        },
        (reason: unknown) => setError(errorMessage(reason)),
      );
    }, POLL_MS);
  }, []);

  const start = async (): Promise<void> => {
    setError(undefined);
    setStarting(true);
    try {
      const progress = await api['anchors.checkStart'](input);
      setJob(progress);
      poll(progress.jobId);
    } catch (reason) {
      setError(errorMessage(reason));
    } finally {
      setStarting(false);
    }
  };

  const cancel = async (): Promise<void> => {
    if (!job) return;
    try {
      setJob(await api['anchors.checkCancel']({ jobId: job.jobId }));
    } catch (reason) {
      setError(errorMessage(reason));
    }
  };

  const running = job?.state === 'running';
  const noRpc = rpc === null && packs === 0;
  return (
    <div className="anchor-check" data-testid="anchor-check">
      <div className="anchor-check-row">
        <button
          type="button"
          className="button button-secondary"
          onClick={() => void start()}
          disabled={rpc === undefined || noRpc || running || starting}
          aria-describedby={noRpc ? `${id}-why` : undefined}
          data-testid="anchor-check-start"
        >
          <span aria-hidden="true">⚓ </span>
          {label}
        </button>
        {running && (
          <button
            type="button"
            className="button button-ghost"
            onClick={() => void cancel()}
            data-testid="anchor-check-cancel"
          >
            Cancel
          </button>
        )}
        {noRpc && (
          <p id={`${id}-why`} className="anchor-check-why" data-testid="anchor-check-why">
            No chain RPC is set and no context pack is imported, so nothing can be checked on chain. Set the chain RPC
            URL, or import a context pack, in <a href={hrefFor(['settings'])}>Settings</a>.
          </p>
        )}
        {rpc && !job && (
          <p className="anchor-check-why muted">
            Checks steps 1-3 of every anchor record of {what} against {rpc}
            {packs > 0 ? ', or from the imported context packs when it does not answer' : ''}.
          </p>
        )}
        {rpc === null && packs > 0 && !job && (
          <p className="anchor-check-why muted" data-testid="anchor-check-from-packs">
            No chain RPC is set: checks steps 1-3 of every anchor record of {what} from the imported context packs.
          </p>
        )}
      </div>
      {job && (
        <div
          className="anchor-check-progress"
          role="status"
          aria-live="polite"
          data-testid="anchor-check-progress"
          data-job-state={job.state}
        >
          {job.state === 'running' && (
            <>
              <progress
                max={Math.max(1, job.total)}
                value={job.phase === 'collecting' ? undefined : job.checked}
                aria-label="Anchor records checked"
              />
              <span>
                {job.phase === 'collecting'
                  ? `Finding the anchor records of ${what}… ${plural(job.total, 'record', 'records')} so far`
                  : `Checked ${formatCount(job.checked)} of ${plural(job.total, 'anchor record', 'anchor records')} on chain · ${countsText(job)}`}
              </span>
            </>
          )}
          {job.state === 'done' && (
            <span data-testid="anchor-check-result">
              <strong>Done:</strong>{' '}
              {job.total === 0
                ? `${what} has no anchor record to check.`
                : `checked ${plural(job.total, 'anchor record', 'anchor records')} ${job.rpc === null ? 'from the imported context packs' : `against ${job.rpc}`} · ${countsText(job)}.`}
            </span>
          )}
          {job.state === 'cancelled' && (
            <span data-testid="anchor-check-result">
              <strong>Cancelled</strong> after {plural(job.checked, 'record', 'records')} of {formatCount(job.total)} ·{' '}
              {countsText(job)}. What was checked is recorded.
            </span>
          )}
          {job.state === 'failed' && (
            <span data-testid="anchor-check-result">
              <strong>The check stopped:</strong> {job.error?.message ?? 'unknown error'} ({countsText(job)}).
            </span>
          )}
        </div>
      )}
      {error && <ErrorNotice title="Could not check on chain" message={error} />}
    </div>
  );
}
