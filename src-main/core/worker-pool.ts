/**
 * A pool of worker threads that verify documents in bulk with the node:crypto provider.
 *
 * Verification is synchronous and CPU-bound (PROTOCOL section 1 reports, OpenSSL Ed25519), so
 * the main process hands batches of document bytes to N workers, each with its own provider
 * and a VerifyContext built once from the pinned and advertised keys given at start. A batch's
 * bytes travel in one transferred ArrayBuffer (no copy across the thread boundary); a batch of
 * a few hundred documents amortises the messaging.
 *
 * For `evroom verify` over many files the pool can also be given paths (`reportFiles`): each
 * worker then reads its files itself (core/read-document.ts), so reading is spread over the
 * workers too and the main thread only sends names and writes answers.
 *
 * Where the workers' code comes from (a built file, or the TypeScript source bundled once per
 * process) is worker-source.ts's business.
 *
 * A worker that stops (an uncaught exception, running out of memory, `terminateWorker`) is
 * replaced: the calls it held reject with {@link VerifyWorkerUnavailableError} (reason
 * `worker_lost`; nothing is known of their documents, so they can be sent again), and every
 * other call goes on on the other workers and then on the replacement. The first replacement
 * starts at once; when a worker stops again within {@link WORKER_HEALTHY_MS} of starting, the
 * next one waits {@link WORKER_RESTART_MIN_DELAY_MS}, then twice as long each time, up to
 * {@link WORKER_RESTART_MAX_DELAY_MS}, so a worker that cannot start is retried, never in a hot
 * loop. While no worker runs (all waiting to be replaced), the pool is not `available` and
 * refuses calls at once with reason `no_worker`, so callers with a thread of their own verify
 * there rather than wait. `onEvent` tells the owner of each stop and of each change of
 * availability (the service logs them: one line per change, none per call).
 *
 * @example
 * const pool = createVerifyPool({ pinned: trust.pinnedEntries(), advertised: bundleKeys });
 * try {
 *   const facts = await pool.verify(batchOfDocuments); // one VerifiedReceipt per document, in order
 * } finally {
 *   await pool.close();
 * }
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { KeyEntry, SecretEntry } from '../../src-shared/verify/context';
import type { ReportStatus, TrustStatus } from '../../src-shared/verify/report';
import type { VerifiedReceipt } from './receipt-facts';
import type { RequestKeys } from './verify-request';
import { verifyWorkerSource } from './worker-source';

/** Documents per message that keep the messaging cost small against verification (~256). */
export const DEFAULT_VERIFY_BATCH_SIZE = 256;

/** The most workers a pool starts; beyond the core count more threads only add contention. */
export const MAX_POOL_SIZE = 64;

/** Options of {@link createVerifyPool}. */
export interface VerifyPoolOptions {
  /** The trust store's entries (`VerifyContext.pinned`). */
  pinned?: readonly KeyEntry[];
  /** Keys that came with the input (`VerifyContext.advertised`); never trusted. */
  advertised?: readonly KeyEntry[];
  /** Secrets for sealed documents. */
  secrets?: readonly SecretEntry[];
  /** The instant validity windows are judged at (default: now, fixed for the pool's life). */
  now?: Date;
  /** How many workers (default `os.availableParallelism()`, 1 to {@link MAX_POOL_SIZE}). */
  size?: number;
  /**
   * Told when a worker stops and when the pool becomes unavailable or available again (see
   * {@link VerifyPoolEvent}); called on the pool's thread, never for calls.
   */
  onEvent?: (event: VerifyPoolEvent) => void;
}

/** A replacement worker starts at once after a stop, and after a stop of a worker younger than this ({@link WORKER_HEALTHY_MS}) waits at least this long. */
export const WORKER_RESTART_MIN_DELAY_MS = 100;

/** The longest wait before a worker is replaced (the doubling stops here). */
export const WORKER_RESTART_MAX_DELAY_MS = 30_000;

/** A worker that ran this long before it stopped was healthy: its replacement starts at once, and the doubling starts over. */
export const WORKER_HEALTHY_MS = 10_000;

/** Why a call found no worker to answer it (see {@link VerifyWorkerUnavailableError}). */
export type VerifyWorkerUnavailableReason = 'worker_lost' | 'no_worker' | 'closed';

