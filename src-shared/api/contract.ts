/**
 * The app API contract: every call the renderer may make to the main process.
 *
 * `AppApiParams` names each method's input and `AppApiResults` its result. Each input's runtime
 * validator is in contract-validators.ts (`APP_API`), derived from its TypeBox schema
 * (contract-schemas.ts) where the input is a plain shape; this module holds only types and
 * constants, so the renderer that imports it bundles neither the validators nor TypeBox.
 * src-main/appapi implements the contract once; the Electron preload exposes it over IPC and
 * local web mode serves it over HTTP. The renderer sees only this contract, never the transport.
 * Everything here is plain JSON: bytes travel as b64u strings, instants as ms since the epoch.
 */
import type { Static } from '@sinclair/typebox';
import type { JsonValue } from '../json/types';
import type { Report, ReportStatus, TrustStatus } from '../verify/report';
import type { SignerRole } from '../verify/context';
import type { ErrorEnvelope } from './error-envelope';
import type { PaidTier, PaymentView } from './payments';
import type {
  ApiKeysIssueSchema,
  ApiKeysListSchema,
  ApiKeysRevokeSchema,
  IdInputSchema,
  JobInputSchema,
  ReportsDiffSchema,
  ReportsGetSchema,
  ServicePaymentsSchema,
  ServiceStartSchema,
  TenantsCreateSchema,
  TrustAuditSchema,
  TrustRevokeSchema,
  TrustUnpinSchema,
} from './contract-schemas';
import {
  API_KEY_SCOPES,
  KEY_ALGORITHMS,
  REPORT_STATUSES,
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
import type { ContextApiParams, ContextApiResults } from './context-contract';
import type { LogCompleteness, LogsApiParams, LogsApiResults, LogView } from './logs-contract';
import { ApiInputError } from './validate';
import type { ServiceStoreView } from './service-database';
import type {
  AnchorApiParams,
  AnchorApiResults,
  AnchorLedgerState,
  ChainSettings,
  ReceiptAnchor,
} from './anchor-contract';

export * from './anchor-contract';
export * from './context-contract';
export * from './logs-contract';
export * from './service-database';
export type { ContextEvidence, ContextHead, ContextPackSummary, PinnedBlock } from '../anchor/context';
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
  'anchor',
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
  /** Only receipts in this anchor state (docs/anchoring.md). */
  anchor?: AnchorLedgerState;
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
  /** Its anchor state: none, pending, verified or failed (docs/anchoring.md). */
  anchor_state: AnchorLedgerState;
}

/** The forms the receipts list is exported in (`receipts.export`). */
export const RECEIPT_EXPORT_FORMS = ['csv', 'json'] as const;
/** One of RECEIPT_EXPORT_FORMS. */
export type ReceiptExportForm = (typeof RECEIPT_EXPORT_FORMS)[number];

/** One page of an export of the receipts list (`receipts.export`). */
export interface ReceiptExportChunk {
  /** This page's text; the pages of one export, joined in order, are one CSV or JSON document. */
  text: string;
  /** Rows in this page. */
  rows: number;
  /** Pass as `after` for the next page; null when this page closed the document. */
  nextCursor: string | null;
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
  /**
   * The row id of the receipt the ledger stored from this finding's file (`#/receipts/ID`),
   * when the file is a receipt of the bundle and exactly one stored receipt of this bundle is
   * named by it (its document id or SHA-256); undefined otherwise (a missing file, a key or
   * anchor file, a name that matches none or several).
   */
  receiptRowId?: number;
}

/**
 * A bundle's verdict, the first thing its page and its row in the list say.
 *
 * `altered`: the signature verifies and files differ from the signed manifest (changed,
 * missing or extra); `receipts_not_pass`: every file matches the signed manifest but receipts
 * did not verify PASS; `intact`: every file matches the signed manifest; `unsigned`: no
 * manifest.sig; `signature_invalid`: manifest.sig does not verify (invalid, mismatch,
 * malformed); `signature_unchecked`: no key, or an unsupported algorithm; `unfinished`: the
 * import stopped part-way; `not_recorded`: the import's checks were not stored.
 */
export type BundleVerdictKind =
  | 'intact'
  | 'altered'
  | 'receipts_not_pass'
  | 'unsigned'
  | 'signature_invalid'
  | 'signature_unchecked'
  | 'unfinished'
  | 'not_recorded';

