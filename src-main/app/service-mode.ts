/**
 * The HTTP service, composed: the data folder's workspace, the service's signing keys, and the
 * service listening on an address.
 *
 * `evroom serve` and the app's Service view start the service through here; the doors do not
 * import each other (docs/architecture.md). Anchoring (src-main/anchor) starts here too: by
 * default on the embedded chain, or on the chain the options name, or not at all.
 */
import { startAnchoring, type Anchoring, type AnchoringConfig } from '../anchor/anchoring';
import { availableParallelism } from 'node:os';
import { MAX_POOL_SIZE } from '../core/worker-pool';
import { buildService, type RequestRecord, type ServiceOptions } from '../http/service';

export { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../http/service';
import { loadServiceKeys } from '../operations/service-keys';
import { openWorkspace } from '../operations/workspace';
import { openServiceStore, type ServiceStore } from '../operations/service-store';
import { newNodeId, type ServiceNode } from '../operations/service-node';
import { startPaymentWatcher, type PaymentWatcher } from '../operations/payment-watcher';
import { sealApiKey } from '../../src-shared/payments/sealed-key';
import type { MailTransport } from '../delivery/key-message';
import { outboxTransport } from '../delivery/outbox-transport';
import { smtpTransport } from '../delivery/smtp-transport';
import path from 'node:path';
import { pricingChain, type PricingChain } from '../../src-shared/api/payments';

/** The service, listening. */
export interface RunningService {
  url: string;
  host: string;
  port: number;
  /** The requests answered last, newest first (never a key or a body). */
  recentRequests(): RequestRecord[];
  /** The chain anchors go to, or null without anchoring. */
  anchor: { network: string; rpcUrl: string } | null;
  /** Where API keys are bought (token and treasury on the anchoring chain), or null when the service takes no payments. */
  payments: PricingChain | null;
  /** Where bought keys' mail goes, in words (the outbox folder, or the SMTP server without its password). */
  mail: string;
  /** Stops taking requests, lets those in flight finish, closes the ledger and wipes the key. */
  close(): Promise<void>;
}

/** How to start the service. */
export interface StartServiceOptions {
  dataDirectory: string;
  /** Default 127.0.0.1: the service is not reachable from other machines unless asked. */
  host?: string;
  /** 0: any free port. */
  port: number;
  rateLimitPerMinute?: number;
  logStream?: NodeJS.WritableStream;
  now?: ServiceOptions['now'];
  /** Anchoring: default the embedded chain; `false` runs without it (POST /v1/anchor is 503). */
  anchor?: AnchoringConfig | false;
  /** SQLite's page cache per ledger connection, MiB (default 64; the service keeps two connections). */
  ledgerCacheMiB?: number;
  /** Worker threads for the verify route (default {@link defaultVerifyThreads}; 0: the HTTP thread verifies). */
  verifyThreads?: number;
  /**
   * Bought keys go by SMTP to this `smtp://` or `smtps://` URL; by default they are written to the
   * data folder's `outbox/` (docs/payments.md).
   */
  smtpUrl?: string;
  /**
   * The address buyers reach the service at (http or https), told in bought keys' messages.
   * Default: the address it listens at, unless that is every address (0.0.0.0, ::): then none.
   */
  publicUrl?: string;
  /**
   * On another chain than the embedded one: the block the payment watcher reads from when it has
   * no cursor yet (its first start). Default: the block the chain is at then. Refused past the
   * chain's head; told and ignored once a cursor is stored (docs/payments.md).
   */
  paymentsFromBlock?: number;
  /** The tenants' logs: their name and how often the logs that grew are signed (buildService's `log`). */
  log?: { name?: string; checkpointMs?: number };
  /**
   * The service's data in this PostgreSQL database, shared with the other nodes on it
   * (docs/deploy.md), instead of the data folder's ledger. Its password is never shown.
   */
  databaseUrl?: string;
}

/** The folder of bought keys' messages when no SMTP server is given. */
export const OUTBOX_FOLDER = 'outbox';

/** The verify route's worker threads by default: one fewer than the cores, at least one. */
export function defaultVerifyThreads(): number {
  return Math.max(1, Math.min(availableParallelism() - 1, MAX_POOL_SIZE));
}

/**
 * Starts the service.
 *
 * @throws Error with a clear message (and the system's `code`, e.g. EADDRINUSE) when the address is taken; LedgerError or
 *   PrivateKeyFileError when the data folder cannot be used
 */
export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const workspace = openWorkspace(
    options.dataDirectory,
    options.ledgerCacheMiB === undefined ? {} : { ledgerCacheMiB: options.ledgerCacheMiB },
  );
  let keys;
  try {
    keys = loadServiceKeys(workspace);
  } catch (error) {
    workspace.close();
    throw error;
  }
  const seed = keys.active.seed;
  let store: ServiceStore;
  try {
    store = await openServiceStore(workspace, options.databaseUrl);
  } catch (error) {
    workspace.close();
    seed.fill(0);
    throw error;
  }
  /** Closes the store, then the workspace, and wipes the key (every way out after this point). */
  const closeData = async (): Promise<void> => {
    await store.close();
    workspace.close();
    seed.fill(0);
  };
  let mail: MailTransport;
  try {
    // Checked before anything starts: a mistyped SMTP URL is a usage error, not a failing delivery later.
    mail =
      options.smtpUrl === undefined
        ? outboxTransport(path.join(options.dataDirectory, OUTBOX_FOLDER))
        : smtpTransport(options.smtpUrl);
  } catch (error) {
    await closeData();
    throw error;
  }
  // This process among the store's nodes: the /status node list and the anchoring lease's holder.
  const node: ServiceNode = { id: newNodeId(), started_at: (options.now?.() ?? new Date()).getTime() };
  let anchoring: Anchoring | undefined;
  if (options.anchor !== false) {
    try {
      anchoring = await startAnchoring(options.dataDirectory, store, {
        ...(options.anchor ?? { chain: { kind: 'embedded' } }),
        node: node.id,
      });
    } catch (error) {
      await closeData();
      throw error;
    }
  }
  // A chain of its own is watched from block 0; another chain from --payments-from-block or the
  // block it is at when the service starts (the watcher's stored cursor wins once there is one; a
  // payment sent before that block is redeemed by hand: evroom apikeys redeem).
  let paymentsFromBlock = 0;
  if (options.paymentsFromBlock !== undefined && anchoring?.payments?.config.embedded !== false) {
    await anchoring?.close();
    await closeData();
    throw new Error(
      'payments-from-block is for another chain (--chain-rpc with --stablecoin); the embedded chain is watched from block 0',
    );
  }
  if (anchoring?.payments !== undefined && !anchoring.payments.config.embedded) {
    const payments = anchoring.payments;
    try {
      const head = await payments.head();
      paymentsFromBlock = head;
      if (options.paymentsFromBlock !== undefined) {
        const { network, token, treasury } = payments.config;
        const cursor = await store.payments.cursor({ network, token, treasury });
        if (options.paymentsFromBlock > head)
          throw new Error(
            `--payments-from-block ${options.paymentsFromBlock} is past the chain's head (block ${head}) on ${network}`,
          );
        if (cursor !== undefined && options.anchor !== false)
          options.anchor?.log?.(
            `--payments-from-block ${options.paymentsFromBlock} is not used: the payment watcher goes on from its stored cursor (block ${cursor}); redeem an older payment with evroom apikeys redeem --tx HASH`,
          );
        paymentsFromBlock = options.paymentsFromBlock;
      }
    } catch (error) {
      await anchoring.close();
      await closeData();
      throw error;
    }
  }
  let service;
  try {
    service = await buildService({
      ...(anchoring === undefined ? {} : { anchor: anchoring.engine }),
      pricingChains: anchoring?.payments === undefined ? [] : [pricingChain(anchoring.payments.config)],
      workspace,
      store,
      node,
      signer: { key_id: keys.active.key_id, seed, public_key: keys.active.public_key, listed: keys.listed },
      ...(options.rateLimitPerMinute === undefined ? {} : { rateLimitPerMinute: options.rateLimitPerMinute }),
      ...(options.logStream === undefined ? {} : { logStream: options.logStream }),
      ...(options.now === undefined ? {} : { now: options.now }),
      verifyThreads: options.verifyThreads ?? defaultVerifyThreads(),
      ...(options.log === undefined ? {} : { log: options.log }),
    });
  } catch (error) {
    await anchoring?.close();
    await closeData();
    throw error;
  }
  const host = options.host ?? '127.0.0.1';
  let watcher: PaymentWatcher | undefined;
  const stopWatcher = async (): Promise<void> => {
    await watcher?.stop();
  };
  try {
    await service.app.listen({ host, port: options.port });
    const listening = service.app.server.address();
    const serviceUrl =
      options.publicUrl ??
      (host === '0.0.0.0' || host === '::' || typeof listening !== 'object' || listening === null
        ? undefined
        : `http://${host.includes(':') ? `[${host}]` : host}:${listening.port}`);
    if (anchoring?.payments !== undefined) {
      const payments = anchoring.payments;
      const anchorConfig = options.anchor === false ? undefined : options.anchor;
      watcher = startPaymentWatcher({
        store,
        node: node.id,
        workspace,
        chain: payments,
        confirmations: anchorConfig?.confirmations ?? 1,
        // Every second on a chain of its own (a block per transaction); every 5 s on another.
        intervalMs: payments.config.embedded ? 1000 : 5000,
        fromBlock: paymentsFromBlock,
        delivery: {
          mailChannel: mail.channel,
          deliver: async (delivery) => {
            if (delivery.channel === 'sealed')
              return { sealed: sealApiKey(delivery.to, delivery.key, delivery.tx_hash) };
            // Where to use the key, for the message's example.
            await mail.send(serviceUrl === undefined ? delivery : { ...delivery, service_url: serviceUrl });
            return {};
          },
        },
        ...(anchorConfig?.log === undefined ? {} : { log: anchorConfig.log }),
      });
    }
  } catch (error) {
    await stopWatcher();
    await service.close();
    await anchoring?.close();
    await closeData();
    const code = (error as { code?: string }).code;
    // The system's code stays on the error so a caller can word it its own way (the app's Service view).
    throw Object.assign(
      new Error(
        code === 'EADDRINUSE'
          ? `port ${options.port} on ${host} is already in use; choose another with --port`
          : code === 'EADDRNOTAVAIL'
            ? `${host} is not an address of this machine`
            : (error as Error).message,
      ),
      code === undefined ? {} : { code },
    );
  }
  const address = service.app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    host,
    port,
    recentRequests: service.recentRequests,
    anchor: anchoring === undefined ? null : { network: anchoring.network, rpcUrl: anchoring.rpcUrl },
    payments: anchoring?.payments === undefined ? null : pricingChain(anchoring.payments.config),
    mail:
      mail.channel === 'outbox'
        ? `into ${path.join(options.dataDirectory, OUTBOX_FOLDER)} (one .eml file each)`
        : `by SMTP through ${mail.describe()}`,
    close: async () => {
      await stopWatcher();
      await service.close();
      await anchoring?.close();
      await closeData();
    },
  };
}
