/**
 * The app API contract: every call the renderer may make to the main process.
 *
 * One map names each method with a runtime validator for its input; `AppApiResults` names each
 * result type. src-main/appapi implements it once; the Electron preload exposes it over IPC and
 * local web mode serves it over HTTP. The renderer sees only this contract, never the transport.
 * Everything here is plain JSON: bytes travel as b64u strings, instants as ms since the epoch.
 */
import type { JsonValue } from '../json/types';
import type { Report, ReportStatus, TrustStatus } from '../verify/report';
import { SIGNER_ROLES, type SignerRole } from '../verify/context';
import type { ErrorEnvelope } from './error-envelope';
import {
  API_KEY_SCOPES,
  isTenantId,
  KEY_ALGORITHMS,
  REPORT_STATUSES,
  TENANT_ID_RULE,
  TIERS,
  TRUST_STATUSES,
  type AdvertisedKeyOf,
  type ApiKeyScope,
  type AuditAction,
  type BundleStatus,
  type FindingCode,
  type KeyAlgorithm,
  type SignatureCheckStatus,
  type SourceKind,
  type Tier,
} from './vocabulary';
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
import {
  ANCHOR_API,
  chainSettingsInput,
  type AnchorApiParams,
  type AnchorApiResults,
  type ChainSettings,
  type ReceiptAnchor,
} from './anchor-contract';

export * from './anchor-contract';
export { API_KEY_SCOPES, ApiInputError, KEY_ALGORITHMS, REPORT_STATUSES, TIERS, TRUST_STATUSES };
export type { ApiKeyScope, Tier };
export type { ErrorEnvelope };

// ---------------------------------------------------------------------------------------------
// Shared shapes

export const RECEIPT_SORT_COLUMNS = [
  'issued_at',
  'imported_at',
  'format',
  'status',
  'trust',
  'issuer',
  'receipt_id',
] as const;
export type ReceiptSortColumn = (typeof RECEIPT_SORT_COLUMNS)[number];
export type ApiKeyAlgorithm = KeyAlgorithm;
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
  kind: SourceKind;
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
  /** The receipt's anchor state and records (state `none` and no records when it has none). */
  anchor: ReceiptAnchor;
}

export interface FormatCount {
  value: string;
  count: number;
}

/** The outcome of checking a bundle's manifest.sig, as the views show it. */
export interface BundleSignature {
  status: SignatureCheckStatus;
  keyId: string | undefined;
  /** Trust in the signer; `not_applicable` when no key was used. */
  trust: TrustStatus;
  trustLabel: string | undefined;
  trustDetail: string | undefined;
  manifestSha256: string | undefined;
  detail: string | undefined;
}

/** The counts an import stored (members an older import did not record stay undefined). */
export interface BundleCounts {
  files: number | undefined;
  receipts: number | undefined;
  receiptsNew: number | undefined;
  receiptsKnown: number | undefined;
  anchors: number | undefined;
  anchorsNew: number | undefined;
  advertisedKeys: number | undefined;
  /** Report statuses in precedence order (worst first); only those with receipts. */
  byStatus: [ReportStatus, number][];
  /** Trust in the vocabulary's order; only those with receipts. */
  byTrust: [TrustStatus, number][];
  findingsTotal: number | undefined;
  findingsByCode: [string, number][];
}

/** One finding: something wrong with the bundle that did not stop the import. */
export interface BundleFinding {
  /** A {@link FindingCode}, or a code a newer version recorded. */
  code: FindingCode | (string & {});
  path: string;
  message: string;
}

/** The manifest fields the detail view shows. */
export interface BundleManifest {
  bundleFormat: string | undefined;
  tenantId: string | undefined;
  generatedAt: string | undefined;
  keyId: string | undefined;
  fileCount: number | undefined;
  declaredCounts: [string, number][];
}

export interface BundleSummary {
  id: number;
  bundle_sha256: string;
  file_name: string | null;
  tenant_id: string | null;
  generated_at: number | null;
  imported_at: number;
  status: BundleStatus;
  /** undefined when nothing usable was stored (an import that never got that far). */
  signature: BundleSignature | undefined;
  counts: BundleCounts;
}

