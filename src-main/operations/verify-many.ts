/**
 * Verifying many documents named by path, on this thread and on worker threads beside it, with
 * the outcomes handed back in input order: the scheduler behind `evroom verify FILE...`.
 *
 * Over many inputs (at least {@link POOL_MIN_INPUTS}, with more than one job), jobs - 1 worker
 * threads read and verify files themselves (the pool's `files` mode) while this thread verifies
 * its own share in small chunks and turns back to the event loop between them to take in the
 * workers' answers, hand them on and refill the workers. A few inputs are verified here alone:
 * starting a worker costs more. The door renders each outcome; nothing here writes output.
 */
import type { VerifyContext } from '../../src-shared/verify/context';
import type { Report } from '../../src-shared/verify/report';
import { DocumentReadError, readDocumentFile } from '../core/read-document';
import {
  createVerifyPool,
  VerifyWorkerUnavailableError,
  type ReportResult,
  type VerifyPool,
} from '../core/worker-pool';
import { verifyReport } from './verify';

/**
 * What became of one input: its report (verified here), its report as JSON with its statuses
 * (verified by a worker), or why it could not be read.
 */
export type VerifyOutcome = { report: Report } | ReportResult | { error: string };

/** Options of {@link verifyMany}. */
export interface VerifyManyOptions {
  /** Keys, trust, secrets and the instant every input is judged with (the workers get the same). */
  context: VerifyContext;
  /** Threads to use, this one included (1: this thread alone). */
  jobs: number;
  /** The outcome of reading standard input, when an input is `-` (read by the caller first). */
  stdin?: { bytes: Uint8Array } | { error: string };
  /**
   * Receives the outcomes in input order, each run as soon as everything before it was handed
   * on. A throw stops the run (and is thrown by verifyMany).
   */
  emit(start: number, outcomes: VerifyOutcome[]): void;
}

/** Inputs from this many on are verified on worker threads too (when --jobs is above 1). */
export const POOL_MIN_INPUTS = 256;
/** Inputs this thread verifies between two writes when it works alone. */
const CHUNK_ALONE = 64;
/**
 * Inputs this thread verifies between two turns of the event loop when workers work beside it:
 * few, so that it soon takes in the workers' answers, writes them and gives the workers more.
 */
const CHUNK_BESIDE_WORKERS = 8;
/** Most files per worker batch: enough to make a message cheap beside the work. */
const WORKER_BATCH = 32;
/** Fewest files per worker batch, near the end of the inputs. */
const WORKER_BATCH_MIN = 4;
/** Batches in flight per worker: a worker always has the next batch while its answer travels. */
const WORKER_DEPTH = 4;

/**
 * Verifies every input and hands the outcomes to `emit` in input order, each run of answers as
 * soon as everything before it has been emitted.
 *
 * Without a pool this thread reads and verifies the inputs in chunks. With one, the workers are
 * kept busy first: each has up to WORKER_DEPTH batches of paths in flight (it reads the files
 * itself), batches shrinking near the end so that the threads finish together; meanwhile this
 * thread verifies the next few inputs itself, then turns back to the event loop to take in
 * answers, write what is ready and refill the workers. Standard input (`stdinIndex`) is never
 * sent to a worker. A batch whose worker stopped (it is replaced) is verified on this thread, as
 * are the inputs met while no worker runs; a worker's failure on a batch (a defect, not a bad
 * file) stops everything and is thrown.
 */