/**
 * A call no worker answered: the worker that held it stopped (`worker_lost`), no worker is
 * running while the stopped ones wait to be replaced (`no_worker`), or the pool is closed
 * (`closed`). Nothing is known about the call's documents, so it can be made again: on the
 * calling thread, or (except when closed) on the pool later.
 */
export class VerifyWorkerUnavailableError extends Error {
  /** Why no worker answered. */
  readonly reason: VerifyWorkerUnavailableReason;
  constructor(reason: VerifyWorkerUnavailableReason, message: string) {
    super(message);
    this.name = 'VerifyWorkerUnavailableError';
    this.reason = reason;
  }
}

/**
 * What the pool tells its owner ({@link VerifyPoolOptions.onEvent}):
 *
 * - `worker_start`: a worker started in slot `index` (thread `threadId`); `restarts` is how many
 *   replacements the slot has started (0 for the first worker).
 * - `worker_exit`: worker `index` (thread `threadId`, -1 for one that could not start) stopped unexpectedly, for `reason`; the
 *   calls it held were rejected, and its replacement starts in `restartInMs` (0: already started).
 * - `unavailable`: no worker is running now (calls are refused with reason `no_worker`).
 * - `available`: a worker is running again after `unavailable`.
 */
export type VerifyPoolEvent =
  | { kind: 'worker_start'; index: number; threadId: number; restarts: number }
  | { kind: 'worker_exit'; index: number; threadId: number; reason: string; restartInMs: number }
  | { kind: 'unavailable' }
  | { kind: 'available' };

/** One worker slot as {@link VerifyPool.stats} reports it. */
export interface VerifyWorkerStats {
  /** The slot's index (0 to size - 1), stable across replacements. */
  index: number;
  /** The running worker's thread id, or null while the slot waits for its replacement. */
  threadId: number | null;
  /** Calls sent to the running worker and not yet answered. */
  inFlight: number;
  /** Calls the running worker has answered (starts at 0 for each replacement). */
  answered: number;
  /** How many replacements this slot has started. */
  restarts: number;
}

/** The state of a pool ({@link VerifyPool.stats}). */
export interface VerifyPoolStats {
  /** Whether a call would be sent to a worker now (see {@link VerifyPool.available}). */
  available: boolean;
  /** One entry per slot, in index order. */
  workers: VerifyWorkerStats[];
}

/**
 * A running pool. Every call rejects with {@link VerifyWorkerUnavailableError} when no worker
 * could answer it (the one holding it stopped, none is running, or the pool is closed), and
 * with a plain Error when its worker failed on it (a defect in the worker's code).
 */
