/**
 * Reading the ledger for people: the overview, one receipt in detail, a receipt found by what
 * a person calls it, pages of receipts, the counts and the audit chain's check.
 *
 * The doors (the app API over IPC and web mode, the CLI's `ledger` commands) call these and only
 * render the answer; none of them reads ledger handles itself.
 */
import {
  OVERVIEW_UNPINNED_ISSUERS,
  type AuditEntry,
  type BundleDetail,
  type BundleSummary,
  type Overview,
  type ReceiptDetail,
  type ReceiptRow,
} from '../../src-shared/api/contract';
import type { JsonValue } from '../../src-shared/json';
import { TRUST_AUDIT_ACTIONS } from '../../src-shared/api/vocabulary';
import { utf8Decode } from '../../src-shared/crypto';
import { signedContent } from '../../src-shared/verify/signed-content';
import { classifyBundlePath, pathStem } from '../../src-shared/evidence/bundle-layout';
import {
  checkAuditChain,
  countReceipts,
  findReceiptsByDocumentId,
  findSourcedReceiptsByName,
  getBundle,
  getReceipt,
  ledgerStats,
  listAuditEntries,
  listBundles,
  listReceipts,
  unpinnedIssuers,
  type AuditChainCheck,
  type BundleSummary as StoredBundleSummary,
  type LedgerStats,
  type ListReceiptsQuery,
  type ReceiptFilters,
  type ReceiptPage,
  type ReceiptRecord,
  type ReceiptSummary,
} from '../ledger';
import { receiptAnchor } from './anchors';
import {
  bundleVerdict,
  readCounts,
  readFindings,
  readLogCompleteness,
  readManifest,
  readSignature,
} from './bundle-views';
import { listLogs } from './log-checkpoints';
import type { Workspace } from './workspace';

/** The trust judgements a receipt needs attention for whatever its status: a revoked or expired signer. */
const ATTENTION_TRUSTS = ['revoked', 'expired'] as const;

/** The statuses a receipt needs attention for, besides a revoked or expired signer (the overview's list). */
const ATTENTION_STATUSES = ['MISMATCH', 'INVALID', 'AUTH_FAILED', 'MALFORMED', 'UNSUPPORTED', 'INDETERMINATE'] as const;

/**
 * A stored receipt's summary as the app API's row.
 *
 * @param summary - The ledger's summary (or a whole record: only the row's members are kept).
 * @returns The row.
 */
export function toReceiptRow(summary: ReceiptSummary): ReceiptRow {
  return {
    id: summary.id,
    receipt_sha256: summary.receipt_sha256,
    format: summary.format,
    receipt_id: summary.receipt_id,
    issuer_key_id: summary.issuer_key_id,
    issued_at: summary.issued_at,
    imported_at: summary.imported_at,
    status: summary.status,
    trust: summary.trust,
    anchor_state: summary.anchor_state,
  };
}

/**
 * A stored bundle's summary as the app API's, its stored JSON read defensively (bundle-views.ts).
 *
 * @param summary - The ledger's summary.
 * @returns The summary.
 */
export function toBundleSummary(summary: StoredBundleSummary): BundleSummary {
  const signature = readSignature(summary.signature);
  const counts = readCounts(summary.counts);
  return {
    id: summary.id,
    bundle_sha256: summary.bundle_sha256,
    file_name: summary.file_name,
    tenant_id: summary.tenant_id,
    generated_at: summary.generated_at,
    imported_at: summary.imported_at,
    status: summary.status,
    signature,
    counts,
    verdict: bundleVerdict(summary.status, signature, counts),
    // bundles.log_json (migration 12), null for a bundle without log files.
    log: readLogCompleteness(summary.log),
  };
}

/**
 * The overview: counts by format, status and trust, the pinned keys, the five latest imports,
 * up to ten receipts needing attention (not PASS, or signed by a revoked or expired key; newest
 * first), and the signing keys that verify but are not pinned (the most receipts first).
 *
 * @param workspace - The open workspace.
 * @returns The overview.
 */
