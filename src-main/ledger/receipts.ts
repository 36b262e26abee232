/**
 * Repository for `receipts`: every verified document, stored once, with its report.
 *
 * Identity is `receipt_sha256`, the hex SHA-256 of the document's JCS form (computed by the
 * caller, which owns JSON canonicalisation; for input that does not parse, the SHA-256 of the
 * raw bytes). Inserting a receipt that is already stored changes nothing but may add a source.
 *
 * Listing is keyset-paginated: a page is found by seeking an index to the position after the
 * previous page's last row, so page 10,000 costs what page 1 costs. Each sort order has an
 * index, and each equality filter has two (one per time order: issue time and import order),
 * so a filtered page reads about as many index entries as it shows (migrations/0001-initial.ts;
 * the query-plan tests pin each shape to its index). One shape is not index-served: a filter
 * combined with sorting by another categorical column (filter status, sort by trust) sorts the
 * filter's matching rows, about 5 microseconds each (49 ms a page for 10,000 matches at 1M rows).
 */
import { ANCHOR_LEDGER_STATES, type AnchorLedgerState } from '../../src-shared/api/anchor-contract';
import { REPORT_STATUSES, TRUST_STATUSES } from '../../src-shared/api/vocabulary';
import {
  REPORT_VERSION,
  type Report,
  type ReportStatus,
  type SerializedReport,
  type TrustStatus,
} from '../../src-shared/verify/report';
import {
  checkHex64,
  checkInstant,
  checkInteger,
  checkObject,
  checkOneOf,
  checkOptionalText,
  checkText,
  toJsonText,
} from './checks';
import { decodeCursor, encodeCursor, queryFingerprint, type CursorValue, type CursorValueType } from './cursor';
import { execute, queryAll, queryOne, transaction, type ReadableDB, type WritableDB } from './database';
import { LedgerError } from './errors';
import {
  checkSource,
  insertSourceRow,
  listReceiptSources,
  resolveReceiptId,
  type ReceiptSource,
  type ReceiptSourceRecord,
} from './receipt-sources';
import { sql, sqlFragment, sqlIdentifier, sqlJoin, type SqlFragment, type SqlQuery } from './sql';

/** Report statuses, as stored in `receipts.status` (the one list: src-shared/api/vocabulary.ts). */
export const RECEIPT_STATUSES: readonly ReportStatus[] = REPORT_STATUSES;
/** Trust statuses, as stored in `receipts.trust` (the one list: src-shared/api/vocabulary.ts). */
export { TRUST_STATUSES };

/** Limits that mirror the schema's CHECKs, so a bad value is a RangeError before SQLite sees it. */
const MAX_FORMAT_LENGTH = 128;
const MAX_RECEIPT_ID_LENGTH = 512;
const MAX_KEY_ID_LENGTH = 2048;
/** Search text is for finding a row, not for storing documents; 16 KiB is ample. */
const MAX_SEARCH_TEXT_LENGTH = 16_384;
/** The largest page; a UI shows 50-200 rows, and an export pages through. */
export const MAX_PAGE_SIZE = 1000;
/** The page size when none is given. */
export const DEFAULT_PAGE_SIZE = 100;

/** A receipt to store. */
export interface NewReceipt {
  /** hex SHA-256 of the document's JCS form: the identity. */
  receipt_sha256: string;
  /** The bytes exactly as received. */
  raw: Uint8Array;
  /**
   * The verification report; `format`, `status` and `trust` columns are taken from it. Either
   * the Report itself, or its JSON text with those fields beside it ({@link SerializedReport},
   * as verification workers send it; the text is stored as given).
   */
  report: Report | SerializedReport;
  /** The document's own id, when it has one (`receipt.id`, `receipt_id`, `contract_id`). */
  receipt_id?: string | null;
  /** The signing key's id; defaults to `report.trust.key_id`. */
  issuer_key_id?: string | null;
  /** When the document says it was issued (ms since the epoch), when known. */
  issued_at?: number | null;
  /**
   * Words to find it by. Defaults to receipt_id, issuer key id and receipt_sha256. Fixed at
   * import: it should not hold things that change (status, trust, labels), which are filters.
   */
  search_text?: string;
  /** Where it came from; recorded even when the receipt was already stored. */
  source?: ReceiptSource;
}

/** What {@link insertReceipts} did with one input, in input order. */
export interface InsertedReceipt {
  id: number;
  receipt_sha256: string;
  /** True when this call stored it; false when it was already in the ledger (or earlier in the batch). */
  created: boolean;
  /** True when the source was recorded for the first time. */
  sourceAdded: boolean;
}

/** A row as listed: everything but the raw bytes and the report. */
export interface ReceiptSummary {
  id: number;
  receipt_sha256: string;
  format: string;
  receipt_id: string | null;
  issuer_key_id: string | null;
  issued_at: number | null;
  imported_at: number;
  status: ReportStatus;
  trust: TrustStatus;
  /** Its anchor state (migration 8; docs/anchoring.md). */
  anchor_state: AnchorLedgerState;
}

