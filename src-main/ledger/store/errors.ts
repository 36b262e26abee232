/**
 * What the service store throws, whichever engine is behind it.
 */
import { DomainError, type ErrorKind } from '../../../src-shared/api/domain-error';

/**
 * The database cannot be reached (PostgreSQL down, restarting, refusing connections): the
 * HTTP service answers 503 `unavailable`, and nothing was written.
 */
export class StoreUnavailableError extends DomainError {
  override readonly name = 'StoreUnavailableError';
  override readonly code = 'unavailable';
  override readonly kind: ErrorKind = 'unavailable';
}

/**
 * A write made under a lease that another node has since taken (fencing, cluster.ts): nothing
 * was written; the caller stops acting as the lease's holder.
 */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}
