/**
 * Bundle imports as background jobs the renderer polls: start, progress, cancel.
 *
 * Polling works the same over IPC and HTTP, so the two transports stay one contract. A job keeps
 * its last progress event and, at the end, its result or its error.
 */
import { randomBytes } from 'node:crypto';
import type { ImportOutcome, ImportProgress } from '../../src-shared/api/contract';
import { ImportInterruptedError, type ImportOptions, type ImportResult } from '../operations/import';
import { describeError, internalLogLine } from '../operations/errors';
import { importEvidence } from '../operations/evidence';
import type { Workspace } from '../operations/workspace';

interface Job {
  progress: ImportProgress;
  /** When the job ended (ms since the epoch), for pruning. */
  finishedAt: number | undefined;
  controller: AbortController;
  cleanup: (() => void) | undefined;
}

/** Finished jobs are kept this long so a slow poller still sees the result. */
const KEEP_FINISHED_MS = 60 * 60 * 1000;

export interface ImportJobs {
  start(
    workspace: Workspace,
    file: string,
    fileName: string,
    options: ImportOptions,
    cleanup?: () => void,
  ): ImportProgress;
  progress(jobId: string): ImportProgress | undefined;
  cancel(jobId: string): ImportProgress | undefined;
}

/**
 * The job registry of one app instance.
 *
 * @param log - Where the log line of a job's internal fault goes (the job's error carries only
 *   its correlation id).
 */
export function createImportJobs(log: (line: string) => void = () => undefined): ImportJobs {
  const jobs = new Map<string, Job>();

  function prune(): void {
    const now = Date.now();
    for (const [id, job] of jobs) {
      if (job.finishedAt !== undefined && now - job.finishedAt > KEEP_FINISHED_MS) jobs.delete(id);
    }
  }

  return {
    start(workspace, file, fileName, options, cleanup) {
      prune();
      const jobId = randomBytes(12).toString('base64url');
      const job: Job = {
        progress: {
          jobId,
          state: 'running',
          fileName,
          phase: 'starting',
          filesRead: 0,
          filesTotal: 0,
          receiptsVerified: 0,
          receiptsTotal: 0,
          perSecond: 0,
          secondsLeft: null,
        },
        controller: new AbortController(),
        cleanup,
        finishedAt: undefined,
      };
      jobs.set(jobId, job);
      const finish = (update: Partial<ImportProgress>): void => {
        job.progress = { ...job.progress, ...update };
        job.finishedAt = Date.now();
        job.cleanup?.();
        job.cleanup = undefined;
      };
      importEvidence(workspace, file, {
        ...options,
        fileName,
        signal: job.controller.signal,
        onProgress: (event) => {
          if (job.progress.state === 'running') job.progress = { ...job.progress, ...event, phase: event.phase };
        },
      }).then(
        (result: ImportResult) =>
          finish({ state: 'done', phase: 'done', result: outcome(result), bundleId: result.bundle.id, secondsLeft: 0 }),
        (error: unknown) => {
          if (job.controller.signal.aborted) {
            finish({
              state: 'cancelled',
              phase: 'cancelled',
              error: {
                code: 'cancelled',
                message:
                  'The import was cancelled; receipts already stored are kept and importing the bundle again finishes it.',
                details: [],
              },
            });
            return;
          }
          const { envelope, internal } = describeError(error);
          // An import that stopped part-way (a storage failure, a worker that died) says so in
          // its own words; it is not a fault the user cannot act on.
          const stopped = internal !== undefined && error instanceof ImportInterruptedError;
          if (internal !== undefined && !stopped) log(`import ${job.progress.jobId}: ${internalLogLine(internal)}`);
          finish({
            state: 'failed',
            phase: 'failed',
            error: stopped ? { code: 'import_interrupted', message: error.message, details: [] } : envelope,
          });
        },
      );
      return job.progress;
    },
    progress(jobId) {
      return jobs.get(jobId)?.progress;
    },
    cancel(jobId) {
      const job = jobs.get(jobId);
      if (!job) return undefined;
      if (job.progress.state === 'running') job.controller.abort();
      return job.progress;
    },
  };
}

/** What the renderer is told of a finished import. */
function outcome(result: ImportResult): ImportOutcome {
  return {
    receipts: result.counts.receipts,
    receiptsNew: result.counts.receiptsNew,
    receiptsKnown: result.counts.receiptsKnown,
    findings: result.totalFindings,
    alreadyImported: result.alreadyImported,
    resumed: result.resumed,
  };
}
