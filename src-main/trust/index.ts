/**
 * The pinned-key trust store.
 *
 * @example
 * const trust = createTrustStore(ledger);
 * trust.pin({ key_id, algorithm: 'Ed25519', public_key, label: 'Acme service key' });
 * const pinned = trust.pinnedEntries(); // for VerifyContext.pinned
 */
export { TrustError, type TrustErrorCode } from './errors';
export {
  createTrustStore,
  type AdvertisedKey,
  type TrustImportCounts,
  type PinInput,
  type TrustedKey,
  type TrustStore,
} from './trust-store';
export { checkOptionalRoles, MAX_REASON_LENGTH, MAX_SOURCE_LENGTH } from './validate';
