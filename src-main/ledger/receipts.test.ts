import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { ANCHOR_LEDGER_STATES, type AnchorLedgerState } from '../../src-shared/api/anchor-contract';
import type { ReportStatus, TrustStatus } from '../../src-shared/verify/report';
import { explainQueryPlan } from './database';
import { LedgerError } from './errors';
import {
  buildListReceiptsQuery,
  countReceipts,
  findReceiptsByDocumentId,
  findSourcedReceiptsByName,
  getReceipt,
  insertReceipts,
  listReceipts,
  RECEIPT_SORT_COLUMNS,
  textToMatchExpression,
  updateReceiptReport,
  type ListReceiptsQuery,
  type NewReceipt,
  type ReceiptFilters,
  type ReceiptSortColumn,
  type ReceiptSummary,
  type SortDirection,
} from './receipts';
import { openLedger, type Ledger } from './open-ledger';
import { initialMigration } from './migrations/0001-initial';
import { addReceiptSource } from './receipt-sources';
import { makeReceipt, makeReport, makeTemporaryLedger, sha256Hex } from './test-support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

function temporary(): Ledger {
  const made = makeTemporaryLedger();
  cleanups.push(made.dispose);
  return made.ledger;
}

function ledgerErrorCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof LedgerError ? error.code : `not a LedgerError: ${String(error)}`;
  }
  return undefined;
}

/** Every row of a query, following cursors; fails on a repeated id. */
function allPages(ledger: Ledger, query: ListReceiptsQuery): ReceiptSummary[] {
  const rows: ReceiptSummary[] = [];
  let after: string | undefined;
  for (let pages = 0; pages < 10_000; pages += 1) {
    const page = listReceipts(ledger.readable, { ...query, ...(after === undefined ? {} : { after }) });
    rows.push(...page.rows);
    if (page.nextCursor === null) return rows;
    expect(page.rows.length).toBe(query.limit ?? 100);
    after = page.nextCursor;
  }
  throw new Error('paging did not end');
}

