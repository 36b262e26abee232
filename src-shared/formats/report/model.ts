/**
 * The audit report document (`evroom.report/1`, PROTOCOL section 12): its shape, its counts and
 * its claim limits, shared by the maker (src-main/operations/report.ts), the renderers and the
 * verifier.
 *
 * Decisions (docs/protocol.md, "Audit reports"):
 * - `counts` lists every status, trust and anchor state of the vocabulary (zeros included, so
 *   two reports line up) and every format that occurs; a verifier treats a missing value as 0.
 * - Receipt rows are sorted by receipt_sha256, so one ledger gives one order whatever the import
 *   order, and a diff can walk two reports side by side.
 * - `trust_snapshot.sha256` is hex SHA-256 of JCS(`{"keys": [...]}`) with the keys sorted by
 *   key_id.
 */
import { jcs, jcsString } from '../../json';
import type { JsonValue } from '../../json/types';
import { STATUS_PRECEDENCE, TRUST_STATUSES, type ReportStatus, type TrustStatus } from '../../verify/report';

/** The value of `report_format`. */
export const REPORT_FORMAT_ID = 'evroom.report/1';

/** The anchoring state of a receipt as the ledger knows it. */
export const ANCHOR_STATES = ['none', 'pending', 'resolved'] as const;
export type AnchorState = (typeof ANCHOR_STATES)[number];

/** One receipt of a report. */
export interface ReportRow {
  receipt_sha256: string;
  receipt_id: string | null;
  format: string;
  status: ReportStatus;
  trust: TrustStatus;
  anchor_state: AnchorState;
  /** TS, when the document says when it was issued. */
  issued_at: string | null;
}

/** A key as the trust store held it when the report was made. */
export interface SnapshotKey {
  key_id: string;
  algorithm: string;
  /** b64u. */
  public_key: string;
  status: 'pinned' | 'revoked';
  label?: string;
  not_before?: string;
  not_after?: string;
  /** The roles the key is pinned for, when not every role (PROTOCOL section 0). */
  roles?: string[];
}

/** One bundle the report's receipts came from. */
export interface ReportBundle {
  /** The file name recorded at import, or null. */
  file: string | null;
  /** hex SHA-256 of the zip. */
  bundle_sha256: string;
  /** hex SHA-256 of manifest.json. */
  manifest_sha256: string;
  /** The manifest signer's key id, when manifest.sig names one. */
  signer_key_id: string | null;
  /** The manifest signature check's outcome (valid, invalid, missing, ...). */
  signature_status: string;
  /** How many of `findings` are this bundle's. */
  findings: number;
}

/** The completeness states a report lists (a bundle without log evidence is not listed). */
export const COMPLETENESS_STATUSES = ['complete', 'incomplete', 'invalid'] as const;
/** How a log key was known when the bundle was imported. */
export const COMPLETENESS_SIGNERS = ['pinned', 'advertised', 'unknown'] as const;
/** How a bundle's checkpoint stood with the others seen of its log. */
export const COMPLETENESS_CONSISTENCY = ['consistent', 'unchecked', 'split_view'] as const;
/** The most missing leaf indices a completeness entry lists (`missing_count` counts them all). */
export const MAX_REPORTED_MISSING = 100;

/**
 * What one bundle's log evidence proved about its tenant's period (from the bundle's
 * `LogCompleteness` recorded at import; docs/logs.md).
 */
export interface ReportCompleteness {
  bundle_sha256: string;
  tenant_id: string | null;
  /** The log's origin line, when the checkpoint was read. */
  origin: string | null;
  /** The period the bundle says it covers (TS strings; null for an open end). */
  period: { since: string | null; until: string | null };
  status: (typeof COMPLETENESS_STATUSES)[number];
  tree_size: number | null;
  first_index: number | null;
  last_index: number | null;
  missing_count: number;
  /** The first {@link MAX_REPORTED_MISSING} missing leaf indices. */
  missing: number[];
  /** The checkpoint does not cover every receipt of the bundle. */
  stale: boolean;
  signer: (typeof COMPLETENESS_SIGNERS)[number];
  consistency: (typeof COMPLETENESS_CONSISTENCY)[number] | null;
  /** One sentence for people: `complete for … at size N`, or what is missing or wrong. */
  sentence: string;
}

/** The members of a completeness entry. */
export const COMPLETENESS_MEMBERS = [
  'bundle_sha256',
  'tenant_id',
  'origin',
  'period',
  'status',
  'tree_size',
  'first_index',
  'last_index',
  'missing_count',
  'missing',
  'stale',
  'signer',
  'consistency',
  'sentence',
] as const;

