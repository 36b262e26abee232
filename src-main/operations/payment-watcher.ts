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
 */
import type { DeliveryChannel, PaymentTerm } from '../../src-shared/api/payments';
import type { StablecoinChain } from '../anchor/stablecoin';
import {
  advancePaymentCursor,
  appendAudit,
  dueDeliveries,
  getPaymentCursor,
  markDelivered,
  recordDeliveryFailure,
  unconfirmedPayments,
  type PaymentRecord,
} from '../ledger';
import { describeError } from './errors';
import { observePayment, paymentKey } from './payments';
import type { Workspace } from './workspace';

/** The first wait after a failed delivery, and the longest. */
export const DELIVERY_RETRY_FIRST_MS = 1000;
export const DELIVERY_RETRY_MAX_MS = 5 * 60 * 1000;
/** Blocks read per getLogs call. */
const LOG_CHUNK_BLOCKS = 2000;

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
   * (the pickup route serves it). Throws (an Error whose message never holds the key) to be retried.
   */
  deliver(delivery: KeyDelivery): Promise<{ sealed?: unknown }>;
}

/** What the watcher is given. */
export interface PaymentWatcherOptions {
  workspace: Workspace;
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
  /** Runs one pass now (after the one in progress), and resolves when it is done. */
  passNow(): Promise<void>;
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
  const { workspace, chain, confirmations, intervalMs, delivery } = options;
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

  async function observe(txHash: string): Promise<boolean> {
    try {
      const view = await observePayment(workspace, chain, txHash, {
        confirmations,
        now: now(),
        mailChannel: delivery.mailChannel,
      });
      if (view.state !== 'pending_confirmations') log(`payment ${txHash}: ${view.state}`);
      return true;
    } catch (error) {
      log(`payment ${txHash}: not observed (${message(error)}); tried again on the next pass`);
      return false;
    }
  }

  async function scan(): Promise<void> {
    const head = await chain.head();
    const confirmedThrough = head - confirmations + 1;
    const start = getPaymentCursor(workspace.ledger.readable, where) ?? firstBlock;
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
    for (const payment of unconfirmedPayments(workspace.ledger.readable, where.network)) {
      if (seen.has(payment.tx_hash)) continue;
      await observe(payment.tx_hash);
    }
    if (advanceTo > start)
      advancePaymentCursor(workspace.ledger.writable, { ...where, next_block: advanceTo, at: now().getTime() });
  }

  async function deliverOne(payment: PaymentRecord): Promise<void> {
    const { tier, term, tenant_id: tenantId, expires_at: expiresAt, delivery_to: to } = payment;
    if ((tier !== 'pro' && tier !== 'scale') || term === null || tenantId === null || expiresAt === null || to === null)
      throw new Error(`payment ${payment.tx_hash}: an issued payment lacks its tier, term, tenant or contact`);
    const channel: DeliveryChannel = payment.delivery_channel === 'sealed' ? 'sealed' : delivery.mailChannel;
    const { key } = paymentKey(workspace, payment.network, payment.tx_hash, tier);
    const at = (): number => now().getTime();
    try {
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
      workspace.ledger.runInTransaction((database) => {
        const sealed = channel === 'sealed' ? { sealed: result.sealed } : {};
        if (
          markDelivered(database, { network: payment.network, tx_hash: payment.tx_hash, channel, ...sealed, at: at() })
        )
          appendAudit(database, 'payment-deliver', payment.tx_hash, { network: payment.network, channel, to });
      });
      log(`payment ${payment.tx_hash}: key ${payment.key_prefix ?? ''}… delivered (${channel})`);
    } catch (error) {
      // The transports never put the key in a message; this makes sure of it.
      const text = message(error).split(key).join('[key]').slice(0, 2000) || 'delivery failed';
      const next = at() + deliveryBackoffMs(payment.delivery_attempts + 1);
      recordDeliveryFailure(workspace.ledger.writable, {
        network: payment.network,
        tx_hash: payment.tx_hash,
        error: text,
        next_at: next,
        at: at(),
      });
      log(
        `payment ${payment.tx_hash}: delivery (${channel}) failed: ${text}; tried again at ${new Date(next).toISOString()}`,
      );
    }
  }

  async function deliverDue(): Promise<void> {
    for (const payment of dueDeliveries(workspace.ledger.readable, now().getTime())) {
      if (payment.network !== where.network) continue;
      await deliverOne(payment);
    }
  }

  async function pass(): Promise<void> {
    try {
      await scan();
    } catch (error) {
      log(`payments: the chain could not be read (${message(error)}); tried again on the next pass`);
    }
    try {
      await deliverDue();
    } catch (error) {
      log(`payments: deliveries stopped for this pass (${message(error)})`);
    }
  }

  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
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
    stop: async () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