describe('insertReceipts', () => {
  it('stores each receipt once and records every source', () => {
    const ledger = temporary();
    const receipt = makeReceipt('one', { issued_at: 1000, key_id: 'did:svc:evroom:k1' });
    const first = insertReceipts(ledger.writable, [{ ...receipt, source: { kind: 'file', ref: '/tmp/one.json' } }], {
      at: 5,
    });
    const second = insertReceipts(ledger.writable, [{ ...receipt, source: { kind: 'bundle', ref: '17' } }], { at: 6 });
    expect(first).toEqual([{ id: 1, receipt_sha256: receipt.receipt_sha256, created: true, sourceAdded: true }]);
    expect(second).toEqual([{ id: 1, receipt_sha256: receipt.receipt_sha256, created: false, sourceAdded: true }]);
    // The same source again adds nothing.
    const third = insertReceipts(ledger.writable, [{ ...receipt, source: { kind: 'bundle', ref: '17' } }], { at: 7 });
    expect(third[0]?.sourceAdded).toBe(false);
    expect(countReceipts(ledger.readable)).toBe(1);

    const stored = getReceipt(ledger.readable, receipt.receipt_sha256);
    expect(stored?.sources.map((source) => [source.kind, source.ref, source.imported_at])).toEqual([
      ['file', '/tmp/one.json', 5],
      ['bundle', '17', 6],
    ]);
    expect(stored?.imported_at).toBe(5);
    expect(Buffer.from(stored?.raw ?? []).equals(Buffer.from(receipt.raw))).toBe(true);
    expect(stored?.report).toEqual(receipt.report);
    expect(stored?.issuer_key_id).toBe('did:svc:evroom:k1');
    expect(stored?.issued_at).toBe(1000);
    expect(getReceipt(ledger.readable, 1)?.receipt_sha256).toBe(receipt.receipt_sha256);
    expect(getReceipt(ledger.readable, 2)).toBeUndefined();
    expect(getReceipt(ledger.readable, sha256Hex('absent'))).toBeUndefined();
  });

  it('treats a repeat inside one batch as already stored', () => {
    const ledger = temporary();
    const result = insertReceipts(ledger.writable, [makeReceipt('a'), makeReceipt('b'), makeReceipt('a')]);
    expect(result.map((row) => [row.id, row.created])).toEqual([
      [1, true],
      [2, true],
      [1, false],
    ]);
  });

  it('adds a source to a stored receipt, and refuses an unknown one', () => {
    const ledger = temporary();
    const receipt = makeReceipt('s');
    insertReceipts(ledger.writable, [receipt]);
    expect(addReceiptSource(ledger.writable, receipt.receipt_sha256, { kind: 'paste', ref: '' })).toEqual({
      created: true,
    });
    expect(addReceiptSource(ledger.writable, 1, { kind: 'paste', ref: '' })).toEqual({ created: false });
    expect(
      ledgerErrorCode(() => addReceiptSource(ledger.writable, sha256Hex('nope'), { kind: 'file', ref: 'x' })),
    ).toBe('not_found');
    expect(() => addReceiptSource(ledger.writable, 1, { kind: 'email' as 'file', ref: 'x' })).toThrow(RangeError);
  });

  it('checks the whole batch first: one bad item writes nothing', () => {
    const ledger = temporary();
    const good = makeReceipt('good');
    const bad = [
      { ...makeReceipt('b1'), receipt_sha256: 'ABC' },
      { ...makeReceipt('b2'), receipt_sha256: sha256Hex('x').toUpperCase() },
      { ...makeReceipt('b3'), raw: 'text' as unknown as Uint8Array },
      { ...makeReceipt('b4'), report: { ...makeReport(), status: 'OK' as ReportStatus } },
      { ...makeReceipt('b5'), report: { ...makeReport(), trust: { status: 'maybe' as TrustStatus } } },
      { ...makeReceipt('b6'), report: { ...makeReport(), report_version: '2' as '1' } },
      { ...makeReceipt('b7'), issued_at: -5 },
      { ...makeReceipt('b8'), issued_at: 1.5 },
      { ...makeReceipt('b9'), receipt_id: '' },
      { ...makeReceipt('b10'), source: { kind: 'carrier-pigeon' as 'file', ref: '' } },
      { ...makeReceipt('b11'), search_text: 'x'.repeat(20_000) },
    ];
    for (const item of bad) {
      expect(() => insertReceipts(ledger.writable, [good, item])).toThrow(/must/);
      expect(countReceipts(ledger.readable)).toBe(0);
    }
    expect(() => insertReceipts(ledger.writable, 'nope' as never)).toThrow(TypeError);
  });

  it('stores a report given as JSON text with its columns, as workers send it', () => {
    const ledger = temporary();
    const report = makeReport({ format: 'profile/nano', status: 'INVALID', trust: 'unpinned' });
    const json = JSON.stringify({ ...report, trust: { ...report.trust, key_id: 'did:svc:w:k1' } });
    const serialized = {
      json,
      format: 'profile/nano',
      status: 'INVALID' as const,
      trust: { status: 'unpinned' as const, key_id: 'did:svc:w:k1' },
    };
    const [inserted] = insertReceipts(ledger.writable, [{ ...makeReceipt('s1'), report: serialized }]);
    const row = ledger.readable
      .prepare('SELECT format, status, trust, issuer_key_id, report_json FROM receipts WHERE id = ?')
      .get(inserted?.id) as Record<string, unknown>;
    expect(row).toEqual({
      format: 'profile/nano',
      status: 'INVALID',
      trust: 'unpinned',
      issuer_key_id: 'did:svc:w:k1',
      report_json: json,
    });
    expect(countReceipts(ledger.readable, { status: 'INVALID' })).toBe(1);

    const bad = [
      { ...serialized, json: 'not json' },
      { ...serialized, json: '' },
      { ...serialized, json: 5 },
      { ...serialized, status: 'FINE' },
      { ...serialized, trust: { status: 'maybe' } },
      { ...serialized, trust: { status: 'unpinned', key_id: 7 } },
    ];
    for (const item of bad) {
      expect(() =>
        insertReceipts(ledger.writable, [makeReceipt('s2'), { ...makeReceipt('s3'), report: item as never }]),
      ).toThrow();
      expect(countReceipts(ledger.readable)).toBe(1);
    }
  });

  it('replaces a report after re-verification, keeping identity and sources', () => {
    const ledger = temporary();
    const receipt = makeReceipt('re', { trust: 'unpinned' });
    insertReceipts(ledger.writable, [{ ...receipt, source: { kind: 'file', ref: 'a' } }]);
    updateReceiptReport(ledger.writable, receipt.receipt_sha256, makeReport({ trust: 'trusted' }));
    const stored = getReceipt(ledger.readable, 1);
    expect(stored?.trust).toBe('trusted');
    expect(stored?.report.trust.status).toBe('trusted');
    expect(stored?.sources).toHaveLength(1);
    expect(countReceipts(ledger.readable, { trust: 'trusted' })).toBe(1);
    expect(ledgerErrorCode(() => updateReceiptReport(ledger.writable, 99, makeReport()))).toBe('not_found');
  });

  it('finds receipts by the document’s own id', () => {
    const ledger = temporary();
    insertReceipts(ledger.writable, [
      makeReceipt('d1', { receipt_id: 'rcp_same' }),
      makeReceipt('d2', { receipt_id: 'rcp_same' }),
      makeReceipt('d3', { receipt_id: 'rcp_other' }),
    ]);
    expect(findReceiptsByDocumentId(ledger.readable, 'rcp_same').map((row) => row.id)).toEqual([1, 2]);
  });

  it('finds the receipts of one source a file name names, by document id or SHA-256', () => {
    const ledger = temporary();
    const bundle = { kind: 'bundle' as const, ref: '7' };
    insertReceipts(ledger.writable, [
      // The same document id from another bundle: not this bundle's.
      { ...makeReceipt('elsewhere', { receipt_id: 'rcp_a' }), source: { kind: 'bundle', ref: '6' } },
      { ...makeReceipt('a', { receipt_id: 'rcp_a' }), source: bundle },
      { ...makeReceipt('no-id', { receipt_id: null }), source: bundle },
      { ...makeReceipt('twin-1', { receipt_id: 'rcp_twin' }), source: bundle },
      { ...makeReceipt('twin-2', { receipt_id: 'rcp_twin' }), source: bundle },
    ]);
    expect(findSourcedReceiptsByName(ledger.readable, bundle, 'rcp_a')).toEqual([2]);
    expect(findSourcedReceiptsByName(ledger.readable, { kind: 'bundle', ref: '6' }, 'rcp_a')).toEqual([1]);
    expect(findSourcedReceiptsByName(ledger.readable, bundle, sha256Hex('no-id'))).toEqual([3]);
    // Two receipts of the bundle carry the name: ambiguous, both given.
    expect(findSourcedReceiptsByName(ledger.readable, bundle, 'rcp_twin')).toEqual([4, 5]);
    expect(findSourcedReceiptsByName(ledger.readable, bundle, 'rcp_none')).toEqual([]);
    // Names no receipt can carry match none instead of throwing.
    expect(findSourcedReceiptsByName(ledger.readable, bundle, '')).toEqual([]);
    expect(findSourcedReceiptsByName(ledger.readable, bundle, 'x'.repeat(513))).toEqual([]);
    expect(() => findSourcedReceiptsByName(ledger.readable, { kind: 'nope' as 'bundle', ref: '7' }, 'rcp_a')).toThrow(
      RangeError,
    );
  });
});

