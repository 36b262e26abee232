/**
 * The app API contract: every call the renderer may make to the main process.
 *
 * One map names each method with a runtime validator for its input; `AppApiResults` names each
 * result type. src-main/appapi implements it once; the Electron preload exposes it over IPC and
 * local web mode serves it over HTTP. The renderer sees only this contract, never the transport.
 * Everything here is plain JSON: bytes travel as b64u strings, instants as ms since the epoch.
 */
import type { Report, ReportStatus, TrustStatus } from '../verify/report';
import {
  ApiInputError,
  integerField,
  objectInput,
  oneOf,
  optionalBoolean,
  optionalInteger,
  optionalOneOf,
  optionalString,
  optionalTimestamp,
  stringField,
} from './validate';

export { ApiInputError };

// ---------------------------------------------------------------------------------------------
// Shared shapes

export const REPORT_STATUSES: readonly ReportStatus[] = ['MALFORMED', 'UNSUPPORTED', 'AUTH_FAILED', 'MISMATCH', 'INVALID', 'INDETERMINATE', 'PASS'];
export const TRUST_STATUSES: readonly TrustStatus[] = ['trusted', 'unpinned', 'revoked', 'expired', 'not_applicable'];
export const RECEIPT_SORT_COLUMNS = ['issued_at', 'imported_at', 'format', 'status', 'trust', 'issuer', 'receipt_id'] as const;
export type ReceiptSortColumn = (typeof RECEIPT_SORT_COLUMNS)[number];
export const KEY_ALGORITHMS = ['Ed25519', 'ML-DSA-65'] as const;
export type ApiKeyAlgorithm = (typeof KEY_ALGORITHMS)[number];
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** What the app tells the renderer about itself. */
export interface AppInfo {
  name: string;
  version: string;
  /** `electron` or `web`. */
  mode: 'electron' | 'web';
  dataDirectory: string;
}

/** Filters of the receipts table; every one optional, all combined with AND. */
export interface ReceiptFilters {
  format?: string;
  status?: ReportStatus;
  trust?: TrustStatus;
  /** Signing key id, exact. */
  issuer?: string;
  /** Issued at or after (TS). */
  from?: string;
  /** Issued at or before (TS). */
  to?: string;
  /** Words to find (receipt id, key id, digest). */
  text?: string;
  /** Only receipts that came from this bundle. */
  bundle?: number;
}

export interface ReceiptRow {
  id: number;
  receipt_sha256: string;
  format: string;
  receipt_id: string | null;
  issuer_key_id: string | null;
  /** ms since the epoch, when the document says. */
  issued_at: number | null;
  imported_at: number;
  status: ReportStatus;
  trust: TrustStatus;
}

export interface ReceiptPage {
  rows: ReceiptRow[];
  nextCursor: string | null;
}

/** Bytes a signature or digest covers, shown so an auditor can recompute them. */
export interface SignedContent {
  /** What these bytes are, e.g. "SKP(signed_payload)" or "Rule D1 payload P". */
  label: string;
  /** The exact bytes as text (UTF-8), or a hex dump for binary content. */
  text: string;
  encoding: 'utf8' | 'hex';
  /** hex SHA-256 of the bytes. */
  sha256: string;
  /** How the signature covers them, e.g. "Ed25519 over SHA-256 of these bytes". */
  coverage: string;
}

export interface ReceiptSource {
  kind: string;
  ref: string;
  imported_at: number;
  /** When the source is a bundle: its id in the ledger. */
  bundle_id?: number;
}

export interface ReceiptDetail extends ReceiptRow {
  report: Report;
  /** The document exactly as received (UTF-8 text). */
  raw: string;
  /** The canonical bytes its signatures cover. */
  signed: SignedContent[];
  sources: ReceiptSource[];
  /** The anchor record for this receipt, when one is known. */
  anchor: unknown;
}

export interface FormatCount {
  value: string;
  count: number;
}

export interface BundleSummary {
  id: number;
  bundle_sha256: string;
  file_name: string | null;
  tenant_id: string | null;
  generated_at: number | null;
  imported_at: number;
  status: 'partial' | 'complete';
  signature: unknown;
  counts: unknown;
}

export interface BundleDetail extends BundleSummary {
  manifest: unknown;
  findings: unknown;
}

export interface Overview {
  receipts: number;
  byFormat: FormatCount[];
  byStatus: Partial<Record<ReportStatus, number>>;
  byTrust: Partial<Record<TrustStatus, number>>;
  bundles: number;
  pinnedKeys: number;
  recentImports: BundleSummary[];
  /** Receipts needing attention: not PASS, or signed by a revoked or expired key (newest first). */
  attention: ReceiptRow[];
}

export interface VerifyResult {
  report: Report;
  /** Set when the document was saved into the ledger. */
  saved?: { id: number; created: boolean };
}

export type ImportState = 'running' | 'done' | 'failed' | 'cancelled';

