/**
 * Repository for what anchor checks found (migration 5): record a check, page anchors and
 * batches with their state, find a receipt's anchors, and the anchors step 1 has not run for.
 *
 * An anchor's `state` is a virtual column: the last check's verdict, else `pending` for a
 * pending record and `unchecked` for a resolved one. Lists filter and count by it through its
 * indexes, so a page costs the same at a million anchors as at ten, and nothing here verifies
 * anything: the operations layer runs the steps and records what they found.
 */
import {
  ANCHOR_CHECK_STATES,
  ANCHOR_STATES,
  type AnchorCheckState,
  type AnchorState,
  type AnchorStepView,
} from '../../src-shared/api/anchor-contract';
import type { ContextEvidence, ContextHead } from '../../src-shared/anchor/context';
import { isBatchId } from '../../src-shared/anchor/urn';
import { checkHex64, checkInstant, checkInteger, checkObject, checkOneOf } from './checks';
import { decodeCursor, encodeCursor, queryFingerprint } from './cursor';
import { execute, queryAll, queryOne, type ReadableDB, type WritableDB } from './database';
import { sql, sqlFragment, sqlJoin, type SqlFragment } from './sql';

/** An anchor row with its state and last check. */
export interface AnchorStateRecord {
  id: number;
  svc_anchor: string;
  batch_id: string;
  status: 'pending' | 'resolved';
  state: AnchorState;
  receipt_sha256: string | null;
  /** The receipt's ledger id when it is in the ledger. */
  receipt_ledger_id: number | null;
  record: unknown;
  last_check: { state: AnchorCheckState; steps: AnchorStepView[]; checked_at: number; rpc: string | null } | null;
}

/** A batch's counts per state, and one resolved record of it (for its transaction). */
export interface AnchorBatchRecord {
  batch_id: string;
  total: number;
  by_state: Record<AnchorState, number>;
  /** A resolved record of the batch, or null while none is resolved. */
  resolved_record: unknown;
}

/** An anchor whose step 1 has not run, with its receipt's stored bytes. */
export interface UncheckedAnchor {
  id: number;
  svc_anchor: string;
  record: unknown;
  receipt_sha256: string;
  raw: Uint8Array;
}

interface StateRow {
  id: number;
  svc_anchor: string;
  batch_id: string;
  status: 'pending' | 'resolved';
  state: AnchorState;
  receipt_sha256: string | null;
  receipt_ledger_id: number | null;
  record_json: string;
  check_state: AnchorCheckState | null;
  check_steps_json: string | null;
  checked_at: number | null;
  check_rpc: string | null;
}

const STATE_COLUMNS = sqlFragment`a.id, a.svc_anchor, a.batch_id, a.status, a.state, a.receipt_sha256, a.record_json,
  a.check_state, a.check_steps_json, a.checked_at, a.check_rpc,
  (SELECT r.id FROM receipts r WHERE r.receipt_sha256 = a.receipt_sha256) AS receipt_ledger_id`;

/** The largest page of anchors or batches. */
export const MAX_ANCHOR_PAGE = 1000;

function zeroCounts(): Record<AnchorState, number> {
  return Object.fromEntries(ANCHOR_STATES.map((state) => [state, 0])) as Record<AnchorState, number>;
}

function toStateRecord(row: StateRow): AnchorStateRecord {
  return {
    id: row.id,
    svc_anchor: row.svc_anchor,
    batch_id: row.batch_id,
    status: row.status,
    state: row.state,
    receipt_sha256: row.receipt_sha256,
    receipt_ledger_id: row.receipt_ledger_id,
    record: JSON.parse(row.record_json) as unknown,
    last_check:
      row.check_state === null || row.checked_at === null
        ? null
        : {
            state: row.check_state,
            steps: JSON.parse(row.check_steps_json ?? '[]') as AnchorStepView[],
            checked_at: row.checked_at,
            rpc: row.check_rpc,
          },
  };
}