const FORMATS = ['profile/nano', 'profile/standard', 'classical', 'typed/proof.demand'];
const STATUSES: ReportStatus[] = ['PASS', 'INVALID', 'MISMATCH', 'MALFORMED', 'INDETERMINATE'];
const TRUSTS: TrustStatus[] = ['trusted', 'unpinned', 'revoked', 'not_applicable'];
const ISSUERS = ['did:svc:evroom:k1', 'did:svc:evroom:k2', 'did:web:acme.example', null];

/** A small deterministic PRNG (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)] as T;
}

interface Generated {
  id: number;
  format: string;
  status: ReportStatus;
  trust: TrustStatus;
  issuer: string | null;
  issued_at: number | null;
  receipt_id: string | null;
  text: string;
  bundle: string;
  anchor: AnchorLedgerState;
}

/** Sort keys as the ledger defines them (unknown sorts first), for the reference order. */
function referenceKeys(row: Generated, column: ReceiptSortColumn): (string | number)[] {
  const issued = row.issued_at ?? -1;
  switch (column) {
    case 'issued_at':
      return [issued, row.id];
    case 'imported_at':
      return [row.id];
    case 'format':
      return [row.format, issued, row.id];
    case 'status':
      return [row.status, issued, row.id];
    case 'trust':
      return [row.trust, issued, row.id];
    case 'issuer':
      return [row.issuer ?? '', issued, row.id];
    case 'receipt_id':
      return [row.receipt_id ?? '', row.id];
    case 'anchor':
      return [row.anchor, issued, row.id];
  }
}

