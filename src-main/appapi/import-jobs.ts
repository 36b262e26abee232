/**
 * Bundle imports as background jobs the renderer polls: start, progress, cancel.
 *
 * Polling works the same over IPC and HTTP, so the two transports stay one contract. A job keeps
 * its last progress event and, at the end, its result or its error.
 */
import { randomBytes } from 'node:crypto';
import type { ImportProgress } from '../../src-shared/api/contract';
import { importBundle, type ImportOptions, type ImportResult } from '../evidence/import-bundle';
import type { Ledger } from '../ledger';

interface Job {
  progress: ImportProgress;
  controller: AbortController;
  cleanup: (() => void) | undefined;
}

/** Finished jobs are kept this long so a slow poller still sees the result. */
const KEEP_FINISHED_MS = 60 * 60 * 1000;

export interface ImportJobs {
  start(ledger: Ledger, file: string, fileName: string, options: ImportOptions, cleanup?: () => void): ImportProgress;
  progress(jobId: string): ImportProgress | undefined;
  cancel(jobId: string): ImportProgress | undefined;
}

/** The job registry of one app instance. */
export function createImportJobs(): ImportJobs {
  const jobs = new Map<string, Job>();

  function prune(): void {
    const now = Date.now();
    for (const [id, job] of jobs) {
      const finishedAt = (job.progress as ImportProgress & { finishedAt?: number }).finishedAt;
      if (finishedAt !== undefined && now - finishedAt > KEEP_FINISHED_MS) jobs.delete(id);
    }
  }

  return {
    start(ledger, file, fileName, options, cleanup) {
      prune();
      const jobId = randomBytes(12).toString('base64url');
      const job: Job = {
        progress: { jobId, state: 'running', fileName, phase: 'starting', filesRead: 0, filesTotal: 0, receiptsVerified: 0, receiptsTotal: 0, perSecond: 0, secondsLeft: null },
        controller: new AbortController(),
        cleanup,
      };
      jobs.set(jobId, job);
      const finish = (update: Partial<ImportProgress>): void => {
        job.progress = { ...job.progress, ...update, finishedAt: Date.now() } as ImportProgress;
        job.cleanup?.();
        job.cleanup = undefined;
      };
      importBundle(ledger, file, {
        ...options,
        fileName,
        signal: job.controller.signal,
        onProgress: (event) => {
          if (job.progress.state === 'running') job.progress = { ...job.progress, ...event, phase: event.phase };
        },
      }).then(
        (result: ImportResult) => finish({ state: 'done', phase: 'done', result, bundleId: result.bundle.id, secondsLeft: 0 }),
        (error: unknown) => {
          if (job.controller.signal.aborted) {
            finish({ state: 'cancelled', phase: 'cancelled', error: { code: 'cancelled', message: 'The import was cancelled; receipts already stored are kept and importing the bundle again finishes it.' } });
            return;
          }
          const code = (error as { code?: string }).code ?? 'import_failed';
          finish({ state: 'failed', phase: 'failed', error: { code, message: error instanceof Error ? error.message : String(error) } });
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
