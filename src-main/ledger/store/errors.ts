/**
 * What the service store throws, whichever engine is behind it.
 */

/**
 * The database cannot be reached (PostgreSQL down, restarting, refusing connections): the
 * HTTP service answers 503 `unavailable`, and nothing was written.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/**
 * A write made under a lease that another node has since taken (fencing, cluster.ts): nothing
 * was written; the caller stops acting as the lease's holder.
 */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}
