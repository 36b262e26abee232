/**
 * Repository for `audit_log`: an append-only, hash-chained record of what was done.
 *
 * Each row carries `prev_sha256` (the previous row's `row_sha256`; 64 zeros for row 1) and
 *
 *     row_sha256 = hex(SHA-256(UTF-8(JCS([id, at, action, subject, details, prev_sha256]))))
 *
 * where `details` is the stored JSON text itself (a string inside the array), so the hash does
 * not depend on how anyone re-serialises the details. For an array of integers and strings JCS
 * is exactly `JSON.stringify`, so any JCS library (or `json.dumps(..., separators=(',', ':'),
 * ensure_ascii=False)`) can recompute it from the file with the sqlite3 shell.
 *
 * SQLite triggers refuse UPDATE and DELETE on the table and refuse an INSERT that does not take
 * the next id and link to the last hash, so no code path of ours can rewrite history. Editing
 * the file by other means breaks the chain at the edited row, which {@link checkAuditChain}
 * reports. (Cutting rows off the end leaves a shorter valid chain: detecting that needs the
 * last hash kept somewhere else, e.g. in an exported report.)
 */
import { createHash } from 'node:crypto';
import { AUDIT_ACTIONS, type AuditAction } from '../../src-shared/api/vocabulary';
import { checkInstant, checkInteger, checkOneOf, toJsonText } from './checks';
import { execute, queryAll, queryOne, transaction, type ReadableDB, type WritableDB } from './database';
import { sql } from './sql';

/** The `prev_sha256` of the first row. */
export const GENESIS_SHA256 = '0'.repeat(64);

/**
 * Actions the program records. Others are accepted when they are spelled like these
 * (lowercase words joined by `-`), so a new feature does not need a schema change.
 */
export { AUDIT_ACTIONS, type AuditAction as KnownAuditAction };

const ACTION_PATTERN = /^[a-z]+(?:-[a-z]+)*$/;
const MAX_ACTION_LENGTH = 64;
const MAX_SUBJECT_LENGTH = 4096;

/** One audit row. */
export interface AuditEntry {
  id: number;
  /** ms since the epoch. */
  at: number;
  action: string;
  /** What the action was about: a key_id, a receipt_sha256, a bundle id, a file path; may be ''. */
  subject: string;
  /** The details, parsed from {@link AuditEntry.details_json}. */
  details: unknown;
  /** The stored JSON text of the details (what the hash covers). */
  details_json: string;
  prev_sha256: string;
  row_sha256: string;
}

/** The result of {@link checkAuditChain}. */
export interface AuditChainCheck {
  ok: boolean;
  /** Rows examined (all of them when ok). */
  entries: number;
  /** The first row at which the chain is broken. */
  firstBadId?: number;
  /** What is wrong there, in one sentence. */
  problem?: string;
}

/**
 * The hash of an audit row (see the module comment for the formula).
 *
 * @param row - id, at, action, subject, the details JSON text, prev_sha256
 * @returns HEX64
 */