/** A full stored receipt. */
export interface ReceiptRecord extends ReceiptSummary {
  raw: Uint8Array;
  report: Report;
  search_text: string;
  sources: ReceiptSourceRecord[];
}

/** The orders a list can be sorted in. */
export const RECEIPT_SORT_COLUMNS = [
  'issued_at',
  'imported_at',
  'format',
  'status',
  'trust',
  'issuer',
  'receipt_id',
  'anchor',
] as const;
export type ReceiptSortColumn = (typeof RECEIPT_SORT_COLUMNS)[number];
export type SortDirection = 'asc' | 'desc';

/**
 * Filters of a list; all given filters must hold (AND).
 *
 * `from`/`to` select by issue time: `from <= issued_at < to` (ms); receipts with no known issue
 * time are left out when either is given. `text` finds rows whose search text has words
 * starting with each word of the query (case- and accent-insensitive); a query with no letters
 * or digits filters nothing.
 */
export interface ReceiptFilters {
  format?: string;
  status?: ReportStatus;
  trust?: TrustStatus;
  issuer?: string;
  from?: number;
  to?: number;
  text?: string;
  /** Only receipts recorded from this source (e.g. one bundle). */
  source?: ReceiptSource;
  /** Only receipts in this anchor state. */
  anchor?: AnchorLedgerState;
}

/** A list request. */
export interface ListReceiptsQuery {
  filters?: ReceiptFilters;
  /** Default: issued_at descending (newest first). */
  sort?: { column: ReceiptSortColumn; direction: SortDirection };
  /** The `nextCursor` of the previous page. */
  after?: string;
  /** 1..1000, default 100. */
  limit?: number;
}

/** One page. `nextCursor` is null on the last page. */
export interface ReceiptPage {
  rows: ReceiptSummary[];
  nextCursor: string | null;
}

interface SortKeyColumn {
  column: 'id' | 'issued_order' | 'issuer_order' | 'receipt_id_order' | 'format' | 'status' | 'trust' | 'anchor_state';
  type: CursorValueType;
}

const ID: SortKeyColumn = { column: 'id', type: 'integer' };
const ISSUED: SortKeyColumn = { column: 'issued_order', type: 'integer' };

/**
 * Each sort is a list of columns, the row id last so that ties are broken and paging is
 * stable. Categorical sorts (format, status, ...) order by issue time within a value: that is
 * what a person expects, and it lets one index per filter serve both the filter and the sort.
 * "imported_at" is import order, which is the row id (ids are assigned as rows are imported).
 */
const SORT_KEYS: Record<ReceiptSortColumn, readonly SortKeyColumn[]> = {
  issued_at: [ISSUED, ID],
  imported_at: [ID],
  format: [{ column: 'format', type: 'text' }, ISSUED, ID],
  status: [{ column: 'status', type: 'text' }, ISSUED, ID],
  trust: [{ column: 'trust', type: 'text' }, ISSUED, ID],
  issuer: [{ column: 'issuer_order', type: 'text' }, ISSUED, ID],
  receipt_id: [{ column: 'receipt_id_order', type: 'text' }, ID],
  anchor: [{ column: 'anchor_state', type: 'text' }, ISSUED, ID],
};
const SORT_KEY_IDENTIFIERS = [
  'id',
  'issued_order',
  'issuer_order',
  'receipt_id_order',
  'format',
  'status',
  'trust',
  'anchor_state',
];

/** The longest report text stored (a report lists checks and errors; 1 MiB is far beyond any). */
const MAX_REPORT_JSON_LENGTH = 1024 * 1024;

/** A report as given to insertReceipts, checked, in the one form stored: columns and JSON text. */
function checkNewReport(value: unknown, name: string): SerializedReport {
  const report = checkObject(value, name);
  if (!Object.hasOwn(report, 'json')) {
    const checked = checkReport(value, name);
    return { format: checked.format, status: checked.status, trust: checked.trust, json: toJsonText(checked, name) };
  }
  if (typeof report.json !== 'string' || report.json.length === 0 || report.json.length > MAX_REPORT_JSON_LENGTH) {
    throw new TypeError(`${name}.json must be a report's JSON text of at most ${MAX_REPORT_JSON_LENGTH} characters`);
  }
  checkText(report.format, `${name}.format`, MAX_FORMAT_LENGTH);
  checkOneOf(report.status, RECEIPT_STATUSES, `${name}.status`);
  const trust = checkObject(report.trust, `${name}.trust`);
  checkOneOf(trust.status, TRUST_STATUSES, `${name}.trust.status`);
  if (trust.key_id !== undefined && typeof trust.key_id !== 'string')
    throw new TypeError(`${name}.trust.key_id must be a string`);
  return value as SerializedReport;
}

function checkReport(value: unknown, name: string): Report {
  const report = checkObject(value, name);
  if (report.report_version !== REPORT_VERSION) {
    throw new RangeError(`${name}.report_version must be "${REPORT_VERSION}"`);
  }
  checkText(report.format, `${name}.format`, MAX_FORMAT_LENGTH);
  checkOneOf(report.status, RECEIPT_STATUSES, `${name}.status`);
  const trust = checkObject(report.trust, `${name}.trust`);
  checkOneOf(trust.status, TRUST_STATUSES, `${name}.trust.status`);
  for (const list of ['checks', 'errors', 'notes'] as const) {
    if (!Array.isArray(report[list])) throw new TypeError(`${name}.${list} must be an array`);
  }
  return value as Report;
}