function compareKeys(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let index = 0; index < a.length; index += 1) {
    const x = a[index] as string | number;
    const y = b[index] as string | number;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

function matches(row: Generated, filters: ReceiptFilters): boolean {
  if (filters.format !== undefined && row.format !== filters.format) return false;
  if (filters.status !== undefined && row.status !== filters.status) return false;
  if (filters.trust !== undefined && row.trust !== filters.trust) return false;
  if (filters.issuer !== undefined && row.issuer !== filters.issuer) return false;
  if (filters.from !== undefined || filters.to !== undefined) {
    if (row.issued_at === null) return false;
    if (filters.from !== undefined && row.issued_at < filters.from) return false;
    if (filters.to !== undefined && row.issued_at >= filters.to) return false;
  }
  if (filters.source !== undefined && row.bundle !== filters.source.ref) return false;
  if (filters.anchor !== undefined && row.anchor !== filters.anchor) return false;
  return true;
}

describe('receipt_counts', () => {
  function fromCounts(ledger: Ledger): Record<string, number> {
    const rows = ledger.readable
      .prepare('SELECT dimension, value, n FROM receipt_counts WHERE n > 0 ORDER BY dimension, value')
      .all() as { dimension: string; value: string; n: number }[];
    return Object.fromEntries(rows.map((row) => [`${row.dimension}=${row.value}`, row.n]));
  }
  function fromTable(ledger: Ledger): Record<string, number> {
    const rows = ledger.readable
      .prepare(
        `SELECT 'format' AS dimension, format AS value, count(*) AS n FROM receipts GROUP BY format
         UNION ALL SELECT 'issuer', issuer_order, count(*) FROM receipts GROUP BY issuer_order
         UNION ALL SELECT 'status', status, count(*) FROM receipts GROUP BY status
         UNION ALL SELECT 'trust', trust, count(*) FROM receipts GROUP BY trust
         ORDER BY 1, 2`,
      )
      .all() as { dimension: string; value: string; n: number }[];
    return Object.fromEntries(rows.map((row) => [`${row.dimension}=${row.value}`, row.n]));
  }

  it('stays exact across migration 2, which moves insert counting from a trigger to insertReceipts', () => {
    const made = makeTemporaryLedger({ migrations: [initialMigration] });
    cleanups.push(made.dispose);
    // Rows stored before migration 2, counted by its trigger (as the code of that time relied on).
    const insertV1 = made.ledger.writable.prepare(
      `INSERT INTO receipts (receipt_sha256, raw, format, imported_at, status, trust, report_json, search_text)
       VALUES (?, x'7b7d', 'classical', 0, ?, 'unpinned', '{}', '')`,
    );
    insertV1.run(makeReceipt('m1').receipt_sha256, 'INVALID');
    insertV1.run(makeReceipt('m2').receipt_sha256, 'PASS');
    made.ledger.close();
    const ledger = openLedger(made.file);
    try {
      insertReceipts(ledger.writable, [makeReceipt('m2'), makeReceipt('m3', { status: 'INVALID' }), makeReceipt('m4')]);
      expect(fromCounts(ledger)).toEqual(fromTable(ledger));
      expect(fromCounts(ledger)).toMatchObject({ 'status=INVALID': 2, 'status=PASS': 2 });
      const triggers = ledger.readable
        .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'receipt_counts%'")
        .all();
      expect(triggers.map((row) => (row as { name: string }).name).sort()).toEqual([
        'receipt_counts_after_delete',
        'receipt_counts_after_update',
      ]);
    } finally {
      ledger.close();
    }
  });

  it('stays exact through inserts, repeats, report updates and deletes', () => {
    const ledger = temporary();
    insertReceipts(ledger.writable, [
      { ...makeReceipt('a', { format: 'classical', status: 'PASS', trust: 'trusted' }), issuer_key_id: 'did:svc:x:k1' },
      makeReceipt('b', { format: 'classical', status: 'INVALID' }),
      makeReceipt('c', { format: 'profile/nano' }),
    ]);
    insertReceipts(ledger.writable, [makeReceipt('a'), makeReceipt('d', { status: 'MALFORMED' })]);
    updateReceiptReport(ledger.writable, 2, makeReport({ format: 'profile/pq', status: 'PASS', trust: 'revoked' }));
    expect(fromCounts(ledger)).toEqual(fromTable(ledger));
    expect(fromCounts(ledger)).toMatchObject({
      'status=PASS': 3,
      'status=MALFORMED': 1,
      'issuer=did:svc:x:k1': 1,
      'issuer=': 3,
    });
    ledger.writable.prepare('DELETE FROM receipts WHERE id = 1').run();
    expect(fromCounts(ledger)).toEqual(fromTable(ledger));
    expect(countReceipts(ledger.readable)).toBe(3);
    expect(countReceipts(ledger.readable, { status: 'PASS' })).toBe(2);
    expect(countReceipts(ledger.readable, { issuer: 'did:svc:x:k1' })).toBe(0);
  });
});

describe('full-text index', () => {
  function integrity(ledger: Ledger): void {
    // rank 1: also compare the index with the external content table, row by row.
    ledger.writable.exec("INSERT INTO receipts_fts (receipts_fts, rank) VALUES ('integrity-check', 1)");
  }

  it('stays in step with receipts across batches, repeats and report updates', () => {
    const ledger = temporary();
    insertReceipts(ledger.writable, [makeReceipt('a'), makeReceipt('b')]);
    insertReceipts(ledger.writable, [makeReceipt('b'), makeReceipt('c'), makeReceipt('a'), makeReceipt('d')]);
    ledger.runInTransaction((database) => {
      insertReceipts(database, [makeReceipt('e')]);
      insertReceipts(database, [makeReceipt('f'), makeReceipt('e')]);
    });
    updateReceiptReport(ledger.writable, 1, makeReport({ status: 'INVALID' }));
    expect(() => integrity(ledger)).not.toThrow();
    expect(countReceipts(ledger.readable, { text: 'rcp_f' })).toBe(1);
  });

  it('notices a row that bypassed indexing (so the check above can fail)', () => {
    const ledger = temporary();
    insertReceipts(ledger.writable, [makeReceipt('a')]);
    ledger.writable
      .prepare(
        `INSERT INTO receipts (receipt_sha256, raw, format, imported_at, status, trust, report_json, search_text)
         VALUES (?, x'00', 'classical', 1, 'PASS', 'trusted', '{}', 'stray words')`,
      )
      .run(sha256Hex('stray'));
    expect(() => integrity(ledger)).toThrow();
  });

  it('finds identifiers whole or by their beginning', () => {
    const ledger = temporary();
    const pinned = { ...makeReceipt('x1', { receipt_id: 'rcp_01HABCDEF' }), issuer_key_id: 'did:svc:evroom:k1' };
    const other = { ...makeReceipt('x2', { receipt_id: 'rcp_01HZZZ' }), issuer_key_id: 'did:web:acme.example' };
    insertReceipts(ledger.writable, [pinned, other]);
    const ids = (text: string): number[] =>
      listReceipts(ledger.readable, { filters: { text } })
        .rows.map((row) => row.id)
        .sort();
    expect(ids('did:svc:evroom:k1')).toEqual([1]);
    expect(ids('did:svc:evroom')).toEqual([1]);
    expect(ids('DID:WEB:ACME.EXAMPLE')).toEqual([2]);
    expect(ids('rcp_01H')).toEqual([1, 2]);
    expect(ids('rcp_01HABC')).toEqual([1]);
    expect(ids(pinned.receipt_sha256.slice(0, 12))).toEqual([1]);
    expect(ids('rcp_01HABC did:web')).toEqual([]);
    // A word from the middle of an identifier is not a word of its own.
    expect(ids('evroom')).toEqual([]);
  });
});

describe('listReceipts over 1,000 rows with many ties', () => {
  let ledger: Ledger;
  let dispose: () => void;
  const generated: Generated[] = [];

  beforeAll(() => {
    const made = makeTemporaryLedger();
    ledger = made.ledger;
    dispose = made.dispose;
    const next = random(20261122);
    const batch: NewReceipt[] = [];
    for (let index = 0; index < 1000; index += 1) {
      // Few distinct issue times, so most rows tie on every sort key but the id.
      const issued_at = next() < 0.1 ? null : 1_700_000_000_000 + Math.floor(next() * 20) * 60_000;
      const row: Generated = {
        id: index + 1,
        format: pick(next, FORMATS),
        status: pick(next, STATUSES),
        trust: pick(next, TRUSTS),
        issuer: pick(next, ISSUERS),
        issued_at,
        receipt_id: next() < 0.1 ? null : `rcp_${String(Math.floor(next() * 50)).padStart(2, '0')}`,
        text: index % 10 === 0 ? 'Zürich audit' : index % 7 === 0 ? 'acme shipment' : 'routine',
        bundle: String(index % 3),
        anchor: pick(next, ANCHOR_LEDGER_STATES),
      };
      generated.push(row);
      batch.push({
        ...makeReceipt(`row-${index}`, {
          format: row.format,
          status: row.status,
          trust: row.trust,
          receipt_id: row.receipt_id,
          issued_at: row.issued_at,
          search_text: `${row.receipt_id ?? ''} ${row.text}`,
        }),
        issuer_key_id: row.issuer,
        source: { kind: 'bundle' as const, ref: row.bundle },
      });
    }
    insertReceipts(ledger.writable, batch);
    // An anchor record in the state that gives each row its anchor state.
    const record = ledger.writable.prepare(
      `INSERT INTO anchors (svc_anchor, batch_id, receipt_sha256, record_json, status, created_at, updated_at, check_state)
       VALUES (?, '2026-11-23T09:00Z', ?, '{}', ?, 0, 0, ?)`,
    );
    generated.forEach((row, index) => {
      if (row.anchor === 'none') return;
      const digest = (batch[index] as { receipt_sha256: string }).receipt_sha256;
      record.run(
        `urn:test:${index}`,
        digest,
        row.anchor === 'pending' ? 'pending' : 'resolved',
        row.anchor === 'pending' ? null : row.anchor,
      );
    });
  });
  afterAll(() => dispose());

  for (const column of RECEIPT_SORT_COLUMNS) {
    for (const direction of ['asc', 'desc'] as SortDirection[]) {
      it(`pages by ${column} ${direction} with no duplicates or gaps`, () => {
        const rows = allPages(ledger, { sort: { column, direction }, limit: 37 });
        const expected = [...generated]
          .sort(
            (a, b) => compareKeys(referenceKeys(a, column), referenceKeys(b, column)) * (direction === 'asc' ? 1 : -1),
          )
          .map((row) => row.id);
        expect(rows.map((row) => row.id)).toEqual(expected);
      });
    }
  }

  const filterCases: [string, ReceiptFilters][] = [
    ['format', { format: 'classical' }],
    ['status', { status: 'INVALID' }],
    ['trust', { trust: 'trusted' }],
    ['issuer', { issuer: 'did:web:acme.example' }],
    ['from', { from: 1_700_000_000_000 + 10 * 60_000 }],
    ['to', { to: 1_700_000_000_000 + 5 * 60_000 }],
    ['from and to', { from: 1_700_000_000_000 + 3 * 60_000, to: 1_700_000_000_000 + 9 * 60_000 }],
    ['source', { source: { kind: 'bundle', ref: '2' } }],
    ['anchor state', { anchor: 'pending' }],
    ['anchor state and status', { anchor: 'failed', status: 'PASS' }],
    ['several at once', { status: 'PASS', trust: 'unpinned', format: 'profile/nano' }],
  ];
  for (const [name, filters] of filterCases) {
    for (const column of ['issued_at', 'imported_at', 'status', 'issuer', 'anchor'] as ReceiptSortColumn[]) {
      it(`filters by ${name}, sorted by ${column}, paging exactly`, () => {
        const rows = allPages(ledger, { filters, sort: { column, direction: 'desc' }, limit: 23 });
        const expected = generated
          .filter((row) => matches(row, filters))
          .sort((a, b) => -compareKeys(referenceKeys(a, column), referenceKeys(b, column)))
          .map((row) => row.id);
        expect(expected.length).toBeGreaterThan(0);
        expect(rows.map((row) => row.id)).toEqual(expected);
        expect(countReceipts(ledger.readable, filters)).toBe(expected.length);
      });
    }
  }

  it('finds text by word prefix, ignoring case and accents', () => {
    const expected = generated.filter((row) => row.text === 'Zürich audit').map((row) => row.id);
    for (const text of ['zurich', 'ZÜR', 'zur aud', 'audit']) {
      const rows = allPages(ledger, {
        filters: { text },
        sort: { column: 'imported_at', direction: 'asc' },
        limit: 30,
      });
      expect(rows.map((row) => row.id)).toEqual(expected);
    }
    const acme = generated.filter((row) => row.text === 'acme shipment' && row.status === 'PASS').map((row) => row.id);
    expect(
      allPages(ledger, {
        filters: { text: 'acme', status: 'PASS' },
        sort: { column: 'imported_at', direction: 'asc' },
      }).map((row) => row.id),
    ).toEqual(acme);
    expect(countReceipts(ledger.readable, { text: 'nothing-like-this' })).toBe(0);
  });

  it('treats FTS syntax in the text as plain words', () => {
    for (const text of ['"', 'acme*', 'NEAR(acme', 'acme OR routine', '-acme', 'acme:', "a'b"]) {
      expect(() => listReceipts(ledger.readable, { filters: { text } })).not.toThrow();
    }
    // "OR" is a word to look for, not an operator: nothing contains both "acme" and "or".
    expect(countReceipts(ledger.readable, { text: 'acme OR routine' })).toBe(0);
    // No letters or digits: no text filter at all.
    expect(countReceipts(ledger.readable, { text: ':: --' })).toBe(1000);
    expect(textToMatchExpression('did:svc:x')).toBe('"did:svc:x"*');
    expect(textToMatchExpression('Zürich  rcp_01H.x')).toBe('"Zürich"* AND "rcp_01H.x"*');
  });

  it('refuses a cursor from another query and malformed arguments', () => {
    const page = listReceipts(ledger.readable, { filters: { status: 'PASS' }, limit: 10 });
    expect(page.nextCursor).not.toBeNull();
    const after = page.nextCursor as string;
    expect(
      ledgerErrorCode(() => listReceipts(ledger.readable, { filters: { status: 'INVALID' }, after, limit: 10 })),
    ).toBe('bad_cursor');
    expect(
      ledgerErrorCode(() =>
        listReceipts(ledger.readable, {
          filters: { status: 'PASS' },
          sort: { column: 'format', direction: 'desc' },
          after,
        }),
      ),
    ).toBe('bad_cursor');
    expect(() => listReceipts(ledger.readable, { limit: 0 })).toThrow(RangeError);
    expect(() => listReceipts(ledger.readable, { limit: 1001 })).toThrow(RangeError);
    expect(() => listReceipts(ledger.readable, { sort: { column: 'raw' as 'format', direction: 'asc' } })).toThrow(
      RangeError,
    );
    expect(() => listReceipts(ledger.readable, { sort: { column: 'format', direction: 'up' as 'asc' } })).toThrow(
      RangeError,
    );
    expect(() => listReceipts(ledger.readable, { filters: { colour: 'red' } as ReceiptFilters })).toThrow(RangeError);
    expect(() => listReceipts(ledger.readable, { filters: { status: 'FINE' as ReportStatus } })).toThrow(RangeError);
    expect(() => listReceipts(ledger.readable, { filters: { from: -1 } })).toThrow(RangeError);
  });

  it('returns an empty last page without a cursor', () => {
    const page = listReceipts(ledger.readable, { filters: { issuer: 'did:svc:nobody' } });
    expect(page).toEqual({ rows: [], nextCursor: null });
    const exact = listReceipts(ledger.readable, { limit: 1000 });
    expect(exact.rows).toHaveLength(1000);
    expect(exact.nextCursor).toBeNull();
  });

  describe('query plans', () => {
    const firstCursor = (query: ListReceiptsQuery): string => {
      const page = listReceipts(ledger.readable, { ...query, limit: 5 });
      return page.nextCursor as string;
    };
    const shapes: [string, ListReceiptsQuery, string][] = [
      ['newest first', {}, 'idx_receipts_issued'],
      ['oldest first', { sort: { column: 'issued_at', direction: 'asc' } }, 'idx_receipts_issued'],
      ['date range', { filters: { from: 1, to: 2_000_000_000_000 } }, 'idx_receipts_issued'],
      ['by format', { sort: { column: 'format', direction: 'asc' } }, 'idx_receipts_format_issued'],
      ['by status', { sort: { column: 'status', direction: 'desc' } }, 'idx_receipts_status_issued'],
      ['by trust', { sort: { column: 'trust', direction: 'asc' } }, 'idx_receipts_trust_issued'],
      ['by issuer', { sort: { column: 'issuer', direction: 'asc' } }, 'idx_receipts_issuer_issued'],
      ['by receipt id', { sort: { column: 'receipt_id', direction: 'asc' } }, 'idx_receipts_receipt_id'],
      ['format filter', { filters: { format: 'classical' } }, 'idx_receipts_format_issued'],
      ['status filter', { filters: { status: 'PASS' } }, 'idx_receipts_status_issued'],
      ['trust filter', { filters: { trust: 'trusted' } }, 'idx_receipts_trust_issued'],
      ['issuer filter', { filters: { issuer: 'did:svc:evroom:k1' } }, 'idx_receipts_issuer_issued'],
      ['anchor filter', { filters: { anchor: 'verified' } }, 'idx_receipts_anchor_issued'],
      ['by anchor state', { sort: { column: 'anchor', direction: 'asc' } }, 'idx_receipts_anchor_issued'],
      [
        'anchor filter, import order',
        { filters: { anchor: 'pending' }, sort: { column: 'imported_at', direction: 'desc' } },
        'idx_receipts_anchor_id',
      ],
      [
        'status filter, status sort',
        { filters: { status: 'PASS' }, sort: { column: 'status', direction: 'asc' } },
        'idx_receipts_status_issued',
      ],
      [
        'format filter, import order',
        { filters: { format: 'classical' }, sort: { column: 'imported_at', direction: 'desc' } },
        'idx_receipts_format_id',
      ],
      [
        'status filter, import order',
        { filters: { status: 'PASS' }, sort: { column: 'imported_at', direction: 'desc' } },
        'idx_receipts_status_id',
      ],
      [
        'trust filter, import order',
        { filters: { trust: 'trusted' }, sort: { column: 'imported_at', direction: 'desc' } },
        'idx_receipts_trust_id',
      ],
      [
        'issuer filter, import order',
        { filters: { issuer: 'did:svc:evroom:k1' }, sort: { column: 'imported_at', direction: 'desc' } },
        'idx_receipts_issuer_id',
      ],
      [
        'source filter, import order',
        { filters: { source: { kind: 'bundle', ref: '1' } }, sort: { column: 'imported_at', direction: 'desc' } },
        'idx_receipt_sources_kind_ref',
      ],
    ];

    function planOf(query: ListReceiptsQuery): string[] {
      return explainQueryPlan(ledger.readable, buildListReceiptsQuery(ledger.readable, query).query);
    }

    function expectIndexed(plan: string[], index: string): void {
      const text = plan.join('\n');
      expect(text).toMatch(new RegExp(`INDEX ${index}( |$)`, 'm'));
      // Never a read of the whole table, never a sort of the matching rows.
      for (const line of plan) expect(line).not.toMatch(/^SCAN (receipts|r)$/);
      expect(text).not.toContain('TEMP B-TREE');
    }

    for (const [name, query, index] of shapes) {
      it(`${name} uses ${index}, first page and with a cursor`, () => {
        expectIndexed(planOf(query), index);
        const after = firstCursor(query);
        expectIndexed(planOf({ ...query, after }), index);
      });
    }

    it('import order reads the table in rowid order, seeking to the cursor', () => {
      const query: ListReceiptsQuery = { sort: { column: 'imported_at', direction: 'desc' } };
      // First page: the table b-tree read backwards and stopped by LIMIT (nothing is cheaper).
      expect(planOf(query)).toEqual(['SCAN r']);
      const plan = planOf({ ...query, after: firstCursor(query) });
      expect(plan.join('\n')).toContain('SEARCH r USING INTEGER PRIMARY KEY (rowid<?)');
    });

    it('text search starts from the full-text index', () => {
      const plan = planOf({ filters: { text: 'acme' }, sort: { column: 'imported_at', direction: 'desc' } }).join('\n');
      expect(plan).toContain('SCAN receipts_fts VIRTUAL TABLE INDEX');
      expect(plan).toContain('USING INTEGER PRIMARY KEY (rowid=?)');
    });

    it('keeps the same plans once SQLite has statistics (ANALYZE)', () => {
      ledger.writable.exec('ANALYZE');
      for (const [, query, index] of shapes) {
        expectIndexed(planOf(query), index);
        expectIndexed(planOf({ ...query, after: firstCursor(query) }), index);
      }
    });
  });
});

describe('index choice with several equality filters', () => {
  let ledger: Ledger;
  let dispose: () => void;

  beforeAll(() => {
    const made = makeTemporaryLedger();
    ledger = made.ledger;
    dispose = made.dispose;
    // Skewed like real ledgers: MALFORMED is rare, trusted common; revoked rare, PASS common.
    const batch = Array.from({ length: 3000 }, (_, index) =>
      makeReceipt(`skew-${index}`, {
        status: index % 100 === 0 ? 'MALFORMED' : 'PASS',
        trust: index % 50 === 1 ? 'revoked' : index % 2 === 0 ? 'trusted' : 'unpinned',
        format: index % 3 === 0 ? 'classical' : 'profile/nano',
        issued_at: 1_700_000_000_000 + (index % 40) * 1000,
      }),
    );
    insertReceipts(ledger.writable, batch);
    ledger.writable.exec('ANALYZE');
  });
  afterAll(() => dispose());

  function plan(query: ListReceiptsQuery): string {
    return explainQueryPlan(ledger.readable, buildListReceiptsQuery(ledger.readable, query).query).join('\n');
  }

  it('walks the index of the rarest filter', () => {
    expect(plan({ filters: { status: 'MALFORMED', trust: 'trusted' } })).toContain('INDEX idx_receipts_status_issued');
    expect(plan({ filters: { status: 'PASS', trust: 'revoked' } })).toContain('INDEX idx_receipts_trust_issued');
    expect(
      plan({ filters: { status: 'PASS', trust: 'revoked' }, sort: { column: 'imported_at', direction: 'desc' } }),
    ).toContain('INDEX idx_receipts_trust_id');
    expect(
      plan({ filters: { status: 'MALFORMED', format: 'classical' }, sort: { column: 'status', direction: 'asc' } }),
    ).toContain('INDEX idx_receipts_status_issued');
    for (const query of [
      { filters: { status: 'MALFORMED', trust: 'trusted' } },
      { filters: { status: 'PASS', trust: 'revoked' }, sort: { column: 'imported_at', direction: 'desc' } },
    ] as ListReceiptsQuery[]) {
      expect(plan(query)).not.toContain('TEMP B-TREE');
    }
  });

  it('sorts a rare filter’s rows rather than scanning another order for them', () => {
    const text = plan({ filters: { status: 'MALFORMED' }, sort: { column: 'trust', direction: 'asc' } });
    expect(text).toContain('INDEX idx_receipts_status_issued');
    expect(text).toContain('TEMP B-TREE');
  });

  it('returns the same rows whichever index it walks', () => {
    const rows = allPages(ledger, {
      filters: { status: 'PASS', trust: 'revoked' },
      sort: { column: 'issued_at', direction: 'desc' },
      limit: 7,
    });
    expect(rows.length).toBe(countReceipts(ledger.readable, { status: 'PASS', trust: 'revoked' }));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.status === 'PASS' && row.trust === 'revoked')).toBe(true);
    const keys = rows.map((row) => [row.issued_at ?? -1, row.id] as const);
    const sorted = [...keys].sort((a, b) => b[0] - a[0] || b[1] - a[1]);
    expect(keys).toEqual(sorted);
  });
});
