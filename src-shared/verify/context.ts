/**
 * What a verifier is given besides the document: crypto, keys, secrets and the clock.
 */
import type { CryptoProvider } from '../crypto/provider';

export type KeyAlgorithm = 'Ed25519' | 'ML-DSA-65';

/**
 * One public key, as read from a key file, a trust store, a bundle's keys/ or /v1/keys
 * (PROTOCOL section 0). In the trust store `status` and `label` mean something; elsewhere
 * they are ignored.
 */
export interface KeyEntry {
  key_id: string;
  algorithm: KeyAlgorithm;
  public_key: Uint8Array;
  label?: string;
  /** TS (PROTOCOL section 0); the key is not valid before this instant. */
  not_before?: string;
  /** TS; the key is not valid after this instant. */
  not_after?: string;
  status?: 'pinned' | 'revoked';
  /**
   * The roles this key signs for (PROTOCOL section 0), e.g. `["service"]`; absent means any.
   * A pinned key used for a role it does not list is not `trusted` for that signature.
   */
  roles?: readonly SignerRole[];
}

/**
 * The roles a signature can be made in: an envelope's three (PROTOCOL section 4); `service` is
 * also the role of the one issuer of every other format (profile, wearable, typed, classical,
 * countersigner, typed-pq receipts, evidence bundle manifests); `auditor` signs audit reports.
 */
export const SIGNER_ROLES = ['requester', 'operator', 'service', 'auditor'] as const;
/** One of {@link SIGNER_ROLES}. */
export type SignerRole = (typeof SIGNER_ROLES)[number];

/** One AES-256-GCM secret for sealed documents (PROTOCOL section 5). */
export interface SecretEntry {
  key_id: string;
  /** 32 bytes. */
  key: Uint8Array;
}

export interface VerifyContext {
  crypto: CryptoProvider;
  /** The user's trust store: only these keys can make trust `trusted`. */
  pinned: readonly KeyEntry[];
  /**
   * Keys that came with the input (a `--keys` file, a bundle's keys/, /v1/keys). They can
   * make a signature check pass but never make trust `trusted`.
   */
  advertised: readonly KeyEntry[];
  /** Secrets for sealed documents. */
  secrets: readonly SecretEntry[];
  /** The instant validity windows are judged at. */
  now: Date;
}

/**
 * Make a verification context with empty key lists and the current time, overridable.
 *
 * @param crypto - The crypto provider.
 * @param options - Any fields to set instead of the defaults.
 * @returns A context.
 * @throws TypeError if `crypto` is not a provider object.
 */
export function createVerifyContext(
  crypto: CryptoProvider,
  options: Partial<Omit<VerifyContext, 'crypto'>> = {},
): VerifyContext {
  if (typeof crypto !== 'object' || crypto === null) throw new TypeError('createVerifyContext needs a CryptoProvider');
  return {
    crypto,
    pinned: options.pinned ?? [],
    advertised: options.advertised ?? [],
    secrets: options.secrets ?? [],
    now: options.now ?? new Date(),
  };
}