/** The columns of a {@link ReceiptSummary}. */
const SUMMARY_COLUMNS = sqlFragment`r.id, r.receipt_sha256, r.format, r.receipt_id, r.issuer_key_id, r.issued_at, r.imported_at, r.status, r.trust, r.anchor_state`;

interface CheckedReceipt {
  receipt_sha256: string;
  raw: Uint8Array;
  report: SerializedReport;
  receipt_id: string | null;
  issuer_key_id: string | null;
  issued_at: number | null;
  search_text: string;
  source: ReceiptSource | undefined;
}

function checkNewReceipt(value: unknown, index: number): CheckedReceipt {
  const name = `batch[${index}]`;
  const input = checkObject(value, name);
  const receipt_sha256 = checkHex64(input.receipt_sha256, `${name}.receipt_sha256`);
  if (!(input.raw instanceof Uint8Array)) throw new TypeError(`${name}.raw must be a Uint8Array`);
  const report = checkNewReport(input.report, `${name}.report`);
  const receipt_id = checkOptionalText(input.receipt_id, `${name}.receipt_id`, MAX_RECEIPT_ID_LENGTH);
  const issuer_key_id = checkOptionalText(
    input.issuer_key_id === undefined ? report.trust.key_id : input.issuer_key_id,
    `${name}.issuer_key_id`,
    MAX_KEY_ID_LENGTH,
  );
  const issued_at =
    input.issued_at === undefined || input.issued_at === null
      ? null
      : checkInteger(input.issued_at, `${name}.issued_at`);
  let search_text: string;
  if (input.search_text === undefined) {
    search_text = [receipt_id, issuer_key_id, receipt_sha256].filter((part) => part !== null).join(' ');
  } else {
    if (typeof input.search_text !== 'string') throw new TypeError(`${name}.search_text must be a string`);
    if (input.search_text.length > MAX_SEARCH_TEXT_LENGTH) {
      throw new RangeError(`${name}.search_text must be at most ${MAX_SEARCH_TEXT_LENGTH} characters`);
    }
    search_text = input.search_text;
  }
  const source = input.source === undefined ? undefined : checkSource(input.source, `${name}.source`);
  return {
    receipt_sha256,
    raw: input.raw,
    report,
    receipt_id,
    issuer_key_id,
    issued_at,
    search_text,
    source,
  };
}

/**
 * Store a batch of receipts in one transaction, each at most once.
 *
 * Every input is checked before anything is written; then all rows go in together, or (on any
 * failure, or a crash) none do. A receipt whose receipt_sha256 is already stored is left as it
 * is (its first report stays; see {@link updateReceiptReport}) and only its source is added.
 *
 * @param database - a writable handle (inside or outside a transaction)
 * @param batch - the receipts; 10,000 per call is a good size for imports
 * @param options - `at`: the import time (ms; default now)
 * @returns one entry per input, in order, saying which were new
 * @throws TypeError / RangeError for bad input (nothing written); LedgerError on SQLite failure
 */
export function insertReceipts(
  database: WritableDB,
  batch: readonly NewReceipt[],
  options: { at?: number } = {},
): InsertedReceipt[] {
  if (!Array.isArray(batch)) throw new TypeError('insertReceipts: batch must be an array');
  const at = checkInstant(options.at, 'at');
  const checked = batch.map((item, index) => checkNewReceipt(item, index));
  return transaction(database, () => {
    const results = checked.map((receipt) => {
      const inserted = execute(
        database,
        sql`INSERT INTO receipts (receipt_sha256, raw, format, receipt_id, issuer_key_id, issued_at,
                                  imported_at, status, trust, report_json, search_text)
            VALUES (${receipt.receipt_sha256}, ${receipt.raw}, ${receipt.report.format}, ${receipt.receipt_id},
                    ${receipt.issuer_key_id}, ${receipt.issued_at}, ${at}, ${receipt.report.status},
                    ${receipt.report.trust.status}, ${receipt.report.json}, ${receipt.search_text})
            ON CONFLICT (receipt_sha256) DO NOTHING`,
      );
      const created = inserted.changes === 1;
      const id = created
        ? inserted.lastInsertRowid
        : (queryOne<{ id: number }>(
            database,
            sql`SELECT id FROM receipts WHERE receipt_sha256 = ${receipt.receipt_sha256}`,
          )?.id ?? 0);
      const sourceAdded = receipt.source === undefined ? false : insertSourceRow(database, id, receipt.source, at);
      return { id, receipt_sha256: receipt.receipt_sha256, created, sourceAdded };
    });
    indexNewRows(database, results);
    countNewRows(database, checked, results);
    anchorNewRows(database, results);
    return results;
  });
}

/**
 * Add the rows this call created to receipt_counts: one upsert per distinct value of each
 * counted column in the batch (migration 2 explains why not a trigger).
 */