export interface VerifyPool {
  /** The number of workers (slots: a worker that stops is replaced in its slot). */
  readonly size: number;
  /**
   * Whether a worker is running (or starting) to take calls; false once closed, and while every
   * worker that stopped waits for its replacement. Callers that can verify on their own thread
   * check it to do so without a refused call.
   */
  readonly available: boolean;
  /** Each worker's thread id and counts, for the service's operators and for tests. */
  stats(): VerifyPoolStats;
  /**
   * Stop worker `index` as a crash would: the calls it held reject with reason `worker_lost`,
   * and it is replaced as a crashed worker is. For tests and drills; nothing in the app calls it.
   *
   * @param index - 0 to size - 1.
   * @returns When the worker has stopped (at once when the slot has no running worker, or the
   *   pool is closed).
   * @throws RangeError (rejects) for an index outside the pool.
   */
  terminateWorker(index: number): Promise<void>;
  /**
   * Verify a batch of documents on the least busy worker.
   *
   * @param documents - The documents' bytes; they are copied into one buffer, so the caller's
   *   arrays stay usable.
   * @returns One result per document, in the same order.
   * @throws VerifyWorkerUnavailableError or Error (rejects): see {@link VerifyPool}.
   */
  verify(documents: readonly Uint8Array[]): Promise<VerifiedReceipt[]>;
  /**
   * Verify a batch of documents for their reports alone (`verifyReportBytes`, as `evroom
   * verify` prints them: no identity hash, no ledger facts), on the least busy worker.
   *
   * @param documents - The documents' bytes (copied, as for {@link VerifyPool.verify}).
   * @returns One report per document, in the same order.
   * @throws VerifyWorkerUnavailableError or Error (rejects): see {@link VerifyPool}.
   */
  reports(documents: readonly Uint8Array[]): Promise<ReportResult[]>;
  /**
   * Read files and verify them for their reports (as {@link VerifyPool.reports}), on the least
   * busy worker: the worker reads each file itself with `readDocumentFile`.
   *
   * @param paths - The files' paths (not `-`).
   * @returns One result per path, in the same order: the report, or `{ error }` with the one-line
   *   reason the file could not be read (`NAME: no such file`, as `readDocumentFile` says it).
   * @throws VerifyWorkerUnavailableError or Error (rejects): see {@link VerifyPool}; TypeError when `paths`
   *   is not an array of non-empty strings.
   */
  reportFiles(paths: readonly string[]): Promise<FileReportResult[]>;
  /**
   * Make a batch of zip entries' stored bytes into their data on the least busy worker
   * (src-main/core/entry-data.ts: inflate with a cap, size and CRC-32 checks), hash each,
   * and either answer the digests (`verify` false: the import's checking pass) or compare each
   * digest with the expected one and verify the data as {@link VerifyPool.verify} does (`verify`
   * true: the importing pass), answering the data too. The batch's buffers are transferred: the
   * caller's `bytes` and `out` are unusable until the answer gives `data` back (and are lost
   * with a worker that stops: read the entries again to retry).
   *
   * @param batch - The entries (see {@link EntryBatch}).
   * @returns What the worker made of them; a broken rule is `failure` (the first entry that broke
   *   one, in batch order; nothing after it is answered), never a rejection.
   * @throws VerifyWorkerUnavailableError or Error (rejects): see {@link VerifyPool}; TypeError for a batch
   *   whose arrays disagree in length.
   */
  entries(batch: EntryBatch): Promise<EntriesResult>;
  /**
   * Answer one HTTP verify request (core/verify-request.ts) on the least busy worker, in one
   * message with the other single documents asked for in this turn of the event loop: the body is
   * verified there with `keys` (sent to a worker only when they are another object than the last
   * it was given) and the sent keys, at `now`.
   *
   * @param body - The request body (copied).
   * @param keys - The trust store's and the service's keys; pass the same object while they are
   *   unchanged.
   * @param now - The instant validity windows are judged at.
   * @returns The report as JSON text, or the fault of the keys sent with the document.
   * @throws VerifyWorkerUnavailableError or Error (rejects): see {@link VerifyPool}.
   */
  request(body: Uint8Array, keys: RequestKeys, now: Date): Promise<RequestAnswer>;
  /**
   * Verify one document with `keys` at `now`, for its facts as {@link VerifyPool.verify} answers
   * them, on the least busy worker (batched as {@link VerifyPool.request} is): the service's check
   * of a receipt it just signed. `keys` is
   * sent to a worker only when it is another object than the last it was given.
   *
   * @param document - The document's bytes (copied).
   * @param keys - The trust store's keys and the keys that check the signature.
   * @param now - The instant validity windows are judged at.
   * @throws VerifyWorkerUnavailableError or Error (rejects): see {@link VerifyPool}.
   */
  receipt(document: Uint8Array, keys: ReceiptKeys, now: Date): Promise<VerifiedReceipt>;
  /** Stop every worker; pending batches reject (reason `closed`). Calling it twice is harmless. */
  close(): Promise<void>;
}

/** What a worker is started with (`workerData`). */
export interface VerifyWorkerData {
  pinned: KeyEntry[];
  advertised: KeyEntry[];
  secrets: SecretEntry[];
  /** ms since the epoch. */
  now: number;
}

/**
 * One document's report as {@link VerifyPool.reports} answers it: the report as JSON text
 * (text crosses the thread boundary faster than the object tree, and is what `--json` prints),
 * with its two statuses for the caller's exit code.
 */
export interface ReportResult {
  json: string;
  status: ReportStatus;
  trust: TrustStatus;
}

/** One file's outcome as {@link VerifyPool.reportFiles} answers it: its report, or why it was not read. */
export type FileReportResult = ReportResult | { error: string };

/**
 * Zip entries for {@link VerifyPool.entries}: entry i is stored as `bytes[offsets[i] ..
 * offsets[i + 1])`, and its name, method, declared size and CRC-32 are the i-th of each list.
 */
