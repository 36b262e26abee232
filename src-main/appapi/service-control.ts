/**
 * What the app API needs to run the HTTP service: start, stop and look.
 *
 * The app API is a door and may not import the HTTP service, another door (docs/architecture.md);
 * the shell (src-main/app/service-control.ts) builds one of these on app/service-mode.ts and
 * hands it to {@link createAppApi}. Without one, the service methods are refused.
 */

/** A request the service answered, as the service records it (never a key or a body). */
export interface RequestRecordLike {
  at: number;
  method: string;
  route: string;
  status: number;
  ms: number;
}

/** The chain the running service takes payments for API keys on (its stablecoin and treasury). */
export interface PaymentChainLike {
  network: string;
  chainId: number;
  /** The embedded development chain (`evroom serve`'s default), whose development accounts hold test tokens. */
  embedded: boolean;
  token: string;
  treasury: string;
  /** The chain's JSON-RPC (the app passes it on only for the embedded chain). */
  rpcUrl: string;
}

/** Starts, stops and describes the HTTP service of this app. */
export interface ServiceControl {
  /**
   * Starts the service on 127.0.0.1 (port 0: any free port); answers the running one when it runs.
   * With `databaseUrl` its data is in that PostgreSQL database (Settings, "Service database")
   * instead of the data folder's ledger.
   *
   * @throws OperationError conflict `port_in_use` when the port is taken (refused `port_unavailable` when it needs privileges);
   *   StoreUnavailableError when the database cannot be reached
   */
  start(port: number, options?: { databaseUrl?: string }): Promise<{ url: string; port: number }>;
  /** Stops it (requests in flight finish); nothing when it is not running. */
  stop(): Promise<void>;
  /** Whether it runs, where, on which payment chain, and the requests answered last (newest first). */
  status(): {
    running: boolean;
    url?: string;
    port?: number;
    payments?: PaymentChainLike;
    requests: RequestRecordLike[];
  };
}
