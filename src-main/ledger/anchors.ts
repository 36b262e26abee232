/**
 * Repository for `anchors`: anchoring records (PROTOCOL section 8), pending and resolved.
 *
 * A row is created with the pending URN (`urn:svc:anchor:pending:<batch_id>:<suffix>`), or
 * directly with a resolved record (e.g. from a bundle's anchors/). Resolving replaces
 * `svc_anchor` with the resolved URN and keeps the pending one in `pending_svc_anchor`, so
 * either form finds the row.
 *
 * URNs and batch ids follow src-shared/anchor/urn.ts, the one statement of their rules: a row's
 * status is the form of its URN, a pending URN names the row's batch, and a resolved URN ends
 * with the same digest suffix as the pending one it replaces.
 */
import { isBatchId, parseAnchorUrn, type ParsedAnchorUrn } from '../../src-shared/anchor/urn';
import { checkHex64, checkInstant, checkInteger, checkObject, checkOneOf, toJsonText } from './checks';
import { decodeCursor, encodeCursor, queryFingerprint } from './cursor';
import { execute, queryAll, queryOne, type ReadableDB, type WritableDB } from './database';
import { LedgerError } from './errors';
import { sql, sqlFragment, sqlJoin, type SqlFragment } from './sql';

export const ANCHOR_STATUSES = ['pending', 'resolved'] as const;
export type AnchorStatus = (typeof ANCHOR_STATUSES)[number];

/** An anchor record to store. */
export interface NewAnchor {
  /** The pending or resolved URN. */
  svc_anchor: string;
  /** `YYYY-MM-DDThh:mmZ`, the batch's opening minute. */
  batch_id: string;
  /** The anchored receipt's receipt_sha256 (hex), when known. */
  receipt_sha256?: string | null;
  /** The record as the service returned it (pending or resolved form). */
  record: unknown;
  status: AnchorStatus;
}

/** A stored anchor row. */
export interface AnchorRecord {
  id: number;
  svc_anchor: string;
  pending_svc_anchor: string | null;
  batch_id: string;
  receipt_sha256: string | null;
  record: unknown;
  status: AnchorStatus;
  created_at: number;
  updated_at: number;
}

interface AnchorRow extends Omit<AnchorRecord, 'record'> {
  record_json: string;
}

function toRecord(row: AnchorRow): AnchorRecord {
  const { record_json: recordJson, ...rest } = row;
  return { ...rest, record: JSON.parse(recordJson) as unknown };
}

function checkUrn(value: unknown, name: string): { urn: string; parsed: ParsedAnchorUrn } {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  const parsed = parseAnchorUrn(value);
  if (parsed === undefined) {
    throw new RangeError(
      `${name} must be an anchor URN: urn:svc:anchor:pending:<batch_id>:<suffix> or urn:svc:anchor:<network>:<block_height>:<tx_hash>:<suffix>`,
    );
  }
  return { urn: value, parsed };
}

function checkBatchId(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  if (!isBatchId(value)) throw new RangeError(`${name} must be a batch id (YYYY-MM-DDThh:mmZ)`);
  return value;
}

/**
 * Store an anchor record; idempotent by svc_anchor (and by the pending URN of a resolved row).
 *
 * @param database - a writable handle
 * @param anchor - the record
 * @param options - `at`: when (ms; default now)
 * @returns the row id; `created: false` when it was already stored (unchanged)
 * @throws TypeError / RangeError for bad input
 */
export function insertAnchor(
  database: WritableDB,
  anchor: NewAnchor,
  options: { at?: number } = {},
): { id: number; created: boolean } {
  const input = checkObject(anchor, 'anchor');
  const { urn: svcAnchor, parsed } = checkUrn(input.svc_anchor, 'anchor.svc_anchor');
  const batchId = checkBatchId(input.batch_id, 'anchor.batch_id');
  const receiptSha256 =
    input.receipt_sha256 === undefined || input.receipt_sha256 === null
      ? null
      : checkHex64(input.receipt_sha256, 'anchor.receipt_sha256');
  const recordJson = toJsonText(input.record, 'anchor.record');
  const status = checkOneOf(input.status, ANCHOR_STATUSES, 'anchor.status');
  if (status !== parsed.status)
    throw new RangeError(`anchor.status is ${status} but anchor.svc_anchor is a ${parsed.status} URN`);
  if (parsed.status === 'pending' && parsed.batch_id !== batchId) {
    throw new RangeError(`anchor.svc_anchor names batch ${parsed.batch_id}, not anchor.batch_id ${batchId}`);
  }
  const at = checkInstant(options.at, 'at');
  const existing = getAnchor(database, svcAnchor);
  if (existing !== undefined) return { id: existing.id, created: false };
  const pending = status === 'pending' ? svcAnchor : null;
  const result = execute(
    database,
    sql`INSERT INTO anchors (svc_anchor, pending_svc_anchor, batch_id, receipt_sha256, record_json, status,
                             created_at, updated_at)
        VALUES (${svcAnchor}, ${pending}, ${batchId}, ${receiptSha256}, ${recordJson}, ${status}, ${at}, ${at})`,
  );
  return { id: result.lastInsertRowid, created: true };
}

