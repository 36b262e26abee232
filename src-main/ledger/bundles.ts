/**
 * Repository for `bundles`: evidence bundles (zip files) that were imported.
 *
 * A bundle row is written before its receipts, with status `partial`, and set to `complete`
 * once every receipt batch has committed. A crash mid-import therefore leaves a `partial` row
 * that says so; importing the same zip again finds that row (same bundle_sha256) and finishes it.
 */
import {
  checkHex64,
  checkInstant,
  checkInteger,
  checkObject,
  checkOneOf,
  checkOptionalText,
  toJsonText,
} from './checks';
import { BUNDLE_STATUSES, type BundleStatus } from '../../src-shared/api/vocabulary';
import { decodeCursor, encodeCursor, queryFingerprint } from './cursor';
import { execute, queryAll, queryOne, type ReadableDB, type WritableDB } from './database';
import { LedgerError } from './errors';
import { sql, sqlFragment, sqlJoin, type SqlFragment } from './sql';

export { BUNDLE_STATUSES, type BundleStatus };

/** A bundle to record. */
export interface NewBundle {
  /** hex SHA-256 of the zip file's bytes. */
  bundle_sha256: string;
  /** The file's name as the user chose it (no directories needed). */
  file_name?: string | null;
  tenant_id?: string | null;
  /** The manifest's generated_at, in ms since the epoch, when it parsed. */
  generated_at?: number | null;
  /** manifest.json exactly as read from the zip (its bytes are what the signature covers). */
  manifest_json: string;
  /** The manifest signature check, e.g. `{ status, key_id, detail }`. Any JSON value. */
  signature: unknown;
  /** Missing files, extra files, hash mismatches, ... Any JSON value (default []). */
  findings?: unknown;
  /** Counts: receipts, anchors, new, duplicates, ... Any JSON value (default {}). */
  counts?: unknown;
  /** Default `partial`. */
  status?: BundleStatus;
}

/** A bundle as listed (without the manifest and findings, which can be large). */
export interface BundleSummary {
  id: number;
  bundle_sha256: string;
  file_name: string | null;
  tenant_id: string | null;
  generated_at: number | null;
  imported_at: number;
  status: BundleStatus;
  signature: unknown;
  counts: unknown;
  /** The bundle's log completeness (a LogCompleteness, docs/logs.md), or null without log files. */
  log: unknown;
}

/** A full bundle row. */
export interface BundleRecord extends BundleSummary {
  manifest_json: string;
  findings: unknown;
}

interface BundleRow {
  id: number;
  bundle_sha256: string;
  file_name: string | null;
  tenant_id: string | null;
  generated_at: number | null;
  imported_at: number;
  status: BundleStatus;
  signature_json: string;
  counts_json: string;
  log_json: string | null;
  manifest_json?: string;
  findings_json?: string;
}

function toSummary(row: BundleRow): BundleSummary {
  return {
    id: row.id,
    bundle_sha256: row.bundle_sha256,
    file_name: row.file_name,
    tenant_id: row.tenant_id,
    generated_at: row.generated_at,
    imported_at: row.imported_at,
    status: row.status,
    signature: JSON.parse(row.signature_json) as unknown,
    counts: JSON.parse(row.counts_json) as unknown,
    log: row.log_json === null ? null : (JSON.parse(row.log_json) as unknown),
  };
}

function checkJsonText(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  try {
    JSON.parse(value);
  } catch {
    throw new RangeError(`${name} must be JSON text`);
  }
  return value;
}

/**
 * Record a bundle, or find it when the same zip was recorded before.
 *
 * @param database - a writable handle
 * @param bundle - the bundle's facts
 * @param options - `at`: import time (ms; default now)
 * @returns its row id; `created: false` when a row with this bundle_sha256 already existed
 *   (that row is returned unchanged)
 * @throws TypeError / RangeError for bad input
 */
export function insertBundle(
  database: WritableDB,
  bundle: NewBundle,
  options: { at?: number } = {},
): { id: number; created: boolean } {
  const input = checkObject(bundle, 'bundle');
  const bundleSha256 = checkHex64(input.bundle_sha256, 'bundle.bundle_sha256');
  const fileName = checkOptionalText(input.file_name, 'bundle.file_name', 4096);
  const tenantId = checkOptionalText(input.tenant_id, 'bundle.tenant_id', 512);
  const generatedAt =
    input.generated_at === undefined || input.generated_at === null
      ? null
      : checkInteger(input.generated_at, 'bundle.generated_at');
  const manifestJson = checkJsonText(input.manifest_json, 'bundle.manifest_json');
  const signatureJson = toJsonText(input.signature ?? null, 'bundle.signature');
  const findingsJson = toJsonText(input.findings ?? [], 'bundle.findings');
  const countsJson = toJsonText(input.counts ?? {}, 'bundle.counts');
  const status = input.status === undefined ? 'partial' : checkOneOf(input.status, BUNDLE_STATUSES, 'bundle.status');
  const at = checkInstant(options.at, 'at');
  const result = execute(
    database,
    sql`INSERT INTO bundles (bundle_sha256, file_name, tenant_id, generated_at, manifest_json, signature_json,
                             findings_json, counts_json, imported_at, status)
        VALUES (${bundleSha256}, ${fileName}, ${tenantId}, ${generatedAt}, ${manifestJson}, ${signatureJson},
                ${findingsJson}, ${countsJson}, ${at}, ${status})
        ON CONFLICT (bundle_sha256) DO NOTHING`,
  );
  if (result.changes === 1) return { id: result.lastInsertRowid, created: true };
  const existing = queryOne<{ id: number }>(
    database,
    sql`SELECT id FROM bundles WHERE bundle_sha256 = ${bundleSha256}`,
  );
  return { id: existing?.id ?? 0, created: false };
}

