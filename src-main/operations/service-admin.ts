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
import {
  appendAudit,
  countReceipts,
  findApiKey,
  getTenant,
  insertApiKey,
  insertTenant,
  listApiKeys,
  listTenants,
  quotaUsed,
  revokeApiKey,
  type ApiKeyRecord,
  type TenantRecord,
} from '../ledger';
import { OperationError } from './errors';
import { FREE_RECEIPTS_PER_DAY, PRO_RECEIPTS_PER_MONTH, tenantQuota } from './service-issue';
import type { Workspace } from './workspace';

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
export function createTenant(workspace: Workspace, id: string, tier: Tier): TenantRecord {
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
  return workspace.ledger.runInTransaction((database) => {
    if (getTenant(database, id) !== undefined) {
      throw new OperationError('conflict', 'conflict', `The tenant ${id} exists already.`, {
        details: [{ path: '/id', message: 'exists already' }],
      });
    }
    const tenant = insertTenant(database, { id, tier, at: Date.now() });
    appendAudit(database, 'tenant-create', id, { tier });
    return tenant;
  });
}

/** Every tenant. */
export function tenants(workspace: Workspace): TenantRecord[] {
  return listTenants(workspace.ledger.readable);
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
export function tenantQuotaUse(workspace: Workspace, tenant: TenantRecord, now: Date): QuotaUse {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new TypeError('now must be a valid Date');
  const quota = tenantQuota(tenant, now, { freePerDay: FREE_RECEIPTS_PER_DAY, proPerMonth: PRO_RECEIPTS_PER_MONTH });
  if (quota !== undefined)
    return {
      period: quota.period,
      used: quotaUsed(workspace.ledger.readable, quota.subject, quota.period),
      limit: quota.limit,
    };
  const from = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const to = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  const used = countReceipts(workspace.ledger.readable, {
    source: { kind: 'service', ref: `tenant:${tenant.id}` },
    from,
    to,
  });
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
export function issueApiKey(
  workspace: Workspace,
  tenantId: string,
  scopes: readonly string[] = [],
): { key: string; record: ApiKeyRecord } {
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
  return workspace.ledger.runInTransaction((database) => {
    const tenant = getTenant(database, tenantId);
    if (tenant === undefined)
      throw new OperationError('not_found', 'not_found', `There is no tenant ${tenantId}.`, {
        details: [{ path: '/tenant', message: 'no such tenant' }],
      });
    const random = randomBytes(24).toString('base64url');
    if (random.length !== KEY_RANDOM_LENGTH) throw new Error('unexpected API key length');
    const key = `${API_KEY_PREFIXES[tenant.tier]}${random}`;
    const prefix = `${API_KEY_PREFIXES[tenant.tier]}${random.slice(0, PREFIX_RANDOM_LENGTH)}`;
    const record = insertApiKey(database, {
      key_sha256: keyHash(key),
      prefix,
      tenant_id: tenant.id,
      tier: tenant.tier,
      scopes: [...new Set(scopes)] as ApiKeyScope[],
      at: Date.now(),
    });
    appendAudit(database, 'apikey-issue', prefix, { tenant: tenant.id, tier: tenant.tier, scopes: record.scopes });
    return { key, record };
  });
}

/**
 * API keys by prefix (of one tenant when given).
 *
 * @throws OperationError not_found (a tenant that does not exist)
 */
export function apiKeys(workspace: Workspace, tenantId?: string): ApiKeyRecord[] {
  // A tenant that does not exist is a mistake worth saying, not an empty list.
  if (tenantId !== undefined && getTenant(workspace.ledger.readable, tenantId) === undefined) {
    throw new OperationError('not_found', 'not_found', `There is no tenant ${tenantId}.`, {
      details: [{ path: '/tenant', message: 'no such tenant' }],
    });
  }
  return listApiKeys(workspace.ledger.readable, tenantId);
}

/**
 * Revokes an API key by its prefix.
 *
 * @throws OperationError not_found (no key with this prefix)
 */
export function revokeKeyByPrefix(workspace: Workspace, prefix: string): ApiKeyRecord {
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > 32) {
    throw new OperationError(
      'invalid_input',
      'invalid_request',
      'Name the key by its prefix (as `evroom apikeys list` shows it).',
    );
  }
  return workspace.ledger.runInTransaction((database) => {
    try {
      const record = revokeApiKey(database, prefix, Date.now());
      appendAudit(database, 'apikey-revoke', prefix, { tenant: record.tenant_id });
      return record;
    } catch (error) {
      if (error instanceof Error && (error as { code?: string }).code === 'not_found') {
        throw new OperationError('not_found', 'not_found', `No API key has the prefix ${prefix}.`, {
          details: [{ path: '/prefix', message: 'no such key' }],
        });
      }
      throw error;
    }
  });
}

/**
 * Who a presented API key belongs to.
 *
 * @param presented - The key as sent (after `Bearer `).
 * @param now - The instant to judge a bought key's expiry at (default now).
 * @returns the caller, or undefined for a key that is unknown, revoked or past its term
 */
export function authenticate(workspace: Workspace, presented: string, now: Date = new Date()): Caller | undefined {
  const result = authenticateKey(workspace, presented, now);
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
export function authenticateKey(
  workspace: Workspace,
  presented: string,
  now: Date,
): { caller: Caller } | { expired_at: number } | { unknown: true } {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > MAX_PRESENTED_KEY)
    return { unknown: true };
  const key = findApiKey(workspace.ledger.readable, keyHash(presented));
  if (key === undefined || key.revoked_at !== null) return { unknown: true };
  if (key.expires_at !== undefined && key.expires_at <= now.getTime()) return { expired_at: key.expires_at };
  const tenant = getTenant(workspace.ledger.readable, key.tenant_id);
  return tenant === undefined ? { unknown: true } : { caller: { tenant, key } };
}