export function auditRowHash(row: {
  id: number;
  at: number;
  action: string;
  subject: string;
  details_json: string;
  prev_sha256: string;
}): string {
  const canonical = JSON.stringify([row.id, row.at, row.action, row.subject, row.details_json, row.prev_sha256]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

interface AuditRow {
  id: number;
  at: number;
  action: string;
  subject: string;
  details: string;
  prev_sha256: string;
  row_sha256: string;
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: row.at,
    action: row.action,
    subject: row.subject,
    details: JSON.parse(row.details) as unknown,
    details_json: row.details,
    prev_sha256: row.prev_sha256,
    row_sha256: row.row_sha256,
  };
}

/**
 * Append one row to the audit log.
 *
 * Runs inside the caller's transaction when there is one (so the audit row commits or rolls
 * back with the change it records), else in its own.
 *
 * @param database - a writable handle
 * @param action - e.g. `import`, `pin` (see {@link AUDIT_ACTIONS}); lowercase words joined by `-`
 * @param subject - what it was about; may be ''
 * @param details - any JSON value (default `{}`)
 * @param options - `at`: when (ms; default now)
 * @returns the stored row
 * @throws TypeError / RangeError for bad input
 */
export function appendAudit(
  database: WritableDB,
  action: string,
  subject: string,
  details: unknown = {},
  options: { at?: number } = {},
): AuditEntry {
  if (typeof action !== 'string') throw new TypeError('action must be a string');
  if (action.length > MAX_ACTION_LENGTH || !ACTION_PATTERN.test(action)) {
    throw new RangeError('action must be lowercase words joined by "-", e.g. "trust-import"');
  }
  if (typeof subject !== 'string') throw new TypeError('subject must be a string');
  if (subject.length > MAX_SUBJECT_LENGTH)
    throw new RangeError(`subject must be at most ${MAX_SUBJECT_LENGTH} characters`);
  const detailsJson = toJsonText(details, 'details');
  const at = checkInstant(options.at, 'at');
  return transaction(database, () => {
    const last = queryOne<{ id: number; row_sha256: string }>(
      database,
      sql`SELECT id, row_sha256 FROM audit_log ORDER BY id DESC LIMIT 1`,
    );
    const row: AuditRow = {
      id: (last?.id ?? 0) + 1,
      at,
      action,
      subject,
      details: detailsJson,
      prev_sha256: last?.row_sha256 ?? GENESIS_SHA256,
      row_sha256: '',
    };
    row.row_sha256 = auditRowHash({ ...row, details_json: row.details });
    execute(
      database,
      sql`INSERT INTO audit_log (id, at, action, subject, details, prev_sha256, row_sha256)
          VALUES (${row.id}, ${row.at}, ${row.action}, ${row.subject}, ${row.details}, ${row.prev_sha256}, ${row.row_sha256})`,
    );
    return toEntry(row);
  });
}

/**
 * A page of audit rows by id.
 *
 * @param database - any handle
 * @param options - `direction` (default `desc`, newest first), `afterId` (continue after this
 *   id in that direction), `limit` (1..1000, default 100)
 * @returns the rows
 */
export function listAuditEntries(
  database: ReadableDB,
  options: { direction?: 'asc' | 'desc'; afterId?: number; limit?: number } = {},
): AuditEntry[] {
  const direction =
    options.direction === undefined ? 'desc' : checkOneOf(options.direction, ['asc', 'desc'] as const, 'direction');
  const limit = options.limit === undefined ? 100 : checkInteger(options.limit, 'limit', 1, 1000);
  const rows =
    direction === 'asc'
      ? queryAll<AuditRow>(
          database,
          sql`SELECT * FROM audit_log WHERE id > ${options.afterId === undefined ? 0 : checkInteger(options.afterId, 'afterId')}
              ORDER BY id ASC LIMIT ${limit}`,
        )
      : queryAll<AuditRow>(
          database,
          sql`SELECT * FROM audit_log
              WHERE id < ${options.afterId === undefined ? Number.MAX_SAFE_INTEGER : checkInteger(options.afterId, 'afterId')}
              ORDER BY id DESC LIMIT ${limit}`,
        );
  return rows.map(toEntry);
}

/** Rows read per query while checking the chain, to bound memory on a long log. */
const CHAIN_CHUNK = 5000;

/**
 * Recompute the whole hash chain.
 *
 * Checks, row by row in id order: ids run 1, 2, 3, ... without gaps; each `prev_sha256` equals
 * the previous row's `row_sha256` (64 zeros for row 1); each `row_sha256` equals the hash of
 * the row's own fields.
 *
 * @param database - any handle
 * @returns ok, the number of rows checked, and where and how the chain first breaks
 */
export function checkAuditChain(database: ReadableDB): AuditChainCheck {
  let expectedId = 1;
  let previous = GENESIS_SHA256;
  for (;;) {
    const rows = queryAll<AuditRow>(
      database,
      sql`SELECT * FROM audit_log WHERE id >= ${expectedId} ORDER BY id LIMIT ${CHAIN_CHUNK}`,
    );
    for (const row of rows) {
      if (row.id !== expectedId) {
        return { ok: false, entries: expectedId - 1, firstBadId: expectedId, problem: `Row ${expectedId} is missing.` };
      }
      if (row.prev_sha256 !== previous) {
        return {
          ok: false,
          entries: expectedId - 1,
          firstBadId: row.id,
          problem:
            row.id === 1
              ? 'Row 1 does not start the chain (its prev_sha256 is not 64 zeros).'
              : `Row ${row.id} does not link to row ${row.id - 1} (prev_sha256 differs): one of them was changed.`,
        };
      }
      const recomputed = auditRowHash({ ...row, details_json: row.details });
      if (row.row_sha256 !== recomputed) {
        return {
          ok: false,
          entries: expectedId - 1,
          firstBadId: row.id,
          problem: `Row ${row.id} was changed after it was written (its hash does not match its contents).`,
        };
      }
      previous = row.row_sha256;
      expectedId += 1;
    }
    if (rows.length < CHAIN_CHUNK) break;
  }
  // Rows with ids below 1 cannot come from appendAudit; their presence is tampering too.
  const stray = queryOne<{ id: number }>(database, sql`SELECT id FROM audit_log WHERE id < 1 ORDER BY id LIMIT 1`);
  if (stray !== undefined) {
    return {
      ok: false,
      entries: expectedId - 1,
      firstBadId: stray.id,
      problem: `Row ${stray.id} has an impossible id.`,
    };
  }
  return { ok: true, entries: expectedId - 1 };
}