export function overview(workspace: Workspace): Overview {
  const { ledger, trust } = workspace;
  const stats = ledgerStats(ledger.readable);
  const attention = [
    ...ATTENTION_TRUSTS.flatMap(
      (judged) => listReceipts(ledger.readable, { filters: { trust: judged }, limit: 5 }).rows,
    ),
    ...ATTENTION_STATUSES.flatMap((status) => listReceipts(ledger.readable, { filters: { status }, limit: 5 }).rows),
  ]
    .sort((a, b) => b.imported_at - a.imported_at || b.id - a.id)
    .filter((row, index, rows) => rows.findIndex((other) => other.id === row.id) === index)
    .slice(0, 10)
    .map(toReceiptRow);
  const unpinned = unpinnedIssuers(ledger.readable, OVERVIEW_UNPINNED_ISSUERS);
  return {
    receipts: stats.receipts,
    byFormat: Object.entries(stats.byFormat)
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count),
    byStatus: stats.byStatus,
    byTrust: stats.byTrust,
    bundles: stats.bundles,
    pinnedKeys: trust.list().filter((key) => key.status === 'pinned').length,
    recentImports: listBundles(ledger.readable, { limit: 5 }).rows.map(toBundleSummary),
    attention,
    unpinnedIssuers: unpinned.issuers,
    unpinnedIssuerCount: unpinned.total,
    splitViews: listLogs(workspace).filter((log) => log.consistency === 'split_view'),
  };
}

/**
 * One stored receipt in detail: its row, report, text, the bytes each signature covers, where
 * it came from and its anchor.
 *
 * @param workspace - The open workspace.
 * @param id - The receipt's row id.
 * @returns The detail, or undefined when there is no such receipt.
 */
export function receiptDetail(workspace: Workspace, id: number): ReceiptDetail | undefined {
  const stored = getReceipt(workspace.ledger.readable, id);
  if (!stored) return undefined;
  let raw: string;
  try {
    raw = utf8Decode(stored.raw);
  } catch {
    raw = '(not UTF-8 text)';
  }
  return {
    ...toReceiptRow(stored),
    report: stored.report,
    raw,
    signed: signedContent(stored.format, stored.raw, workspace.crypto),
    sources: stored.sources.map((source) => ({
      kind: source.kind,
      ref: source.ref,
      imported_at: source.imported_at,
      ...(source.kind === 'bundle' && /^\d+$/.test(source.ref) ? { bundle_id: Number(source.ref) } : {}),
    })),
    anchor: receiptAnchor(workspace, stored.receipt_sha256),
  };
}

/** What {@link findReceipt} found. */
export type ReceiptLookup =
  | { kind: 'found'; receipt: ReceiptRecord }
  | { kind: 'none' }
  /** More than one stored receipt carries that document id: their row ids. */
  | { kind: 'ambiguous'; rows: number[] };

/**
 * A stored receipt by what a person calls it: its row id (digits), its SHA-256 (64 lowercase
 * hex) or its document id (anything else; several receipts may carry one).
 *
 * @param workspace - The open workspace (only its ledger is read).
 * @param reference - The row id, SHA-256 or document id.
 * @returns The receipt, none, or the rows of the receipts that share the document id.
 */
export function findReceipt(workspace: Pick<Workspace, 'ledger'>, reference: string): ReceiptLookup {
  if (typeof reference !== 'string') throw new TypeError('findReceipt: reference must be a string');
  const { readable } = workspace.ledger;
  let record: ReceiptRecord | undefined;
  if (/^\d+$/.test(reference) && Number.isSafeInteger(Number(reference)) && Number(reference) > 0) {
    record = getReceipt(readable, Number(reference));
  } else if (/^[0-9a-f]{64}$/.test(reference)) {
    record = getReceipt(readable, reference);
  } else {
    const matches = findReceiptsByDocumentId(readable, reference);
    if (matches.length > 1) return { kind: 'ambiguous', rows: matches.map((row) => row.id) };
    record = matches[0] === undefined ? undefined : getReceipt(readable, matches[0].id);
  }
  return record === undefined ? { kind: 'none' } : { kind: 'found', receipt: record };
}

/**
 * One page of stored receipts.
 *
 * @param workspace - The open workspace (only its ledger is read).
 * @param query - Filters, sort, cursor and page size.
 * @returns The page.
 * @throws LedgerError bad_cursor when the cursor is not one of this listing.
 */