function checkSteps(value: unknown): AnchorStepView[] {
  if (!Array.isArray(value) || value.length !== 3) throw new RangeError('check.steps must be the three steps');
  return value.map((item, index) => {
    const step = checkObject(item, `check.steps[${index}]`);
    if (step.step !== index + 1) throw new RangeError(`check.steps[${index}].step must be ${index + 1}`);
    const status = checkOneOf(step.status, ['pass', 'fail', 'unchecked'] as const, `check.steps[${index}].status`);
    if (typeof step.detail !== 'string' || step.detail.length > 4096)
      throw new TypeError(`check.steps[${index}].detail must be a string of at most 4096 characters`);
    const view: AnchorStepView = { step: (index + 1) as 1 | 2 | 3, status, detail: step.detail };
    if (step.evidence !== undefined)
      view.evidence = checkOneOf(step.evidence, ['chain', 'context'] as const, `check.steps[${index}].evidence`);
    if (step.context !== undefined) {
      if (view.evidence !== 'context')
        throw new RangeError(`check.steps[${index}].context is only for a step answered from a context pack`);
      view.context = checkContextEvidence(step.context, `check.steps[${index}].context`);
    }
    return view;
  });
}

const HEX_HASH = /^0x[0-9a-f]{64}$/;

function checkHead(value: unknown, path: string): ContextHead {
  const head = checkObject(value, path);
  const number = checkInteger(head.number, `${path}.number`, 0);
  if (typeof head.hash !== 'string' || !HEX_HASH.test(head.hash))
    throw new TypeError(`${path}.hash must be 0x and 64 lowercase hex digits`);
  return { number, hash: head.hash };
}

function checkShortString(value: unknown, path: string, max: number): string {
  if (typeof value !== 'string' || value.length < 1 || value.length > max)
    throw new TypeError(`${path} must be a string of 1 to ${max} characters`);
  return value;
}

/** The pack a step was answered from, as the check recorded it (its words, nothing more). */
function checkContextEvidence(value: unknown, path: string): ContextEvidence {
  const input = checkObject(value, path);
  const evidence: ContextEvidence = {
    pack_id: checkShortString(input.pack_id, `${path}.pack_id`, 64),
    made_at: checkShortString(input.made_at, `${path}.made_at`, 64),
    rpc: checkShortString(input.rpc, `${path}.rpc`, 2048),
    chain_id: checkInteger(input.chain_id, `${path}.chain_id`, 0),
    head: checkHead(input.head, `${path}.head`),
    head_trust: checkOneOf(input.head_trust, ['claimed', 'checked'] as const, `${path}.head_trust`),
    signer: checkShortString(input.signer, `${path}.signer`, 256),
  };
  if (input.pinned !== undefined) evidence.pinned = checkHead(input.pinned, `${path}.pinned`);
  return evidence;
}

/**
 * Records what a check of an anchor found, replacing the previous check.
 *
 * The check names the URN it judged: when the row's URN changed meanwhile (the anchor
 * resolved), nothing is recorded, because the verdict is about a record the row no longer holds.
 *
 * @param database - a writable handle
 * @param id - the anchor's row id
 * @param check - the URN checked, the verdict, the three steps, the RPC asked (null offline), when (ms)
 * @returns whether a row was updated
 * @throws TypeError / RangeError for bad input
 */
export function recordAnchorCheck(
  database: WritableDB,
  id: number,
  check: {
    svc_anchor: string;
    state: AnchorCheckState;
    steps: readonly AnchorStepView[];
    rpc: string | null;
    at?: number;
  },
): boolean {
  const rowId = checkInteger(id, 'id', 1);
  const input = checkObject(check, 'check');
  if (typeof input.svc_anchor !== 'string') throw new TypeError('check.svc_anchor must be a string');
  const state = checkOneOf(input.state, ANCHOR_CHECK_STATES, 'check.state');
  const steps = checkSteps(input.steps);
  const rpc =
    input.rpc === null
      ? null
      : typeof input.rpc === 'string' && input.rpc.length >= 1 && input.rpc.length <= 2048
        ? input.rpc
        : undefined;
  if (rpc === undefined) throw new TypeError('check.rpc must be null or a URL of at most 2048 characters');
  const at = checkInstant(input.at, 'check.at');
  const result = execute(
    database,
    sql`UPDATE anchors SET check_state = ${state}, check_steps_json = ${JSON.stringify(steps)}, checked_at = ${at}, check_rpc = ${rpc}
        WHERE id = ${rowId} AND svc_anchor = ${input.svc_anchor}`,
  );
  return result.changes > 0;
}

