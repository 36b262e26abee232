/**
 * Tenants, API keys (issue, list, revoke, authenticate), quota use, the service's audit rows.
 * Owned by h-identity: the interface below and its two adapters (sqlite-identity.ts, pg-identity.ts).
 */

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by h-identity
export interface IdentityStore {}