function countNewRows(
  database: WritableDB,
  checked: readonly CheckedReceipt[],
  results: readonly InsertedReceipt[],
): void {
  const counts = new Map<string, { dimension: string; value: string; n: number }>();
  const add = (dimension: string, value: string): void => {
    const key = `${dimension}\u0000${value}`;
    const entry = counts.get(key);
    if (entry === undefined) counts.set(key, { dimension, value, n: 1 });
    else entry.n += 1;
  };
  results.forEach((result, index) => {
    if (!result.created) return;
    const receipt = checked[index] as CheckedReceipt;
    add('format', receipt.report.format);
    add('status', receipt.report.status);
    add('trust', receipt.report.trust.status);
    // issuer_order: the issuer, or '' when there is none (as the table's generated column).
    add('issuer', receipt.issuer_key_id ?? '');
  });
  for (const { dimension, value, n } of counts.values()) {
    execute(
      database,
      sql`INSERT INTO receipt_counts (dimension, value, n) VALUES (${dimension}, ${value}, ${n})
          ON CONFLICT (dimension, value) DO UPDATE SET n = n + excluded.n`,
    );
  }
}

/**
 * A receipt's anchor state from its anchor records (the rule of migrations 8 and 10, which their
 * triggers apply; `anchorLedgerState` of src-shared/api/anchor-contract.ts says it in code).
 */
const RECEIPT_ANCHOR_STATE_SQL = sqlFragment`CASE
    WHEN NOT EXISTS (SELECT 1 FROM anchors a WHERE a.receipt_sha256 = receipts.receipt_sha256) THEN 'none'
    WHEN EXISTS (SELECT 1 FROM anchors a WHERE a.receipt_sha256 = receipts.receipt_sha256 AND +a.state = 'verified') THEN 'verified'
    WHEN EXISTS (SELECT 1 FROM anchors a WHERE a.receipt_sha256 = receipts.receipt_sha256 AND +a.state = 'verified_with_context') THEN 'verified_with_context'
    WHEN EXISTS (SELECT 1 FROM anchors a WHERE a.receipt_sha256 = receipts.receipt_sha256 AND +a.state <> 'failed') THEN 'pending'
    ELSE 'failed' END`;

/**
 * Count the rows this call created as not anchored, then give those whose anchor records were
 * stored before them their state (the update trigger of migration 8 moves their counts).
 */
function anchorNewRows(database: WritableDB, results: readonly InsertedReceipt[]): void {
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  let created = 0;
  for (const result of results) {
    if (!result.created) continue;
    created += 1;
    first = Math.min(first, result.id);
    last = Math.max(last, result.id);
  }
  if (created === 0) return;
  execute(database, sql`UPDATE receipt_anchor_counts SET n = n + ${created} WHERE state = 'none'`);
  execute(
    database,
    sql`UPDATE receipts SET anchor_state = ${RECEIPT_ANCHOR_STATE_SQL}
        WHERE id BETWEEN ${first} AND ${last}
          AND receipt_sha256 IN (SELECT receipt_sha256 FROM anchors WHERE receipt_sha256 IS NOT NULL)`,
  );
}

/**
 * Add the rows this call created to the full-text index, in one statement.
 *
 * A new row's id is larger than every id that existed when it was inserted, and the write lock
 * is held throughout, so the ids created here form one range that holds no other row.
 */
function indexNewRows(database: WritableDB, results: readonly InsertedReceipt[]): void {
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const result of results) {
    if (!result.created) continue;
    first = Math.min(first, result.id);
    last = Math.max(last, result.id);
  }
  if (last === 0) return;
  execute(
    database,
    sql`INSERT INTO receipts_fts (rowid, search_text)
        SELECT id, search_text FROM receipts WHERE id BETWEEN ${first} AND ${last}`,
  );
}

/**
 * Replace a stored receipt's report (after re-verifying with a changed trust store).
 *
 * The format, status and trust columns follow the new report; raw bytes, identity, source
 * and search text do not change.
 *
 * @param database - a writable handle
 * @param receipt - row id or receipt_sha256
 * @param report - the new report
 * @throws LedgerError `not_found`; TypeError / RangeError for bad input
 */
export function updateReceiptReport(database: WritableDB, receipt: number | string, report: Report): void {
  const checked = checkReport(report, 'report');
  const reportJson = toJsonText(checked, 'report');
  const id = resolveReceiptId(database, receipt);
  if (id === undefined) throw new LedgerError('not_found', `No receipt ${String(receipt)} in the ledger.`);
  execute(
    database,
    sql`UPDATE receipts SET format = ${checked.format}, status = ${checked.status},
               trust = ${checked.trust.status}, report_json = ${reportJson}
        WHERE id = ${id}`,
  );
}

interface ReceiptRow {
  id: number;
  receipt_sha256: string;
  raw: Uint8Array;
  format: string;
  receipt_id: string | null;
  issuer_key_id: string | null;
  issued_at: number | null;
  imported_at: number;
  status: ReportStatus;
  trust: TrustStatus;
  anchor_state: AnchorLedgerState;
  report_json: string;
  search_text: string;
}