/** A bundle's verdict in words and counts (operations/bundle-views.ts decides it). */
export interface BundleVerdict {
  kind: BundleVerdictKind;
  /** `good` only for an intact bundle with no finding at all and a signer neither revoked nor expired. */
  tone: 'good' | 'warn' | 'bad';
  /** A word or two for a badge: "Altered", "Intact", "Unsigned"… */
  label: string;
  /** The banner's headline, e.g. "Altered after signing: 1 changed, 1 missing, 1 extra, 2 receipts not PASS". */
  headline: string;
  /** What the verdict rests on: what the signature covers and who signed. */
  detail: string;
  /** Files whose size or SHA-256 differ from the manifest (`file_mismatch`). */
  changed: number;
  /** Files the manifest lists and the zip lacks (`file_missing`). */
  missing: number;
  /** Files the zip has and the manifest does not list (`file_extra`). */
  extra: number;
  /** Receipts whose report is not PASS (`receipt_not_pass`). */
  receiptsNotPass: number;
  /** Other findings (declared counts, key and anchor files, names, layout); manifest.sig's own are the signature's verdict. */
  other: number;
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
  /** What to say first about the bundle. */
  verdict: BundleVerdict;
  /**
   * What the bundle's log evidence proved (`bundles.log_json`): complete for its period, what is
   * missing, or why it could not be checked; null for a bundle without log files.
   */
  log: LogCompleteness | null;
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
  /**
   * Signing keys whose signatures verify but that are not pinned (trust `unpinned`), the most
   * receipts first; at most {@link OVERVIEW_UNPINNED_ISSUERS}. `issuer_key_id` is null for
   * receipts whose key has no id.
   */
  unpinnedIssuers: { issuer_key_id: string | null; receipts: number }[];
  /** How many distinct unpinned issuers there are in all (may exceed the list). */
  unpinnedIssuerCount: number;
  /** The logs whose checkpoints disagree (a split view): the first thing that needs attention. */
  splitViews: LogView[];
}

/** How many unpinned issuers the overview lists by name. */
export const OVERVIEW_UNPINNED_ISSUERS = 10;

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
  /**
   * The Service view's database: null for this workspace's ledger (SQLite), or a PostgreSQL URL
   * with its password masked ({@link maskDatabaseUrl}); sent back unchanged, it keeps the password.
   */
  service_database: string | null;
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

/**
 * The chain the running service takes payments for API keys on (PROTOCOL section 13,
 * docs/payments.md): its stablecoin and treasury.
 */
export interface ServicePaymentChain {
  /** The chain's network name (`anvil-local` for the embedded chain). */
  network: string;
  chainId: number;
  /**
   * The local development chain the service starts by default: its development accounts hold
   * test tokens, so the app can buy a key on it (`service.buyKey`). Never true of a real chain.
   */
  embedded: boolean;
  /** The stablecoin's address (6 decimals). */
  token: string;
  /** The address payments go to. */
  treasury: string;
  /** The embedded chain's JSON-RPC on 127.0.0.1; absent for any other chain (its URL may hold credentials). */
  rpcUrl?: string;
}

/** The HTTP service the app runs in its main process. */
export interface ServiceStatus {
  running: boolean;
  /** While running: where it listens (127.0.0.1 only, from the app). */
  url?: string;
  port?: number;
  /** While running with a chain: where API keys are paid for. */
  payments?: ServicePaymentChain;
  /** The requests answered last, newest first (kept after a stop until the next start). */
  requests: ServiceRequest[];
  /** The store the Service view reads and writes and the service starts on (Settings, "Service database"). */
  store: ServiceStoreView;
}

/** How many development accounts the embedded chain funds (anvil's well-known accounts 0 to 9). */
export const DEVELOPMENT_ACCOUNT_COUNT = 10;

/**
 * A key bought from the app on the embedded chain (`service.buyKey`): the tier's price (a month,
 * or ten months' price for a year when `annual`) paid from development account `account` with
 * PROTOCOL 13's memo. The key goes to `contact`, never to the app.
 */
export interface BuyKeyInput {
  tier: PaidTier;
  /** An e-mail address, a domain (mail to its postmaster) or a did:key (sealed, picked up by transaction). */
  contact: string;
  /** The DID the key's receipts are issued for (`did:` ..., at most 512 characters). */
  issuer_did?: string;
  annual: boolean;
  /** Which development account pays: 0 to {@link DEVELOPMENT_ACCOUNT_COUNT} - 1. */
  account: number;
}