export interface BundleDetail extends BundleSummary {
  /** undefined when the stored manifest.json is not an object. */
  manifest: BundleManifest | undefined;
  findings: BundleFinding[];
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

/** The phases of an import itself, in order (src-main/operations/import.ts reports them). */
export type ImportPhase = 'hashing' | 'checking' | 'verifying' | 'finishing' | 'done';

/**
 * An import job's progress: the one definition. The import reports the counters and its
 * {@link ImportPhase} as it runs (`ImportProgressEvent` of src-main/operations/import.ts is this
 * type without the job's fields); the job adds its own phases before and after.
 */
export interface ImportProgress {
  jobId: string;
  state: ImportState;
  fileName: string;
  phase: ImportPhase | 'starting' | 'failed' | 'cancelled';
  filesRead: number;
  filesTotal: number;
  receiptsVerified: number;
  receiptsTotal: number;
  perSecond: number;
  /** null while unknown. */
  secondsLeft: number | null;
  /** The import's result once done. */
  result?: ImportOutcome;
  /** Why it failed or was refused. */
  error?: ErrorEnvelope;
  /** The bundle's id in the ledger once it has one. */
  bundleId?: number;
}

/** What a finished import stored. */
export interface ImportOutcome {
  receipts: number;
  receiptsNew: number;
  receiptsKnown: number;
  /** Findings of every kind (0 for a clean import). */
  findings: number;
  /** This bundle had been imported completely before; nothing new was stored. */
  alreadyImported: boolean;
  /** An earlier import of this bundle had stopped part-way; this one finished it. */
  resumed: boolean;
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
  /** The roles it is trusted for, in role order; absent for every role. */
  roles?: SignerRole[];
  source: string;
  added_at: number;
  revoked_at?: number;
  revocation_reason?: string;
}

/** An advertised key on the wire: its public key as base64url. */
export type AdvertisedKey = AdvertisedKeyOf<string>;

export interface TrustStoreView {
  pinned: PinnedKey[];
  advertised: AdvertisedKey[];
}

export interface AuditEntry {
  id: number;
  at: number;
  /** An {@link AuditAction}, or one a newer version recorded. */
  action: AuditAction | (string & {});
  subject: string;
  /** The action's details as recorded (plain JSON). */
  details: JsonValue;
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
  /** The chain the anchors view asks for steps 2-3 of a check. */
  chain: ChainSettings;
}

export interface ExportResult {
  path: string;
  receipts: number;
}

/** A request the HTTP service answered (never its key or body). */
export interface ServiceRequest {
  /** When it was answered (ms since the epoch). */
  at: number;
  method: string;
  /** The route's pattern, e.g. `/tenants/:id/receipts` (ids of callers stay out). */
  route: string;
  /** The HTTP status code. */
  status: number;
  /** How long it took (ms). */
  ms: number;
}

/** The HTTP service the app runs in its main process. */
export interface ServiceStatus {
  running: boolean;
  /** While running: where it listens (127.0.0.1 only, from the app). */
  url?: string;
  port?: number;
  /** The requests answered last, newest first (kept after a stop until the next start). */
  requests: ServiceRequest[];
}

/** A tenant's use of its quota in the current period. */
export interface TenantQuotaUse {
  /** A UTC day `YYYY-MM-DD` (free) or month `YYYY-MM`. */
  period: string;
  used: number;
  /** null: the tier is unlimited (scale, enterprise). */
  limit: number | null;
}

/** A tenant of the service. */
export interface TenantView {
  id: string;
  tier: Tier;
  created_at: number;
  quota: TenantQuotaUse;
}

/** An API key as listed: its prefix, never the key. */
export interface ApiKeyView {
  prefix: string;
  tenant_id: string;
  tier: Tier;
  scopes: ApiKeyScope[];
  created_at: number;
  revoked_at: number | null;
  state: 'active' | 'revoked';
}

/** A key just issued: `key` is shown this once and never stored (only its SHA-256 is). */
export interface IssuedApiKey {
  key: string;
  apiKey: ApiKeyView;
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
  if (from !== undefined && to !== undefined && Date.parse(from) > Date.parse(to))
    throw new ApiInputError('filters.from must not be after filters.to');
  // The ledger keeps instants as milliseconds from 1970 on.
  for (const [name, instant] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (instant !== undefined && Date.parse(instant) < 0)
      throw new ApiInputError(`filters.${name} must be 1970-01-01T00:00:00Z or later`, `/filters/${name}`);
  }
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

/** The forms a report is written in. */
export const REPORT_FORMS = ['json', 'html', 'pdf'] as const;
export type ReportFormName = (typeof REPORT_FORMS)[number];
/** A report id: rpt_ and a ULID. */
export const REPORT_ID_PATTERN = /^rpt_[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** A report kept in the data folder, as listed. */
export interface ReportSummary {
  report_id: string;
  /** TS. */
  generated_at: string;
  payload_sha256: string;
  receipts: number;
  by_status: Record<string, number>;
  /** The filters (instants as TS) and the as-of instant it was made for. */
  scope: { filters: Record<string, string>; as_of?: string };
}

/** A report just made. */
export interface ReportMade extends ReportSummary {
  signer_key_id: string;
  counts: {
    by_status: Record<string, number>;
    by_trust: Record<string, number>;
    by_format: Record<string, number>;
    by_anchor: Record<string, number>;
  };
}

/** A kept report in one form, to save or preview. */
export interface ReportFile {
  report_id: string;
  form: ReportFormName;
  /** A file name to offer, e.g. `rpt_....pdf`. */
  name: string;
  mime: string;
  /** The bytes as base64url. */
  data: string;
}

/** What changed between two reports. */
export interface ReportDiffView {
  old_report: string;
  new_report: string;
  added: string[];
  removed: string[];
  changed: {
    receipt_sha256: string;
    field: 'status' | 'trust' | 'anchor_state';
    from: string;
    to: string;
    reason: string | null;
  }[];
}

function reportIdField(source: Record<string, unknown>, name: string): string {
  const value = stringField(source, name, 64);
  if (!REPORT_ID_PATTERN.test(value)) throw new ApiInputError(`${name} must be a report id (rpt_ and a ULID)`);
  return value;
}

/** An API key's prefix as listed: `svc_<tier>_` and 8 base64url characters (at most 32 in all). */
const KEY_PREFIX = /^svc_[a-z]+_[A-Za-z0-9_-]{1,16}$/;

/** Runs a field's check and names the field in the error's path (a form shows it beside the field). */
function atField<T>(name: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ApiInputError && error.path === undefined) throw new ApiInputError(error.message, `/${name}`);
    throw error;
  }
}

function tenantIdField(source: Record<string, unknown>, name: string): string {
  return atField(name, () => {
    const id = stringField(source, name, 64);
    if (!isTenantId(id)) throw new ApiInputError(`${name} must be ${TENANT_ID_RULE}`);
    return id;
  });
}

/** `roles`: distinct names of SIGNER_ROLES, at least one; absent for every role (PROTOCOL section 0). */
function rolesField(source: Record<string, unknown>): SignerRole[] | undefined {
  const value = source.roles;
  if (value === undefined) return undefined;
  return atField('roles', () => {
    if (!Array.isArray(value) || value.length === 0)
      throw new ApiInputError(
        `roles must be a non-empty list of ${SIGNER_ROLES.join(', ')} (leave it out for every role)`,
      );
    // Each role at most once, so the loop stops within SIGNER_ROLES.length + 1 items however long the list.
    const roles: SignerRole[] = [];
    for (const [index, role] of value.entries()) {
      if (typeof role !== 'string' || !(SIGNER_ROLES as readonly string[]).includes(role))
        throw new ApiInputError(`roles must each be one of ${SIGNER_ROLES.join(', ')}`, `/roles/${index}`);
      if (roles.includes(role as SignerRole)) throw new ApiInputError(`roles names ${role} twice`, `/roles/${index}`);
      roles.push(role as SignerRole);
    }
    return roles;
  });
}

function scopesField(source: Record<string, unknown>): ApiKeyScope[] | undefined {
  const value = source.scopes;
  if (value === undefined) return undefined;
  return atField('scopes', () => {
    if (!Array.isArray(value)) throw new ApiInputError(`scopes must be a list of ${API_KEY_SCOPES.join(', ')}`);
    // Each scope at most once, so the loop stops within API_KEY_SCOPES.length + 1 items however long the list.
    const scopes: ApiKeyScope[] = [];
    for (const scope of value) {
      if (typeof scope !== 'string' || !(API_KEY_SCOPES as readonly string[]).includes(scope))
        throw new ApiInputError(`scopes must each be one of ${API_KEY_SCOPES.join(', ')}`);
      if (scopes.includes(scope as ApiKeyScope)) throw new ApiInputError(`scopes names ${scope} twice`);
      scopes.push(scope as ApiKeyScope);
    }
    return scopes;
  });
}

/** What each method takes, as the caller writes it (`undefined`: nothing). */
export interface AppApiParams extends AnchorApiParams {
  info: undefined;
  overview: undefined;
  'receipts.list': {
    filters?: ReceiptFilters;
    sort?: ReceiptSortColumn;
    direction?: 'asc' | 'desc';
    after?: string;
    limit?: number;
  };
  'receipts.count': { filters?: ReceiptFilters };
  'receipts.get': { id: number };
  verify: { text: string; save?: boolean; name?: string };
  'bundles.list': undefined;
  'bundles.get': { id: number };
  /**
   * Imports an uploaded bundle (the zip's bytes as base64url). The app never imports a path
   * named by the renderer: the desktop app's File menu imports the file the user chose in its
   * dialog without going through this contract.
   */
  'imports.start': { data: string; name?: string };
  'imports.progress': { jobId: string };
  'imports.cancel': { jobId: string };
  'trust.list': undefined;
  'trust.pin': {
    key_id: string;
    algorithm: ApiKeyAlgorithm;
    public_key: string;
    label?: string;
    not_before?: string;
    not_after?: string;
    roles?: SignerRole[];
  };
  'trust.revoke': { key_id: string; reason?: string };
  'trust.unpin': { key_id: string };
  'trust.audit': { limit?: number };
  'settings.get': undefined;
  'settings.set': { theme?: Theme; limits?: Partial<Limits>; chain?: Partial<ChainSettings> };
  'exports.create': { filters?: ReceiptFilters; name?: string };
  'samples.load': undefined;
  'reports.list': undefined;
  /** Makes, signs and keeps a report of the receipts the filters select (`bundle` is not a report scope). */
  'reports.create': { filters?: ReceiptFilters; as_of?: string };
  'reports.get': { report_id: string; form: ReportFormName };
  'reports.diff': { old_report: string; new_report: string };
  /** The HTTP service of the main process: whether it runs, where, and its last requests. */
  'service.status': undefined;
  /** Starts the service on 127.0.0.1 (port 0 or absent: any free port); answers the running one when it runs already. */
  'service.start': { port?: number };
  'service.stop': undefined;
  /** Tenants with their quota use in the current period. */
  'tenants.list': undefined;
  'tenants.create': { id: string; tier: Tier };
  /** API keys by prefix (never the keys), of one tenant when given. */
  'apikeys.list': { tenant?: string };
  /** Issues a key; the answer carries it this once. */
  'apikeys.issue': { tenant: string; scopes?: ApiKeyScope[] };
  'apikeys.revoke': { prefix: string };
}

type Validators = { [M in keyof AppApiParams]: (input: unknown) => AppApiParams[M] };

/** Sets `name` on `target` only when `value` is defined (inputs carry no undefined members). */
function put<T extends object, K extends keyof T>(target: T, name: K, value: T[K] | undefined): void {
  if (value !== undefined) target[name] = value;
}

/** The contract: method name to input validator. Result types are in `AppApiResults`. */
export const APP_API: Validators = {
  info: noInput,
  overview: noInput,
  'receipts.list': (input) => {
    const source = objectInput(input, ['filters', 'sort', 'direction', 'after', 'limit']);
    const result: AppApiParams['receipts.list'] = { filters: filtersInput(source.filters) };
    put(result, 'sort', optionalOneOf(source, 'sort', RECEIPT_SORT_COLUMNS));
    put(result, 'direction', optionalOneOf(source, 'direction', ['asc', 'desc'] as const));
    put(result, 'after', optionalString(source, 'after', 2048));
    put(result, 'limit', optionalInteger(source, 'limit', 1, 500));
    return result;
  },
  'receipts.count': (input) => ({ filters: filtersInput(objectInput(input, ['filters']).filters) }),
  'receipts.get': idInput,
  verify: (input) => {
    const source = objectInput(input, ['text', 'save', 'name']);
    const result: AppApiParams['verify'] = {
      text: stringField(source, 'text', MAX_VERIFY_TEXT),
      save: optionalBoolean(source, 'save') ?? false,
    };
    put(result, 'name', optionalString(source, 'name', MAX_PATH));
    return result;
  },
  'bundles.list': noInput,
  'bundles.get': idInput,
  'imports.start': (input) => {
    const source = objectInput(input, ['name', 'data']);
    if (source.data === undefined)
      throw new ApiInputError('data is required: the bundle as base64url (the app imports uploads, never a path)');
    const data = stringField(source, 'data', MAX_UPLOAD_B64, 0);
    if (!/^[A-Za-z0-9_-]*$/.test(data)) throw new ApiInputError('data must be base64url without padding');
    const result: AppApiParams['imports.start'] = { data };
    put(result, 'name', optionalString(source, 'name', MAX_TEXT));
    return result;
  },
  'imports.progress': jobInput,
  'imports.cancel': jobInput,
  'trust.list': noInput,
  'trust.pin': (input) => {
    const source = objectInput(input, [
      'key_id',
      'algorithm',
      'public_key',
      'label',
      'not_before',
      'not_after',
      'roles',
    ]);
    const result: AppApiParams['trust.pin'] = {
      key_id: stringField(source, 'key_id', 2048),
      algorithm: oneOf(source, 'algorithm', KEY_ALGORITHMS),
      public_key: stringField(source, 'public_key', 4096),
    };
    put(result, 'label', optionalString(source, 'label', MAX_TEXT));
    put(result, 'not_before', optionalTimestamp(source, 'not_before'));
    put(result, 'not_after', optionalTimestamp(source, 'not_after'));
    put(result, 'roles', rolesField(source));
    return result;
  },
  'trust.revoke': (input) => {
    const source = keyIdInput(input, ['reason']);
    const result: AppApiParams['trust.revoke'] = { key_id: source.key_id };
    put(result, 'reason', optionalString(source, 'reason', MAX_TEXT));
    return result;
  },
  'trust.unpin': (input) => ({ key_id: keyIdInput(input).key_id }),
  'trust.audit': (input) => ({ limit: optionalInteger(objectInput(input, ['limit']), 'limit', 1, 1000) ?? 200 }),
  'settings.get': noInput,
  'settings.set': (input) => {
    const source = objectInput(input, ['theme', 'limits', 'chain']);
    const result: AppApiParams['settings.set'] = {};
    put(result, 'theme', optionalOneOf(source, 'theme', THEMES));
    if (source.limits !== undefined) {
      const limits = objectInput(source.limits, ['maxEntries', 'maxBytes', 'maxRatio'], 'limits');
      const chosen: Partial<Limits> = {};
      put(chosen, 'maxEntries', optionalInteger(limits, 'maxEntries', 1, 10_000_000));
      put(chosen, 'maxBytes', optionalInteger(limits, 'maxBytes', 1024, 1024 ** 4));
      put(chosen, 'maxRatio', optionalInteger(limits, 'maxRatio', 1, 100_000));
      result.limits = chosen;
    }
    if (source.chain !== undefined) result.chain = chainSettingsInput(source.chain);
    return result;
  },
  'exports.create': (input) => {
    const source = objectInput(input, ['filters', 'name']);
    const result: AppApiParams['exports.create'] = { filters: filtersInput(source.filters) };
    put(result, 'name', optionalString(source, 'name', MAX_TEXT));
    return result;
  },
  'samples.load': noInput,
  'reports.list': noInput,
  'reports.create': (input) => {
    const source = objectInput(input, ['filters', 'as_of']);
    const filters = filtersInput(source.filters);
    if (filters.bundle !== undefined)
      throw new ApiInputError(
        'filters.bundle is not a report scope; filter by format, status, trust, issuer, time or text',
      );
    const result: AppApiParams['reports.create'] = { filters };
    put(result, 'as_of', optionalTimestamp(source, 'as_of'));
    return result;
  },
  'reports.get': (input) => {
    const source = objectInput(input, ['report_id', 'form']);
    return { report_id: reportIdField(source, 'report_id'), form: oneOf(source, 'form', REPORT_FORMS) };
  },
  'reports.diff': (input) => {
    const source = objectInput(input, ['old_report', 'new_report']);
    return { old_report: reportIdField(source, 'old_report'), new_report: reportIdField(source, 'new_report') };
  },
  'service.status': noInput,
  'service.start': (input) => {
    const source = objectInput(input, ['port']);
    const result: AppApiParams['service.start'] = {};
    put(
      result,
      'port',
      atField('port', () => optionalInteger(source, 'port', 0, 65535)),
    );
    return result;
  },
  'service.stop': noInput,
  'tenants.list': noInput,
  'tenants.create': (input) => {
    const source = objectInput(input, ['id', 'tier']);
    return { id: tenantIdField(source, 'id'), tier: atField('tier', () => oneOf(source, 'tier', TIERS)) };
  },
  'apikeys.list': (input) => {
    const source = objectInput(input, ['tenant']);
    const result: AppApiParams['apikeys.list'] = {};
    if (source.tenant !== undefined) result.tenant = tenantIdField(source, 'tenant');
    return result;
  },
  'apikeys.issue': (input) => {
    const source = objectInput(input, ['tenant', 'scopes']);
    const result: AppApiParams['apikeys.issue'] = { tenant: tenantIdField(source, 'tenant') };
    put(result, 'scopes', scopesField(source));
    return result;
  },
  'apikeys.revoke': (input) => {
    const source = objectInput(input, ['prefix']);
    const prefix = atField('prefix', () => stringField(source, 'prefix', 32));
    if (!KEY_PREFIX.test(prefix))
      throw new ApiInputError('prefix must be a key prefix as listed, like svc_pro_Ab12Cd34', '/prefix');
    return { prefix };
  },
  ...ANCHOR_API,
};

export type AppApiMethod = keyof AppApiParams;
/** A method's input after validation. */
export type AppApiInput<M extends AppApiMethod> = AppApiParams[M];

/** The result type of each method. */
export interface AppApiResults extends AnchorApiResults {
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
  /** The reports kept in the data folder, newest first. */
  'reports.list': ReportSummary[];
  'reports.create': ReportMade;
  'reports.get': ReportFile;
  /** Both reports must verify. */
  'reports.diff': ReportDiffView;
  'service.status': ServiceStatus;
  'service.start': ServiceStatus;
  'service.stop': ServiceStatus;
  'tenants.list': TenantView[];
  'tenants.create': TenantView;
  'apikeys.list': ApiKeyView[];
  'apikeys.issue': IssuedApiKey;
  'apikeys.revoke': ApiKeyView;
}

/** The arguments a method takes: none for methods without input. */
export type AppApiArguments<M extends AppApiMethod> = undefined extends AppApiParams[M]
  ? [input?: AppApiParams[M]]
  : [input: AppApiParams[M]];

/** What the renderer calls: each method typed in both directions. */
export type AppApiClient = {
  [M in AppApiMethod]: (...input: AppApiArguments<M>) => Promise<AppApiResults[M]>;
};

/** Whether a string names a method of the contract. */
export function isAppApiMethod(name: unknown): name is AppApiMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(APP_API, name);
}

/**
 * What a transport carries back for one call: the result, or the error envelope. IPC and HTTP
 * both carry this, so the renderer sees the same `code` whichever transport it has.
 */
export type AppApiAnswer<M extends AppApiMethod = AppApiMethod> =
  { ok: true; result: AppApiResults[M] } | { ok: false; error: ErrorEnvelope };