export interface EntryBatch {
  bytes: Uint8Array;
  offsets: Uint32Array;
  names: string[];
  methods: Uint8Array;
  sizes: Float64Array;
  crcs: Uint32Array;
  /** The entry size limit in force (nothing is inflated past it). */
  maxEntryBytes: number;
  /** False: answer digests. True: compare with `expected` and verify, answering data and facts. */
  verify: boolean;
  /** With `verify`: the SHA-256 each entry had when first read, 32 bytes each. */
  expected?: Uint8Array;
  /** With `verify`: where the data is written, at least the sum of `sizes` bytes (it comes back as `data`). */
  out?: Uint8Array;
}

/** A worker's answer to an {@link EntryBatch}. */
export interface EntriesResult {
  /** Without `verify`: each entry's SHA-256, 32 bytes each (those before `failure` only). */
  digests?: Uint8Array;
  /** With `verify`: the batch's `out` buffer, entry i's data at `data[dataOffsets[i] .. dataOffsets[i + 1])`. */
  data?: Uint8Array;
  dataOffsets?: Uint32Array;
  /** With `verify`: one per entry before `failure`, as {@link VerifyPool.verify} answers them. */
  results?: VerifiedReceipt[];
  /**
   * The first entry that broke a rule: its index in the batch and the BundleError's code,
   * message and entry (`zip_changed` when its digest is not the expected one).
   */
  failure?: { index: number; code: string; message: string; entry?: string };
}

/** The message form of an {@link EntryBatch} (buffers as ArrayBuffers, to be transferred). */
export interface EntriesRequest extends Omit<EntryBatch, 'bytes' | 'out'> {
  id: number;
  mode: 'entries';
  bytes: ArrayBuffer;
  out?: ArrayBuffer;
}

/** The keys one document is verified with in mode `receipt`: the trust store's, and keys that check signatures and confer no trust. */
export interface ReceiptKeys {
  pinned: readonly KeyEntry[];
  advertised: readonly KeyEntry[];
}

/**
 * One HTTP verify request (kind `request`, core/verify-request.ts) or one receipt the service
 * signed (kind `receipt`): the bytes, the instant, and the keys when they changed since the
 * last item of that kind this worker was sent.
 */
export type SingleItem =
  | { kind: 'request'; bytes: ArrayBuffer; now: number; keys?: RequestKeys }
  | { kind: 'receipt'; bytes: ArrayBuffer; now: number; keys?: ReceiptKeys };

/**
 * The single documents asked for in one turn of the event loop, in one message (mode
 * `singles`): a message each would cost more than a small document's verification saves.
 */
export interface SinglesMessage {
  id: number;
  mode: 'singles';
  items: SingleItem[];
}

/** A worker's answer to a `request` item: the report as JSON text, or the sent keys' fault (a KeyFileError's path and message). */
export type RequestAnswer = { json: string } | { keyError: { path: string; message: string } };

/** A worker's answer to one {@link SingleItem}, in the order of the message: its answer, or the defect that stopped it. */
export type SingleAnswer = { request: RequestAnswer } | { receipt: VerifiedReceipt } | { error: string };

/**
 * A batch sent to a worker. Document i is `bytes[offsets[i] .. offsets[i + 1])`. `mode`
 * `facts` (the default) answers {@link VerifiedReceipt}s, `report` {@link ReportResult}s.
 * Mode `files` names files instead (`paths`), and answers {@link FileReportResult}s.
 */
export type VerifyRequest =
  | { id: number; bytes: ArrayBuffer; offsets: Uint32Array; mode?: 'facts' | 'report' }
  | { id: number; paths: string[]; mode: 'files' }
  | EntriesRequest
  | SinglesMessage;

/** A worker's answer to one batch. */
export type VerifyResponse =
  | { id: number; results: VerifiedReceipt[] | ReportResult[] | FileReportResult[] }
  | { id: number; entries: EntriesResult }
  | { id: number; singles: SingleAnswer[] }
  | { id: number; error: string };

type Results = VerifiedReceipt[] | ReportResult[] | FileReportResult[] | EntriesResult | SingleAnswer[];

interface Pending {
  resolve(results: Results): void;
  reject(error: Error): void;
}

