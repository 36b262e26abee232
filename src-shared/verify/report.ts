/**
 * The verification report (PROTOCOL section 1).
 *
 * Every verifier (library, CLI, service routes, app) returns this object. `status` is the
 * cryptographic result only; `trust` is a separate judgement about the signing key, and the two
 * are never merged.
 */
import { FINGERPRINT_KEY_ID_PREFIX } from '../crypto/fingerprint';

export const REPORT_VERSION = '1';

export type ReportFormat =
  | 'wearable/r2.0.0'
  | 'profile/nano'
  | 'profile/standard'
  | 'profile/pq'
  | 'legacy/proof_tier'
  | 'envelope/svc-receipt-v1'
  | 'classical'
  | 'countersigner'
  | 'sealed'
  | `typed/${string}`
  | 'typed-pq'
  | 'sigr-chain-pq'
  | 'hahs'
  | 'smsh-stamp'
  | 'spectral'
  | 'anchor'
  | 'report'
  | 'unknown';

/** Report statuses, strongest first: when several apply the earliest in this list wins. */
export const STATUS_PRECEDENCE = [
  'MALFORMED',
  'UNSUPPORTED',
  'AUTH_FAILED',
  'MISMATCH',
  'INVALID',
  'INDETERMINATE',
  'PASS',
] as const;
export type ReportStatus = (typeof STATUS_PRECEDENCE)[number];

/** Every trust judgement a report can carry (PROTOCOL section 1), in the order views list them. */
export const TRUST_STATUSES = ['trusted', 'unpinned', 'revoked', 'expired', 'unattributed', 'not_applicable'] as const;
export type TrustStatus = (typeof TRUST_STATUSES)[number];

export interface TrustResult {
  status: TrustStatus;
  /** The key id of the signing key, when it has one. */
  key_id?: string;
  /** The label the user gave the pinned key. */
  label?: string;
  /**
   * For `unattributed` trust only: the key the document names (or the did:key of the key it
   * embeds), which did not sign what is here. Never the signer's key id, never counted as one.
   */
  claimed_key_id?: string;
  /**
   * The fingerprint of the key this trust is about (for `unattributed`, the claimed key's), to
   * read aloud to the sender: `keyFingerprint` in src-shared/crypto/fingerprint.ts. Present
   * whenever the key's bytes were known (pinned, did:key, advertised or embedded).
   */
  key_fingerprint?: string;
  /** Why the trust is what it is, in one sentence for people. */
  detail?: string;
}

export type CheckStatus = 'pass' | 'fail' | 'unavailable' | 'unchecked' | 'unsupported';

export interface Check {
  /** A stable identifier such as `schema`, `signature`, `payload_sha256`, `raw_payload`. */
  id: string;
  status: CheckStatus;
  detail?: string;
}

export interface ReportError {
  /** A stable machine code such as `duplicate_name`, `unknown_property`, `digest_mismatch`. */
  code: string;
  /** JSON Pointer (RFC 6901) to the offending value; `""` for the whole document. */
  path: string;
  message: string;
}

export interface Report {
  report_version: typeof REPORT_VERSION;
  format: ReportFormat;
  status: ReportStatus;
  trust: TrustResult;
  checks: Check[];
  errors: ReportError[];
  notes: string[];
  /**
   * The report of the document found inside this one, when there is one: a sealed document's
   * decrypted plaintext. The outer report keeps its own `format` (`sealed`); its `status` and
   * `trust` are the inner report's once decryption succeeded.
   */
  inner?: Report;
}

/**
 * A Report already serialized, with the fields that are stored or counted beside it. Producers
 * (the verification workers) guarantee the fields are the report's own; the ledger stores the
 * text as is.
 */
/** The report statuses under which a named key did not sign what is here (PROTOCOL section 1). */
export const UNATTRIBUTED_STATUSES: readonly ReportStatus[] = ['MISMATCH', 'INVALID'];

/**
 * The trust a report carries once its status is known (PROTOCOL section 1): trust is judged only
 * for a signature that verifies over the content present. A MISMATCH or INVALID report whose
 * document names or embeds a key is `unattributed`, with that key kept as `claimed_key_id`; any
 * other report keeps its trust.
 *
 * @param status - The report's status.
 * @param trust - The trust the format judged.
 * @param claimedKeyId - The key the document names (from the format's facts), if any.
 * @returns The trust the report must carry.
 * @example attributedTrust('MISMATCH', { status: 'trusted', key_id: 'k1' }).status // 'unattributed'
 */
export function attributedTrust(status: ReportStatus, trust: TrustResult, claimedKeyId?: string | null): TrustResult {
  if (!UNATTRIBUTED_STATUSES.includes(status)) return trust;
  if (trust.status === 'unattributed') return trust;
  // A key without a name (an inline ML-DSA-65 key) is claimed by its fingerprint's key id.
  const claimed =
    trust.key_id ??
    claimedKeyId ??
    (trust.key_fingerprint === undefined ? undefined : `${FINGERPRINT_KEY_ID_PREFIX}${trust.key_fingerprint}`);
  if (claimed === undefined && trust.status === 'not_applicable') return trust;
  const result: TrustResult = {
    status: 'unattributed',
    detail:
      claimed === undefined
        ? 'The document names a key, but that key did not sign what is here.'
        : `The document names ${claimed}, but that key did not sign what is here.`,
  };
  if (claimed !== undefined) result.claimed_key_id = claimed;
  if (trust.key_fingerprint !== undefined) result.key_fingerprint = trust.key_fingerprint;
  return result;
}

export interface SerializedReport {
  /** JSON text of the Report. */
  json: string;
  format: string;
  status: ReportStatus;
  trust: { status: TrustStatus; key_id?: string };
}
