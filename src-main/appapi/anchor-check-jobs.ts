/**
 * "Check these on chain" as background jobs the renderer polls: start, progress, cancel (the
 * pattern of import-jobs.ts). A job keeps its last counts and, at the end, its error if any.
 */
import { randomBytes } from 'node:crypto';
import type { AnchorCheckJobProgress, AnchorCheckScope, ChainSettings } from '../../src-shared/api/contract';
import { checkAnchorsOnChain, noChainRpc } from '../operations/anchor-check-many';
import { describeError, internalLogLine } from '../operations/errors';
import type { Workspace } from '../operations/workspace';

interface Job {
  progress: AnchorCheckJobProgress;
  controller: AbortController;
}

/** Finished jobs are kept this long so a slow poller still sees the result. */
const KEEP_FINISHED_MS = 60 * 60 * 1000;

/** The anchor check jobs of one app instance. */
export interface AnchorCheckJobs {
  /** `contextPacks`: context packs are imported, so the job may run without an RPC. */
  start(
    workspace: Workspace,
    scope: AnchorCheckScope,
    chain: ChainSettings,
    contextPacks?: boolean,
  ): AnchorCheckJobProgress;
  progress(jobId: string): AnchorCheckJobProgress | undefined;
  cancel(jobId: string): AnchorCheckJobProgress | undefined;
}

/**
 * The job registry.
 *
 * @param log - Where a job's internal fault is logged (its error carries only the correlation id).
 * @returns The registry.
 */
export function createAnchorCheckJobs(log: (line: string) => void = () => undefined): AnchorCheckJobs {
  const jobs = new Map<string, Job>();

  function prune(): void {
    const now = Date.now();
    for (const [id, job] of jobs) {
      const ended = job.progress.finishedAt;
      if (ended !== null && now - ended > KEEP_FINISHED_MS) jobs.delete(id);
    }
  }

  return {
    start(workspace, scope, chain, contextPacks = false) {
      prune();
      if (chain.rpc_url === null && !contextPacks) throw noChainRpc();
      const jobId = randomBytes(12).toString('base64url');
      const job: Job = {
        progress: {
          jobId,
          state: 'running',
          phase: 'collecting',
          scope,
          rpc: chain.rpc_url,
          total: 0,
          checked: 0,
          verified: 0,
          failed: 0,
          pending: 0,
          unanswered: 0,
          verified_with_context: 0,
          skipped: 0,
          startedAt: Date.now(),
          finishedAt: null,
        },
        controller: new AbortController(),
      };
      jobs.set(jobId, job);
      const finish = (update: Partial<AnchorCheckJobProgress>): void => {
        job.progress = { ...job.progress, ...update, finishedAt: Date.now() };
      };
      checkAnchorsOnChain(workspace, scope, chain, {
        contextPacks,
        signal: job.controller.signal,
        onProgress: (event) => {
          if (job.progress.state === 'running') job.progress = { ...job.progress, ...event };
        },
      }).then(
        (counts) => finish({ ...counts, state: 'done', phase: 'done' }),
        (error: unknown) => {
          if (job.controller.signal.aborted) {
            finish({
              state: 'cancelled',
              phase: 'cancelled',
              error: {
                code: 'cancelled',
                message: 'The check was cancelled; the records checked before are recorded.',
                details: [],
              },
            });
            return;
          }
          const { envelope, internal } = describeError(error);
          if (internal !== undefined) log(`anchor check ${jobId}: ${internalLogLine(internal)}`);
          finish({ state: 'failed', phase: 'failed', error: envelope });
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