/** One place for a worker: the running one, or none while its replacement waits. */
interface PoolWorker {
  index: number;
  /** The running (or starting) worker; undefined while the slot waits for its replacement. */
  worker: Worker | undefined;
  /** Its calls in flight (emptied, each rejected, when it stops). */
  pending: Map<number, Pending>;
  /** The keys this worker was last sent in modes `request` and `receipt` (none for a new worker). */
  sent: { request?: RequestKeys | ReceiptKeys; receipt?: RequestKeys | ReceiptKeys };
  /** The running (or last) worker's thread id; -1 before any started. */
  threadId: number;
  /** When the running worker started (ms since the epoch). */
  startedAt: number;
  /** Calls the running worker answered. */
  answered: number;
  /** Stops in a row of workers that ran less than {@link WORKER_HEALTHY_MS}: the backoff's exponent. */
  quickStops: number;
  /** Replacements started in this slot. */
  restarts: number;
  /** The replacement's timer while the slot waits. */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Why the running worker is being stopped, when the pool stops it (terminateWorker). */
  stopping: string | undefined;
}

/**
 * A worker's garbage is short-lived (one batch's parse trees and reports), so a small young
 * generation collects it as well as V8's default does and keeps each worker's memory small.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

function checkList<T>(value: unknown, name: string): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new TypeError(`createVerifyPool: ${name} must be an array`);
  return value as T[];
}

/** The ArrayBuffer of a view that covers all of it (so it can be transferred), else a copy's. */
function wholeBuffer(view: Uint8Array): ArrayBuffer {
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && view.buffer instanceof ArrayBuffer)
    return view.buffer;
  return view.slice().buffer;
}

/**
 * Start a pool of verification workers.
 *
 * @param options - Keys, clock and size.
 * @returns The pool; close it when done (its workers keep the process alive).
 * @throws TypeError for key lists that are not arrays or a clock that is not a valid Date;
 *   RangeError for a size outside 1..{@link MAX_POOL_SIZE}; what starting a thread throws (a
 *   DataCloneError for keys that cannot be copied to one), with no worker left running.
 */
