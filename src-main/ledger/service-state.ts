/**
 * Repository for the HTTP service's state: tenants, API keys (as SHA-256 only), quota usage and
 * wearable observation nonces (migration 3).
 *
 * Quota use is counted with one conditional upsert, so a check and its increment cannot be
 * split by another request: a receipt is counted in the transaction that stores it, or refused.
 */
import { isTenantId, TENANT_ID_RULE, TIERS, type ApiKeyScope, type Tier } from '../../src-shared/api/vocabulary';
import { checkHex64, checkInstant, checkInteger, checkOneOf, checkText } from './checks';
import { execute, queryAll, queryOne, type ReadableDB, type WritableDB } from './database';
import { LedgerError } from './errors';
import { sql } from './sql';

/** A tenant of the service. */
export interface TenantRecord {
  id: string;
  tier: Tier;
  created_at: number;
}

/** An API key as listed: never the key itself, nor its hash. */
export interface ApiKeyRecord {
  prefix: string;
  tenant_id: string;
  tier: Tier;
  scopes: ApiKeyScope[];
  created_at: number;
  revoked_at: number | null;
  /** When a key bought on chain stops working (ms since the epoch); absent for an operator's key. */
  expires_at?: number;
}

/**
 * Records a tenant.
 *
 * @throws LedgerError `constraint` when the id exists already; TypeError/RangeError for bad input.
 */
export function insertTenant(database: WritableDB, tenant: { id: string; tier: Tier; at: number }): TenantRecord {
  if (!isTenantId(tenant.id)) throw new RangeError(`tenant.id must be ${TENANT_ID_RULE}`);
  const tier = checkOneOf(tenant.tier, TIERS, 'tenant.tier');
  const at = checkInstant(tenant.at, 'tenant.at');
  execute(database, sql`INSERT INTO tenants (id, tier, created_at) VALUES (${tenant.id}, ${tier}, ${at})`);
  return { id: tenant.id, tier, created_at: at };
}

/** One tenant, if it exists. */
export function getTenant(database: ReadableDB, id: string): TenantRecord | undefined {
  if (typeof id !== 'string') throw new TypeError('id must be a string');
  return queryOne<TenantRecord>(database, sql`SELECT id, tier, created_at FROM tenants WHERE id = ${id}`);
}

/** Every tenant, by id. */
export function listTenants(database: ReadableDB): TenantRecord[] {
  return queryAll<TenantRecord>(database, sql`SELECT id, tier, created_at FROM tenants ORDER BY id`);
}

interface ApiKeyRow {
  prefix: string;
  tenant_id: string;
  tier: Tier;
  scopes: string;
  created_at: number;
  revoked_at: number | null;
  expires_at: number | null;
}

function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  const { expires_at: expiresAt, ...rest } = row;
  return {
    ...rest,
    scopes: JSON.parse(row.scopes) as ApiKeyScope[],
    ...(expiresAt === null ? {} : { expires_at: expiresAt }),
  };
}

/**
 * Stores a new API key by its hash.
 *
 * @throws LedgerError `constraint` for an unknown tenant or a hash or prefix already stored.
 */
export function insertApiKey(
  database: WritableDB,
  key: {
    key_sha256: string;
    prefix: string;
    tenant_id: string;
    tier: Tier;
    scopes: readonly ApiKeyScope[];
    at: number;
    /** The transaction a bought key was issued for (one key per transaction: UNIQUE). */
    payment_tx?: string;
    /** When a bought key stops working. */
    expires_at?: number;
  },
): ApiKeyRecord {
  const keySha256 = checkHex64(key.key_sha256, 'key.key_sha256');
  const prefix = checkText(key.prefix, 'key.prefix', 32);
  const tier = checkOneOf(key.tier, TIERS, 'key.tier');
  const at = checkInstant(key.at, 'key.at');
  if (!Array.isArray(key.scopes)) throw new TypeError('key.scopes must be an array');
  const scopes = JSON.stringify([...key.scopes]);
  const paymentTx = key.payment_tx === undefined ? null : checkText(key.payment_tx, 'key.payment_tx', 140);
  const expiresAt = key.expires_at === undefined ? null : checkInteger(key.expires_at, 'key.expires_at');
  execute(
    database,
    sql`INSERT INTO api_keys (key_sha256, prefix, tenant_id, tier, scopes, created_at, payment_tx, expires_at)
        VALUES (${keySha256}, ${prefix}, ${key.tenant_id}, ${tier}, ${scopes}, ${at}, ${paymentTx}, ${expiresAt})`,
  );
  return {
    prefix,
    tenant_id: key.tenant_id,
    tier,
    scopes: [...key.scopes],
    created_at: at,
    revoked_at: null,
    ...(expiresAt === null ? {} : { expires_at: expiresAt }),
  };
}