/**
 * One anchor with its state and last check.
 *
 * @param database - any handle
 * @param id - the row id
 * @returns the row, or undefined
 */
export function getAnchorState(database: ReadableDB, id: number): AnchorStateRecord | undefined {
  const rowId = checkInteger(id, 'id', 1);
  const row = queryOne<StateRow>(database, sql`SELECT ${STATE_COLUMNS} FROM anchors a WHERE a.id = ${rowId}`);
  return row === undefined ? undefined : toStateRecord(row);
}

/**
 * The anchors of a receipt, oldest first.
 *
 * @param database - any handle
 * @param receiptSha256 - the receipt's identity (hex)
 * @returns its anchor rows (at most {@link MAX_ANCHOR_PAGE})
 */
export function anchorsOfReceipt(database: ReadableDB, receiptSha256: string): AnchorStateRecord[] {
  const digest = checkHex64(receiptSha256, 'receiptSha256');
  return queryAll<StateRow>(
    database,
    sql`SELECT ${STATE_COLUMNS} FROM anchors a WHERE a.receipt_sha256 = ${digest} ORDER BY a.id LIMIT ${MAX_ANCHOR_PAGE}`,
  ).map(toStateRecord);
}

/**
 * Anchors in row order, filtered by batch and state, keyset-paginated.
 *
 * @param database - any handle
 * @param query - `batch_id`, `state`, `after` (a cursor of the same filters), `limit` (1..1000, default 100)
 * @returns the page
 * @throws LedgerError `bad_cursor`; RangeError for a bad filter
 */
export function listAnchorStates(
  database: ReadableDB,
  query: { batch_id?: string; state?: AnchorState; after?: string; limit?: number } = {},
): { rows: AnchorStateRecord[]; nextCursor: string | null } {
  const input = checkObject(query, 'query');
  const conditions: SqlFragment[] = [];
  const shape: Record<string, string> = {};
  if (input.batch_id !== undefined) {
    if (!isBatchId(input.batch_id)) throw new RangeError('batch_id must be a batch id (YYYY-MM-DDThh:mmZ)');
    shape.batch_id = input.batch_id;
    conditions.push(sqlFragment`a.batch_id = ${shape.batch_id}`);
  }
  if (input.state !== undefined) {
    shape.state = checkOneOf(input.state, ANCHOR_STATES, 'state');
    conditions.push(sqlFragment`a.state = ${shape.state}`);
  }
  const limit = input.limit === undefined ? 100 : checkInteger(input.limit, 'limit', 1, MAX_ANCHOR_PAGE);
  const fingerprint = queryFingerprint({ anchorStates: shape });
  if (input.after !== undefined) {
    const [id] = decodeCursor(input.after as string, fingerprint, ['integer']);
    conditions.push(sqlFragment`a.id > ${id ?? 0}`);
  }
  const where = conditions.length === 0 ? sqlFragment`` : sqlFragment`WHERE ${sqlJoin(conditions, ' AND ')}`;
  const rows = queryAll<StateRow>(
    database,
    sql`SELECT ${STATE_COLUMNS} FROM anchors a ${where} ORDER BY a.id LIMIT ${limit + 1}`,
  );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page.map(toStateRecord),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(fingerprint, [last.id]) : null,
  };
}

/**
 * Batches, newest first, with their counts per state, keyset-paginated by batch id.
 *
 * @param database - any handle
 * @param query - `after` (a cursor from the previous page), `limit` (1..1000, default 50)
 * @returns the page
 * @throws LedgerError `bad_cursor`
 */
