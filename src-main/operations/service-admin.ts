/**
 * Running the service's accounts: tenants, API keys, and who a presented key belongs to.
 *
 * An API key is `svc_<tier>_` + 32 random base64url characters (PROTOCOL section 9). It is shown
 * once, when issued, and stored only as its SHA-256; lists and revocations name it by its
 * prefix (the tier prefix and the first 8 random characters), which cannot be used as a key.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  API_KEY_PREFIXES,
  API_KEY_SCOPES,
  isTenantId,
  TENANT_ID_RULE,
  TIERS,
  type ApiKeyScope,
  type Tier,
} from '../../src-shared/api/vocabulary';
import type { ApiKeyRecord, TenantRecord } from '../ledger';
import { OperationError } from './errors';
import { FREE_RECEIPTS_PER_DAY, PRO_RECEIPTS_PER_MONTH, tenantQuota } from './service-issue';
import type { ServiceStore } from './service-store';

/** Random characters after the tier prefix (32 b64u characters: 192 bits). */
const KEY_RANDOM_LENGTH = 32;
/** Random characters kept in the listed prefix. */
const PREFIX_RANDOM_LENGTH = 8;
/** The longest text taken as an API key (a key is at most 41 characters; anything longer is refused unhashed). */
const MAX_PRESENTED_KEY = 128;

/** Who a key belongs to, as the service sees it. */
export interface Caller {
  tenant: TenantRecord;
  key: ApiKeyRecord;
}

/**
 * Creates a tenant.
 *
 * @throws OperationError invalid_request (bad id or tier), conflict (the id exists).
 */
export async function createTenant(store: ServiceStore, id: string, tier: Tier): Promise<TenantRecord> {
  if (!isTenantId(id)) {
    throw new OperationError(
      'invalid_input',
      'invalid_request',
      `A tenant id is ${TENANT_ID_RULE}, not "${String(id).slice(0, 80)}".`,
      {
        details: [{ path: '/id', message: 'not a tenant id' }],
      },
    );
  }
  if (!(TIERS as readonly string[]).includes(tier)) {
    throw new OperationError('invalid_input', 'invalid_request', `The tier must be one of ${TIERS.join(', ')}.`, {
      details: [{ path: '/tier', message: 'unknown tier' }],
    });
  }
  const tenant = await store.identity.createTenant({ id, tier, at: Date.now() });
  if (tenant === undefined) {
    throw new OperationError('conflict', 'conflict', `The tenant ${id} exists already.`, {
      details: [{ path: '/id', message: 'exists already' }],
    });
  }
  return tenant;
}

/** Every tenant. */
export function tenants(store: ServiceStore): Promise<TenantRecord[]> {
  return store.identity.listTenants();
}

/** A tenant's use of its quota in the current period. */
export interface QuotaUse {
  /** The period: a UTC day `YYYY-MM-DD` (free) or month `YYYY-MM` (the others). */
  period: string;
  /** Receipts counted in the period. */
  used: number;
  /** Receipts allowed in the period; null for the unlimited tiers (scale, enterprise). */
  limit: number | null;
}

/**
 * How much of its quota a tenant used in the period holding `now`, with the service's default limits.
 *
 * Free and pro tenants: the counter the service increments in the transaction that stores each
 * receipt. Scale and enterprise tenants count against no quota, so nothing is counted for them;
 * their use is the receipts the service stored for them that were issued this UTC month.
 */
export async function tenantQuotaUse(store: ServiceStore, tenant: TenantRecord, now: Date): Promise<QuotaUse> {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new TypeError('now must be a valid Date');
  const quota = tenantQuota(tenant, now, { freePerDay: FREE_RECEIPTS_PER_DAY, proPerMonth: PRO_RECEIPTS_PER_MONTH });
  if (quota !== undefined)
    return {
      period: quota.period,
      used: await store.identity.quotaUsed(quota.subject, quota.period),
      limit: quota.limit,
    };
  const from = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const to = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  const used = await store.identity.countTenantReceipts(tenant.id, from, to);
  return { period: now.toISOString().slice(0, 7), used, limit: null };
}

function keyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Issues an API key for a tenant, bound to the tenant's tier.
 *
 * @returns the key (shown this once, never stored) and its record
 * @throws OperationError not_found (no such tenant), invalid_request (an unknown scope)
 */