/** A finding of a bundle import. */
export interface ReportFinding {
  bundle_sha256: string;
  code: string;
  path: string;
  message: string;
}

/** The counts section. */
export interface ReportCounts {
  by_status: Record<string, number>;
  by_trust: Record<string, number>;
  by_format: Record<string, number>;
  by_anchor: Record<string, number>;
}

/** The scope a report was made for. */
export interface ReportScope {
  filters: {
    format?: string;
    status?: string;
    trust?: string;
    issuer?: string;
    /** TS, inclusive. */
    from?: string;
    /** TS, exclusive. */
    to?: string;
    text?: string;
  };
  /** TS: trust judged as the trust store stood then. */
  as_of?: string;
}

/** A report before it is signed. */
export interface UnsignedReport {
  report_format: typeof REPORT_FORMAT_ID;
  report_id: string;
  generated_at: string;
  generator: { name: string; version: string };
  scope: ReportScope;
  environment: { offline: boolean; ledger_audit_head: string };
  trust_snapshot: { keys: SnapshotKey[]; sha256: string };
  inputs: { bundles: ReportBundle[] };
  counts: ReportCounts;
  findings: ReportFinding[];
  receipts: ReportRow[];
  /**
   * Per bundle with log evidence, what it proved (sorted by tenant, period, bundle); absent when
   * no bundle of the report carried log evidence, so such a report is as it was before logs.
   */
  completeness?: ReportCompleteness[];
  claim_limits: string[];
  signer: { key_id: string };
}

/** A signed report (Rule D1). */
export interface SignedReport extends UnsignedReport {
  payload_sha256: string;
  sig_b64u: string;
}

/** The report's top-level members, for the schema check. */
export const REPORT_MEMBERS = [
  'report_format',
  'report_id',
  'generated_at',
  'generator',
  'scope',
  'environment',
  'trust_snapshot',
  'inputs',
  'counts',
  'findings',
  'receipts',
  'claim_limits',
  'signer',
  'payload_sha256',
  'sig_b64u',
] as const;

/** The report's optional top-level members. */
export const REPORT_OPTIONAL_MEMBERS = ['completeness'] as const;

/** The members of a receipt row. */
export const ROW_MEMBERS = [
  'receipt_sha256',
  'receipt_id',
  'format',
  'status',
  'trust',
  'anchor_state',
  'issued_at',
] as const;

/** A report id: `rpt_` and a ULID. */
export const REPORT_ID_PATTERN = /^rpt_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/**
 * What the evidence of any report proves and does not prove, in plain sentences. Every report
 * carries all of them: they are limits of the evidence, whether or not this scope shows a case.
 */
export const CLAIM_LIMITS: readonly string[] = Object.freeze([
  'PASS is a cryptographic result only: the signature and every integrity binding checked out. Trust is judged separately.',
  'A receipt whose issuer key is unpinned is cryptographically valid but its issuer is not authenticated: nobody vouched for that key.',
  'A receipt whose status is MISMATCH or INVALID is unattributed: the key it names did not sign what is there, so it is counted under no issuer, trusted or not.',
  'The countersigner is operated by the service, not independently: a countersignature shows consistency with the supplied root, not checkpoint freshness or log consistency.',
  'A wearable receipt proves the provenance of a measurement (which device key signed which values), not the identity of the wearer nor clinical validity.',
  'Anchoring steps 2 and 3 (the transaction and its block on the chain) were not checked: this report was made offline; an anchor state only says what the ledger recorded.',
  'A declared post-quantum (pq) posture is a declaration only: no post-quantum signature was executed for it.',
]);

/** Counts of rows, by each dimension; status, trust and anchor list every value. */
export function countReportRows(
  rows: Iterable<Pick<ReportRow, 'status' | 'trust' | 'format' | 'anchor_state'>>,
): ReportCounts {
  const counts: ReportCounts = {
    by_status: Object.fromEntries(STATUS_PRECEDENCE.map((status) => [status, 0])),
    by_trust: Object.fromEntries(TRUST_STATUSES.map((trust) => [trust, 0])),
    by_format: {},
    by_anchor: Object.fromEntries(ANCHOR_STATES.map((state) => [state, 0])),
  };
  for (const row of rows) addRowToCounts(counts, row);
  return counts;
}

/**
 * Adds one row to running counts (for makers that stream their rows).
 *
 * @param counts - Counts made by {@link countReportRows} (of no rows, to start).
 * @param row - The row.
 */
