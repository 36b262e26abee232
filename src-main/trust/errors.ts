/**
 * The trust store's error type.
 */
import { DomainError } from '../../src-shared/api/domain-error';

/** Stable codes of {@link TrustError}. */
export type TrustErrorCode =
  /** No pinned or revoked key has this key_id. */
  | 'unknown_key'
  /** The key_id is pinned with other key bytes (or another algorithm): unpin it first. */
  | 'key_conflict'
  /**
   * The key is pinned already, with another label or validity window (use label/setValidity), or
   * with other roles (unpin it first: roles change only by unpinning and pinning again).
   */
  | 'already_pinned'
  /** The key_id is revoked: pinning it again needs an explicit unpin first. */
  | 'key_revoked'
  /** The key is revoked already. */
  | 'already_revoked'
  /** The key_id is not did:svc, did:web or a decodable did:key (PROTOCOL section 0). */
  | 'invalid_key_id'
  /** The algorithm is not Ed25519 or ML-DSA-65. */
  | 'invalid_algorithm'
  /** The public key has the wrong length for its algorithm (Ed25519 32, ML-DSA-65 1952 bytes). */
  | 'invalid_public_key'
  /** A did:key id names other key bytes than the entry carries. */
  | 'did_key_mismatch'
  /** not_before / not_after is not a TS (`YYYY-MM-DDThh:mm:ss[.f{1,9}]Z`). */
  | 'invalid_timestamp'
  /** not_after is before not_before. */
  | 'invalid_window'
  /** The label is empty, longer than 256 characters, or has control characters. */
  | 'invalid_label'
  /** The revocation reason is too long or has control characters. */
  | 'invalid_reason'
  /** Roles are not a non-empty list of distinct role names (PROTOCOL section 0). */
  | 'invalid_roles'
  /** The source name is empty or too long. */
  | 'invalid_source'
  /** A key file does not parse or validate; `path` points at the problem. */
  | 'invalid_key_file';

/**
 * A trust-store operation refused, with a stable code and a sentence for people.
 *
 * Whenever a TrustError is thrown, nothing was changed.
 */
export class TrustError extends DomainError {
  override readonly code: TrustErrorCode;
  /** For `invalid_key_file` and entry errors: a JSON Pointer to the offending value. */
  readonly path: string | undefined;
  constructor(code: TrustErrorCode, message: string, options?: { path?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TrustError';
    this.code = code;
    this.path = options?.path;
  }
}