/**
 * One stored receipt with its raw bytes, report and sources.
 *
 * @param database - any handle
 * @param receipt - row id (number) or receipt_sha256 (HEX64 string)
 * @returns undefined when not stored
 * @throws TypeError / RangeError for a malformed reference
 */
export function getReceipt(database: ReadableDB, receipt: number | string): ReceiptRecord | undefined {
  const id = resolveReceiptId(database, receipt);
  if (id === undefined) return undefined;
  const row = queryOne<ReceiptRow>(
    database,
    sql`SELECT id, receipt_sha256, raw, format, receipt_id, issuer_key_id, issued_at, imported_at,
               status, trust, anchor_state, report_json, search_text
        FROM receipts WHERE id = ${id}`,
  );
  if (row === undefined) return undefined;
  const { report_json: reportJson, ...rest } = row;
  return { ...rest, report: JSON.parse(reportJson) as Report, sources: listReceiptSources(database, id) };
}

/**
 * The stored receipts whose own document id is `receiptId` (usually one; a tampered copy of a
 * document has the same id and another hash).
 *
 * @param database - any handle
 * @param receiptId - the document's id, e.g. `rcp_01H...`
 * @returns summaries in row id order (at most 1000)
 */
export function findReceiptsByDocumentId(database: ReadableDB, receiptId: string): ReceiptSummary[] {
  checkText(receiptId, 'receiptId', MAX_RECEIPT_ID_LENGTH);
  return queryAll<ReceiptSummary>(
    database,
    sql`SELECT ${SUMMARY_COLUMNS} FROM receipts AS r
        WHERE r.receipt_id_order = ${receiptId} ORDER BY r.receipt_id_order, r.id LIMIT ${MAX_PAGE_SIZE}`,
  );
}

/**
 * The stored receipts recorded from one source (e.g. one bundle) that a file name names: their
 * document id or their SHA-256 is `name` (a bundle names each receipt file so, PROTOCOL
 * section 9). Used to link a bundle's finding about `receipts/<name>.json` to the receipt the
 * import stored from that file.
 *
 * @param database - any handle
 * @param source - the source, e.g. `{ kind: 'bundle', ref: '3' }`
 * @param name - the file's stem; a name no receipt can carry (empty, too long) matches none
 * @returns row ids in row order, at most two (two mean the name is ambiguous)
 * @throws TypeError / RangeError for a bad source or a name that is not a string
 */
export function findSourcedReceiptsByName(database: ReadableDB, source: ReceiptSource, name: string): number[] {
  const checked = checkSource(source);
  if (typeof name !== 'string') throw new TypeError('name must be a string');
  if (name.length === 0 || name.length > MAX_RECEIPT_ID_LENGTH) return [];
  return queryAll<{ id: number }>(
    database,
    sql`SELECT r.id FROM receipts AS r
        WHERE (r.receipt_id_order = ${name} OR r.receipt_sha256 = ${name})
          AND r.id IN (SELECT receipt FROM receipt_sources WHERE kind = ${checked.kind} AND ref = ${checked.ref})
        ORDER BY r.id LIMIT 2`,
  ).map((row) => row.id);
}

/**
 * What separates words: anything but letters, digits and `_-:./@+`, which the index keeps
 * inside words so identifiers stay whole (the `tokenchars` of receipts_fts list the same).
 */
const WORD_SEPARATOR = /[^\p{L}\p{N}_\-:./@+]+/u;

/**
 * Turn a free-text query into an FTS5 MATCH expression: every word, quoted (so no character of
 * the input is FTS syntax), as a prefix term, all AND-ed.
 *
 * Words are split as the index splits them, so `did:svc:acme:k1` is one word and matches that
 * key id and longer ones that start with it.
 *
 * @returns undefined when the text has no letters or digits
 */
export function textToMatchExpression(text: string): string | undefined {
  const words = text
    .split(WORD_SEPARATOR)
    // A word of only punctuation has nothing to look for.
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    // More words than this narrows nothing further and only costs time.
    .slice(0, 16);
  if (words.length === 0) return undefined;
  return words.map((word) => `"${word}"*`).join(' AND ');
}

interface CheckedFilters {
  anchor?: AnchorLedgerState;
  format?: string;
  status?: ReportStatus;
  trust?: TrustStatus;
  issuer?: string;
  from?: number;
  to?: number;
  match?: string;
  source?: ReceiptSource;
}