export function listAnchorBatches(
  database: ReadableDB,
  query: { after?: string; limit?: number } = {},
): { rows: AnchorBatchRecord[]; nextCursor: string | null } {
  const input = checkObject(query, 'query');
  const limit = input.limit === undefined ? 50 : checkInteger(input.limit, 'limit', 1, MAX_ANCHOR_PAGE);
  const fingerprint = queryFingerprint({ anchorBatches: {} });
  const before =
    input.after === undefined ? undefined : String(decodeCursor(input.after as string, fingerprint, ['text'])[0]);
  // Distinct batch ids by skipping through idx_anchors_batch: one seek per batch, not a scan.
  const ids = queryAll<{ batch_id: string }>(
    database,
    before === undefined
      ? sql`SELECT DISTINCT batch_id FROM anchors ORDER BY batch_id DESC LIMIT ${limit + 1}`
      : sql`SELECT DISTINCT batch_id FROM anchors WHERE batch_id < ${before} ORDER BY batch_id DESC LIMIT ${limit + 1}`,
  ).map((row) => row.batch_id);
  const page = ids.slice(0, limit);
  const rows = page.map((batchId) => {
    const counts = zeroCounts();
    let total = 0;
    for (const row of queryAll<{ state: AnchorState; n: number }>(
      database,
      sql`SELECT state, count(*) AS n FROM anchors WHERE batch_id = ${batchId} GROUP BY state`,
    )) {
      counts[row.state] = row.n;
      total += row.n;
    }
    const resolved = queryOne<{ record_json: string }>(
      database,
      sql`SELECT record_json FROM anchors WHERE batch_id = ${batchId} AND status = 'resolved' LIMIT 1`,
    );
    return {
      batch_id: batchId,
      total,
      by_state: counts,
      resolved_record: resolved === undefined ? null : (JSON.parse(resolved.record_json) as unknown),
    };
  });
  const last = page[page.length - 1];
  return { rows, nextCursor: ids.length > limit && last !== undefined ? encodeCursor(fingerprint, [last]) : null };
}

/**
 * How many anchors are in each state, over the whole ledger.
 *
 * @param database - any handle
 * @returns every state, zeros included
 */
export function anchorStateTotals(database: ReadableDB): Record<AnchorState, number> {
  const counts = zeroCounts();
  for (const row of queryAll<{ state: AnchorState; n: number }>(
    database,
    sql`SELECT state, count(*) AS n FROM anchors GROUP BY state`,
  ))
    counts[row.state] = row.n;
  return counts;
}

/**
 * Resolved anchors that no check has judged and whose receipt is in the ledger, in row order.
 *
 * @param database - any handle
 * @param query - `afterId` (row id to continue after, default 0), `limit` (1..1000, default 500)
 * @returns the anchors with their receipts' stored bytes
 */
export function uncheckedAnchors(
  database: ReadableDB,
  query: { afterId?: number; limit?: number } = {},
): UncheckedAnchor[] {
  const input = checkObject(query, 'query');
  const afterId = input.afterId === undefined ? 0 : checkInteger(input.afterId, 'afterId', 0);
  const limit = input.limit === undefined ? 500 : checkInteger(input.limit, 'limit', 1, MAX_ANCHOR_PAGE);
  // Without statistics the planner prefers idx_anchors_status, which walks every resolved
  // anchor, checked or not; the partial index holds only the unchecked ones.
  return queryAll<{ id: number; svc_anchor: string; record_json: string; receipt_sha256: string; raw: Buffer }>(
    database,
    sql`SELECT a.id, a.svc_anchor, a.record_json, a.receipt_sha256, r.raw
        FROM anchors a INDEXED BY idx_anchors_unchecked JOIN receipts r ON r.receipt_sha256 = a.receipt_sha256
        WHERE a.check_state IS NULL AND a.status = 'resolved' AND a.id > ${afterId}
        ORDER BY a.id LIMIT ${limit}`,
  ).map((row) => ({
    id: row.id,
    svc_anchor: row.svc_anchor,
    record: JSON.parse(row.record_json) as unknown,
    receipt_sha256: row.receipt_sha256,
    raw: new Uint8Array(row.raw.buffer, row.raw.byteOffset, row.raw.byteLength),
  }));
}