export interface ImportProgress {
  jobId: string;
  state: ImportState;
  fileName: string;
  phase: string;
  filesRead: number;
  filesTotal: number;
  receiptsVerified: number;
  receiptsTotal: number;
  perSecond: number;
  /** null while unknown. */
  secondsLeft: number | null;
  /** The import's result once done: exit-code meaning, counts, findings. */
  result?: unknown;
  /** Why it failed or was refused (a named error code and message). */
  error?: { code: string; message: string };
  /** The bundle's id in the ledger once it has one. */
  bundleId?: number;
}

export interface PinnedKey {
  key_id: string;
  algorithm: ApiKeyAlgorithm;
  /** b64u. */
  public_key: string;
  label?: string;
  not_before?: string;
  not_after?: string;
  status: 'pinned' | 'revoked';
  /** Whether it makes trust `trusted` right now (pinned, inside its window). */
  effective: 'trusted' | 'revoked' | 'expired';
  source: string;
  added_at: number;
  revoked_at?: number;
  revocation_reason?: string;
}

export interface AdvertisedKey {
  key_id: string;
  algorithm: ApiKeyAlgorithm;
  public_key: string;
  source: string;
  added_at: number;
  contradictsTrustStore: boolean;
}

export interface TrustStoreView {
  pinned: PinnedKey[];
  advertised: AdvertisedKey[];
}

export interface AuditEntry {
  id: number;
  at: number;
  action: string;
  subject: string;
  details: unknown;
}

export interface Limits {
  maxEntries: number;
  maxBytes: number;
  maxRatio: number;
}

export interface Settings {
  dataDirectory: string;
  theme: Theme;
  limits: Limits;
}

export interface ExportResult {
  path: string;
  receipts: number;
}

// ---------------------------------------------------------------------------------------------
// Validators

/** The largest document `verify` takes (PROTOCOL section 10 caps bodies at 1 MiB; a pasted file may be larger). */
export const MAX_VERIFY_TEXT = 16 * 1024 * 1024;
/** The largest bundle uploaded through the API in web mode, as base64url text (about 256 MiB of zip). */
export const MAX_UPLOAD_B64 = 350 * 1024 * 1024;
const MAX_TEXT = 512;
const MAX_PATH = 4096;

function filtersInput(value: unknown): ReceiptFilters {
  const source = objectInput(value, ['format', 'status', 'trust', 'issuer', 'from', 'to', 'text', 'bundle'], 'filters');
  const filters: ReceiptFilters = {};
  const format = optionalString(source, 'format', 128);
  if (format !== undefined) filters.format = format;
  const status = optionalOneOf(source, 'status', REPORT_STATUSES);
  if (status !== undefined) filters.status = status;
  const trust = optionalOneOf(source, 'trust', TRUST_STATUSES);
  if (trust !== undefined) filters.trust = trust;
  const issuer = optionalString(source, 'issuer', 2048);
  if (issuer !== undefined) filters.issuer = issuer;
  const from = optionalTimestamp(source, 'from');
  if (from !== undefined) filters.from = from;
  const to = optionalTimestamp(source, 'to');
  if (to !== undefined) filters.to = to;
  if (from !== undefined && to !== undefined && Date.parse(from) > Date.parse(to)) throw new ApiInputError('filters.from must not be after filters.to');
  const text = optionalString(source, 'text', MAX_TEXT);
  if (text !== undefined) filters.text = text;
  const bundle = optionalInteger(source, 'bundle', 1, Number.MAX_SAFE_INTEGER);
  if (bundle !== undefined) filters.bundle = bundle;
  return filters;
}

function noInput(input: unknown): undefined {
  objectInput(input, []);
  return undefined;
}

function idInput(input: unknown): { id: number } {
  const source = objectInput(input, ['id']);
  return { id: integerField(source, 'id', 1, Number.MAX_SAFE_INTEGER) };
}

function jobInput(input: unknown): { jobId: string } {
  const source = objectInput(input, ['jobId']);
  return { jobId: stringField(source, 'jobId', 64) };
}

function keyIdInput(input: unknown, extra: readonly string[] = []): Record<string, unknown> & { key_id: string } {
  const source = objectInput(input, ['key_id', ...extra]);
  return { ...source, key_id: stringField(source, 'key_id', 2048) };
}

