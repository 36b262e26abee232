/**
 * The PostgreSQL adapter of anchoring.ts (a stub until its owner fills it in).
 */
import type { PgStoreDeps } from './deps';
import type { AnchoringStore } from './anchoring';

/** The anchoring domain on PostgreSQL. */
export function pgAnchoring(deps: PgStoreDeps): AnchoringStore {
  void deps;
  return {} as AnchoringStore;
}
