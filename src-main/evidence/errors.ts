/**
 * Why a bundle was refused: a stable code, the zip entry it concerns, and a sentence for people.
 *
 * A refusal is decided before anything is written (PROTOCOL section 9): whenever
 * {@link BundleError} is thrown by the import, the ledger is as it was.
 */
import { DomainError } from '../../src-shared/api/domain-error';

export { BundleError, printableName, type BundleErrorCode } from '../../src-shared/evidence/errors';

/**
 * The import was stopped through its AbortSignal.
 *
 * Thrown at the next chunk or batch boundary after the signal fired: while the zip is hashed or
 * checked (nothing written yet), or between batches (whole batches stay stored, the bundle
 * `partial`, exactly as after a crash, and importing the same zip again finishes it).
 */
export class ImportCancelledError extends DomainError {
  override readonly code = 'cancelled';
  override readonly kind = 'cancelled';
  constructor() {
    super(
      'The import was cancelled; receipts already stored are kept, and importing the same bundle again finishes it.',
    );
    this.name = 'ImportCancelledError';
  }
}

/**
 * Throw {@link ImportCancelledError} when the signal has fired.
 *
 * @param signal - The caller's signal, if any.
 * @throws ImportCancelledError when it is aborted.
 */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new ImportCancelledError();
}
