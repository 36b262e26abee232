/**
 * Audit reports (PROTOCOL section 12): make one, keep it, render it, diff two, judge trust as of
 * an instant. Every door (the CLI's `report`, the app's Reports view) calls these.
 *
 * A report is made from the ledger in one read pass (keyset pages of 1,000 summaries), signed
 * under Rule D1 by the workstation's auditor key, kept as `reports/<report_id>.json` in the data
 * folder and recorded by a `report` row in the audit log. Its HTML and PDF forms are rendered
 * from the signed JSON alone, so any of them can be made again later from the kept JSON.
 *
 * Trust in a report is judged at the report's instant: the generation time, or `as_of`, when the
 * trust store is rebuilt from its audit history (pin, revoke, unpin, label, validity rows) as it
 * stood then. Receipts signed by a key whose judgement can differ from what the ledger stored (a
 * key of the rebuilt store, or a key with a validity window) are verified again against that
 * store at that instant; all others keep the ledger's status and trust.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { b64uDecode, b64uEncode, didKeyFromEd25519, hexEncode, utf8Encode } from '../../src-shared/crypto';
import { jcs, JsonParseError, parseJson } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { encodeUlid } from '../../src-shared/formats/profile/receipt-id';
import type { LogCompleteness } from '../../src-shared/api/logs-contract';
import {
  CLAIM_LIMITS,
  countReportRows,
  MAX_REPORTED_MISSING,
  receiptsJcs,
  REPORT_FORMAT_ID,
  reportJcs,
  REPORT_ID_PATTERN,
  trustSnapshotSha256,
  type AnchorState,
  type ReportBundle,
  type ReportCompleteness,
  type ReportFinding,
  type ReportRow,
  type ReportScope,
  type SignedReport,
  type SnapshotKey,
  type UnsignedReport,
} from '../../src-shared/formats/report';
import {
  SIGNER_ROLES,
  type KeyAlgorithm,
  type KeyEntry,
  type SignerRole,
  type VerifyContext,
} from '../../src-shared/verify/context';
import { isJsonObject } from '../../src-shared/verify/fields';
import type { Report } from '../../src-shared/verify/report';
import { isTimestamp, timestampToMillis } from '../../src-shared/verify/timestamp';
import { verifyDocument } from '../../src-shared/verify/verify';
import {
  appendAudit,
  countReceipts,
  getBundle,
  getReceipt,
  GENESIS_SHA256,
  listAnchors,
  listAuditEntries,
  listBundles,
  listReceipts,
  MAX_PAGE_SIZE,
  type AuditEntry,
  type ReceiptFilters,
} from '../ledger';
import { withAuditorKey } from '../report/auditor-key';
import { renderReportBytes, reportFormOf, writeReportForm, type ReportForm } from '../report/write';
import { APP_VERSION } from '../version';
import { OperationError } from './errors';
import { isLogCompleteness } from './log-checkpoints';
import { advertisedEntries } from './reevaluate-trust';
import { workspaceVerifyContext, type Workspace } from './workspace';

/** The folder of the data folder where made reports are kept. */
export const REPORTS_FOLDER = 'reports';
/** The generator named in every report. */
export const GENERATOR_NAME = 'evroom';

/** Which receipts a report covers (the export filters, without a source). */
export type ReportFilters = Omit<ReceiptFilters, 'source'>;

/** Options of {@link makeReport}. */
export interface MakeReportOptions {
  filters?: ReportFilters;
  /** TS: judge trust as the trust store stood then. */
  asOf?: string;
  /** The report's instant (default now). */
  now?: Date;
  /**
   * Make the report even when no receipt is in scope; it is marked `EMPTY: no receipts in scope`
   * at the top of every form. Without it such a report is refused (empty_report).
   */
  allowEmpty?: boolean;
}

/** The scope's filters in words, for messages: `status PASS, from 2026-11-01T00:00:00.000Z`. */
export function scopeWords(scope: ReportScope): string {
  const filters = Object.entries(scope.filters)
    .sort(([left], [right]) => (left < right ? -1 : 1))
    .map(([name, value]) => `${name} ${String(value)}`);
  const parts = filters.length === 0 ? ['no filters'] : filters;
  if (scope.as_of !== undefined) parts.push(`as of ${scope.as_of}`);
  return parts.join(', ');
}