function checkFilters(value: unknown): CheckedFilters {
  if (value === undefined) return {};
  const filters = checkObject(value, 'filters');
  const checked: CheckedFilters = {};
  const known = new Set(['format', 'status', 'trust', 'issuer', 'from', 'to', 'text', 'source', 'anchor']);
  for (const name of Object.keys(filters)) {
    if (!known.has(name)) throw new RangeError(`filters.${name} is not a filter`);
  }
  if (filters.format !== undefined) checked.format = checkText(filters.format, 'filters.format', MAX_FORMAT_LENGTH);
  if (filters.status !== undefined) checked.status = checkOneOf(filters.status, RECEIPT_STATUSES, 'filters.status');
  if (filters.trust !== undefined) checked.trust = checkOneOf(filters.trust, TRUST_STATUSES, 'filters.trust');
  if (filters.issuer !== undefined) checked.issuer = checkText(filters.issuer, 'filters.issuer', MAX_KEY_ID_LENGTH);
  if (filters.from !== undefined) checked.from = checkInteger(filters.from, 'filters.from');
  if (filters.to !== undefined) checked.to = checkInteger(filters.to, 'filters.to');
  if (filters.text !== undefined) {
    if (typeof filters.text !== 'string') throw new TypeError('filters.text must be a string');
    if (filters.text.length > 1024) throw new RangeError('filters.text must be at most 1024 characters');
    const match = textToMatchExpression(filters.text);
    if (match !== undefined) checked.match = match;
  }
  if (filters.source !== undefined) checked.source = checkSource(filters.source, 'filters.source');
  if (filters.anchor !== undefined) checked.anchor = checkOneOf(filters.anchor, ANCHOR_LEDGER_STATES, 'filters.anchor');
  return checked;
}

/** The equality filters on columns that receipt_counts counts and an index leads with. */
type EqualityColumn = 'format' | 'status' | 'trust' | 'issuer_order' | 'anchor_state';
const COUNT_DIMENSIONS: Record<Exclude<EqualityColumn, 'anchor_state'>, string> = {
  format: 'format',
  status: 'status',
  trust: 'trust',
  issuer_order: 'issuer',
};

function equalityFilters(filters: CheckedFilters): [EqualityColumn, string][] {
  const equalities: [EqualityColumn, string][] = [];
  if (filters.issuer !== undefined) equalities.push(['issuer_order', filters.issuer]);
  if (filters.format !== undefined) equalities.push(['format', filters.format]);
  if (filters.trust !== undefined) equalities.push(['trust', filters.trust]);
  if (filters.status !== undefined) equalities.push(['status', filters.status]);
  if (filters.anchor !== undefined) equalities.push(['anchor_state', filters.anchor]);
  return equalities;
}

/**
 * The WHERE conditions of a filter set (an empty list means every row), on `receipts AS r`.
 *
 * @param joinedSource - true when the query joins `receipt_sources AS s` for the source filter
 */
function filterConditions(filters: CheckedFilters, joinedSource = false): SqlFragment[] {
  const conditions: SqlFragment[] = [];
  if (filters.format !== undefined) conditions.push(sqlFragment`r.format = ${filters.format}`);
  if (filters.status !== undefined) conditions.push(sqlFragment`r.status = ${filters.status}`);
  if (filters.trust !== undefined) conditions.push(sqlFragment`r.trust = ${filters.trust}`);
  if (filters.issuer !== undefined) conditions.push(sqlFragment`r.issuer_order = ${filters.issuer}`);
  if (filters.anchor !== undefined) conditions.push(sqlFragment`r.anchor_state = ${filters.anchor}`);
  if (filters.from !== undefined || filters.to !== undefined) {
    // issued_order is -1 for "unknown", so a lower bound of at least 0 leaves those out.
    conditions.push(sqlFragment`r.issued_order >= ${filters.from ?? 0}`);
    if (filters.to !== undefined) conditions.push(sqlFragment`r.issued_order < ${filters.to}`);
  }
  if (filters.match !== undefined) {
    conditions.push(sqlFragment`r.id IN (SELECT rowid FROM receipts_fts WHERE receipts_fts MATCH ${filters.match})`);
  }
  if (filters.source !== undefined) {
    conditions.push(
      joinedSource
        ? sqlFragment`s.kind = ${filters.source.kind} AND s.ref = ${filters.source.ref}`
        : sqlFragment`r.id IN (SELECT receipt FROM receipt_sources WHERE kind = ${filters.source.kind} AND ref = ${filters.source.ref})`,
    );
  }
  return conditions;
}

function whereClause(conditions: readonly SqlFragment[]): SqlFragment {
  return conditions.length === 0 ? sqlFragment`` : sqlFragment`WHERE ${sqlJoin(conditions, ' AND ')}`;
}

function checkSort(value: unknown): { column: ReceiptSortColumn; direction: SortDirection } {
  if (value === undefined) return { column: 'issued_at', direction: 'desc' };
  const sort = checkObject(value, 'sort');
  return {
    column: checkOneOf(sort.column, RECEIPT_SORT_COLUMNS, 'sort.column'),
    direction: checkOneOf(sort.direction, ['asc', 'desc'] as const, 'sort.direction'),
  };
}

/** The indexes that lead with each equality-filter column, by the order they serve. */
const FILTER_INDEXES: Record<EqualityColumn, { issued: string; imported: string }> = {
  issuer_order: { issued: 'idx_receipts_issuer_issued', imported: 'idx_receipts_issuer_id' },
  format: { issued: 'idx_receipts_format_issued', imported: 'idx_receipts_format_id' },
  trust: { issued: 'idx_receipts_trust_issued', imported: 'idx_receipts_trust_id' },
  status: { issued: 'idx_receipts_status_issued', imported: 'idx_receipts_status_id' },
  anchor_state: { issued: 'idx_receipts_anchor_issued', imported: 'idx_receipts_anchor_id' },
};
const FILTER_INDEX_NAMES = Object.values(FILTER_INDEXES).flatMap((names) => [names.issued, names.imported]);

