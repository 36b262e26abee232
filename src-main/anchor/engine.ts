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
 */
import { createHash } from 'node:crypto';
import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { encodeAnchorHash, type PendingAnchorRecord } from '../../src-shared/anchor/proof';
import { resolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { hexEncode, lowerHexDecode } from '../../src-shared/crypto/encoding';
import { anchorTreeLevels, type AnchorTreeLevels, type HashFunction } from '../../src-shared/crypto/merkle';
import {
  anchorBacklog,
  batchEtaSeconds,
  closeAnchorBatch,
  getOpenAnchorBatch,
  highestRecordedNonce,
  listBatchHashes,
  listUnfinishedAnchorBatches,
  markAnchorBatchPosted,
  queueAnchorHash,
  recordAnchorBatchError,
  recordAnchorTransaction,
  resolveAnchorBatch,
  type AnchorBacklog,
  type AnchorBatchRecord,
  type AnchorResolution,
} from '../ledger/anchor-batches';
import type { Ledger } from '../ledger/open-ledger';
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

/** How to run the engine. */
export interface AnchorEngineOptions {
  ledger: Ledger;
  chain: ChainClient;
  /** The anchor account (signs locally). */
  account: PrivateKeyAccount;
  /** The network name resolved URNs carry (e.g. `anvil-local`, `base`). */
  network: string;
  /** How long a batch stays open, in ms (fractions of a second are fine); default 60 s. */
  intervalMs?: number;
  /** Blocks before resolving; default 1. */
  confirmations?: number;
  /** How often the engine looks at the ledger and the chain; default min(1 s, interval). */
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

const nodeSha256: HashFunction = (data) => new Uint8Array(createHash('sha256').update(data).digest());

/** The anchoring engine over one ledger and one chain. */
export class AnchorEngine {
  readonly network: string;
  readonly intervalMs: number;
  readonly confirmations: number;
  private readonly options: AnchorEngineOptions;
  private readonly pollMs: number;
  private readonly maxBackoffMs: number;
  private readonly now: () => Date;
  private readonly sender: string;
  private timer: NodeJS.Timeout | undefined;
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
  }

  /**
   * Queues a digest in the open batch; committed to the ledger when this returns.
   *
   * @param digest - canonical_sha256's 32 bytes
   * @param options - `tenantId` of the submitter, if any
   * @returns the pending answer (the same URN for the same digest in the same batch), or `conflict`
   * @throws RangeError when the digest is not 32 bytes
   */
  submit(digest: Uint8Array, options: { tenantId?: string } = {}): SubmitOutcome {
    if (!(digest instanceof Uint8Array) || digest.length !== 32)
      throw new RangeError('submit expects the 32-byte digest');
    const at = this.now().getTime();
    const queued = queueAnchorHash(this.options.ledger.writable, {
      digest: hexEncode(digest),
      tenant_id: options.tenantId ?? null,
      at,
      interval_ms: Math.ceil(this.intervalMs),
    });
    if (queued.outcome === 'conflict')
      return { outcome: 'conflict', svc_anchor: queued.svc_anchor, batch_id: queued.batch.batch_id };
    return {
      outcome: queued.outcome,
      svc_anchor: queued.svc_anchor,
      batch_id: queued.batch.batch_id,
      eta_seconds: batchEtaSeconds(queued.batch, at),
    };
  }

  /**
   * Queues many digests in one ledger transaction (one disk flush): what {@link submit} does for
   * each, in order, committed together when this returns.
   *
   * @param digests - canonical_sha256 bytes, 32 each
   * @returns each digest's outcome, in order
   */
  submitMany(digests: readonly Uint8Array[], options: { tenantId?: string } = {}): SubmitOutcome[] {
    return this.options.ledger.runInTransaction(() => digests.map((digest) => this.submit(digest, options)));
  }

  /** The backlog and the last chain error. */
  status(): AnchorEngineStatus {
    const backlog = anchorBacklog(this.options.ledger.readable);
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
    this.schedule(0);
  }

  /** Stops the passes and waits for one in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** For tests and the CLI: closes the open batch now and runs a pass. */
  async closeNow(): Promise<void> {
    await this.pass(true);
  }

  /** Runs one pass now (closing the open batch if it is due). */
  async tick(): Promise<void> {
    await this.pass(false);
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
    const ledger = this.options.ledger;
    const now = this.now().getTime();
    const open = getOpenAnchorBatch(ledger.readable);
    if (open !== undefined && (forceClose || open.closes_at <= now))
      closeAnchorBatch(ledger.writable, open.id, { at: now });
    if (!forceClose && now < this.retryAt) return;
    for (const batch of listUnfinishedAnchorBatches(ledger.readable)) {
      try {
        await this.advance(batch);
      } catch (error) {
        this.fail(batch, error);
        return;
      }
    }
    this.failures = 0;
    this.retryAt = 0;
    this.lastError = null;
  }

  private fail(batch: AnchorBatchRecord, error: unknown): void {
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
      recordAnchorBatchError(this.options.ledger.writable, batch.id, { message, next_attempt_at: this.retryAt });
    } catch {
      // The batch moved on meanwhile; the engine's own status still shows the error.
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
  private tree(batch: AnchorBatchRecord): { hashes: ReturnType<typeof listBatchHashes>; tree: AnchorTreeLevels } {
    const hashes = listBatchHashes(this.options.ledger.readable, batch.id);
    const tree = anchorTreeLevels(
      nodeSha256,
      hashes.map((hash) => lowerHexDecode(hash.digest) as Uint8Array),
    );
    return { hashes, tree };
  }

  private async nextNonce(): Promise<number> {
    const recorded = highestRecordedNonce(this.options.ledger.readable, this.network, this.sender);
    const chainNext = await this.options.chain.nextNonce(this.sender);
    return recorded === undefined ? chainNext : Math.max(chainNext, recorded + 1);
  }

  private async sign(batch: AnchorBatchRecord): Promise<AnchorBatchRecord> {
    const { root } = this.tree(batch).tree;
    const nonce = await this.nextNonce();
    const signed = await this.options.chain.signAnchorTransaction(this.options.account, root, nonce);
    const recorded = recordAnchorTransaction(
      this.options.ledger.writable,
      batch.id,
      {
        merkle_root: hexEncode(root),
        network: this.network,
        raw_tx: signed.raw.toLowerCase(),
        tx_hash: signed.hash.toLowerCase(),
        nonce,
        sender: this.sender,
      },
      { at: this.now().getTime() },
    );
    // The crash tests kill the process here and after the broadcast (core/failpoints.ts).
    failpoint('anchor.after-record');
    return recorded;
  }

  private async broadcast(batch: AnchorBatchRecord): Promise<AnchorBatchRecord> {
    const chain = this.options.chain;
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
      const resigned = await this.sign({ ...batch, state: 'closed' });
      await chain.broadcast(resigned.raw_tx as Hex);
      batch = resigned;
    }
    failpoint('anchor.after-broadcast');
    return markAnchorBatchPosted(this.options.ledger.writable, batch.id, { at: this.now().getTime() });
  }

  private async advance(start: AnchorBatchRecord): Promise<void> {
    if (start.network !== null && start.network !== this.network) return; // recorded on another chain
    let batch = start;
    if (batch.state === 'closed') batch = await this.sign(batch);
    if (batch.state === 'signed') batch = await this.broadcast(batch);
    if (batch.state !== 'posted') return;
    const chain = this.options.chain;
    const tx = await chain.transaction(batch.tx_hash as string);
    if (tx === undefined) {
      // Dropped (e.g. a chain restarted without its mempool): the same bytes again.
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
    const { hashes, tree } = this.tree(batch);
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
    resolveAnchorBatch(
      this.options.ledger.writable,
      batch.id,
      { block_height: tx.blockNumber, records: { count: hashes.length, record } },
      { at: this.now().getTime() },
    );
  }
}