async function verifyInOrder(
  inputs: readonly string[],
  verifyHere: (input: string) => VerifyOutcome,
  pool: VerifyPool | undefined,
  stdinIndex: number,
  emit: (start: number, outcomes: VerifyOutcome[]) => void,
): Promise<void> {
  const count = inputs.length;
  if (pool === undefined) {
    for (let start = 0; start < count; start += CHUNK_ALONE) {
      emit(start, inputs.slice(start, start + CHUNK_ALONE).map(verifyHere));
    }
    return;
  }
  const threads = pool.size + 1;
  /** Answers not yet emitted, by the index of their first input. */
  const ready = new Map<number, VerifyOutcome[]>();
  let written = 0;
  let next = 0;
  let inFlight = 0;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;

  function flush(): void {
    let answers = ready.get(written);
    while (answers !== undefined) {
      ready.delete(written);
      emit(written, answers);
      written += answers.length;
      answers = ready.get(written);
    }
  }
  function refill(): void {
    while (
      failure === undefined &&
      (pool as VerifyPool).available &&
      inFlight < (pool as VerifyPool).size * WORKER_DEPTH &&
      next < count &&
      next !== stdinIndex
    ) {
      const start = next;
      const share = Math.ceil((count - start) / (threads * WORKER_DEPTH));
      let end = Math.min(count, start + Math.min(WORKER_BATCH, Math.max(WORKER_BATCH_MIN, share)));
      if (stdinIndex > start && stdinIndex < end) end = stdinIndex;
      next = end;
      inFlight += 1;
      (pool as VerifyPool).reportFiles(inputs.slice(start, end)).then(
        (results) => {
          inFlight -= 1;
          ready.set(start, results);
          try {
            flush();
            refill();
          } catch (error) {
            // A failed write (or a defect in rendering) stops the run as it would on this thread.
            failure ??= { error };
          }
          wake?.();
        },
        (error: unknown) => {
          inFlight -= 1;
          try {
            // The worker stopped with this batch: nothing of it was answered, so it is verified
            // here (the pool replaces the worker and takes the next batches).
            if (!(error instanceof VerifyWorkerUnavailableError) || error.reason === 'closed') throw error;
            ready.set(start, inputs.slice(start, end).map(verifyHere));
            flush();
            refill();
          } catch (thrown) {
            failure ??= { error: thrown };
          }
          wake?.();
        },
      );
    }
  }

  while (failure === undefined && (next < count || inFlight > 0)) {
    refill();
    if (next < count) {
      const start = next;
      const end = Math.min(count, start + CHUNK_BESIDE_WORKERS);
      next = end;
      ready.set(start, inputs.slice(start, end).map(verifyHere));
      flush();
      await new Promise((resolve) => setImmediate(resolve));
    } else {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  }
  if (failure !== undefined) throw failure.error;
  flush();
}

/**
 * Verify every input and hand the outcomes on in input order.
 *
 * @param inputs - File paths; `-` (at most once) is standard input, whose outcome the caller
 *   passes as `stdin` and which is never sent to a worker.
 * @param options - Context, jobs, standard input and the listener.
 * @returns When every outcome was handed on.
 * @throws The error of a worker that failed (a defect, never a bad file) or of `emit`.
 */
export async function verifyMany(inputs: readonly string[], options: VerifyManyOptions): Promise<void> {
  if (!Array.isArray(inputs)) throw new TypeError('verifyMany: inputs must be an array of paths');
  const { context, jobs, stdin, emit } = options;
  if (!Number.isSafeInteger(jobs) || jobs < 1) throw new RangeError('verifyMany: jobs must be a positive integer');
  const stdinIndex = inputs.indexOf('-');
  if (stdinIndex >= 0 && stdin === undefined) throw new TypeError('verifyMany: standard input is named but not given');
  function verifyHere(input: string): VerifyOutcome {
    if (input === '-') {
      const read = stdin as { bytes: Uint8Array } | { error: string };
      return 'error' in read ? read : { report: verifyReport(read.bytes, context) };
    }
    let bytes: Uint8Array;
    try {
      bytes = readDocumentFile(input);
    } catch (error) {
      if (error instanceof DocumentReadError) return { error: error.message };
      throw error;
    }
    return { report: verifyReport(bytes, context) };
  }
  const pool =
    jobs > 1 && inputs.length >= POOL_MIN_INPUTS
      ? createVerifyPool({
          pinned: context.pinned,
          advertised: context.advertised,
          secrets: context.secrets,
          now: context.now,
          size: jobs - 1,
        })
      : undefined;
  try {
    await verifyInOrder(inputs, verifyHere, pool, stdinIndex, emit);
  } finally {
    await pool?.close();
  }
}
