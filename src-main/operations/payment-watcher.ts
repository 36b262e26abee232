/**
 * The service's payment watcher (PROTOCOL section 13; docs/payments.md): every interval it reads
 * the token's Transfer logs to the treasury from its stored cursor, observes each transaction
 * ({@link observePayment}: record, then issue once confirmed), checks again the payments still
 * waiting for confirmations, and hands the keys due for delivery to the delivery function.
 *
 * The cursor (per network, token and treasury, in the ledger) moves only past blocks that are
 * confirmed and whose every transaction was observed; the unconfirmed tail is read again on each
 * pass, so a reorganisation there is seen. Passes never overlap. A delivery that fails is tried
 * again after 1 s, doubling to at most 5 minutes, until it succeeds; its attempts and last error
 * (never the key) are recorded.
 *
 * Several service nodes on one database run one watcher at a time: a node watches only while it
 * holds the `payments` lease (cluster.ts; TTL 15 s, renewed every 5 s, taken over when its
 * holder stops renewing), every write of a pass carries the lease's fence, and a node stops
 * acting as soon as a renewal fails or a write answers that the lease is another's.
 */
import type { DeliveryChannel, PaymentTerm } from '../../src-shared/api/payments';
import type { StablecoinChain } from '../anchor/stablecoin';
import type { PaymentRecord } from '../ledger';
import { PAYMENTS_LEASE } from '../ledger/store/payments';
import { describeError } from './errors';
import { observePayment, paymentKey } from './payments';
import { newNodeId } from './service-node';
import { LeaseLostError, StoreUnavailableError, type Lease, type ServiceStore } from './service-store';
import type { Workspace } from './workspace';

/** The first wait after a failed delivery, and the longest. */
export const DELIVERY_RETRY_FIRST_MS = 1000;
export const DELIVERY_RETRY_MAX_MS = 5 * 60 * 1000;
/** Blocks read per getLogs call. */
const LOG_CHUNK_BLOCKS = 2000;
/** The payment lease's time to live, and how often its holder renews it. */
export const PAYMENT_LEASE_TTL_MS = 15_000;
export const PAYMENT_LEASE_RENEW_MS = 5_000;

/** One key to deliver: what a transport needs (the key is derived again for each attempt). */
export interface KeyDelivery {
  tx_hash: string;
  channel: DeliveryChannel;
  /** An e-mail address (the contact, or postmaster@ a domain), or the did:key to seal to. */
  to: string;
  key: string;
  tier: 'pro' | 'scale';
  term: PaymentTerm;
  expires_at: number;
  tenant_id: string;
}

/** How keys reach their buyers. */
export interface PaymentDelivery {
  /** The channel of e-mail and domain contacts on this service. */
  mailChannel: 'outbox' | 'smtp';
  /**
   * Delivers one key; idempotent per transaction. For `sealed`, returns the envelope to store
   * (the pickup route serves it). Throws (an Error whose message never holds the key) to be retried;
   * an error with `retryable: false` (a mail server's permanent refusal, a message that cannot be
   * written) is retried too, but at the longest interval from the first failure on, since only
   * the operator's fix can make it succeed.
   */
  deliver(delivery: KeyDelivery): Promise<{ sealed?: unknown }>;
}

/** What the watcher is given. */
export interface PaymentWatcherOptions {
  /** The service's store: payments, the cursor, and the `payments` lease. */
  store: ServiceStore;
  /** The data folder's workspace (bought keys are derived under its secret). */
  workspace: Workspace;
  /** This node's id, the lease's holder (default `<hostname>-<pid>-<4 hex>`). */
  node?: string;
  chain: StablecoinChain;
  /** Confirmations before a key is issued (serve's `--confirmations`); 1 or more. */
  confirmations: number;
  /** Time between passes, ms. */
  intervalMs: number;
  delivery: PaymentDelivery;
  /** Where a line goes for each payment decided and each failure (never a key). */
  log?: (line: string) => void;
  /** The clock (tests move it). Default: the system's. */
  now?: () => Date;
  /** The first block to read when no cursor is stored yet (default 0). */
  fromBlock?: number;
}

/** A running watcher. */
export interface PaymentWatcher {
  /** Stops the loop, after the pass in progress. */
  stop(): Promise<void>;
  /** Runs one pass now (after the one in progress), and resolves when it is done (nothing unless this node holds the lease). */
  passNow(): Promise<void>;
  /** Whether this node holds the `payments` lease (it watches) as far as it knows. */
  holdsLease(): boolean;
}

