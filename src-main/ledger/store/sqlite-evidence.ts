/**
 * The SQLite adapter of evidence.ts (a stub until its owner fills it in).
 */
import type { SqliteStoreDeps } from './deps';
import type { EvidenceStore } from './evidence';

/** The evidence domain on SQLite. */
export function sqliteEvidence(deps: SqliteStoreDeps): EvidenceStore {
  void deps;
  return {} as EvidenceStore;
}