/** A payment sent from the app: its transaction, which the service's watcher will see. */
export interface BuyKeyResult {
  /** `0x` and 64 lowercase hex. */
  tx_hash: string;
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
// Limits and inputs

/** The largest document `verify` takes (PROTOCOL section 10 caps bodies at 1 MiB; a pasted file may be larger). */
export const MAX_VERIFY_TEXT = 16 * 1024 * 1024;
/** The largest key, trust or secrets file `verify` takes (the CLI's files are this small too). */
export const MAX_VERIFY_KEY_FILE_TEXT = 1024 * 1024;

/**
 * A key, trust or secrets file chosen in Verify, as the renderer read it: the file's name (for
 * messages; no control characters) and its text. The app keeps it for nothing but this call.
 */
export interface VerifyFileInput {
  name: string;
  text: string;
}

/** The largest bundle uploaded through the API in web mode, as base64url text (about 256 MiB of zip). */
export const MAX_UPLOAD_B64 = 350 * 1024 * 1024;

/** The forms a report is written in. */
export const REPORT_FORMS = ['json', 'html', 'pdf'] as const;
export type ReportFormName = (typeof REPORT_FORMS)[number];
/** A report id: rpt_ and a ULID (the report format's own rule). */
export { REPORT_ID_PATTERN } from '../formats/report/model';

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
  /** Set when the two reports' filters differ: shown first, before what changed. */
  scope_warning: string | null;
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

/**
 * What each method takes, as the caller writes it (`undefined`: nothing). A plain shape is the
 * `Static` type of its schema in contract-schemas.ts, so its type and its validator cannot
 * disagree; the others are written here and checked by hand in contract-validators.ts.
 */
export interface AppApiParams extends AnchorApiParams, ContextApiParams, LogsApiParams {
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
  /**
   * One page of the filtered list as CSV or JSON (src-shared/api/receipts-export.ts): call again
   * with `after` = the answer's `nextCursor` until it is null, and join the texts in order.
   */
  'receipts.export': {
    form: ReceiptExportForm;
    filters?: ReceiptFilters;
    sort?: ReceiptSortColumn;
    direction?: 'asc' | 'desc';
    after?: string;
    limit?: number;
  };
  'receipts.get': Static<typeof IdInputSchema>;
  /**
   * Verifies one document, with optional files for this call only, as `evroom verify` takes them:
   * `keys` (public keys that verify but confer no trust, `--keys`), `trust` (keys pinned for this
   * call, `--trust`) and `secrets` (AES-256-GCM secrets that open sealed documents, `--secret`).
   * They are parsed by the CLI's parsers; a file that cannot be used is refused, naming it, and
   * nothing is verified or saved.
   */
  verify: {
    text: string;
    save?: boolean;
    name?: string;
    keys?: VerifyFileInput;
    trust?: VerifyFileInput;
    secrets?: VerifyFileInput;
  };
  'bundles.list': undefined;
  'bundles.get': Static<typeof IdInputSchema>;
  /**
   * Imports an uploaded bundle (the zip's bytes as base64url). The app never imports a path
   * named by the renderer: the desktop app's File menu imports the file the user chose in its
   * dialog without going through this contract.
   */
  'imports.start': { data: string; name?: string };
  'imports.progress': Static<typeof JobInputSchema>;
  'imports.cancel': Static<typeof JobInputSchema>;
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
  'trust.revoke': Static<typeof TrustRevokeSchema>;
  'trust.unpin': Static<typeof TrustUnpinSchema>;
  /** The last `limit` entries, 200 when absent. */
  'trust.audit': Static<typeof TrustAuditSchema>;
  'settings.get': undefined;
  'settings.set': {
    theme?: Theme;
    limits?: Partial<Limits>;
    chain?: Partial<ChainSettings>;
    /** null (or "") for this workspace's ledger, or a `postgres://` / `postgresql://` URL. */
    service_database?: string | null;
  };
  'exports.create': { filters?: ReceiptFilters; name?: string };
  'samples.load': undefined;
  'reports.list': undefined;
  /** Makes, signs and keeps a report of the receipts the filters select (`bundle` is not a report scope). */
  'reports.create': {
    filters?: ReceiptFilters;
    as_of?: string;
    /** Make it even with no receipts in scope (marked "EMPTY: no receipts in scope"); else refused (empty_report). */
    allow_empty?: boolean;
  };
  'reports.get': Static<typeof ReportsGetSchema>;
  'reports.diff': Static<typeof ReportsDiffSchema>;
  /** The HTTP service of the main process: whether it runs, where, and its last requests. */
  'service.status': undefined;
  /** Starts the service on 127.0.0.1 (port 0 or absent: any free port); answers the running one when it runs already. */
  'service.start': Static<typeof ServiceStartSchema>;
  'service.stop': undefined;
  /** Payments for API keys the ledger recorded, newest first (`limit`, 200 when absent); never a key. */
  'service.payments': Static<typeof ServicePaymentsSchema>;
  /**
   * Buys an API key on the embedded chain with a development account's test tokens; refused
   * unless the app's service runs on the embedded chain. Answers the transaction's hash.
   */
  'service.buyKey': BuyKeyInput;
  /** Tenants with their quota use in the current period. */
  'tenants.list': undefined;
  'tenants.create': Static<typeof TenantsCreateSchema>;
  /** API keys by prefix (never the keys), of one tenant when given. */
  'apikeys.list': Static<typeof ApiKeysListSchema>;
  /** Issues a key; the answer carries it this once. */
  'apikeys.issue': Static<typeof ApiKeysIssueSchema>;
  'apikeys.revoke': Static<typeof ApiKeysRevokeSchema>;
}

export type AppApiMethod = keyof AppApiParams;
/** A method's input after validation. */
export type AppApiInput<M extends AppApiMethod> = AppApiParams[M];

/** The result type of each method. */
export interface AppApiResults extends AnchorApiResults, ContextApiResults, LogsApiResults {
  info: AppInfo;
  overview: Overview;
  'receipts.list': ReceiptPage;
  'receipts.count': { count: number };
  'receipts.export': ReceiptExportChunk;
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
  'service.payments': PaymentView[];
  'service.buyKey': BuyKeyResult;
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

/**
 * What a transport carries back for one call: the result, or the error envelope. IPC and HTTP
 * both carry this, so the renderer sees the same `code` whichever transport it has.
 */
export type AppApiAnswer<M extends AppApiMethod = AppApiMethod> =
  { ok: true; result: AppApiResults[M] } | { ok: false; error: ErrorEnvelope };