export function listReceiptPage(workspace: Pick<Workspace, 'ledger'>, query: ListReceiptsQuery): ReceiptPage {
  return listReceipts(workspace.ledger.readable, query);
}

/**
 * How many stored receipts match the filters.
 *
 * @param workspace - The open workspace (only its ledger is read).
 * @param filters - The ledger's filters.
 * @returns The count.
 */
export function countMatchingReceipts(workspace: Pick<Workspace, 'ledger'>, filters: ReceiptFilters): number {
  return countReceipts(workspace.ledger.readable, filters);
}

/**
 * The imported bundles, newest first.
 *
 * @param workspace - The open workspace (only its ledger is read).
 * @param limit - The most listed.
 * @returns Their summaries.
 */
export function bundleSummaries(workspace: Pick<Workspace, 'ledger'>, limit: number): BundleSummary[] {
  return listBundles(workspace.ledger.readable, { limit }).rows.map(toBundleSummary);
}

/** Findings whose file cannot have become a stored receipt of the bundle. */
const NO_RECEIPT_CODES = new Set(['file_missing']);

/**
 * One imported bundle with its manifest and findings; a finding about a receipt file links to
 * the receipt stored from it (see {@link BundleFinding.receiptRowId}).
 *
 * @param workspace - The open workspace (only its ledger is read).
 * @param id - The bundle's row id.
 * @returns The detail, or undefined when there is no such bundle.
 */
export function bundleDetail(workspace: Pick<Workspace, 'ledger'>, id: number): BundleDetail | undefined {
  const bundle = getBundle(workspace.ledger.readable, id);
  if (!bundle) return undefined;
  return {
    ...toBundleSummary(bundle),
    manifest: readManifest(bundle.manifest_json),
    findings: readFindings(bundle.findings).map((finding) => {
      if (NO_RECEIPT_CODES.has(finding.code) || classifyBundlePath(finding.path) !== 'receipt') return finding;
      const rows = findSourcedReceiptsByName(
        workspace.ledger.readable,
        { kind: 'bundle', ref: String(bundle.id) },
        pathStem(finding.path),
      );
      return rows.length === 1 ? { ...finding, receiptRowId: rows[0] } : finding;
    }),
  };
}

/**
 * The ledger's counts and the file they are of.
 *
 * @param workspace - The open workspace (only its ledger is read).
 * @returns The ledger file and its counts.
 */
export function ledgerCounts(workspace: Pick<Workspace, 'ledger'>): { file: string; counts: LedgerStats } {
  return { file: workspace.ledger.file, counts: ledgerStats(workspace.ledger.readable) };
}

/**
 * Whether the audit log's hash chain holds.
 *
 * @param workspace - The open workspace (only its ledger is read).
 * @returns The check.
 */
export function checkAuditLog(workspace: Pick<Workspace, 'ledger'>): AuditChainCheck {
  return checkAuditChain(workspace.ledger.readable);
}

const TRUST_ACTIONS = new Set<string>(TRUST_AUDIT_ACTIONS);

/**
 * The newest trust decisions of the audit log (pin, revoke, unpin, key imports), newest first.
 *
 * Trust decisions are a few rows among many imports and exports: the whole log is walked (it is
 * append-only and small per action) and the newest `limit` trust rows kept.
 *
 * @param workspace - The open workspace (only its ledger is read).
 * @param limit - The most returned.
 * @returns The entries, newest first.
 */
export function trustAuditEntries(workspace: Pick<Workspace, 'ledger'>, limit: number): AuditEntry[] {
  const trustRows: AuditEntry[] = [];
  let afterId = 0;
  for (;;) {
    const page = listAuditEntries(workspace.ledger.readable, { direction: 'asc', afterId, limit: 1000 });
    for (const entry of page) {
      if (TRUST_ACTIONS.has(entry.action) || entry.action.startsWith('trust')) {
        trustRows.push({
          id: entry.id,
          at: entry.at,
          action: entry.action,
          subject: entry.subject,
          details: entry.details as JsonValue,
        });
      }
    }
    const last = page.at(-1);
    if (page.length < 1000 || last === undefined) break;
    afterId = last.id;
  }
  return trustRows.slice(-limit).reverse();
}