function instantText(millis: number): string {
  return new Date(millis).toISOString();
}

function checkAsOf(asOf: string | undefined, now: Date): number | undefined {
  if (asOf === undefined) return undefined;
  if (!isTimestamp(asOf)) {
    throw new OperationError(
      'invalid_input',
      'invalid_as_of',
      `The as-of instant must be a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z, got "${String(asOf)}".`,
    );
  }
  const millis = timestampToMillis(asOf);
  if (millis > now.getTime()) {
    throw new OperationError(
      'invalid_input',
      'invalid_as_of',
      `The as-of instant ${asOf} is in the future: the trust store's history does not reach it.`,
    );
  }
  return millis;
}

/** A rebuilt trust store entry, as the audit log describes it. */
interface ReplayedKey {
  key_id: string;
  algorithm: KeyAlgorithm;
  public_key: Uint8Array;
  status: 'pinned' | 'revoked';
  label: string | null;
  not_before: string | null;
  not_after: string | null;
  /** The roles it was pinned for (the pin row's `roles`); null for every role. */
  roles: SignerRole[] | null;
}

/** A pin row's `roles` (written only when a key is pinned for some roles), else null. */
function pinnedRoles(value: unknown): SignerRole[] | null {
  if (!Array.isArray(value)) return null;
  // A name this version does not know narrows the key rather than widen it.
  return value.filter((role): role is SignerRole => (SIGNER_ROLES as readonly unknown[]).includes(role));
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Every audit row in id order, page by page. */
function* auditRows(workspace: Workspace): Generator<AuditEntry> {
  let after = 0;
  for (;;) {
    const page = listAuditEntries(workspace.ledger.readable, { direction: 'asc', afterId: after, limit: 1000 });
    yield* page;
    if (page.length < 1000) return;
    after = page[page.length - 1]?.id ?? after;
  }
}

/**
 * The trust store as it stood at an instant, rebuilt from the audit log.
 *
 * Replays, in order, every `pin`, `revoke`, `unpin`, `label` and `validity` row written at or
 * before the instant (the trust store writes one for every change, with the key's algorithm and
 * public key on pin, revoke and unpin).
 *
 * @param workspace - The open workspace.
 * @param instant - ms since the epoch.
 * @returns The keys, pinned or revoked, sorted by key id.
 */
export function trustStoreAsOf(workspace: Workspace, instant: number): KeyEntry[] {
  if (!Number.isFinite(instant)) throw new TypeError('trustStoreAsOf expects an instant in ms');
  const keys = new Map<string, ReplayedKey>();
  for (const row of auditRows(workspace)) {
    if (row.at > instant) break;
    const details = isJsonObject(row.details as JsonValue) ? (row.details as Record<string, unknown>) : {};
    const existing = keys.get(row.subject);
    switch (row.action) {
      case 'pin':
      case 'revoke': {
        const publicKey = text(details.public_key);
        const algorithm = text(details.algorithm);
        if (existing !== undefined) {
          if (row.action === 'revoke') existing.status = 'revoked';
          break;
        }
        if (publicKey === null || (algorithm !== 'Ed25519' && algorithm !== 'ML-DSA-65')) break;
        keys.set(row.subject, {
          key_id: row.subject,
          algorithm,
          public_key: b64uDecode(publicKey),
          status: row.action === 'revoke' ? 'revoked' : 'pinned',
          label: text(details.label),
          not_before: text(details.not_before),
          not_after: text(details.not_after),
          roles: pinnedRoles(details.roles),
        });
        break;
      }
      case 'unpin':
        keys.delete(row.subject);
        break;
      case 'label':
        if (existing !== undefined) existing.label = text(details.to);
        break;
      case 'validity': {
        const to = details.to as Record<string, unknown> | undefined;
        if (existing !== undefined && to !== undefined) {
          existing.not_before = text(to.not_before);
          existing.not_after = text(to.not_after);
        }
        break;
      }
      default:
        break;
    }
  }
  return [...keys.values()]
    .sort((left, right) => (left.key_id < right.key_id ? -1 : left.key_id > right.key_id ? 1 : 0))
    .map((key) => ({
      key_id: key.key_id,
      algorithm: key.algorithm,
      public_key: key.public_key,
      status: key.status,
      ...(key.label !== null ? { label: key.label } : {}),
      ...(key.not_before !== null ? { not_before: key.not_before } : {}),
      ...(key.not_after !== null ? { not_after: key.not_after } : {}),
      ...(key.roles !== null ? { roles: key.roles } : {}),
    }));
}

function currentTrustEntries(workspace: Workspace): KeyEntry[] {
  return workspace.trust
    .list()
    .sort((left, right) => (left.key_id < right.key_id ? -1 : left.key_id > right.key_id ? 1 : 0))
    .map((key) => ({
      key_id: key.key_id,
      algorithm: key.algorithm,
      public_key: key.public_key,
      status: key.status,
      ...(key.label !== undefined ? { label: key.label } : {}),
      ...(key.not_before !== undefined ? { not_before: key.not_before } : {}),
      ...(key.not_after !== undefined ? { not_after: key.not_after } : {}),
      ...(key.roles !== undefined ? { roles: key.roles } : {}),
    }));
}

function snapshotKey(entry: KeyEntry): SnapshotKey {
  return {
    key_id: entry.key_id,
    algorithm: entry.algorithm,
    public_key: b64uEncode(entry.public_key),
    status: entry.status === 'revoked' ? 'revoked' : 'pinned',
    ...(entry.label !== undefined ? { label: entry.label } : {}),
    ...(entry.not_before !== undefined ? { not_before: entry.not_before } : {}),
    ...(entry.not_after !== undefined ? { not_after: entry.not_after } : {}),
    // Trust was judged by the roles too: the snapshot is the store the trust column came from.
    ...(entry.roles !== undefined ? { roles: [...entry.roles] } : {}),
  };
}

/** The names a key's receipts are filed under in the ledger: its id, and its did:key. */
function issuerNames(entry: KeyEntry): string[] {
  const names = [entry.key_id];
  if (entry.algorithm === 'Ed25519' && entry.public_key.length === 32) names.push(didKeyFromEd25519(entry.public_key));
  return names;
}

function anchorStates(workspace: Workspace): Map<string, AnchorState> {
  const states = new Map<string, AnchorState>();
  let after: string | undefined;
  do {
    const page = listAnchors(workspace.ledger.readable, { limit: 1000, ...(after ? { after } : {}) });
    for (const row of page.rows) {
      if (row.receipt_sha256 === null) continue;
      // A resolved record outranks a pending one for the same receipt.
      if (row.status === 'resolved' || !states.has(row.receipt_sha256)) states.set(row.receipt_sha256, row.status);
    }
    after = page.nextCursor ?? undefined;
  } while (after !== undefined);
  return states;
}

/**
 * A bundle's completeness entry for a report, or undefined for a bundle without log evidence.
 *
 * @param bundle - The bundle's hash and tenant.
 * @param log - What the import recorded of its log evidence.
 * @returns The entry (at most {@link MAX_REPORTED_MISSING} missing indices listed).
 */
export function completenessEntry(
  bundle: { bundle_sha256: string; tenant_id: string | null },
  log: LogCompleteness | null,
): ReportCompleteness | undefined {
  if (log === null || log.status === 'absent') return undefined;
  return {
    bundle_sha256: bundle.bundle_sha256,
    tenant_id: bundle.tenant_id,
    origin: log.origin ?? null,
    period: { since: log.period.since, until: log.period.until },
    status: log.status,
    tree_size: log.tree_size ?? null,
    first_index: log.first_index,
    last_index: log.last_index,
    missing_count: log.missing_count,
    missing: [...log.missing].sort((left, right) => left - right).slice(0, MAX_REPORTED_MISSING),
    stale: log.stale,
    signer: log.signer,
    consistency: log.consistency ?? null,
    sentence: log.sentence,
  };
}

function compareCompleteness(left: ReportCompleteness, right: ReportCompleteness): number {
  const keys = (entry: ReportCompleteness): string[] => [
    entry.tenant_id ?? '',
    entry.period.since ?? '',
    entry.period.until ?? '\uffff',
    entry.bundle_sha256,
  ];
  const a = keys(left);
  const b = keys(right);
  for (let index = 0; index < a.length; index += 1) {
    if ((a[index] as string) < (b[index] as string)) return -1;
    if ((a[index] as string) > (b[index] as string)) return 1;
  }
  return 0;
}

function reportBundles(
  workspace: Workspace,
  filters: ReportFilters,
): { bundles: ReportBundle[]; findings: ReportFinding[]; completeness: ReportCompleteness[] } {
  const bundles: ReportBundle[] = [];
  const findings: ReportFinding[] = [];
  const completeness: ReportCompleteness[] = [];
  let after: string | undefined;
  do {
    const page = listBundles(workspace.ledger.readable, { limit: 1000, ...(after ? { after } : {}) });
    for (const summary of page.rows) {
      // Only bundles that brought a receipt this report covers.
      if (
        countReceipts(workspace.ledger.readable, {
          ...filters,
          source: { kind: 'bundle', ref: String(summary.id) },
        }) === 0
      )
        continue;
      const record = getBundle(workspace.ledger.readable, summary.id);
      const signature = (isJsonObject(summary.signature as JsonValue) ? summary.signature : {}) as Record<
        string,
        unknown
      >;
      const listed = Array.isArray(record?.findings) ? (record.findings as Record<string, unknown>[]) : [];
      for (const finding of listed) {
        findings.push({
          bundle_sha256: summary.bundle_sha256,
          code: String(finding.code ?? ''),
          path: String(finding.path ?? ''),
          message: String(finding.message ?? ''),
        });
      }
      bundles.push({
        file: summary.file_name,
        bundle_sha256: summary.bundle_sha256,
        manifest_sha256: typeof signature.manifest_sha256 === 'string' ? signature.manifest_sha256 : '',
        signer_key_id: typeof signature.key_id === 'string' ? signature.key_id : null,
        signature_status: typeof signature.status === 'string' ? signature.status : 'unknown',
        findings: listed.length,
      });
      const entry = completenessEntry(summary, isLogCompleteness(summary.log) ? summary.log : null);
      if (entry !== undefined) completeness.push(entry);
    }
    after = page.nextCursor ?? undefined;
  } while (after !== undefined);
  bundles.sort((left, right) => (left.bundle_sha256 < right.bundle_sha256 ? -1 : 1));
  findings.sort((left, right) =>
    left.bundle_sha256 < right.bundle_sha256 ? -1 : left.bundle_sha256 > right.bundle_sha256 ? 1 : 0,
  );
  completeness.sort(compareCompleteness);
  return { bundles, findings, completeness };
}

function scopeOf(filters: ReportFilters, asOf: string | undefined): ReportScope {
  const out: ReportScope['filters'] = {};
  if (filters.format !== undefined) out.format = filters.format;
  if (filters.status !== undefined) out.status = filters.status;
  if (filters.trust !== undefined) out.trust = filters.trust;
  if (filters.issuer !== undefined) out.issuer = filters.issuer;
  if (filters.from !== undefined) out.from = instantText(filters.from);
  if (filters.to !== undefined) out.to = instantText(filters.to);
  if (filters.text !== undefined) out.text = filters.text;
  return asOf === undefined ? { filters: out } : { filters: out, as_of: asOf };
}

/**
 * Makes and signs a report of the ledger (nothing is written: see {@link createReport}).
 *
 * @param workspace - The open workspace (its data folder holds the auditor key, made on first use).
 * @param options - Filters, as-of instant, clock.
 * @returns The signed report and its JSON text (JCS).
 * @throws OperationError invalid_as_of; AuditorKeyError for a damaged key file; TypeError /
 *   RangeError for bad filters.
 */
export function makeReport(
  workspace: Workspace,
  options: MakeReportOptions = {},
): { report: SignedReport; json: string; keyCreated: boolean } {
  const now = options.now ?? new Date();
  const filters: ReportFilters = { ...(options.filters ?? {}) };
  delete (filters as ReceiptFilters).source;
  const asOfMillis = checkAsOf(options.asOf, now);
  const instant = asOfMillis ?? now.getTime();
  const head = listAuditEntries(workspace.ledger.readable, { limit: 1 })[0]?.row_sha256 ?? GENESIS_SHA256;
  const storeEntries =
    asOfMillis === undefined ? currentTrustEntries(workspace) : trustStoreAsOf(workspace, asOfMillis);
  const keys = storeEntries.map(snapshotKey);
  const context: VerifyContext = {
    crypto: workspace.crypto,
    pinned: storeEntries,
    advertised: advertisedEntries(workspace.trust),
    secrets: [],
    now: new Date(instant),
  };
  // Receipts whose trust can differ from what the ledger stored: signed by a key of the store
  // judged (as of then, or now), or by a key the current store has with a validity window.
  const rejudge = new Set<string>();
  for (const entry of storeEntries) {
    if (asOfMillis !== undefined || entry.not_before !== undefined || entry.not_after !== undefined)
      for (const name of issuerNames(entry)) rejudge.add(name);
  }
  if (asOfMillis !== undefined)
    for (const entry of currentTrustEntries(workspace)) for (const name of issuerNames(entry)) rejudge.add(name);
  const anchors = anchorStates(workspace);
  const rows: ReportRow[] = [];
  let after: string | undefined;
  do {
    const page = listReceipts(workspace.ledger.readable, {
      filters,
      sort: { column: 'imported_at', direction: 'asc' },
      limit: MAX_PAGE_SIZE,
      ...(after ? { after } : {}),
    });
    for (const summary of page.rows) {
      let status = summary.status;
      let trust = summary.trust;
      if (summary.issuer_key_id !== null && rejudge.has(summary.issuer_key_id) && summary.format !== 'sealed') {
        const stored = getReceipt(workspace.ledger.readable, summary.id);
        if (stored !== undefined) {
          const report: Report = verifyDocument(stored.raw, context);
          status = report.status;
          trust = report.trust.status;
        }
      }
      rows.push({
        receipt_sha256: summary.receipt_sha256,
        receipt_id: summary.receipt_id,
        format: summary.format,
        status,
        trust,
        anchor_state: anchors.get(summary.receipt_sha256) ?? 'none',
        issued_at: summary.issued_at === null ? null : instantText(summary.issued_at),
      });
    }
    after = page.nextCursor ?? undefined;
  } while (after !== undefined);
  rows.sort((left, right) =>
    left.receipt_sha256 < right.receipt_sha256 ? -1 : left.receipt_sha256 > right.receipt_sha256 ? 1 : 0,
  );
  if (rows.length === 0 && options.allowEmpty !== true) {
    // A report of nothing reads like a clean bill: refused unless asked for (then marked EMPTY).
    throw new OperationError(
      'refused',
      'empty_report',
      `No receipt is in the report's scope (${scopeWords(scopeOf(filters, options.asOf))}): no report was made. Widen the filters, or ask for an empty report, which is marked "EMPTY: no receipts in scope".`,
    );
  }
  const { bundles, findings, completeness } = reportBundles(workspace, filters);
  const snapshotSha256 = trustSnapshotSha256(keys as unknown as JsonValue[], (data) => workspace.crypto.sha256(data));
  const rowsText = receiptsJcs(rows);
  const signed = withAuditorKey(
    workspace.dataDirectory,
    workspace.crypto,
    (seed, key) => {
      const unsigned: UnsignedReport = {
        report_format: REPORT_FORMAT_ID,
        report_id: `rpt_${encodeUlid(now.getTime(), new Uint8Array(randomBytes(10)))}`,
        generated_at: now.toISOString(),
        generator: { name: GENERATOR_NAME, version: APP_VERSION },
        scope: scopeOf(filters, options.asOf),
        // No chain is consulted when making a report: anchoring steps 2-3 stay unchecked.
        environment: { offline: true, ledger_audit_head: head },
        trust_snapshot: { keys, sha256: snapshotSha256 },
        inputs: { bundles },
        counts: countReportRows(rows),
        findings,
        receipts: rows,
        // Absent unless a bundle carried log evidence: such a report is as it was before logs.
        ...(completeness.length > 0 ? { completeness } : {}),
        claim_limits: [...CLAIM_LIMITS],
        signer: { key_id: key.key_id },
      };
      // Rule D1's payload, JCS of the report without payload_sha256 and sig_b64u (the same
      // text ruleD1Payload gives, made in one pass over the rows: see reportJcs).
      const digest = workspace.crypto.sha256(utf8Encode(reportJcs(unsigned, rowsText)));
      const signature = workspace.crypto.ed25519Sign(digest, seed);
      return { ...unsigned, payload_sha256: hexEncode(digest), sig_b64u: b64uEncode(signature) } satisfies SignedReport;
    },
    { now },
  );
  return { report: signed.result, json: `${reportJcs(signed.result, rowsText)}\n`, keyCreated: signed.key.created };
}

/** One file to write a report to. */
export interface ReportOutput {
  file: string;
  form: ReportForm;
}

/** What {@link createReport} made. */
export interface CreatedReport {
  report_id: string;
  payload_sha256: string;
  generated_at: string;
  signer_key_id: string;
  keyCreated: boolean;
  receipts: number;
  counts: SignedReport['counts'];
  scope: ReportScope;
  /** The kept JSON in the data folder. */
  kept: string;
  files: { file: string; form: ReportForm; bytes: number }[];
}

/**
 * Reads an output file name into its form (the extension decides).
 *
 * @throws OperationError unknown_report_form for another extension.
 */
export function reportOutput(file: string): ReportOutput {
  if (typeof file !== 'string' || file.length === 0)
    throw new OperationError('invalid_input', 'invalid_request', 'Name the report file to write.');
  const form = reportFormOf(file);
  if (form === undefined) {
    throw new OperationError(
      'invalid_input',
      'unknown_report_form',
      `The report file "${file}" must end in .json, .html or .pdf (the extension picks the form).`,
    );
  }
  return { file, form };
}

function keptFile(workspace: Workspace, reportId: string): string {
  return path.join(workspace.dataDirectory, REPORTS_FOLDER, `${reportId}.json`);
}

/**
 * Makes a report, keeps its JSON in the data folder, writes it in each form asked for, and
 * records a `report` row in the audit log.
 *
 * @param workspace - The open workspace.
 * @param options - As {@link makeReport}, plus the files to write and whether to replace them.
 * @returns What was made and written.
 * @throws OperationError out_exists, out_unwritable (nothing kept, written or audited),
 *   invalid_as_of, unknown_report_form.
 */
export async function createReport(
  workspace: Workspace,
  options: MakeReportOptions & { outputs?: readonly ReportOutput[]; overwrite?: boolean },
): Promise<CreatedReport> {
  const outputs = options.outputs ?? [];
  const seen = new Set<string>();
  for (const output of outputs) {
    const resolved = path.resolve(output.file);
    if (seen.has(resolved))
      throw new OperationError('invalid_input', 'duplicate_output', `The report file ${output.file} is named twice.`);
    seen.add(resolved);
    if (!options.overwrite && fs.existsSync(resolved)) {
      throw new OperationError('conflict', 'out_exists', `${output.file} exists; choose another name or replace it.`, {
        facts: { path: output.file },
      });
    }
    try {
      if (!fs.statSync(path.dirname(resolved)).isDirectory()) throw new Error('not a folder');
      fs.accessSync(path.dirname(resolved), fs.constants.W_OK);
    } catch {
      throw new OperationError(
        'refused',
        'out_unwritable',
        `${output.file} cannot be written: its folder does not exist or is not writable.`,
        { facts: { path: output.file } },
      );
    }
  }
  const made = makeReport(workspace, options);
  const { report } = made;
  const kept = keptFile(workspace, report.report_id);
  fs.mkdirSync(path.dirname(kept), { recursive: true, mode: 0o700 });
  fs.writeFileSync(kept, made.json, { flag: 'wx' });
  const files: CreatedReport['files'] = [];
  try {
    for (const output of outputs) {
      const bytes = await writeReportForm(report, made.json, output.file, output.form);
      files.push({ file: output.file, form: output.form, bytes });
    }
  } catch (error) {
    // All or nothing: a report whose forms were not all written is neither kept nor audited.
    fs.rmSync(kept, { force: true });
    for (const file of files) fs.rmSync(file.file, { force: true });
    throw new OperationError(
      'refused',
      'out_unwritable',
      `The report could not be written: ${(error as Error).message}`,
      { cause: error },
    );
  }
  appendAudit(workspace.ledger.writable, 'report', report.report_id, {
    payload_sha256: report.payload_sha256,
    signer: report.signer.key_id,
    generated_at: report.generated_at,
    scope: report.scope as unknown as JsonValue,
    receipts: report.receipts.length,
    by_status: report.counts.by_status,
    files: files.map((file) => ({ file: file.file, form: file.form })),
  });
  return {
    report_id: report.report_id,
    payload_sha256: report.payload_sha256,
    generated_at: report.generated_at,
    signer_key_id: report.signer.key_id,
    keyCreated: made.keyCreated,
    receipts: report.receipts.length,
    counts: report.counts,
    scope: report.scope,
    kept,
    files,
  };
}

/** A kept report, as listed. */
export interface ReportListing {
  report_id: string;
  generated_at: string;
  payload_sha256: string;
  receipts: number;
  by_status: Record<string, number>;
  scope: ReportScope;
}

/**
 * The reports kept in the data folder, newest first, as the audit log recorded them.
 *
 * @param workspace - The open workspace.
 * @returns One listing per `report` audit row whose JSON is still kept.
 */
export function listReports(workspace: Workspace): ReportListing[] {
  const out: ReportListing[] = [];
  for (const row of auditRows(workspace)) {
    if (row.action !== 'report' || !REPORT_ID_PATTERN.test(row.subject)) continue;
    const details = row.details as Record<string, unknown>;
    if (!fs.existsSync(keptFile(workspace, row.subject))) continue;
    out.push({
      report_id: row.subject,
      generated_at: String(details.generated_at ?? instantText(row.at)),
      payload_sha256: String(details.payload_sha256 ?? ''),
      receipts: typeof details.receipts === 'number' ? details.receipts : 0,
      by_status: (isJsonObject(details.by_status as JsonValue) ? details.by_status : {}) as Record<string, number>,
      scope: (isJsonObject(details.scope as JsonValue) ? details.scope : { filters: {} }) as ReportScope,
    });
  }
  return out.reverse();
}

/**
 * Reads a report's JSON text (a kept one by id).
 *
 * @throws OperationError invalid_request for a malformed id; not_found when it is not kept.
 */
export function readKeptReport(workspace: Workspace, reportId: string): string {
  if (typeof reportId !== 'string' || !REPORT_ID_PATTERN.test(reportId)) {
    throw new OperationError('invalid_input', 'invalid_request', 'A report id is rpt_ followed by a ULID.');
  }
  try {
    return fs.readFileSync(keptFile(workspace, reportId), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new OperationError('not_found', 'not_found', `The report ${reportId} is not kept in the data folder.`);
    }
    throw error;
  }
}

/**
 * Parses a report's JSON text and verifies it (Rule D1, counts, snapshot hash).
 *
 * @param json - The report's text.
 * @param context - The verification context.
 * @param name - How to name the report in errors (a file name).
 * @returns The report and its verification.
 * @throws OperationError invalid_report when it is not a report or does not verify as PASS.
 */
export function readVerifiedReport(
  json: string,
  context: VerifyContext,
  name: string,
): { report: SignedReport; verification: Report } {
  const verification = verifyDocument(json, context);
  if (verification.format !== 'report' || verification.status !== 'PASS') {
    const first = verification.errors[0];
    throw new OperationError(
      'refused',
      'invalid_report',
      `${name} does not verify as an audit report: ${verification.status}${first ? ` (${first.message})` : ''}.`,
      {
        facts: { path: name, status: verification.status },
      },
    );
  }
  let value: unknown;
  try {
    value = parseJson(json);
  } catch (error) {
    if (error instanceof JsonParseError)
      throw new OperationError('refused', 'invalid_report', `${name} is not strict JSON.`);
    throw error;
  }
  return { report: value as SignedReport, verification };
}

/**
 * A kept report in one form: the JSON as kept, or the HTML or PDF rendered from it again (both
 * are functions of the signed JSON, so they are the same files `createReport` wrote).
 *
 * @throws OperationError invalid_request, not_found.
 */
export async function renderKeptReport(workspace: Workspace, reportId: string, form: ReportForm): Promise<Uint8Array> {
  const json = readKeptReport(workspace, reportId);
  if (form === 'json') return utf8Encode(json);
  const { report } = readVerifiedReport(json, workspaceVerifyContext(workspace), `report ${reportId}`);
  // From the canonical text, not the kept file's: the page must embed exactly JCS(report).
  return renderReportBytes(report, `${jcs(report as unknown as JsonValue)}\n`, form);
}

/** One change between two reports. */
export interface ReportChange {
  receipt_sha256: string;
  field: 'status' | 'trust' | 'anchor_state';
  from: string;
  to: string;
  /** What the audit log records as the cause, when it records one. */
  reason: string | null;
}

/** The difference between two reports. */
export interface ReportDiff {
  old_report: string;
  new_report: string;
  /**
   * Set when the two reports' filters differ (period, status, trust, format, issuer, text): then
   * receipts added or removed may come from the scopes, not from the ledger. Null when alike.
   */
  scope_warning: string | null;
  added: string[];
  removed: string[];
  changed: ReportChange[];
}

function reportInstant(report: SignedReport): number {
  return timestampToMillis(report.scope.as_of ?? report.generated_at);
}

const TRUST_ACTION_REASON: Record<string, string> = {
  pin: 'pinned',
  revoke: 'revoked',
  unpin: 'unpinned',
  validity: 'validity changed',
};

/**
 * Compares two verified reports receipt by receipt.
 *
 * A change's reason is read from the workspace's ledger and audit log: the trust decisions (pin,
 * revoke, unpin, validity) about the receipt's signing key between the two reports' instants,
 * the latest first; else `key expired` when the key's window closed in between; else
 * `re-imported` when a bundle holding the receipt was imported in between; else null.
 *
 * @param workspace - The open workspace (for reasons; reports from elsewhere get fewer).
 * @param older - The earlier report.
 * @param newer - The later report.
 * @returns Added and removed receipt hashes and every change.
 */
export function diffReports(workspace: Workspace, older: SignedReport, newer: SignedReport): ReportDiff {
  const before = new Map(older.receipts.map((row) => [row.receipt_sha256, row]));
  const after = new Map(newer.receipts.map((row) => [row.receipt_sha256, row]));
  const added = newer.receipts.filter((row) => !before.has(row.receipt_sha256)).map((row) => row.receipt_sha256);
  const removed = older.receipts.filter((row) => !after.has(row.receipt_sha256)).map((row) => row.receipt_sha256);
  const start = Math.min(reportInstant(older), reportInstant(newer));
  const end = Math.max(reportInstant(older), reportInstant(newer));
  let history: AuditEntry[] | undefined;
  const between = (): AuditEntry[] =>
    (history ??= [...auditRows(workspace)].filter((row) => row.at > start && row.at <= end));
  const reasonFor = (sha256: string, field: ReportChange['field'], to: string): string | null => {
    const receipt = getReceipt(workspace.ledger.readable, sha256);
    if (receipt === undefined) return null;
    if (field !== 'anchor_state') {
      const names = new Set<string>();
      if (receipt.issuer_key_id !== null) names.add(receipt.issuer_key_id);
      if (receipt.report.trust.key_id !== undefined) names.add(receipt.report.trust.key_id);
      for (const row of [...between()].reverse()) {
        if (names.has(row.subject) && TRUST_ACTION_REASON[row.action] !== undefined) {
          const via = (row.details as Record<string, unknown>).via;
          return `${TRUST_ACTION_REASON[row.action]}${via === 'trust-import' ? ' (trust import)' : ''} at ${instantText(row.at)}`;
        }
      }
      if (to === 'expired') return 'key expired';
    }
    const bundles = new Set(receipt.sources.filter((source) => source.kind === 'bundle').map((source) => source.ref));
    for (const row of [...between()].reverse()) {
      const bundleId = (row.details as Record<string, unknown>).bundle_id;
      if (row.action === 'import' && bundles.has(String(bundleId))) return `re-imported at ${instantText(row.at)}`;
    }
    return null;
  };
  const changed: ReportChange[] = [];
  for (const row of newer.receipts) {
    const old = before.get(row.receipt_sha256);
    if (old === undefined) continue;
    for (const field of ['status', 'trust', 'anchor_state'] as const) {
      if (old[field] !== row[field])
        changed.push({
          receipt_sha256: row.receipt_sha256,
          field,
          from: old[field],
          to: row[field],
          reason: reasonFor(row.receipt_sha256, field, row[field]),
        });
    }
  }
  return {
    old_report: older.report_id,
    new_report: newer.report_id,
    scope_warning: scopeWarning(older, newer),
    added,
    removed,
    changed,
  };
}

/**
 * The warning a diff carries when the two reports' filters differ, or null.
 *
 * @param older - The earlier report.
 * @param newer - The later report.
 * @returns One sentence naming both scopes, or null when their filters are the same.
 */
export function scopeWarning(older: SignedReport, newer: SignedReport): string | null {
  if (jcs(older.scope.filters as JsonValue) === jcs(newer.scope.filters as JsonValue)) return null;
  const words = (report: SignedReport): string => scopeWords({ filters: report.scope.filters });
  return `Warning: the two reports cover different scopes (old: ${words(older)}; new: ${words(newer)}): receipts added or removed may come from the different filters, not from changes in the ledger.`;
}

export type { ReportForm };