/** The key whose SHA-256 this is, revoked or not. */
export function findApiKey(database: ReadableDB, keySha256: string): ApiKeyRecord | undefined {
  const row = queryOne<ApiKeyRow>(
    database,
    sql`SELECT prefix, tenant_id, tier, scopes, created_at, revoked_at, expires_at FROM api_keys WHERE key_sha256 = ${checkHex64(keySha256, 'keySha256')}`,
  );
  return row === undefined ? undefined : toApiKey(row);
}

/** API keys (prefixes only), oldest first; of one tenant when given. */
export function listApiKeys(database: ReadableDB, tenantId?: string): ApiKeyRecord[] {
  const rows =
    tenantId === undefined
      ? queryAll<ApiKeyRow>(
          database,
          sql`SELECT prefix, tenant_id, tier, scopes, created_at, revoked_at, expires_at FROM api_keys ORDER BY id`,
        )
      : queryAll<ApiKeyRow>(
          database,
          sql`SELECT prefix, tenant_id, tier, scopes, created_at, revoked_at, expires_at FROM api_keys WHERE tenant_id = ${tenantId} ORDER BY id`,
        );
  return rows.map(toApiKey);
}

/**
 * Revokes a key by its prefix.
 *
 * @returns the key as it now stands
 * @throws LedgerError `not_found` when no key has this prefix
 */
export function revokeApiKey(database: WritableDB, prefix: string, at: number): ApiKeyRecord {
  checkText(prefix, 'prefix', 32);
  const when = checkInstant(at, 'at');
  execute(database, sql`UPDATE api_keys SET revoked_at = ${when} WHERE prefix = ${prefix} AND revoked_at IS NULL`);
  const row = queryOne<ApiKeyRow>(
    database,
    sql`SELECT prefix, tenant_id, tier, scopes, created_at, revoked_at, expires_at FROM api_keys WHERE prefix = ${prefix}`,
  );
  if (row === undefined) throw new LedgerError('not_found', `No API key has the prefix ${prefix}.`);
  return toApiKey(row);
}

/**
 * Counts one use against a quota, unless it is used up.
 *
 * @param subject - Whose quota: `tenant:<id>` or `ip:<address>`.
 * @param period - The quota's window: a UTC day `YYYY-MM-DD` or month `YYYY-MM`.
 * @param limit - Uses allowed in the period.
 * @returns `allowed: false` (nothing counted) when `limit` uses were counted already.
 */
export function consumeQuota(
  database: WritableDB,
  subject: string,
  period: string,
  limit: number,
): { allowed: boolean; used: number } {
  checkText(subject, 'subject', 256);
  checkText(period, 'period', 10);
  const max = checkInteger(limit, 'limit', 0);
  const row = queryOne<{ used: number }>(
    database,
    sql`INSERT INTO quota_usage (subject, period, used) SELECT ${subject}, ${period}, 1 WHERE ${max} >= 1
        ON CONFLICT (subject, period) DO UPDATE SET used = used + 1 WHERE used < ${max}
        RETURNING used`,
  );
  if (row !== undefined) return { allowed: true, used: row.used };
  return { allowed: false, used: quotaUsed(database, subject, period) };
}

/** Uses counted for a subject in a period. */
export function quotaUsed(database: ReadableDB, subject: string, period: string): number {
  return (
    queryOne<{ used: number }>(
      database,
      sql`SELECT used FROM quota_usage WHERE subject = ${subject} AND period = ${period}`,
    )?.used ?? 0
  );
}

/**
 * Records that an observation nonce was used for a device commitment.
 *
 * @returns false (nothing recorded) when it was used before
 */
export function recordWearableNonce(
  database: WritableDB,
  use: { device_id_commitment_sha256: string; observation_nonce: string; receipt_sha256: string; at: number },
): boolean {
  const result = execute(
    database,
    sql`INSERT INTO wearable_nonces (device_id_commitment_sha256, observation_nonce, receipt_sha256, used_at)
        VALUES (${checkHex64(use.device_id_commitment_sha256, 'device_id_commitment_sha256')}, ${checkText(use.observation_nonce, 'observation_nonce', 256)},
                ${checkHex64(use.receipt_sha256, 'receipt_sha256')}, ${checkInstant(use.at, 'at')})
        ON CONFLICT DO NOTHING`,
  );
  return result.changes === 1;
}
