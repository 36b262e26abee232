/**
 * The PostgreSQL adapter of evidence.ts (a stub until its owner fills it in).
 */
import type { PgStoreDeps } from './deps';
import type { EvidenceStore } from './evidence';

/** The evidence domain on PostgreSQL. */
export function pgEvidence(deps: PgStoreDeps): EvidenceStore {
  void deps;
  return {} as EvidenceStore;
}
