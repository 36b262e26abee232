/**
 * Tenants, API keys (issue, list, revoke, authenticate), quota use, the service's audit rows.
 * Owned by h-identity: the interface below and its two adapters (sqlite-identity.ts, pg-identity.ts).
 *
 * Every write that records an audit row (a tenant created, a key issued or revoked) writes it in
 * the same transaction as the change, so the two commit together or not at all. Authentication
 * reads the database every time (no cache): a key revoked through one node is refused by every
 * node at once. Quota consumption is issuance's (it counts in the transaction that stores the
 * receipt); this domain only reads it.
 */
import type { ApiKeyScope, Tier } from '../../../src-shared/api/vocabulary';
import type { AuditEntry } from '../audit-log';
import type { ApiKeyRecord, TenantRecord } from '../service-state';

export type { ApiKeyRecord, AuditEntry, TenantRecord };

/** A tenant to record. */
export interface NewTenant {
  id: string;
  tier: Tier;
  /** When (ms since the epoch). */
  at: number;
}

/** An operator's API key to store (by its hash; the key itself is never stored). */
export interface NewApiKey {
  /** Lowercase hex SHA-256 of the key's UTF-8 text. */
  key_sha256: string;
  /** The tier prefix and the first random characters: names the key in lists and revocations. */
  prefix: string;
  tenant_id: string;
  /** The tenant's tier (a tenant's tier never changes). */
  tier: Tier;
  scopes: readonly ApiKeyScope[];
  /** When (ms since the epoch). */
  at: number;
}

/** An audit row to append. */
export interface AuditNote {
  /** Lowercase words joined by `-`, e.g. `service-key-rotate`. */
  action: string;
  /** What it was about; may be ''. */
  subject: string;
  /** Any JSON value (default `{}`). */
  details?: unknown;
  /** When (ms; default now). */
  at?: number;
}

/** A page of audit rows. */
export interface AuditPage {
  /** `desc` (default): newest first; `asc`: oldest first. */
  direction?: 'asc' | 'desc';
  /** Continue after this id in that direction. */
  afterId?: number;
  /** 1..1000, default 100. */
  limit?: number;
}

/** What authentication reads for a presented key: the key and its tenant. */
export interface KeyHolder {
  key: ApiKeyRecord;
  tenant: TenantRecord;
}

export interface IdentityStore {
  /**
   * Records a tenant and its `tenant-create` audit row.
   *
   * @returns the tenant; undefined (nothing written) when the id exists already
   * @throws TypeError / RangeError for a bad id, tier or time
   */
  createTenant(tenant: NewTenant): Promise<TenantRecord | undefined>;
  /** One tenant, if it exists. */
  getTenant(id: string): Promise<TenantRecord | undefined>;
  /** Every tenant, by id. */
  listTenants(): Promise<TenantRecord[]>;
  /**
   * Stores an operator's API key (by its hash) and its `apikey-issue` audit row.
   *
   * @returns the key as listed; undefined (nothing written) when the tenant does not exist
   * @throws TypeError / RangeError for bad input or a tier that is not the tenant's; a ledger
   *   constraint error for a hash or prefix stored already
   */
  issueApiKey(key: NewApiKey): Promise<ApiKeyRecord | undefined>;
  /** API keys (never the keys nor their hashes), oldest first; of one tenant when given. */
  listApiKeys(tenantId?: string): Promise<ApiKeyRecord[]>;
  /**
   * The key whose SHA-256 this is, revoked or not, with its tenant: read from the database on
   * every call, never cached.
   */
  findKeyHolder(keySha256: string): Promise<KeyHolder | undefined>;
  /**
   * Revokes a key by its prefix (a key revoked already keeps its first revocation time) and
   * appends its `apikey-revoke` audit row.
   *
   * @returns the key as it now stands; undefined (nothing written) when no key has this prefix
   */
  revokeApiKey(prefix: string, at: number): Promise<ApiKeyRecord | undefined>;
  /** Uses counted for a quota subject (`tenant:<id>`, `ip:<address>`) in a period. */
  quotaUsed(subject: string, period: string): Promise<number>;
  /** Receipts the service issued for a tenant whose issued_at lies in [from, to) (ms). */
  countTenantReceipts(tenantId: string, from: number, to: number): Promise<number>;
  /** Appends one row to the service's hash-chained audit log (audit-log.ts). */
  appendAudit(note: AuditNote): Promise<AuditEntry>;
  /** A page of the service's audit rows by id. */
  listAudit(page?: AuditPage): Promise<AuditEntry[]>;
}

/** The audit row of a tenant created by an operator. */
export function tenantCreatedAudit(tenant: TenantRecord): AuditNote {
  return { action: 'tenant-create', subject: tenant.id, details: { tier: tenant.tier }, at: tenant.created_at };
}

/** The audit row of an operator's key issued. */
export function keyIssuedAudit(key: ApiKeyRecord): AuditNote {
  return {
    action: 'apikey-issue',
    subject: key.prefix,
    details: { tenant: key.tenant_id, tier: key.tier, scopes: key.scopes },
    at: key.created_at,
  };
}

/** The audit row of a key revoked. */
export function keyRevokedAudit(key: ApiKeyRecord, at: number): AuditNote {
  return { action: 'apikey-revoke', subject: key.prefix, details: { tenant: key.tenant_id }, at };
}
