/**
 * Opaque keyset-paging cursors.
 *
 * A cursor holds the sort-key values of the last row of a page, plus a fingerprint of the query
 * (filters and sort) that produced it, as base64url JSON. Callers must treat it as opaque: the
 * only promise is that handing it back with the same query continues right after that row,
 * with no duplicate and no gap even when many rows share a sort value (the row id breaks ties).
 */
import { createHash } from 'node:crypto';
import { LedgerError } from './errors';

/** A value of one sort-key column. */
export type CursorValue = string | number;
/** How a sort-key column is typed, to check decoded values. */
export type CursorValueType = 'integer' | 'text';

const CURSOR_VERSION = 1;
/** Cursors longer than this are refused before decoding (a key value is at most ~2 KB). */
const MAX_CURSOR_LENGTH = 8192;

/**
 * A short fingerprint of a query's shape, so a cursor cannot be replayed against another query.
 *
 * @param shape - any JSON-serialisable description of filters and sort
 * @returns 16 hex characters
 */
export function queryFingerprint(shape: unknown): string {
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 16);
}

/**
 * Encode a cursor.
 *
 * @param fingerprint - from {@link queryFingerprint}
 * @param values - the last row's sort-key values, id last
 * @returns an opaque base64url string
 */
export function encodeCursor(fingerprint: string, values: readonly CursorValue[]): string {
  return Buffer.from(JSON.stringify([CURSOR_VERSION, fingerprint, ...values]), 'utf8').toString('base64url');
}

function badCursor(detail: string): LedgerError {
  return new LedgerError(
    'bad_cursor',
    `The paging cursor is not valid for this query (${detail}); start again from the first page.`,
  );
}

/**
 * Decode and check a cursor.
 *
 * @param cursor - what {@link encodeCursor} returned
 * @param fingerprint - the current query's fingerprint
 * @param types - the type of each sort-key column, id last
 * @returns the sort-key values
 * @throws TypeError when `cursor` is not a string; LedgerError `bad_cursor` when it is
 *   malformed, from another query, or of the wrong shape
 */
export function decodeCursor(cursor: string, fingerprint: string, types: readonly CursorValueType[]): CursorValue[] {
  if (typeof cursor !== 'string') throw new TypeError('cursor must be a string');
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw badCursor('not a cursor');
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor('not a cursor');
  }
  if (!Array.isArray(decoded) || decoded[0] !== CURSOR_VERSION) throw badCursor('unknown cursor version');
  if (decoded[1] !== fingerprint) throw badCursor('it belongs to another filter or sort');
  const values: unknown[] = decoded.slice(2);
  if (values.length !== types.length) throw badCursor('wrong number of values');
  return values.map((value, index) => {
    const type = types[index];
    if (type === 'integer' && typeof value === 'number' && Number.isSafeInteger(value)) return value;
    if (type === 'text' && typeof value === 'string') return value;
    throw badCursor(`value ${index} has the wrong type`);
  });
}