/**
 * Sorting the matching rows of one filter value costs about a row lookup each; above this many
 * rows, walking the sort order's own index and skipping non-matching rows is left to SQLite.
 */
const SORT_IN_MEMORY_LIMIT = 5000;

/** Exact counts of the given equality filters' values, from receipt_counts. */
function valueCounts(
  database: ReadableDB,
  equalities: readonly [EqualityColumn, string][],
): Map<EqualityColumn, number> {
  const counts = new Map<EqualityColumn, number>(equalities.map(([column]) => [column, 0]));
  const counted: [Exclude<EqualityColumn, 'anchor_state'>, string][] = [];
  for (const [column, value] of equalities) {
    if (column === 'anchor_state') {
      counts.set(column, anchorStateCounts(database)[value as AnchorLedgerState]);
    } else counted.push([column, value]);
  }
  if (counted.length === 0) return counts;
  const pairs = sqlJoin(
    counted.map(([column, value]) => sqlFragment`(${COUNT_DIMENSIONS[column]}, ${value})`),
    ', ',
  );
  const rows = queryAll<{ dimension: string; n: number }>(
    database,
    sql`SELECT dimension, n FROM receipt_counts WHERE (dimension, value) IN (VALUES ${pairs})`,
  );
  for (const [column] of counted) {
    const row = rows.find((candidate) => candidate.dimension === COUNT_DIMENSIONS[column]);
    counts.set(column, row?.n ?? 0);
  }
  return counts;
}

/**
 * How many receipts are in each anchor state (exact; kept by migration 8's triggers).
 *
 * @param database - any handle
 * @returns every state, zeros included
 */
export function anchorStateCounts(database: ReadableDB): Record<AnchorLedgerState, number> {
  const counts = Object.fromEntries(ANCHOR_LEDGER_STATES.map((state) => [state, 0])) as Record<
    AnchorLedgerState,
    number
  >;
  for (const row of queryAll<{ state: AnchorLedgerState; n: number }>(
    database,
    sql`SELECT state, n FROM receipt_anchor_counts`,
  ))
    counts[row.state] = row.n;
  return counts;
}

/**
 * Pick the index for a page when SQLite cannot know which is best.
 *
 * SQLite's statistics give the average rows per value, so with two equality filters (say
 * status = MALFORMED, 1% of rows, and trust = trusted, 40%) it may walk the common one and test
 * every row for the rare one: 130 ms a page at 1M rows instead of 2 (measured). The exact
 * per-value counts in receipt_counts say which filter is rarest, and its index is named with
 * INDEXED BY. Left to the planner, which chooses well (the query-plan tests check it): a
 * single equality filter whose index also gives the order, and any query with text or source
 * filters, whose subquery is the better start.
 *
 * @returns an index name, or undefined to let SQLite choose
 */
function chooseIndex(
  database: ReadableDB,
  filters: CheckedFilters,
  sort: { column: ReceiptSortColumn },
): string | undefined {
  if (filters.match !== undefined || filters.source !== undefined) return undefined;
  const equalities = equalityFilters(filters);
  if (equalities.length === 0) return undefined;
  const leading = SORT_KEYS[sort.column][0]?.column;
  // An index (filter, issued_order, id) gives the order of issue time, of import order (as
  // (filter, id)), and of any sort whose leading column a filter fixes to one value.
  const orderServed =
    sort.column === 'issued_at' || sort.column === 'imported_at' || equalities.some(([column]) => column === leading);
  if (equalities.length === 1 && orderServed) return undefined;
  const counts = valueCounts(database, equalities);
  let best: EqualityColumn | undefined;
  let bestCount = Number.POSITIVE_INFINITY;
  for (const [column] of equalities) {
    const count = counts.get(column) ?? 0;
    if (count < bestCount) {
      best = column;
      bestCount = count;
    }
  }
  if (best === undefined) return undefined;
  if (!orderServed && bestCount > SORT_IN_MEMORY_LIMIT) return undefined;
  return sort.column === 'imported_at' ? FILTER_INDEXES[best].imported : FILTER_INDEXES[best].issued;
}

/** Sort-key columns that an equality filter pins to one value. */
function fixedColumns(filters: CheckedFilters): Set<string> {
  return new Set(equalityFilters(filters).map(([column]) => column));
}

/**
 * The query for one page, without running it (exported for query-plan tests and benchmarks).
 *
 * @param database - any handle (read for the filters' value counts)
 * @internal
 */
