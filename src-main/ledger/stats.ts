/**
 * Whole-ledger counts for the overview screen and `evroom` summaries.
 */
import type { ReportStatus, TrustStatus } from '../../src-shared/verify/report';
import { queryAll, queryOne, type ReadableDB } from './database';
import { countKeys, type KeyStatus } from './keys';
import { sql, type SqlQuery } from './sql';

/** The counts {@link ledgerStats} returns. */
export interface LedgerStats {
  /** Distinct receipts stored (each once, however often imported). */
  receipts: number;
  byFormat: Record<string, number>;
  byStatus: Partial<Record<ReportStatus, number>>;
  byTrust: Partial<Record<TrustStatus, number>>;
  bundles: number;
  keys: Record<KeyStatus, number>;
  anchors: number;
  auditEntries: number;
}

function grouped(database: ReadableDB, dimension: 'format' | 'status' | 'trust'): Record<string, number> {
  // receipt_counts is kept exact (insertReceipts adds, triggers subtract), so this reads a few rows whatever the size.
  const counts: Record<string, number> = {};
  const rows = queryAll<{ value: string; n: number }>(
    database,
    sql`SELECT value, n FROM receipt_counts WHERE dimension = ${dimension} AND n > 0 ORDER BY value`,
  );
  for (const row of rows) counts[row.value] = row.n;
  return counts;
}

function count(database: ReadableDB, query: SqlQuery): number {
  return queryOne<{ n: number }>(database, query)?.n ?? 0;
}

/**
 * Counts of everything in the ledger.
 *
 * Receipt counts come from receipt_counts (exact: insertReceipts and triggers keep it); the other tables are
 * small. Cheap at any ledger size.
 *
 * @param database - any handle
 * @returns the counts
 */
export function ledgerStats(database: ReadableDB): LedgerStats {
  const byStatus = grouped(database, 'status');
  return {
    receipts: Object.values(byStatus).reduce((total, n) => total + n, 0),
    byFormat: grouped(database, 'format'),
    byStatus,
    byTrust: grouped(database, 'trust'),
    bundles: count(database, sql`SELECT count(*) AS n FROM bundles`),
    keys: countKeys(database),
    anchors: count(database, sql`SELECT count(*) AS n FROM anchors`),
    auditEntries: count(database, sql`SELECT count(*) AS n FROM audit_log`),
  };
}