export function addRowToCounts(
  counts: ReportCounts,
  row: Pick<ReportRow, 'status' | 'trust' | 'format' | 'anchor_state'>,
): void {
  counts.by_status[row.status] = (counts.by_status[row.status] ?? 0) + 1;
  counts.by_trust[row.trust] = (counts.by_trust[row.trust] ?? 0) + 1;
  counts.by_format[row.format] = (counts.by_format[row.format] ?? 0) + 1;
  counts.by_anchor[row.anchor_state] = (counts.by_anchor[row.anchor_state] ?? 0) + 1;
}

/**
 * A count map's entries in a fixed order, whatever the order of its members: the vocabulary's
 * order first, then other names sorted. Renderers use it, so a page rendered from the parsed JSON
 * (members sorted by JCS) equals the page rendered when the report was made.
 *
 * @param values - A count map.
 * @param vocabulary - The dimension's known values, in display order.
 * @returns [name, count] pairs.
 */
export function orderedCounts(values: Record<string, number>, vocabulary: readonly string[] = []): [string, number][] {
  const known = vocabulary.filter((name) => Object.hasOwn(values, name));
  const others = Object.keys(values)
    .filter((name) => !vocabulary.includes(name))
    .sort();
  return [...known, ...others].map((name) => [name, values[name] ?? 0]);
}

/**
 * The count dimensions with their titles and vocabularies, in display order.
 *
 * @param counts - A report's counts.
 * @returns [key, title, ordered entries] per dimension.
 */
export function countDimensions(counts: ReportCounts): [keyof ReportCounts, string, [string, number][]][] {
  return [
    ['by_status', 'status', orderedCounts(counts.by_status, STATUS_PRECEDENCE)],
    ['by_trust', 'trust', orderedCounts(counts.by_trust, TRUST_STATUSES)],
    ['by_anchor', 'anchor state', orderedCounts(counts.by_anchor, ANCHOR_STATES)],
    ['by_format', 'format', orderedCounts(counts.by_format)],
  ];
}

/** The sections a report shows, in order, with their titles (HTML, PDF and tests agree). */
export const REPORT_SECTIONS = [
  ['verdict', 'Verdict'],
  ['scope', 'Scope'],
  ['environment', 'Environment'],
  ['trust', 'Trust store snapshot'],
  ['inputs', 'Bundles read'],
  ['counts', 'Counts'],
  ['findings', 'Findings'],
  ['receipts', 'Receipts'],
  ['limits', 'What this evidence proves and does not prove'],
  ['signature', 'Signature'],
] as const;

/**
 * The completeness section: shown after Findings only when the report has `completeness`, so a
 * report without it renders (and its HTML verifies) exactly as before logs existed.
 */
export const COMPLETENESS_SECTION = ['completeness', 'Completeness in the tenants’ logs'] as const;

/** JCS of one receipt row, written directly: its members are fixed and already in JCS order. */
function rowJcs(row: ReportRow): string {
  const text = (value: string | null): string => (value === null ? 'null' : jcsString(value));
  return `{"anchor_state":${text(row.anchor_state)},"format":${text(row.format)},"issued_at":${text(row.issued_at)},"receipt_id":${text(row.receipt_id)},"receipt_sha256":${text(row.receipt_sha256)},"status":${text(row.status)},"trust":${text(row.trust)}}`;
}

/**
 * JCS (RFC 8785) of a report, signed or not: exactly `jcs(report)`, made without walking the
 * receipt rows generically, so a 100,000-row report costs one pass and one large string.
 *
 * @param report - The report; its rows must have exactly the members of {@link ROW_MEMBERS}.
 * @param receiptsJcs - The rows' JCS when the caller already made it (see {@link receiptsJcs}).
 * @returns The canonical text.
 */
export function reportJcs(
  report: UnsignedReport | SignedReport,
  receiptsText: string = receiptsJcs(report.receipts),
): string {
  const names = Object.keys(report).sort();
  const parts: string[] = [];
  for (const name of names) {
    const value = (report as unknown as Record<string, JsonValue>)[name];
    if (value === undefined) continue;
    parts.push(`${jcsString(name)}:${name === 'receipts' ? receiptsText : jcs(value)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * JCS of a report's receipt rows (a JSON array).
 *
 * @param rows - The rows.
 * @returns The canonical text.
 */
export function receiptsJcs(rows: readonly ReportRow[]): string {
  return `[${rows.map(rowJcs).join(',')}]`;
}
