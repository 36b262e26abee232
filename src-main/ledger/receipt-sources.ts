/**
 * Repository for `receipt_sources`: where each stored receipt came from.
 *
 * A receipt is stored once (by the SHA-256 of its JCS form) however often it is imported; each
 * distinct origin (a file path, a bundle, a paste, the service) is one row here. Sources are a
 * set: importing the same receipt from the same bundle twice records it once. The audit log,
 * not this table, records each import event.
 */
import { checkInstant, checkObject, checkOneOf } from './checks';
import { SOURCE_KINDS, type SourceKind } from '../../src-shared/api/vocabulary';
import { execute, queryAll, queryOne, type ReadableDB, type WritableDB } from './database';
import { LedgerError } from './errors';
import { sql } from './sql';

/** Where a receipt can come from (the one list: src-shared/api/vocabulary.ts). */
export { SOURCE_KINDS, type SourceKind };

/** The longest `ref` stored (a path or URL). */
export const MAX_SOURCE_REF_LENGTH = 4096;

/** One origin of a receipt: its kind and a reference (bundle id, file path, URL; may be ''). */
export interface ReceiptSource {
  kind: SourceKind;
  ref: string;
}

/** A stored source row. */
export interface ReceiptSourceRecord extends ReceiptSource {
  /** The receipt's row id. */
  receipt: number;
  /** When this source was first recorded (ms since the epoch). */
  imported_at: number;
}

/**
 * Check a source argument.
 *
 * @throws TypeError / RangeError for a bad kind or ref
 */
export function checkSource(value: unknown, name = 'source'): ReceiptSource {
  const source = checkObject(value, name);
  const kind = checkOneOf(source.kind, SOURCE_KINDS, `${name}.kind`);
  if (typeof source.ref !== 'string') throw new TypeError(`${name}.ref must be a string`);
  if (source.ref.length > MAX_SOURCE_REF_LENGTH) {
    throw new RangeError(`${name}.ref must be at most ${MAX_SOURCE_REF_LENGTH} characters`);
  }
  return { kind, ref: source.ref };
}

/**
 * Record a source for a stored receipt row (no checks; callers checked already).
 *
 * @internal used by insertReceipts inside its transaction
 */
export function insertSourceRow(database: WritableDB, receipt: number, source: ReceiptSource, at: number): boolean {
  const result = execute(
    database,
    sql`INSERT INTO receipt_sources (receipt, kind, ref, imported_at)
        VALUES (${receipt}, ${source.kind}, ${source.ref}, ${at})
        ON CONFLICT (receipt, kind, ref) DO NOTHING`,
  );
  return result.changes === 1;
}

/**
 * Record one more origin of a stored receipt.
 *
 * @param database - a writable handle
 * @param receipt - the receipt's row id, or its receipt_sha256
 * @param source - kind and ref
 * @param options - `at`: when (ms; default now)
 * @returns `created: false` when this exact source was already recorded
 * @throws LedgerError `not_found` when there is no such receipt; TypeError / RangeError for bad input
 */
export function addReceiptSource(
  database: WritableDB,
  receipt: number | string,
  source: ReceiptSource,
  options: { at?: number } = {},
): { created: boolean } {
  const checked = checkSource(source);
  const at = checkInstant(options.at, 'at');
  const id = resolveReceiptId(database, receipt);
  if (id === undefined) throw new LedgerError('not_found', `No receipt ${String(receipt)} in the ledger.`);
  return { created: insertSourceRow(database, id, checked, at) };
}

/**
 * Every recorded origin of a receipt, oldest first.
 *
 * @param database - any handle
 * @param receipt - the receipt's row id
 */
export function listReceiptSources(database: ReadableDB, receipt: number): ReceiptSourceRecord[] {
  if (!Number.isSafeInteger(receipt)) throw new TypeError('receipt must be an integer row id');
  return queryAll<ReceiptSourceRecord>(
    database,
    sql`SELECT receipt, kind, ref, imported_at FROM receipt_sources
        WHERE receipt = ${receipt} ORDER BY imported_at, id`,
  );
}

/**
 * The row id of a receipt named by row id or by receipt_sha256.
 *
 * @returns undefined when there is no such receipt
 * @throws TypeError when `receipt` is neither an integer nor a string; RangeError when a
 *   string is not HEX64
 */
export function resolveReceiptId(database: ReadableDB, receipt: number | string): number | undefined {
  if (typeof receipt === 'number') {
    if (!Number.isSafeInteger(receipt) || receipt < 1) throw new RangeError('receipt id must be a positive integer');
    const row = queryOne<{ id: number }>(database, sql`SELECT id FROM receipts WHERE id = ${receipt}`);
    return row?.id;
  }
  if (typeof receipt !== 'string') throw new TypeError('receipt must be a row id or a receipt_sha256');
  if (!/^[0-9a-f]{64}$/.test(receipt)) throw new RangeError('receipt_sha256 must be 64 lowercase hex characters');
  const row = queryOne<{ id: number }>(database, sql`SELECT id FROM receipts WHERE receipt_sha256 = ${receipt}`);
  return row?.id;
}