export async function issueApiKey(
  store: ServiceStore,
  tenantId: string,
  scopes: readonly string[] = [],
): Promise<{ key: string; record: ApiKeyRecord }> {
  for (const scope of scopes) {
    if (!(API_KEY_SCOPES as readonly string[]).includes(scope)) {
      throw new OperationError(
        'invalid_input',
        'invalid_request',
        `Unknown scope "${scope}"; scopes: ${API_KEY_SCOPES.join(', ')}.`,
        {
          details: [{ path: '/scopes', message: 'unknown scope' }],
        },
      );
    }
  }
  const noTenant = () =>
    new OperationError('not_found', 'not_found', `There is no tenant ${tenantId}.`, {
      details: [{ path: '/tenant', message: 'no such tenant' }],
    });
  // A tenant's tier never changes, so the key minted for the tier read here is the tenant's.
  const tenant = typeof tenantId === 'string' ? await store.identity.getTenant(tenantId) : undefined;
  if (tenant === undefined) throw noTenant();
  const random = randomBytes(24).toString('base64url');
  if (random.length !== KEY_RANDOM_LENGTH) throw new Error('unexpected API key length');
  const key = `${API_KEY_PREFIXES[tenant.tier]}${random}`;
  const prefix = `${API_KEY_PREFIXES[tenant.tier]}${random.slice(0, PREFIX_RANDOM_LENGTH)}`;
  const record = await store.identity.issueApiKey({
    key_sha256: keyHash(key),
    prefix,
    tenant_id: tenant.id,
    tier: tenant.tier,
    scopes: [...new Set(scopes)] as ApiKeyScope[],
    at: Date.now(),
  });
  if (record === undefined) throw noTenant();
  return { key, record };
}

/**
 * API keys by prefix (of one tenant when given).
 *
 * @throws OperationError not_found (a tenant that does not exist)
 */
export async function apiKeys(store: ServiceStore, tenantId?: string): Promise<ApiKeyRecord[]> {
  // A tenant that does not exist is a mistake worth saying, not an empty list.
  if (tenantId !== undefined && (await store.identity.getTenant(tenantId)) === undefined) {
    throw new OperationError('not_found', 'not_found', `There is no tenant ${tenantId}.`, {
      details: [{ path: '/tenant', message: 'no such tenant' }],
    });
  }
  return store.identity.listApiKeys(tenantId);
}

/**
 * Revokes an API key by its prefix.
 *
 * @throws OperationError not_found (no key with this prefix)
 */
export async function revokeKeyByPrefix(store: ServiceStore, prefix: string): Promise<ApiKeyRecord> {
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > 32) {
    throw new OperationError(
      'invalid_input',
      'invalid_request',
      'Name the key by its prefix (as `evroom apikeys list` shows it).',
    );
  }
  const record = await store.identity.revokeApiKey(prefix, Date.now());
  if (record === undefined) {
    throw new OperationError('not_found', 'not_found', `No API key has the prefix ${prefix}.`, {
      details: [{ path: '/prefix', message: 'no such key' }],
    });
  }
  return record;
}

/**
 * Who a presented API key belongs to.
 *
 * @param presented - The key as sent (after `Bearer `).
 * @param now - The instant to judge a bought key's expiry at (default now).
 * @returns the caller, or undefined for a key that is unknown, revoked or past its term
 */
export async function authenticate(
  store: ServiceStore,
  presented: string,
  now: Date = new Date(),
): Promise<Caller | undefined> {
  const result = await authenticateKey(store, presented, now);
  return 'caller' in result ? result.caller : undefined;
}

/**
 * Who a presented API key belongs to, telling an expired bought key from an unknown one.
 *
 * @param presented - The key as sent (after `Bearer `).
 * @param now - The instant to judge a bought key's expiry at.
 * @returns `{caller}`; `{expired_at}` (ms) for a key bought on chain whose term ended at or before
 *   `now`; `{unknown: true}` for a key that is unknown or revoked
 */
export async function authenticateKey(
  store: ServiceStore,
  presented: string,
  now: Date,
): Promise<{ caller: Caller } | { expired_at: number } | { unknown: true }> {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > MAX_PRESENTED_KEY)
    return { unknown: true };
  // Read from the store on every request (no cache): a key revoked on any node is refused here at once.
  const holder = await store.identity.findKeyHolder(keyHash(presented));
  if (holder === undefined || holder.key.revoked_at !== null) return { unknown: true };
  const { key, tenant } = holder;
  if (key.expires_at !== undefined && key.expires_at <= now.getTime()) return { expired_at: key.expires_at };
  return { caller: { tenant, key } };
}