/** The contract: method name to input validator. Result types are in `AppApiResults`. */
export const APP_API = {
  info: noInput,
  overview: noInput,
  'receipts.list': (input: unknown) => {
    const source = objectInput(input, ['filters', 'sort', 'direction', 'after', 'limit']);
    const result: { filters: ReceiptFilters; sort?: ReceiptSortColumn; direction?: 'asc' | 'desc'; after?: string; limit?: number } = {
      filters: filtersInput(source.filters),
    };
    const sort = optionalOneOf(source, 'sort', RECEIPT_SORT_COLUMNS);
    if (sort !== undefined) result.sort = sort;
    const direction = optionalOneOf(source, 'direction', ['asc', 'desc'] as const);
    if (direction !== undefined) result.direction = direction;
    const after = optionalString(source, 'after', 2048);
    if (after !== undefined) result.after = after;
    const limit = optionalInteger(source, 'limit', 1, 500);
    if (limit !== undefined) result.limit = limit;
    return result;
  },
  'receipts.count': (input: unknown) => ({ filters: filtersInput(objectInput(input, ['filters']).filters) }),
  'receipts.get': idInput,
  verify: (input: unknown) => {
    const source = objectInput(input, ['text', 'save', 'name']);
    return {
      text: stringField(source, 'text', MAX_VERIFY_TEXT),
      save: optionalBoolean(source, 'save') ?? false,
      name: optionalString(source, 'name', MAX_PATH),
    };
  },
  'bundles.list': noInput,
  'bundles.get': idInput,
  'imports.start': (input: unknown) => {
    const source = objectInput(input, ['path', 'name', 'data']);
    const path = optionalString(source, 'path', MAX_PATH);
    const data = optionalString(source, 'data', MAX_UPLOAD_B64);
    if ((path === undefined) === (data === undefined)) throw new ApiInputError('give exactly one of path (a file on this machine) or data (the bundle as base64url)');
    if (data !== undefined && !/^[A-Za-z0-9_-]*$/.test(data)) throw new ApiInputError('data must be base64url without padding');
    return { path, data, name: optionalString(source, 'name', MAX_TEXT) };
  },
  'imports.progress': jobInput,
  'imports.cancel': jobInput,
  'trust.list': noInput,
  'trust.pin': (input: unknown) => {
    const source = objectInput(input, ['key_id', 'algorithm', 'public_key', 'label', 'not_before', 'not_after']);
    return {
      key_id: stringField(source, 'key_id', 2048),
      algorithm: oneOf(source, 'algorithm', KEY_ALGORITHMS),
      public_key: stringField(source, 'public_key', 4096),
      label: optionalString(source, 'label', MAX_TEXT),
      not_before: optionalTimestamp(source, 'not_before'),
      not_after: optionalTimestamp(source, 'not_after'),
    };
  },
  'trust.revoke': (input: unknown) => {
    const source = keyIdInput(input, ['reason']);
    return { key_id: source.key_id, reason: optionalString(source, 'reason', MAX_TEXT) };
  },
  'trust.unpin': (input: unknown) => ({ key_id: keyIdInput(input).key_id }),
  'trust.audit': (input: unknown) => ({ limit: optionalInteger(objectInput(input, ['limit']), 'limit', 1, 1000) ?? 200 }),
  'settings.get': noInput,
  'settings.set': (input: unknown) => {
    const source = objectInput(input, ['theme', 'limits']);
    const result: { theme?: Theme; limits?: Partial<Limits> } = {};
    const theme = optionalOneOf(source, 'theme', THEMES);
    if (theme !== undefined) result.theme = theme;
    if (source.limits !== undefined) {
      const limits = objectInput(source.limits, ['maxEntries', 'maxBytes', 'maxRatio'], 'limits');
      result.limits = {};
      const maxEntries = optionalInteger(limits, 'maxEntries', 1, 10_000_000);
      if (maxEntries !== undefined) result.limits.maxEntries = maxEntries;
      const maxBytes = optionalInteger(limits, 'maxBytes', 1024, 1024 ** 4);
      if (maxBytes !== undefined) result.limits.maxBytes = maxBytes;
      const maxRatio = optionalInteger(limits, 'maxRatio', 1, 100_000);
      if (maxRatio !== undefined) result.limits.maxRatio = maxRatio;
    }
    return result;
  },
  'exports.create': (input: unknown) => {
    const source = objectInput(input, ['filters', 'name']);
    return { filters: filtersInput(source.filters), name: optionalString(source, 'name', MAX_TEXT) };
  },
  'samples.load': noInput,
} as const;

export type AppApiMethod = keyof typeof APP_API;
export type AppApiInput<M extends AppApiMethod> = ReturnType<(typeof APP_API)[M]>;

/** The result type of each method. */
export interface AppApiResults {
  info: AppInfo;
  overview: Overview;
  'receipts.list': ReceiptPage;
  'receipts.count': { count: number };
  'receipts.get': ReceiptDetail;
  verify: VerifyResult;
  'bundles.list': BundleSummary[];
  'bundles.get': BundleDetail;
  'imports.start': ImportProgress;
  'imports.progress': ImportProgress;
  'imports.cancel': ImportProgress;
  'trust.list': TrustStoreView;
  'trust.pin': PinnedKey;
  'trust.revoke': PinnedKey;
  'trust.unpin': { key_id: string; removed: true };
  'trust.audit': AuditEntry[];
  'settings.get': Settings;
  'settings.set': Settings;
  'exports.create': ExportResult;
  /** Imports the built-in sample bundle (every format, valid and broken) as demo data. */
  'samples.load': ImportProgress;
}

/** What the renderer calls: each method takes the validator's input type (loosely, as the caller writes it). */
export type AppApiClient = {
  [M in AppApiMethod]: (input?: Partial<Record<string, unknown>>) => Promise<AppApiResults[M]>;
};

/** Whether a string names a method of the contract. */
export function isAppApiMethod(name: unknown): name is AppApiMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(APP_API, name);
}

/** An error the API reports with a code the renderer can show and act on. */
export interface ApiErrorBody {
  code: string;
  message: string;
}
