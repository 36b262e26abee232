/**
 * One vocabulary for every layer: each list of words the ledger stores, the contract carries and
 * the renderer shows is defined here (or in the verifier's report module, which this re-exports)
 * and nowhere else.
 *
 * The ledger's first migration spells some of these lists in SQL CHECK constraints; migrations are
 * history and stay as written, and a test holds them equal to these lists.
 */
import type { ReportStatus, TrustResult, TrustStatus } from '../verify/report';
import type { KeyAlgorithm } from '../verify/context';

export {
  STATUS_PRECEDENCE as REPORT_STATUSES,
  TRUST_STATUSES,
  type ReportFormat,
  type ReportStatus,
  type TrustStatus,
} from '../verify/report';
export { KEY_ALGORITHMS } from '../verify/keys';
export type { KeyAlgorithm } from '../verify/context';

/**
 * Actions the audit log records. The ledger accepts other actions spelled like these (lowercase
 * words joined by `-`), so a new feature does not need a schema change; name it here first.
 */
export const AUDIT_ACTIONS = [
  'import',
  'pin',
  'unpin',
  'revoke',
  'label',
  'validity',
  'advertise',
  'export',
  'report',
  'trust-import',
  'trust-export',
  'reverify',
  'tenant-create',
  'apikey-issue',
  'apikey-revoke',
  'service-key-rotate',
  'payment-record',
  'payment-issue',
  'payment-deliver',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The audit actions that are trust decisions (the Trust view's audit list). */
export const TRUST_AUDIT_ACTIONS: readonly AuditAction[] = [
  'pin',
  'unpin',
  'revoke',
  'label',
  'validity',
  'trust-import',
  'trust-export',
];

/** A bundle in the ledger: `partial` until every receipt batch of its import committed. */
export const BUNDLE_STATUSES = ['complete', 'partial'] as const;
export type BundleStatus = (typeof BUNDLE_STATUSES)[number];

/** Where a stored receipt came from. */
export const SOURCE_KINDS = ['file', 'bundle', 'paste', 'service'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The outcomes of checking a bundle's manifest.sig (see {@link SignatureCheck}). */
export const SIGNATURE_CHECK_STATUSES = [
  'valid',
  'invalid',
  'mismatch',
  'unavailable',
  'unsupported',
  'malformed',
  'missing',
] as const;
export type SignatureCheckStatus = (typeof SIGNATURE_CHECK_STATUSES)[number];

/** The outcome of checking manifest.sig. */
export interface SignatureCheck {
  /**
   * `valid`: the signature verifies over the manifest's digest; `invalid`: it does not;
   * `mismatch`: manifest_sha256 is not the digest of manifest.json; `unavailable`: no key was
   * found for the key id; `unsupported`: the key or signature is not Ed25519; `malformed`:
   * manifest.sig breaks its schema; `missing`: there is no manifest.sig.
   */
  status: SignatureCheckStatus;
  /** The signing key's id, when manifest.sig names one. */
  key_id?: string;
  /** Trust in that key (PROTOCOL section 1); `not_applicable` when no key was used. */
  trust: TrustResult;
  /** hex SHA-256 of manifest.json's bytes. */
  manifest_sha256: string;
  /** One sentence for people. */
  detail: string;
}

/** Stable codes of a bundle {@link Finding}. */
export const FINDING_CODES = [
  'file_missing',
  'file_extra',
  'file_mismatch',
  'unexpected_file',
  'count_mismatch',
  'manifest_signature_missing',
  'manifest_signature_malformed',
  'manifest_signature_mismatch',
  'manifest_signature_unavailable',
  'manifest_signature_unsupported',
  'manifest_signature_invalid',
  'manifest_key_mismatch',
  'keys_invalid',
  'anchors_invalid',
  'receipt_not_pass',
  'receipt_name_mismatch',
  'log_checkpoint_invalid',
  'log_key_unknown',
  'log_evidence_invalid',
  'log_proof_invalid',
  'log_leaf_missing',
  'log_leaf_duplicate',
  'log_leaf_order',
  'log_receipt_unlogged',
  'log_boundary_invalid',
  'log_checkpoint_stale',
  'log_split_view',
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

/** Something wrong with an imported bundle that did not stop the import. */
export interface Finding {
  code: FindingCode;
  /** The file concerned (a zip entry name), or '' for the bundle as a whole. */
  path: string;
  message: string;
}

/** Counts of a bundle import. */
export interface ImportCounts {
  /** Files (not directories) in the zip. */
  files: number;
  /** Receipt files read. */
  receipts: number;
  /** Receipts this import stored for the first time. */
  receiptsNew: number;
  /** Receipts that were already in the ledger (from an earlier import or earlier in this bundle). */
  receiptsKnown: number;
  byStatus: Partial<Record<ReportStatus, number>>;
  byTrust: Partial<Record<TrustStatus, number>>;
  /** Anchor records read from valid anchors files. */
  anchors: number;
  anchorsNew: number;
  /** Keys listed in keys/service-keys.json (recorded as advertised, never trusted). */
  advertisedKeys: number;
}

/**
 * A key that came with some input (a bundle, a key file, the samples): it verifies signatures
 * and is never trusted. `Bytes` is `Uint8Array` inside the main process and base64url text on
 * the wire.
 */
export interface AdvertisedKeyOf<Bytes> {
  key_id: string;
  algorithm: KeyAlgorithm;
  public_key: Bytes;
  not_before?: string;
  not_after?: string;
  /** Where it came from, e.g. `bundle:12`, a file path, `samples`. */
  source: string;
  /** When it was first recorded from that source (ms since the epoch). */
  added_at: number;
  /**
   * True when the trust store holds this key_id with other key bytes: the input advertised a
   * key that contradicts what the user pinned. Worth a warning in every view.
   */
  contradictsTrustStore: boolean;
}

/**
 * A tenant id of the service: 1 to 64 of A-Z a-z 0-9 . _ -. It appears in URLs
 * (`/tenants/:id/...`) and file names. The ledger (insertTenant), the app API, the HTTP routes'
 * JSON Schema and the renderer's form all check this one pattern; the ledger's migration 3 spells
 * it in SQL and stays as written. An evidence bundle's `tenant_id` is a different, looser rule
 * (src-shared/evidence/manifest.ts, isManifestTenantId).
 */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** {@link TENANT_ID_PATTERN} in words, for messages. */
export const TENANT_ID_RULE = '1 to 64 characters from A-Z a-z 0-9 . _ -';

/**
 * Whether a value is a tenant id of the service ({@link TENANT_ID_PATTERN}).
 *
 * @param value - Anything.
 * @returns True for a string the pattern accepts.
 */
export function isTenantId(value: unknown): value is string {
  return typeof value === 'string' && TENANT_ID_PATTERN.test(value);
}

/** Service tiers (spec section 8): each API key is bound to one tenant and its tier. */
export const TIERS = ['free', 'pro', 'scale', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

/** The prefix of each tier's API keys (spec section 5; the free tier has no key of its own). */
export const API_KEY_PREFIXES: Readonly<Record<Tier, string>> = {
  free: 'svc_free_',
  pro: 'svc_pro_',
  scale: 'svc_scale_',
  enterprise: 'svc_ent_',
};

/** Scopes an API key may carry: `partner` opens the pilot routes (PROTOCOL section 10). */
export const API_KEY_SCOPES = ['partner'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
