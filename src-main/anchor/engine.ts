/**
 * The anchoring engine (PROTOCOL section 8): batches submitted digests, posts each batch's
 * Merkle root to an EVM chain, and resolves every digest's anchor record.
 *
 * The order of writes is what makes a crash harmless:
 * 1. `submit` commits the pending hash (queue row and pending anchors row) before it returns,
 *    so the caller answers 202 only for a hash the ledger holds.
 * 2. Every interval the open batch closes; its tree is built over its digests sorted ascending.
 * 3. The root's transaction is SIGNED with the next nonce and RECORDED (raw bytes, hash, nonce,
 *    sender) before it is broadcast. After a crash the recorded bytes are broadcast again as
 *    they are: one nonce, so never two transactions for one batch.
 * 4. Once the transaction has `confirmations` blocks, every hash of the batch is resolved in one
 *    ledger transaction with the resolved record of spec 2.6.
 *
 * Batches are processed oldest first and a chain error stops the pass, so a later batch never
 * takes a nonce before an earlier one is on chain. A chain that does not answer (ChainError
 * `unreachable`) or refuses (`rejected`) leaves the batches where they are and the engine tries
 * again after an exponential backoff (0.5 s doubling, capped at 30 s by default), shown by
 * {@link AnchorEngine.status}. The private key never leaves the viem account: it is not logged,
 * stored in the ledger, or put in an error.
 *
 * Several service nodes on one database (docs/deploy.md) each run an engine: every node queues
 * the hashes it is given, and only the node holding the `anchoring` lease (the service store's
 * cluster domain: TTL 15 s, renewed every 5 s) closes, signs, posts and resolves batches. Each of
 * its writes carries the lease's fence and is refused (LeaseLostError, nothing written) once
 * another node took the lease, and a new transaction is broadcast only after its bytes were
 * recorded under the fence; so a node that lost the lease never posts a batch, and the node that
 * takes over finishes every unfinished batch from what is recorded (the recorded bytes again,
 * one nonce, one transaction per batch), exactly as a restarted single node does. A holder
 * stops acting as soon as a renewal fails or comes back refused, or a write throws
 * LeaseLostError; on {@link AnchorEngine.stop} it gives the lease up so another node takes over
 * at once. On SQLite (one node) the lease is always granted.
 */
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { encodeAnchorHash, type PendingAnchorRecord } from '../../src-shared/anchor/proof';
import { resolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { hexEncode, lowerHexDecode } from '../../src-shared/crypto/encoding';
import { anchorTreeLevels, type AnchorTreeLevels, type HashFunction } from '../../src-shared/crypto/merkle';
import {
  batchEtaSeconds,
  checkQueueEntry,
  type AnchorBacklog,
  type AnchorBatchRecord,
  type AnchorResolution,
  type QueuedAnchorHash,
  type QueueOutcome,
} from '../ledger/anchor-batches';
import { ANCHORING_LEASE, type AnchoringStore, type AnchorQueueEntry } from '../ledger/store/anchoring';
import { LEASE_TTL_MS, RENEW_EVERY_MS, type ClusterStore, type Lease } from '../ledger/store/cluster';
import { LeaseLostError } from '../ledger/store/errors';
import { failpoint } from '../core/failpoints';
import { ChainError, type ChainClient } from './chain';

/** Seconds a batch stays open by default. */
export const DEFAULT_ANCHOR_INTERVAL_SECONDS = 60;
/** Blocks (the transaction's own included) before a batch resolves, by default. */
export const DEFAULT_ANCHOR_CONFIRMATIONS = 1;
/** The longest wait between retries after a chain error, by default. */
export const DEFAULT_MAX_BACKOFF_MS = 30_000;
/** The first wait after a chain error. */
const BASE_BACKOFF_MS = 500;
/** The most hashes one queue transaction carries. */
const MAX_QUEUE_GROUP = 1000;
/** How long the anchoring lease lasts unless renewed, by default. */
export const DEFAULT_LEASE_TTL_MS = LEASE_TTL_MS;
/** How often its holder renews it (and another node tries to take it), by default. */
export const DEFAULT_LEASE_RENEW_MS = RENEW_EVERY_MS;

/** How to run the engine. */
export interface AnchorEngineOptions {
  /** The service store: its batches and hashes, and the lease of the one batch writer. */
  store: { readonly anchoring: AnchoringStore; readonly cluster: ClusterStore };
  /** This node's id, the lease's holder when it writes batches; default `<hostname>-<pid>-<4 hex>`. */
  node?: string;
  /** How long the lease lasts unless renewed, ms; default 15 s. */
  leaseTtlMs?: number;
  /** How often the lease is renewed or tried for, ms; default 5 s. */
  leaseRenewMs?: number;
  chain: ChainClient;
  /** The anchor account (signs locally). */
  account: PrivateKeyAccount;
  /** The network name resolved URNs carry (e.g. `anvil-local`, `base`). */
  network: string;
  /** How long a batch stays open, in ms (fractions of a second are fine); default 60 s. */
  intervalMs?: number;
  /** Blocks before resolving; default 1. */
  confirmations?: number;
  /** How often the engine looks at the store and the chain; default min(1 s, interval). */
  pollMs?: number;
  /** Cap of the backoff after a chain error; default 30 s. */
  maxBackoffMs?: number;
  /** The clock; default the system's. */
  now?: () => Date;
  /** Where chain errors are reported (one line each; never a key). */
  log?: (line: string) => void;
}

/** What {@link AnchorEngine.submit} did. */
export type SubmitOutcome =
  | ({ outcome: 'queued' | 'existing' } & PendingAnchorRecord)
  /** Another digest with the same suffix is already in this batch under that pending URN. */
  | { outcome: 'conflict'; svc_anchor: string; batch_id: string };

/** The engine as /status and the app show it. */
export interface AnchorEngineStatus extends AnchorBacklog {
  network: string;
  /** The anchor account's address (public). */
  sender: string;
  interval_seconds: number;
  confirmations: number;
  /** The last chain error, until a pass succeeds. */
  last_error: string | null;
  /** When the engine tries the chain again after an error (TS), or null. */
  next_retry_at: string | null;
}

/** An entry checked now, so that a bad one fails its own submission, never the group it would join. */
function checkedEntry(entry: AnchorQueueEntry): AnchorQueueEntry {
  checkQueueEntry(entry);
  return entry;
}

const nodeSha256: HashFunction = (data) => new Uint8Array(createHash('sha256').update(data).digest());

/** The anchoring engine of one service node, over the service store and one chain. */
export class AnchorEngine {
  readonly network: string;
  readonly intervalMs: number;
  readonly confirmations: number;
  private readonly options: AnchorEngineOptions;
  private readonly pollMs: number;
  private readonly maxBackoffMs: number;
  private readonly now: () => Date;
  private readonly sender: string;
  private readonly node: string;
  private readonly leaseTtlMs: number;
  private readonly leaseRenewMs: number;
  private timer: NodeJS.Timeout | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private lease: Lease | undefined;
  private leaseAttemptAt = Number.NEGATIVE_INFINITY;
  /** Until when the lease surely lasts (performance.now()): the last successful attempt's start plus the TTL. */
  private leaseDeadline = 0;
  private leaseInFlight: Promise<Lease | undefined> | undefined;
  /** Submissions waiting for the next queue transaction. */
  private readonly waiting: {
    entries: AnchorQueueEntry[];
    resolve: (outcomes: QueueOutcome[]) => void;
    reject: (error: unknown) => void;
  }[] = [];
  private flushing = false;
  private running: Promise<void> | undefined;
  private stopped = true;
  private failures = 0;
  private retryAt = 0;
  private lastError: string | null = null;

  /**
   * @param options - See {@link AnchorEngineOptions}.
   * @throws RangeError for an interval, confirmations or poll out of range
   */
  constructor(options: AnchorEngineOptions) {
    this.options = options;
    this.network = options.network;
    this.intervalMs = options.intervalMs ?? DEFAULT_ANCHOR_INTERVAL_SECONDS * 1000;
    if (!Number.isFinite(this.intervalMs) || this.intervalMs < 10 || this.intervalMs > 86_400_000)
      throw new RangeError('The anchor interval must be from 0.01 s to one day.');
    this.confirmations = options.confirmations ?? DEFAULT_ANCHOR_CONFIRMATIONS;
    if (!Number.isSafeInteger(this.confirmations) || this.confirmations < 1 || this.confirmations > 1000)
      throw new RangeError('confirmations must be a whole number from 1 to 1000.');
    this.pollMs = options.pollMs ?? Math.min(1000, this.intervalMs);
    this.maxBackoffMs = options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
    this.now = options.now ?? (() => new Date());
    this.sender = options.account.address.toLowerCase();
    this.node = options.node ?? `${os.hostname()}-${process.pid}-${randomBytes(2).toString('hex')}`;
    this.leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    this.leaseRenewMs = options.leaseRenewMs ?? DEFAULT_LEASE_RENEW_MS;
    if (!Number.isSafeInteger(this.leaseTtlMs) || this.leaseTtlMs < 100)
      throw new RangeError('The lease must last at least 100 ms.');
    if (!Number.isSafeInteger(this.leaseRenewMs) || this.leaseRenewMs < 10 || this.leaseRenewMs >= this.leaseTtlMs)
      throw new RangeError('The lease must be renewed more often than it lasts.');
  }

  /** Whether this node writes the batches now (it holds the anchoring lease). */
  get writing(): boolean {
    return this.lease !== undefined && this.holds(this.lease);
  }

  /**
   * Queues a digest in the open batch; committed to the store when this returns (any node).
   *
   * @param digest - canonical_sha256's 32 bytes
   * @param options - `tenantId` of the submitter, if any
   * @returns the pending answer (the same URN for the same digest in the same batch), or `conflict`
   * @throws RangeError when the digest is not 32 bytes
   */
  async submit(digest: Uint8Array, options: { tenantId?: string } = {}): Promise<SubmitOutcome> {
    const [outcome] = await this.submitMany([digest], options);
    return outcome as SubmitOutcome;
  }

  /**
   * Queues many digests in one store transaction (one disk flush): what {@link submit} does for
   * each, in order, committed together when this returns.
   *
   * @param digests - canonical_sha256 bytes, 32 each
   * @returns each digest's outcome, in order
   * @throws RangeError when a digest is not 32 bytes (nothing queued)
   */
  async submitMany(digests: readonly Uint8Array[], options: { tenantId?: string } = {}): Promise<SubmitOutcome[]> {
    for (const digest of digests)
      if (!(digest instanceof Uint8Array) || digest.length !== 32)
        throw new RangeError('submit expects the 32-byte digest');
    const at = this.now().getTime();
    const entries = digests.map((digest) =>
      checkedEntry({
        digest: hexEncode(digest),
        tenant_id: options.tenantId ?? null,
        at,
        interval_ms: Math.ceil(this.intervalMs),
      }),
    );
    if (entries.length === 0) return [];
    const queued = await new Promise<QueueOutcome[]>((resolve, reject) => {
      this.waiting.push({ entries, resolve, reject });
      this.flushQueue();
    });
    return queued.map((entry): SubmitOutcome => {
      if (entry.outcome === 'conflict')
        return { outcome: 'conflict', svc_anchor: entry.svc_anchor, batch_id: entry.batch.batch_id };
      return {
        outcome: entry.outcome,
        svc_anchor: entry.svc_anchor,
        batch_id: entry.batch.batch_id,
        eta_seconds: batchEtaSeconds(entry.batch, at),
      };
    });
  }

  /**
   * Queues what is waiting in one store transaction (a group commit): the submissions made
   * while a transaction runs go in the next one, so under load each transaction carries many
   * hashes and the open batch's row (which every node's queueing locks) is taken once for them.
   */
  private flushQueue(): void {
    if (this.flushing || this.waiting.length === 0) return;
    const group: typeof this.waiting = [];
    let size = 0;
    while (
      this.waiting.length > 0 &&
      (group.length === 0 || size + (this.waiting[0]?.entries.length ?? 0) <= MAX_QUEUE_GROUP)
    ) {
      const next = this.waiting.shift() as (typeof this.waiting)[number];
      group.push(next);
      size += next.entries.length;
    }
    this.flushing = true;
    this.options.store.anchoring
      .queue(group.flatMap((request) => request.entries))
      .then(
        (outcomes) => {
          let offset = 0;
          for (const request of group) {
            request.resolve(outcomes.slice(offset, offset + request.entries.length));
            offset += request.entries.length;
          }
        },
        (error: unknown) => {
          for (const request of group) request.reject(error);
        },
      )
      .finally(() => {
        this.flushing = false;
        this.flushQueue();
      });
  }

  /** The backlog and the last chain error. */
  async status(): Promise<AnchorEngineStatus> {
    const backlog = await this.options.store.anchoring.backlog();
    const retrying = this.lastError !== null && this.retryAt > this.now().getTime();
    return {
      ...backlog,
      network: this.network,
      sender: this.sender,
      interval_seconds: this.intervalMs / 1000,
      confirmations: this.confirmations,
      last_error: this.lastError ?? backlog.last_error,
      next_retry_at: retrying
        ? new Date(this.retryAt).toISOString()
        : backlog.next_attempt_at === null
          ? null
          : new Date(backlog.next_attempt_at).toISOString(),
    };
  }

  /** Starts the passes; the first one reconciles what the ledger recorded with the chain. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.scheduleLease(0);
    this.schedule(0);
  }

  /** Stops the passes, waits for one in flight, and gives the lease up (another node takes over at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    clearTimeout(this.leaseTimer);
    this.leaseTimer = undefined;
    await this.running;
    await this.leaseInFlight;
    const lease = this.lease;
    this.lease = undefined;
    if (lease !== undefined)
      await this.options.store.cluster
        .releaseLease(lease)
        .catch((error: unknown) => this.report('releasing the lease', error));
  }

  /** For tests and the CLI: closes the open batch now and runs a pass. */
  async closeNow(): Promise<void> {
    await this.pass(true);
  }

  /** Runs one pass now (closing the open batch if it is due). */
  async tick(): Promise<void> {
    await this.pass(false);
  }

  private report(doing: string, error: unknown): void {
    this.options.log?.(`anchor: ${doing}: ${error instanceof Error ? error.message : String(error)}`);
  }

  /**
   * Whether `lease` is still this node's: the one it renewed last, and not lapsed. The lapse is
   * judged on this process's monotonic clock from when the last successful renewal was asked
   * for (never later than the expiry the database set), so neither wall clock can make the node
   * act on a lease it may have lost.
   */
  private holds(lease: Lease): boolean {
    return this.lease !== undefined && this.lease.fence === lease.fence && performance.now() < this.leaseDeadline;
  }

  /** This node stops writing batches (the lease went to another node, or could not be renewed). */
  private loseLease(why: string): void {
    if (this.lease !== undefined) this.options.log?.(`anchor: this node no longer writes the batches: ${why}`);
    this.lease = undefined;
  }

  /** Takes or renews the lease (one attempt at a time). */
  private renewLease(): Promise<Lease | undefined> {
    this.leaseInFlight ??= (async () => {
      const now = this.now().getTime();
      const asked = performance.now();
      this.leaseAttemptAt = now;
      try {
        const lease = await this.options.store.cluster.acquireLease(ANCHORING_LEASE, this.node, this.leaseTtlMs, now);
        if (lease === undefined) this.loseLease('another node holds the anchoring lease');
        else {
          if (this.lease?.fence !== lease.fence)
            this.options.log?.(`anchor: this node writes the batches (anchoring lease, fence ${lease.fence})`);
          this.lease = lease;
          this.leaseDeadline = asked + this.leaseTtlMs;
        }
      } catch (error) {
        this.loseLease(`the lease could not be renewed (${error instanceof Error ? error.message : String(error)})`);
      }
      return this.lease;
    })().finally(() => {
      this.leaseInFlight = undefined;
    });
    return this.leaseInFlight;
  }

  private scheduleLease(delay: number): void {
    if (this.stopped) return;
    clearTimeout(this.leaseTimer);
    this.leaseTimer = setTimeout(() => {
      void this.renewLease().finally(() => this.scheduleLease(this.leaseRenewMs));
    }, delay);
    this.leaseTimer.unref();
  }

  /** The lease to write under: the one held, else a fresh attempt unless one was made within the renewal period. */
  private async currentLease(force: boolean): Promise<Lease | undefined> {
    if (this.lease !== undefined && this.holds(this.lease)) return this.lease;
    if (!force && this.now().getTime() - this.leaseAttemptAt < this.leaseRenewMs) return undefined;
    return this.renewLease();
  }

  /** Throws LeaseLostError unless `lease` is still this node's. */
  private stillHolding(lease: Lease): void {
    if (!this.holds(lease)) throw new LeaseLostError('The anchoring lease is no longer this node’s.');
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.pass(false)
        .catch((error: unknown) =>
          this.options.log?.(`anchor: ${error instanceof Error ? error.message : String(error)}`),
        )
        .finally(() => this.schedule(this.pollMs));
    }, delay);
    this.timer.unref();
  }

  /** One pass at a time: a pass asked for while one runs starts after it. */
  private pass(forceClose: boolean): Promise<void> {
    const next = (this.running ?? Promise.resolve()).then(() => this.runPass(forceClose));
    const tracked = next.catch(() => undefined);
    this.running = tracked;
    void tracked.then(() => {
      if (this.running === tracked) this.running = undefined;
    });
    return next;
  }

  private async runPass(forceClose: boolean): Promise<void> {
    const lease = await this.currentLease(forceClose || this.stopped);
    if (lease === undefined) return;
    try {
      await this.writeBatches(lease, forceClose);
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      this.loseLease('another node took the anchoring lease');
    }
  }

  private async writeBatches(lease: Lease, forceClose: boolean): Promise<void> {
    const anchoring = this.options.store.anchoring;
    const now = this.now().getTime();
    const open = await anchoring.openBatch();
    if (open !== undefined && (forceClose || open.closes_at <= now)) {
      this.stillHolding(lease);
      await anchoring.closeBatch(lease, open.id, now);
    }
    if (!forceClose && now < this.retryAt) return;
    for (const batch of await anchoring.unfinishedBatches()) {
      this.stillHolding(lease);
      try {
        await this.advance(batch, lease);
      } catch (error) {
        if (error instanceof LeaseLostError) throw error;
        await this.fail(batch, error, lease);
        return;
      }
    }
    this.failures = 0;
    this.retryAt = 0;
    this.lastError = null;
  }

  private async fail(batch: AnchorBatchRecord, error: unknown, lease: Lease): Promise<void> {
    const message =
      error instanceof ChainError
        ? `${error.kind === 'unreachable' ? 'The chain does not answer' : 'The chain refused'}: ${error.message}`
        : `Anchoring failed: ${error instanceof Error ? error.message : String(error)}`;
    this.failures += 1;
    const delay = Math.min(this.maxBackoffMs, BASE_BACKOFF_MS * 2 ** Math.min(this.failures - 1, 20));
    const now = this.now().getTime();
    this.retryAt = now + delay;
    this.lastError = message;
    try {
      await this.options.store.anchoring.recordError(lease, batch.id, { message, next_attempt_at: this.retryAt });
    } catch (recordError) {
      // The batch moved on meanwhile (or the lease went); the engine's own status still shows the error.
      if (recordError instanceof LeaseLostError) this.loseLease('another node took the anchoring lease');
    }
    this.options.log?.(
      `anchor: batch ${batch.batch_id} (#${batch.id}): ${message}; retrying in ${Math.round(delay / 100) / 10} s`,
    );
  }

  /**
   * The batch's tree as one flat buffer per level: paths are made one at a time when their
   * records are written, so a batch of a minute's receipts (tens of thousands under load) never
   * holds every path at once (bench/README.md, "The soak's memory").
   */
  private async tree(batch: AnchorBatchRecord): Promise<{ hashes: QueuedAnchorHash[]; tree: AnchorTreeLevels }> {
    const hashes = await this.options.store.anchoring.batchHashes(batch.id);
    const tree = anchorTreeLevels(
      nodeSha256,
      hashes.map((hash) => lowerHexDecode(hash.digest) as Uint8Array),
    );
    return { hashes, tree };
  }

  private async nextNonce(): Promise<number> {
    const recorded = await this.options.store.anchoring.highestNonce(this.network, this.sender);
    const chainNext = await this.options.chain.nextNonce(this.sender);
    return recorded === undefined ? chainNext : Math.max(chainNext, recorded + 1);
  }

  private async sign(batch: AnchorBatchRecord, lease: Lease): Promise<AnchorBatchRecord> {
    const { root } = (await this.tree(batch)).tree;
    const nonce = await this.nextNonce();
    const signed = await this.options.chain.signAnchorTransaction(this.options.account, root, nonce);
    this.stillHolding(lease);
    const recorded = await this.options.store.anchoring.recordTransaction(
      lease,
      batch.id,
      {
        merkle_root: hexEncode(root),
        network: this.network,
        raw_tx: signed.raw.toLowerCase(),
        tx_hash: signed.hash.toLowerCase(),
        nonce,
        sender: this.sender,
      },
      this.now().getTime(),
    );
    // The crash tests kill the process here and after the broadcast (core/failpoints.ts).
    failpoint('anchor.after-record');
    return recorded;
  }

  private async broadcast(batch: AnchorBatchRecord, lease: Lease): Promise<AnchorBatchRecord> {
    const chain = this.options.chain;
    this.stillHolding(lease);
    try {
      await chain.broadcast(batch.raw_tx as Hex);
    } catch (error) {
      if (!(error instanceof ChainError) || error.kind !== 'rejected') throw error;
      // Refused bytes can be re-signed only when their nonce went to another transaction (the
      // account was used elsewhere): then these bytes can never be mined.
      const mined = await chain.minedNonce(this.sender);
      if (mined <= (batch.nonce as number) || (await chain.transaction(batch.tx_hash as string)) !== undefined)
        throw error;
      this.options.log?.(
        `anchor: batch ${batch.batch_id} (#${batch.id}): nonce ${batch.nonce} was used by another transaction; signing again`,
      );
      const resigned = await this.sign({ ...batch, state: 'closed' }, lease);
      this.stillHolding(lease);
      await chain.broadcast(resigned.raw_tx as Hex);
      batch = resigned;
    }
    failpoint('anchor.after-broadcast');
    return this.options.store.anchoring.markPosted(lease, batch.id, this.now().getTime());
  }

  private async advance(start: AnchorBatchRecord, lease: Lease): Promise<void> {
    if (start.network !== null && start.network !== this.network) return; // recorded on another chain
    let batch = start;
    if (batch.state === 'closed') batch = await this.sign(batch, lease);
    if (batch.state === 'signed') batch = await this.broadcast(batch, lease);
    if (batch.state !== 'posted') return;
    const chain = this.options.chain;
    const tx = await chain.transaction(batch.tx_hash as string);
    if (tx === undefined) {
      // Dropped (e.g. a chain restarted without its mempool): the same bytes again.
      this.stillHolding(lease);
      await chain.broadcast(batch.raw_tx as Hex);
      return;
    }
    if (tx.blockNumber === null) return;
    const head = await chain.blockNumber();
    if (head - tx.blockNumber + 1 < this.confirmations) return;
    const receipt = await chain.receiptStatus(batch.tx_hash as string);
    if (receipt === 'reverted')
      throw new ChainError('rejected', `The anchor transaction ${batch.tx_hash} of batch ${batch.batch_id} reverted.`);
    if (receipt === undefined) return;
    const { hashes, tree } = await this.tree(batch);
    if (hexEncode(tree.root) !== batch.merkle_root)
      throw new Error(`Batch ${batch.id}: its hashes no longer give the recorded root.`);
    const verifiedAt = this.now().toISOString();
    const merkleRoot = encodeAnchorHash(tree.root);
    // Each hash's record is made when the ledger writes it, and is garbage right after.
    const record = (index: number): AnchorResolution => {
      const hash = hashes[index] as (typeof hashes)[number];
      const svcAnchor = resolvedAnchorUrn({
        network: this.network,
        block_height: tx.blockNumber as number,
        tx_hash: batch.tx_hash as string,
        suffix: hash.digest.slice(0, 16),
      });
      return {
        pending: hash.svc_anchor,
        svc_anchor: svcAnchor,
        record: {
          svc_anchor: svcAnchor,
          batch_id: batch.batch_id,
          network: this.network,
          block_height: tx.blockNumber as number,
          tx_hash: batch.tx_hash as string,
          merkle_root: merkleRoot,
          merkle_path: tree.path(index).map(encodeAnchorHash),
          verified_at: verifiedAt,
        },
      };
    };
    this.stillHolding(lease);
    await this.options.store.anchoring.resolveBatch(
      lease,
      batch.id,
      { block_height: tx.blockNumber, records: { count: hashes.length, record } },
      this.now().getTime(),
    );
  }
}