export function buildListReceiptsQuery(
  database: ReadableDB,
  query: ListReceiptsQuery,
): {
  query: SqlQuery;
  keys: readonly SortKeyColumn[];
  fingerprint: string;
  limit: number;
} {
  const input = checkObject(query, 'query');
  const filters = checkFilters(input.filters);
  const sort = checkSort(input.sort);
  const limit = input.limit === undefined ? DEFAULT_PAGE_SIZE : checkInteger(input.limit, 'limit', 1, MAX_PAGE_SIZE);
  const keys = SORT_KEYS[sort.column];
  const fingerprint = queryFingerprint({ filters, sort });
  // In import order, receipts of one source are walked through the source index, which is
  // ordered by receipt id: one index entry per row shown, however rare the source.
  const joinedSource = filters.source !== undefined && sort.column === 'imported_at';
  const conditions = filterConditions(filters, joinedSource);
  const column = (key: SortKeyColumn): SqlFragment =>
    joinedSource && key.column === 'id'
      ? sqlFragment`s.receipt`
      : sqlFragment`r.${sqlIdentifier(key.column, SORT_KEY_IDENTIFIERS)}`;

  if (input.after !== undefined) {
    const values = decodeCursor(
      input.after as string,
      fingerprint,
      keys.map((key) => key.type),
    );
    // Leading sort columns an equality filter fixes are equal on every row: leaving them out of
    // the row-value comparison lets SQLite seek the index right to the cursor's position.
    const fixed = fixedColumns(filters);
    let skip = 0;
    while (skip < keys.length - 1 && fixed.has(keys[skip]?.column ?? '')) skip += 1;
    const usedKeys = keys.slice(skip);
    const usedValues: CursorValue[] = values.slice(skip);
    const columns = sqlJoin(usedKeys.map(column), ', ');
    const placeholders = sqlJoin(
      usedValues.map((value) => sqlFragment`${value}`),
      ', ',
    );
    const operator = sort.direction === 'asc' ? sqlFragment`>` : sqlFragment`<`;
    conditions.push(sqlFragment`(${columns}) ${operator} (${placeholders})`);
  }

  const orderBy = sqlJoin(
    keys.map((key) => (sort.direction === 'asc' ? sqlFragment`${column(key)} ASC` : sqlFragment`${column(key)} DESC`)),
    ', ',
  );
  const index = chooseIndex(database, filters, sort);
  const from = joinedSource
    ? // CROSS JOIN keeps receipt_sources the outer loop, so its index gives the order.
      sqlFragment`receipt_sources AS s CROSS JOIN receipts AS r ON r.id = s.receipt`
    : index === undefined
      ? sqlFragment`receipts AS r`
      : sqlFragment`receipts AS r INDEXED BY ${sqlIdentifier(index, FILTER_INDEX_NAMES)}`;
  // One row more than asked tells whether another page exists without a second query.
  const text = sql`SELECT ${SUMMARY_COLUMNS}, r.issued_order, r.issuer_order, r.receipt_id_order
                   FROM ${from} ${whereClause(conditions)}
                   ORDER BY ${orderBy} LIMIT ${limit + 1}`;
  return { query: text, keys, fingerprint, limit };
}

interface ListedRow extends ReceiptSummary {
  issued_order: number;
  issuer_order: string;
  receipt_id_order: string;
}

/**
 * One page of receipts, filtered and sorted, keyset-paginated.
 *
 * @param database - any handle
 * @param query - filters, sort (default issued_at desc), `after` (a previous nextCursor), limit
 *   (1..1000, default 100)
 * @returns the rows and the cursor of the next page (null on the last page)
 * @throws TypeError / RangeError for bad filters or sort; LedgerError `bad_cursor` for a cursor
 *   that is malformed or belongs to another query
 */
export function listReceipts(database: ReadableDB, query: ListReceiptsQuery = {}): ReceiptPage {
  const built = buildListReceiptsQuery(database, query);
  const rows = queryAll<ListedRow>(database, built.query);
  const hasMore = rows.length > built.limit;
  const page = hasMore ? rows.slice(0, built.limit) : rows;
  const last = page[page.length - 1];
  const nextCursor =
    hasMore && last !== undefined
      ? encodeCursor(
          built.fingerprint,
          built.keys.map((key) => last[key.column]),
        )
      : null;
  return {
    rows: page.map(
      ({ issued_order: _issued, issuer_order: _issuer, receipt_id_order: _receiptId, ...summary }) => summary,
    ),
    nextCursor,
  };
}

/**
 * How many receipts match a filter set.
 *
 * No filter, or one format, status, trust or issuer filter alone, is answered from the exact
 * counts the triggers keep (instant at any size); anything else counts matching index entries.
 *
 * @param database - any handle
 * @param filters - as for {@link listReceipts}
 * @returns the count
 */
export function countReceipts(database: ReadableDB, filters: ReceiptFilters = {}): number {
  const checked = checkFilters(filters);
  const equalities = equalityFilters(checked);
  const others =
    checked.from !== undefined ||
    checked.to !== undefined ||
    checked.match !== undefined ||
    checked.source !== undefined;
  if (!others && equalities.length === 0) {
    return (
      queryOne<{ n: number }>(
        database,
        sql`SELECT coalesce(sum(n), 0) AS n FROM receipt_counts WHERE dimension = 'status'`,
      )?.n ?? 0
    );
  }
  if (!others && equalities.length === 1) {
    return valueCounts(database, equalities).values().next().value ?? 0;
  }
  const row = queryOne<{ n: number }>(
    database,
    sql`SELECT count(*) AS n FROM receipts AS r ${whereClause(filterConditions(checked))}`,
  );
  return row?.n ?? 0;
}
