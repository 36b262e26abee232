/**
 * Issued receipts stored with their quota use, wearable nonce and tenant-log leaf in one transaction; the tenants' logs (checkpoints, proofs, cosignatures).
 * Owned by h-issue: the interface below and its two adapters (sqlite-issuance.ts, pg-issuance.ts).
 */

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by h-issue
export interface IssuanceStore {}