/** The wait after `attempts` failed attempts: 1 s, 2 s, 4 s, ... at most 5 minutes. */
export function deliveryBackoffMs(attempts: number): number {
  return Math.min(DELIVERY_RETRY_MAX_MS, DELIVERY_RETRY_FIRST_MS * 2 ** Math.min(20, Math.max(0, attempts - 1)));
}

function message(error: unknown): string {
  if (error instanceof Error && error.message.length > 0) return error.message;
  return describeError(error).envelope.message;
}

/**
 * Starts the watcher: a first pass at once, then one per interval.
 *
 * @returns the watcher; stop it before closing the workspace
 */
export function startPaymentWatcher(options: PaymentWatcherOptions): PaymentWatcher {
  const { store, workspace, chain, confirmations, intervalMs, delivery } = options;
  if (!Number.isSafeInteger(confirmations) || confirmations < 1)
    throw new RangeError('startPaymentWatcher: confirmations must be a whole number from 1');
  if (!Number.isSafeInteger(intervalMs) || intervalMs < 10)
    throw new RangeError('startPaymentWatcher: intervalMs must be a whole number of ms from 10');
  if (delivery.mailChannel !== 'outbox' && delivery.mailChannel !== 'smtp')
    throw new RangeError('startPaymentWatcher: delivery.mailChannel must be outbox or smtp');
  const log = options.log ?? (() => undefined);
  const now = options.now ?? (() => new Date());
  const where = { network: chain.config.network, token: chain.config.token, treasury: chain.config.treasury };
  const firstBlock = options.fromBlock ?? 0;
  if (!Number.isSafeInteger(firstBlock) || firstBlock < 0)
    throw new RangeError('startPaymentWatcher: fromBlock must be a whole number from 0');
  const node = options.node ?? newNodeId();

  // The lease: held while renewals succeed; a pass acts only under it.
  let lease: Lease | undefined;
  function dropLease(reason: string): void {
    if (lease === undefined) return;
    lease = undefined;
    log(`payments: this node stops watching (${reason})`);
  }
  let renewing: Promise<void> | undefined;
  function renewLease(): Promise<void> {
    renewing ??= takeLease().finally(() => {
      renewing = undefined;
    });
    return renewing;
  }
  async function takeLease(): Promise<void> {
    try {
      const held = await store.cluster.acquireLease(PAYMENTS_LEASE, node, PAYMENT_LEASE_TTL_MS, Date.now());
      if (held === undefined) dropLease('another node holds the payments lease');
      else {
        if (lease === undefined) log(`payments: this node (${node}) watches payments, lease fence ${held.fence}`);
        lease = held;
      }
    } catch (error) {
      dropLease(`the lease could not be renewed: ${message(error)}`);
    }
  }
  /** The lease a write goes under; throws when this node no longer holds it (the pass stops). */
  function underLease(): Lease {
    if (lease === undefined) throw new LeaseLostError('this node no longer holds the payments lease');
    return lease;
  }

  async function observe(txHash: string): Promise<boolean> {
    try {
      const view = await observePayment(store, workspace, chain, txHash, {
        confirmations,
        now: now(),
        mailChannel: delivery.mailChannel,
        lease: underLease(),
      });
      if (view.state !== 'pending_confirmations') log(`payment ${txHash}: ${view.state}`);
      return true;
    } catch (error) {
      if (error instanceof LeaseLostError) throw error;
      log(`payment ${txHash}: not observed (${message(error)}); tried again on the next pass`);
      return false;
    }
  }

  async function scan(): Promise<void> {
    const head = await chain.head();
    const confirmedThrough = head - confirmations + 1;
    const start = (await store.payments.cursor(where)) ?? firstBlock;
    let advanceTo = confirmedThrough + 1;
    const seen = new Set<string>();
    for (let from = start; from <= head; from += LOG_CHUNK_BLOCKS) {
      const to = Math.min(head, from + LOG_CHUNK_BLOCKS - 1);
      for (const transfer of await chain.transfersToTreasury(from, to)) {
        if (seen.has(transfer.tx_hash)) continue;
        seen.add(transfer.tx_hash);
        if (!(await observe(transfer.tx_hash))) advanceTo = Math.min(advanceTo, transfer.block_number);
      }
    }
    // Payments recorded earlier and still waiting (their blocks may be behind the cursor now).
    for (const payment of await store.payments.unconfirmed(where.network)) {
      if (seen.has(payment.tx_hash)) continue;
      await observe(payment.tx_hash);
    }
    if (advanceTo > start)
      await store.payments.advanceCursor({ ...where, next_block: advanceTo, at: now().getTime() }, underLease());
  }

  async function deliverOne(payment: PaymentRecord): Promise<void> {
    const { tier, term, tenant_id: tenantId, expires_at: expiresAt, delivery_to: to } = payment;
    if ((tier !== 'pro' && tier !== 'scale') || term === null || tenantId === null || expiresAt === null || to === null)
      throw new Error(`payment ${payment.tx_hash}: an issued payment lacks its tier, term, tenant or contact`);
    const channel: DeliveryChannel = payment.delivery_channel === 'sealed' ? 'sealed' : delivery.mailChannel;
    const { key, prefix } = paymentKey(workspace, payment.network, payment.tx_hash, tier);
    const at = (): number => now().getTime();
    underLease();
    try {
      // A key derived under another secret than the one it was issued under would not work: never send it.
      if (prefix !== payment.key_prefix)
        throw new Error(
          `the key derived here (${prefix}…) is not the one issued (${payment.key_prefix ?? '-'}…): this data folder's service/payment-key-secret is not the one the key was issued under; restore it from a backup or copy it from the node that issued the key`,
        );
      const result = await delivery.deliver({
        tx_hash: payment.tx_hash,
        channel,
        to,
        key,
        tier,
        term,
        expires_at: expiresAt,
        tenant_id: tenantId,
      });
      if (channel === 'sealed' && (typeof result?.sealed !== 'object' || result.sealed === null))
        throw new Error('the sealed delivery returned no envelope');
      const sealed = channel === 'sealed' ? { sealed: result.sealed } : {};
      await store.payments.delivered(
        { network: payment.network, tx_hash: payment.tx_hash, channel, to, ...sealed, at: at() },
        underLease(),
      );
      log(`payment ${payment.tx_hash}: key ${payment.key_prefix ?? ''}… delivered (${channel})`);
    } catch (error) {
      if (error instanceof LeaseLostError) throw error;
      // The transports never put the key in a message; this makes sure of it.
      const said = message(error).split(key).join('[key]').slice(0, 1900) || 'delivery failed';
      const lasting = (error as { retryable?: unknown } | null)?.retryable === false;
      const text = lasting
        ? `${said} (a lasting failure: tried again every 5 minutes until the operator fixes it)`
        : said;
      const next = at() + (lasting ? DELIVERY_RETRY_MAX_MS : deliveryBackoffMs(payment.delivery_attempts + 1));
      await store.payments.deliveryFailed(
        { network: payment.network, tx_hash: payment.tx_hash, error: text, next_at: next, at: at() },
        underLease(),
      );
      log(
        `payment ${payment.tx_hash}: delivery (${channel}) failed: ${text}; tried again at ${new Date(next).toISOString()}`,
      );
    }
  }

  async function deliverDue(): Promise<void> {
    for (const payment of await store.payments.dueDeliveries(now().getTime())) {
      if (payment.network !== where.network) continue;
      await deliverOne(payment);
    }
  }

  async function pass(): Promise<void> {
    if (stopped) return;
    if (lease === undefined || lease.expiresAt - Date.now() < PAYMENT_LEASE_TTL_MS - PAYMENT_LEASE_RENEW_MS)
      await renewLease();
    if (lease === undefined) return;
    try {
      await scan();
    } catch (error) {
      if (error instanceof LeaseLostError) return dropLease(message(error));
      log(
        error instanceof StoreUnavailableError
          ? `payments: the database is unavailable (${message(error)}); tried again on the next pass`
          : `payments: the chain could not be read (${message(error)}); tried again on the next pass`,
      );
    }
    try {
      await deliverDue();
    } catch (error) {
      if (error instanceof LeaseLostError) return dropLease(message(error));
      log(`payments: deliveries stopped for this pass (${message(error)})`);
    }
  }

  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // Renewed on its own clock too, so a long pass keeps the lease.
  const renewer = setInterval(() => {
    if (lease !== undefined && !stopped) void renewLease();
  }, PAYMENT_LEASE_RENEW_MS);
  renewer.unref?.();
  function enqueue(): Promise<void> {
    running = running.then(pass, pass);
    return running;
  }
  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void enqueue().finally(schedule);
    }, intervalMs);
    timer.unref?.();
  }
  void enqueue().finally(schedule);

  return {
    passNow: () => enqueue(),
    holdsLease: () => lease !== undefined,
    stop: async () => {
      stopped = true;
      clearInterval(renewer);
      if (timer !== undefined) clearTimeout(timer);
      await running;
      await renewing;
      const held = lease;
      lease = undefined;
      // Given up at once, so another node takes over without waiting for it to lapse.
      if (held !== undefined) await store.cluster.releaseLease(held).catch(() => undefined);
    },
  };
}