export function createVerifyPool(options: VerifyPoolOptions = {}): VerifyPool {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('createVerifyPool: options must be an object');
  const size = options.size ?? Math.min(availableParallelism(), MAX_POOL_SIZE);
  if (!Number.isSafeInteger(size)) throw new TypeError('createVerifyPool: size must be an integer');
  if (size < 1 || size > MAX_POOL_SIZE) throw new RangeError(`createVerifyPool: size must be 1 to ${MAX_POOL_SIZE}`);
  const now = options.now ?? new Date();
  if (!(now instanceof Date) || !Number.isFinite(now.getTime()))
    throw new TypeError('createVerifyPool: now must be a valid Date');
  const data: VerifyWorkerData = {
    pinned: checkList<KeyEntry>(options.pinned, 'pinned'),
    advertised: checkList<KeyEntry>(options.advertised, 'advertised'),
    secrets: checkList<SecretEntry>(options.secrets, 'secrets'),
    now: now.getTime(),
  };

  const onEvent = options.onEvent;
  if (onEvent !== undefined && typeof onEvent !== 'function')
    throw new TypeError('createVerifyPool: onEvent must be a function');

  let closed = false;
  let nextId = 1;
  const source = verifyWorkerSource();
  const slots: PoolWorker[] = [];
  /** Availability as last told to onEvent. */
  let toldAvailable = true;

  function tell(event: VerifyPoolEvent): void {
    if (onEvent === undefined) return;
    try {
      onEvent(event);
    } catch (error) {
      // The owner's defect must not leave a slot half replaced: it surfaces on its own.
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  function isAvailable(): boolean {
    return !closed && slots.some((slot) => slot.worker !== undefined);
  }

  /** Tells onEvent when availability changed since it was last told. */
  function tellAvailability(): void {
    const now = isAvailable();
    if (closed || now === toldAvailable) return;
    toldAvailable = now;
    tell({ kind: now ? 'available' : 'unavailable' });
  }

  /**
   * Starts the slot's worker (the first, or a replacement). A replacement that cannot even be
   * created counts as one that stopped at once; the first workers' failure to be created (bad
   * options, such as keys that cannot be copied to a thread) is thrown to the pool's creator.
   */
  function start(slot: PoolWorker, first = false): void {
    slot.timer = undefined;
    slot.startedAt = Date.now();
    slot.answered = 0;
    slot.sent = {};
    slot.stopping = undefined;
    slot.threadId = -1;
    let worker: Worker;
    try {
      worker =
        source.kind === 'file'
          ? new Worker(source.url, { workerData: data, resourceLimits: WORKER_LIMITS })
          : new Worker(source.code, { eval: true, workerData: data, resourceLimits: WORKER_LIMITS });
    } catch (error) {
      if (first) throw error;
      slot.worker = undefined;
      stopped(slot, undefined, `it could not start: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    slot.worker = worker;
    slot.threadId = worker.threadId;
    let crash: string | undefined;
    worker.on('message', (message: VerifyResponse) => {
      if (slot.worker !== worker) return;
      const pending = slot.pending.get(message.id);
      if (pending === undefined) return;
      slot.pending.delete(message.id);
      slot.answered += 1;
      if ('error' in message) pending.reject(new Error(`A verification worker failed: ${message.error}`));
      else if ('entries' in message) pending.resolve(message.entries);
      else if ('singles' in message) pending.resolve(message.singles);
      else pending.resolve(message.results);
    });
    worker.on('error', (error) => {
      // 'exit' follows; the first reason is the one worth telling.
      crash ??= error.message;
      stopped(slot, worker, crash);
    });
    worker.on('exit', (code) => stopped(slot, worker, crash ?? `exit code ${code}`));
    tell({ kind: 'worker_start', index: slot.index, threadId: worker.threadId, restarts: slot.restarts });
    tellAvailability();
  }

  /**
   * A slot's worker stopped (or could not start): its calls reject as lost, and its replacement
   * starts at once or after the backoff (see the module comment).
   */
  function stopped(slot: PoolWorker, worker: Worker | undefined, crash: string): void {
    if (worker !== undefined) {
      if (slot.worker !== worker) return; // already handled ('error' then 'exit')
      slot.worker = undefined;
    }
    if (closed) return;
    const reason = slot.stopping ?? crash;
    const lost = new VerifyWorkerUnavailableError(
      'worker_lost',
      `A verification worker stopped (${reason}) while it held this call; nothing of it was answered, and the worker is being replaced.`,
    );
    for (const pending of slot.pending.values()) pending.reject(lost);
    slot.pending.clear();
    // Should it linger after an 'error', it goes now; terminating a stopped worker is harmless.
    if (worker !== undefined) void worker.terminate();
    if (Date.now() - slot.startedAt >= WORKER_HEALTHY_MS) slot.quickStops = 0;
    const delay =
      slot.quickStops === 0
        ? 0
        : Math.min(WORKER_RESTART_MIN_DELAY_MS * 2 ** (slot.quickStops - 1), WORKER_RESTART_MAX_DELAY_MS);
    slot.quickStops += 1;
    tell({
      kind: 'worker_exit',
      index: slot.index,
      threadId: slot.threadId,
      reason,
      restartInMs: delay,
    });
    slot.restarts += 1;
    if (delay === 0) {
      start(slot);
      return;
    }
    slot.timer = setTimeout(() => {
      if (!closed) start(slot);
    }, delay);
    tellAvailability();
  }

  for (let index = 0; index < size; index += 1) {
    const slot: PoolWorker = {
      index,
      worker: undefined,
      pending: new Map(),
      sent: {},
      threadId: -1,
      startedAt: 0,
      answered: 0,
      quickStops: 0,
      restarts: 0,
      timer: undefined,
      stopping: undefined,
    };
    slots.push(slot);
  }
  try {
    for (const slot of slots) start(slot, true);
  } catch (error) {
    closed = true;
    for (const slot of slots) void slot.worker?.terminate();
    throw error;
  }

  /** The least busy running worker (fewest batches in flight), or why there is none. */
  function leastBusy(): PoolWorker | VerifyWorkerUnavailableError {
    if (closed) return new VerifyWorkerUnavailableError('closed', 'The verification pool is closed.');
    let target: PoolWorker | undefined;
    for (const slot of slots) {
      if (slot.worker !== undefined && (target === undefined || slot.pending.size < target.pending.size)) target = slot;
    }
    return (
      target ??
      new VerifyWorkerUnavailableError(
        'no_worker',
        'No verification worker is running: the stopped ones are waiting to be replaced.',
      )
    );
  }

  /** Posts a request to a running worker, by default the least busy. */
  function post(request: VerifyRequest, transfer: ArrayBuffer[], chosen?: PoolWorker): Promise<Results> {
    const target = chosen ?? leastBusy();
    if (target instanceof Error) return Promise.reject(target);
    const worker = target.worker;
    if (worker === undefined) return Promise.reject(new Error('post: the chosen slot has no worker'));
    return new Promise<Results>((resolve, reject) => {
      target.pending.set(request.id, { resolve, reject });
      try {
        worker.postMessage(request, transfer);
      } catch (error) {
        target.pending.delete(request.id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** Why nothing can be sent now, if so. */
  function refusal(): Error | undefined {
    const target = leastBusy();
    return target instanceof Error ? target : undefined;
  }

  function send(documents: readonly Uint8Array[], mode: 'facts' | 'report'): Promise<Results> {
    if (!Array.isArray(documents)) return Promise.reject(new TypeError('verify expects an array of Uint8Array'));
    const refused = refusal();
    if (refused !== undefined) return Promise.reject(refused);
    if (documents.length === 0) return Promise.resolve([]);
    const offsets = new Uint32Array(documents.length + 1);
    let total = 0;
    for (const [index, document] of documents.entries()) {
      if (!(document instanceof Uint8Array)) {
        return Promise.reject(new TypeError(`verify: document ${index} is not a Uint8Array`));
      }
      total += document.length;
      offsets[index + 1] = total;
    }
    const bytes = new Uint8Array(total);
    for (const [index, document] of documents.entries()) bytes.set(document, offsets[index]);
    const id = nextId;
    nextId += 1;
    return post({ id, bytes: bytes.buffer, offsets, mode }, [bytes.buffer, offsets.buffer]);
  }

  function verify(documents: readonly Uint8Array[]): Promise<VerifiedReceipt[]> {
    return send(documents, 'facts') as Promise<VerifiedReceipt[]>;
  }

  function reports(documents: readonly Uint8Array[]): Promise<ReportResult[]> {
    return send(documents, 'report') as Promise<ReportResult[]>;
  }

  function reportFiles(paths: readonly string[]): Promise<FileReportResult[]> {
    if (!Array.isArray(paths)) return Promise.reject(new TypeError('reportFiles expects an array of file paths'));
    for (const [index, path] of paths.entries()) {
      if (typeof path !== 'string' || path.length === 0)
        return Promise.reject(new TypeError(`reportFiles: path ${index} is not a non-empty string`));
    }
    const refused = refusal();
    if (refused !== undefined) return Promise.reject(refused);
    if (paths.length === 0) return Promise.resolve([]);
    const id = nextId;
    nextId += 1;
    return post({ id, paths: [...paths], mode: 'files' }, []) as Promise<FileReportResult[]>;
  }

  function entries(batch: EntryBatch): Promise<EntriesResult> {
    if (typeof batch !== 'object' || batch === null)
      return Promise.reject(new TypeError('entries expects a batch object'));
    const count = batch.names.length;
    const agree =
      batch.offsets.length === count + 1 &&
      batch.methods.length === count &&
      batch.sizes.length === count &&
      batch.crcs.length === count &&
      (!batch.verify ||
        (batch.expected !== undefined && batch.expected.length === count * 32 && batch.out !== undefined));
    if (!agree)
      return Promise.reject(
        new TypeError('entries: the lists of the batch disagree in length (or verify lacks expected or out)'),
      );
    const refused = refusal();
    if (refused !== undefined) return Promise.reject(refused);
    const id = nextId;
    nextId += 1;
    const bytes = wholeBuffer(batch.bytes);
    const request: EntriesRequest = {
      id,
      mode: 'entries',
      bytes,
      offsets: batch.offsets,
      names: batch.names,
      methods: batch.methods,
      sizes: batch.sizes,
      crcs: batch.crcs,
      maxEntryBytes: batch.maxEntryBytes,
      verify: batch.verify,
    };
    const transfer: ArrayBuffer[] = [bytes];
    if (batch.expected !== undefined) request.expected = batch.expected;
    if (batch.out !== undefined) {
      request.out = wholeBuffer(batch.out);
      transfer.push(request.out);
    }
    return post(request, transfer) as Promise<EntriesResult>;
  }

  /** Single documents waiting for the end of this turn of the event loop, to go in one message. */
  let singles: {
    item: SingleItem;
    keys: RequestKeys | ReceiptKeys;
    resolve(answer: SingleAnswer): void;
    reject(error: Error): void;
  }[] = [];

  /** Posts the waiting single documents to the least busy worker, in one message. */
  function postSingles(): void {
    const waiting = singles;
    singles = [];
    const target = leastBusy();
    if (target instanceof Error) {
      for (const entry of waiting) entry.reject(target);
      return;
    }
    const items = waiting.map(({ item, keys }) => {
      if (target.sent[item.kind] === keys) return item;
      target.sent[item.kind] = keys;
      return { ...item, keys } as SingleItem;
    });
    const id = nextId;
    nextId += 1;
    post(
      { id, mode: 'singles', items },
      items.map((item) => item.bytes),
      target,
    ).then(
      (answers) =>
        waiting.forEach((entry, index) => entry.resolve((answers as SingleAnswer[])[index] ?? { error: 'no answer' })),
      (error: Error) => waiting.forEach((entry) => entry.reject(error)),
    );
  }

  /**
   * Asks for one document (kind `request` or `receipt`), posted with the others asked for in
   * this turn of the event loop; the keys go to the worker only when they are another object
   * than the last it was sent for that kind.
   */
  function one(
    kind: 'request' | 'receipt',
    document: Uint8Array,
    keys: RequestKeys | ReceiptKeys,
    now: Date,
  ): Promise<SingleAnswer> {
    const what = kind === 'request' ? 'the body' : 'the document';
    if (!(document instanceof Uint8Array))
      return Promise.reject(new TypeError(`${kind} expects ${what} as a Uint8Array`));
    const listed = kind === 'request';
    if (
      typeof keys !== 'object' ||
      keys === null ||
      !Array.isArray(keys.pinned) ||
      !Array.isArray(keys.advertised) ||
      (listed && !Array.isArray((keys as RequestKeys).listed))
    ) {
      return Promise.reject(new TypeError(`${kind} expects keys {pinned, advertised${listed ? ', listed' : ''}}`));
    }
    if (!(now instanceof Date) || !Number.isFinite(now.getTime()))
      return Promise.reject(new TypeError(`${kind} expects now as a valid Date`));
    const refused = refusal();
    if (refused !== undefined) return Promise.reject(refused);
    return new Promise((resolve, reject) => {
      if (singles.length === 0) setImmediate(postSingles);
      singles.push({
        item: { kind, bytes: new Uint8Array(document).buffer, now: now.getTime() } as SingleItem,
        keys,
        resolve,
        reject,
      });
    });
  }

  /** A single answer, or the rejection a worker's defect earns (as for a batch). */
  function settled<T>(answer: SingleAnswer, pick: (answer: SingleAnswer) => T | undefined): T {
    if ('error' in answer) throw new Error(`A verification worker failed: ${answer.error}`);
    const value = pick(answer);
    if (value === undefined) throw new Error('A verification worker answered another kind of item.');
    return value;
  }

  function request(body: Uint8Array, keys: RequestKeys, now: Date): Promise<RequestAnswer> {
    return one('request', body, keys, now).then((answer) =>
      settled(answer, (value) => ('request' in value ? value.request : undefined)),
    );
  }

  function receipt(document: Uint8Array, keys: ReceiptKeys, now: Date): Promise<VerifiedReceipt> {
    return one('receipt', document, keys, now).then((answer) =>
      settled(answer, (value) => ('receipt' in value ? value.receipt : undefined)),
    );
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    const error = new VerifyWorkerUnavailableError('closed', 'The verification pool was closed.');
    const running: Worker[] = [];
    for (const slot of slots) {
      clearTimeout(slot.timer);
      slot.timer = undefined;
      for (const pending of slot.pending.values()) pending.reject(error);
      slot.pending.clear();
      if (slot.worker !== undefined) running.push(slot.worker);
      slot.worker = undefined;
    }
    await Promise.all(running.map((worker) => worker.terminate()));
  }

  function stats(): VerifyPoolStats {
    return {
      available: isAvailable(),
      workers: slots.map((slot) => ({
        index: slot.index,
        threadId: slot.worker?.threadId ?? null,
        inFlight: slot.pending.size,
        answered: slot.worker === undefined ? 0 : slot.answered,
        restarts: slot.restarts,
      })),
    };
  }

  async function terminateWorker(index: number): Promise<void> {
    if (!Number.isSafeInteger(index) || index < 0 || index >= size)
      throw new RangeError(`terminateWorker: index must be 0 to ${size - 1}`);
    const slot = slots[index] as PoolWorker;
    const worker = slot.worker;
    if (closed || worker === undefined) return;
    slot.stopping = 'terminated on request';
    await worker.terminate();
  }

  return {
    size,
    get available() {
      return isAvailable();
    },
    stats,
    terminateWorker,
    verify,
    reports,
    reportFiles,
    entries,
    request,
    receipt,
    close,
  };
}