/**
 * Record that a pending anchor resolved.
 *
 * @param database - a writable handle
 * @param pendingSvcAnchor - the pending URN the row is known by
 * @param resolved - the resolved URN and the resolved record
 * @param options - `at`: when (ms; default now)
 * @returns the updated row
 * @throws LedgerError `not_found` when no row has that URN
 * @throws RangeError when `pendingSvcAnchor` is not a pending URN, `resolved.svc_anchor` not a
 *   resolved one, or the two name different digests (their suffixes differ)
 */
export function resolveAnchor(
  database: WritableDB,
  pendingSvcAnchor: string,
  resolved: { svc_anchor: string; record: unknown },
  options: { at?: number } = {},
): AnchorRecord {
  const { urn: pending, parsed: from } = checkUrn(pendingSvcAnchor, 'pendingSvcAnchor');
  if (from.status !== 'pending') throw new RangeError('pendingSvcAnchor must be a pending anchor URN');
  const input = checkObject(resolved, 'resolved');
  const { urn: svcAnchor, parsed: to } = checkUrn(input.svc_anchor, 'resolved.svc_anchor');
  if (to.status !== 'resolved') throw new RangeError('resolved.svc_anchor must be a resolved anchor URN');
  if (to.suffix !== from.suffix) {
    throw new RangeError(
      `resolved.svc_anchor ends with ${to.suffix}, another digest than the pending URN's ${from.suffix}`,
    );
  }
  const recordJson = toJsonText(input.record, 'resolved.record');
  const at = checkInstant(options.at, 'at');
  const row = getAnchor(database, pending);
  if (row === undefined) throw new LedgerError('not_found', `No anchor ${pending} in the ledger.`);
  execute(
    database,
    sql`UPDATE anchors SET svc_anchor = ${svcAnchor}, pending_svc_anchor = coalesce(pending_svc_anchor, ${pending}),
               record_json = ${recordJson}, status = 'resolved', updated_at = ${at}
        WHERE id = ${row.id}`,
  );
  const updated = getAnchor(database, svcAnchor);
  if (updated === undefined) throw new LedgerError('not_found', `No anchor ${svcAnchor} in the ledger.`);
  return updated;
}

/**
 * An anchor by its current or its pending URN.
 */
export function getAnchor(database: ReadableDB, svcAnchor: string): AnchorRecord | undefined {
  const { urn } = checkUrn(svcAnchor, 'svcAnchor');
  const row =
    queryOne<AnchorRow>(database, sql`SELECT * FROM anchors WHERE svc_anchor = ${urn}`) ??
    queryOne<AnchorRow>(database, sql`SELECT * FROM anchors WHERE pending_svc_anchor = ${urn}`);
  return row === undefined ? undefined : toRecord(row);
}

/**
 * Anchors in row order, filtered, keyset-paginated.
 *
 * @param database - any handle
 * @param query - filters `status`, `batch_id`, `receipt_sha256`; `after`; `limit` (1..1000, default 100)
 * @returns the page
 * @throws LedgerError `bad_cursor`
 */
export function listAnchors(
  database: ReadableDB,
  query: { status?: AnchorStatus; batch_id?: string; receipt_sha256?: string; after?: string; limit?: number } = {},
): { rows: AnchorRecord[]; nextCursor: string | null } {
  const input = checkObject(query, 'query');
  const conditions: SqlFragment[] = [];
  const shape: Record<string, string> = {};
  if (input.status !== undefined) {
    shape.status = checkOneOf(input.status, ANCHOR_STATUSES, 'status');
    conditions.push(sqlFragment`status = ${shape.status}`);
  }
  if (input.batch_id !== undefined) {
    shape.batch_id = checkBatchId(input.batch_id, 'batch_id');
    conditions.push(sqlFragment`batch_id = ${shape.batch_id}`);
  }
  if (input.receipt_sha256 !== undefined) {
    shape.receipt_sha256 = checkHex64(input.receipt_sha256, 'receipt_sha256');
    conditions.push(sqlFragment`receipt_sha256 = ${shape.receipt_sha256}`);
  }
  const limit = input.limit === undefined ? 100 : checkInteger(input.limit, 'limit', 1, 1000);
  const fingerprint = queryFingerprint({ anchors: shape });
  if (input.after !== undefined) {
    const [id] = decodeCursor(input.after as string, fingerprint, ['integer']);
    conditions.push(sqlFragment`id > ${id ?? 0}`);
  }
  const where = conditions.length === 0 ? sqlFragment`` : sqlFragment`WHERE ${sqlJoin(conditions, ' AND ')}`;
  const rows = queryAll<AnchorRow>(database, sql`SELECT * FROM anchors ${where} ORDER BY id LIMIT ${limit + 1}`);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page.map(toRecord),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(fingerprint, [last.id]) : null,
  };
}