/**
 * Update what an import learnt after recording the bundle: its status, counts, findings.
 *
 * @param database - a writable handle
 * @param id - the bundle's row id
 * @param changes - any of status, counts, findings, signature, log (the log completeness; null clears it)
 * @throws LedgerError `not_found`; TypeError / RangeError for bad input
 */
export function updateBundle(
  database: WritableDB,
  id: number,
  changes: { status?: BundleStatus; counts?: unknown; findings?: unknown; signature?: unknown; log?: unknown },
): void {
  checkInteger(id, 'id', 1);
  const input = checkObject(changes, 'changes');
  const sets: SqlFragment[] = [];
  if (input.status !== undefined)
    sets.push(sqlFragment`status = ${checkOneOf(input.status, BUNDLE_STATUSES, 'changes.status')}`);
  if (input.counts !== undefined) sets.push(sqlFragment`counts_json = ${toJsonText(input.counts, 'changes.counts')}`);
  if (input.findings !== undefined)
    sets.push(sqlFragment`findings_json = ${toJsonText(input.findings, 'changes.findings')}`);
  if (input.signature !== undefined) {
    sets.push(sqlFragment`signature_json = ${toJsonText(input.signature, 'changes.signature')}`);
  }
  if (input.log !== undefined) {
    sets.push(sqlFragment`log_json = ${input.log === null ? null : toJsonText(input.log, 'changes.log')}`);
  }
  // With nothing to change, still say whether the bundle exists.
  const assignments = sets.length === 0 ? [sqlFragment`id = id`] : sets;
  const result = execute(database, sql`UPDATE bundles SET ${sqlJoin(assignments, ', ')} WHERE id = ${id}`);
  if (result.changes === 0) throw new LedgerError('not_found', `No bundle ${id} in the ledger.`);
}

/**
 * One bundle with its manifest and findings.
 *
 * @param database - any handle
 * @param bundle - row id or bundle_sha256
 * @returns undefined when not recorded
 */
export function getBundle(database: ReadableDB, bundle: number | string): BundleRecord | undefined {
  const condition =
    typeof bundle === 'number'
      ? sqlFragment`id = ${checkInteger(bundle, 'bundle', 1)}`
      : sqlFragment`bundle_sha256 = ${checkHex64(bundle, 'bundle')}`;
  const row = queryOne<BundleRow>(database, sql`SELECT * FROM bundles WHERE ${condition}`);
  if (row === undefined) return undefined;
  return {
    ...toSummary(row),
    manifest_json: row.manifest_json ?? '',
    findings: JSON.parse(row.findings_json ?? '[]') as unknown,
  };
}

/**
 * Bundles, newest import first, keyset-paginated.
 *
 * @param database - any handle
 * @param query - `tenant_id` filter, `after` (a previous nextCursor), `limit` (1..1000, default 100)
 * @returns the page
 * @throws LedgerError `bad_cursor`
 */
export function listBundles(
  database: ReadableDB,
  query: { tenant_id?: string; after?: string; limit?: number } = {},
): { rows: BundleSummary[]; nextCursor: string | null } {
  const input = checkObject(query, 'query');
  const tenantId = checkOptionalText(input.tenant_id, 'tenant_id', 512);
  const limit = input.limit === undefined ? 100 : checkInteger(input.limit, 'limit', 1, 1000);
  const fingerprint = queryFingerprint({ bundles: tenantId });
  const conditions: SqlFragment[] = [];
  if (tenantId !== null) conditions.push(sqlFragment`tenant_id = ${tenantId}`);
  if (input.after !== undefined) {
    const [importedAt, id] = decodeCursor(input.after as string, fingerprint, ['integer', 'integer']);
    conditions.push(sqlFragment`(imported_at, id) < (${importedAt ?? 0}, ${id ?? 0})`);
  }
  const where = conditions.length === 0 ? sqlFragment`` : sqlFragment`WHERE ${sqlJoin(conditions, ' AND ')}`;
  const rows = queryAll<BundleRow>(
    database,
    sql`SELECT id, bundle_sha256, file_name, tenant_id, generated_at, imported_at, status, signature_json, counts_json,
               log_json
        FROM bundles ${where} ORDER BY imported_at DESC, id DESC LIMIT ${limit + 1}`,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page.map(toSummary),
    nextCursor:
      rows.length > limit && last !== undefined ? encodeCursor(fingerprint, [last.imported_at, last.id]) : null,
  };
}
