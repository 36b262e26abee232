/**
 * The SQLite adapter of anchoring.ts (a stub until its owner fills it in).
 */
import type { SqliteStoreDeps } from './deps';
import type { AnchoringStore } from './anchoring';

/** The anchoring domain on SQLite. */
export function sqliteAnchoring(deps: SqliteStoreDeps): AnchoringStore {
  void deps;
  return {} as AnchoringStore;
}
