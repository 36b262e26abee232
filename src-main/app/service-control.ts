/**
 * The app's HTTP service: started and stopped from the Service view, inside the main process.
 *
 * The shell builds this on {@link startService} and gives it to the app API (which may not
 * import the HTTP door itself). From the app the service listens on 127.0.0.1 only: the view is
 * for trying the service on this machine, `evroom serve --host` is for serving others.
 */
import type { RequestRecordLike, ServiceControl } from '../appapi/service-control';
import { OperationError } from '../operations/errors';
import { startService, type RunningService } from './service-mode';

/** The address the app's service listens on. */
export const APP_SERVICE_HOST = '127.0.0.1';

/** The shell's control of the service, with a way to stop it when the app closes. */
export interface AppServiceControl extends ServiceControl {
  /** Stops the service if it runs; for the app's shutdown. */
  close(): Promise<void>;
}

/**
 * Creates the control of the app's service over a data folder.
 *
 * The service opens its own connection to the data folder's ledger (SQLite in WAL mode takes
 * the app API's connection and this one side by side).
 *
 * @param dataDirectory - The app's data folder.
 */
export function createServiceControl(dataDirectory: string): AppServiceControl {
  if (typeof dataDirectory !== 'string' || dataDirectory === '')
    throw new TypeError('dataDirectory must be a non-empty string');
  let running: RunningService | undefined;
  // One start or stop at a time: a second click while starting gets the same service.
  let pending: Promise<unknown> = Promise.resolve();
  // The last run's requests stay visible after a stop, until the next start.
  let lastRequests: RequestRecordLike[] = [];

  function serialised<T>(step: () => Promise<T>): Promise<T> {
    const next = pending.then(step, step);
    pending = next.catch(() => undefined);
    return next;
  }

  async function start(port: number, options: { databaseUrl?: string } = {}): Promise<{ url: string; port: number }> {
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new RangeError('port must be a whole number from 0 to 65535');
    return serialised(async () => {
      if (running !== undefined) return { url: running.url, port: running.port };
      try {
        const databaseUrl = options.databaseUrl;
        running = await startService({
          dataDirectory,
          host: APP_SERVICE_HOST,
          port,
          // On PostgreSQL the app's service runs without anchoring: nodes sharing a database must
          // share one chain, and the embedded chain is this process's own (docs/deploy.md).
          ...(databaseUrl === undefined ? {} : { databaseUrl, anchor: false as const }),
        });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (code === 'EADDRINUSE') {
          throw new OperationError(
            'conflict',
            'port_in_use',
            `Port ${port} on ${APP_SERVICE_HOST} is in use by another program; choose another port, or 0 for any free one.`,
            {
              details: [{ path: '/port', message: 'in use' }],
            },
          );
        }
        if (code === 'EACCES') {
          throw new OperationError(
            'refused',
            'port_unavailable',
            `Port ${port} needs privileges this app does not have; choose one above 1023, or 0 for any free one.`,
            {
              details: [{ path: '/port', message: 'not permitted' }],
            },
          );
        }
        throw error;
      }
      lastRequests = [];
      return { url: running.url, port: running.port };
    });
  }

  async function stop(): Promise<void> {
    return serialised(async () => {
      const service = running;
      if (service === undefined) return;
      lastRequests = service.recentRequests();
      running = undefined;
      await service.close();
    });
  }

  return {
    start,
    stop,
    close: stop,
    status: () =>
      running === undefined
        ? { running: false, requests: lastRequests }
        : {
            running: true,
            url: running.url,
            port: running.port,
            ...(running.payments === null || running.anchor === null
              ? {}
              : {
                  payments: {
                    network: running.payments.network,
                    chainId: running.payments.chain_id,
                    embedded: running.payments.development,
                    token: running.payments.token,
                    treasury: running.payments.treasury,
                    // Payments are taken on the anchoring chain: its JSON-RPC is where a purchase is sent.
                    rpcUrl: running.anchor.rpcUrl,
                  },
                }),
            requests: running.recentRequests(),
          },
  };
}
