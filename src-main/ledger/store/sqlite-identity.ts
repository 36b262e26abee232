/**
 * The SQLite adapter of identity.ts: the data folder's ledger, through its repositories
 * (service-state.ts, audit-log.ts, receipts.ts), each method one transaction.
 */
import { appendAudit, listAuditEntries } from '../audit-log';
import { countReceipts } from '../receipts';
import {
  findApiKey,
  getTenant,
  insertApiKey,
  insertTenant,
  listApiKeys,
  listTenants,
  quotaUsed,
  revokeApiKey,
} from '../service-state';
import { checkInteger, checkText } from '../checks';
import { LedgerError } from '../errors';
import type { SqliteStoreDeps } from './deps';
import {
  keyIssuedAudit,
  keyRevokedAudit,
  tenantCreatedAudit,
  type AuditNote,
  type IdentityStore,
  type NewApiKey,
} from './identity';
import type { WritableDB } from '../database';

function audit(database: WritableDB, note: AuditNote) {
  return appendAudit(database, note.action, note.subject, note.details, note.at === undefined ? {} : { at: note.at });
}

/** Runs `fn` and resolves with its result, or rejects with what it threw. */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** The identity domain on SQLite. */
export function sqliteIdentity(deps: SqliteStoreDeps): IdentityStore {
  const { ledger } = deps;
  return {
    createTenant: (tenant) =>
      settle(() =>
        ledger.runInTransaction((database) => {
          if (getTenant(database, tenant.id) !== undefined) return undefined;
          const created = insertTenant(database, tenant);
          audit(database, tenantCreatedAudit(created));
          return created;
        }),
      ),
    getTenant: (id) => settle(() => getTenant(ledger.readable, id)),
    listTenants: () => settle(() => listTenants(ledger.readable)),
    issueApiKey: (key: NewApiKey) =>
      settle(() =>
        ledger.runInTransaction((database) => {
          const tenant = getTenant(database, key.tenant_id);
          if (tenant === undefined) return undefined;
          if (tenant.tier !== key.tier)
            throw new RangeError(`key.tier must be the tenant's tier (${tenant.tier}), not ${key.tier}`);
          const record = insertApiKey(database, key);
          audit(database, keyIssuedAudit(record));
          return record;
        }),
      ),
    listApiKeys: (tenantId) => settle(() => listApiKeys(ledger.readable, tenantId)),
    findKeyHolder: (keySha256) =>
      settle(() => {
        // Two reads on the reader, as authentication always did: a tenant row never changes.
        const key = findApiKey(ledger.readable, keySha256);
        if (key === undefined) return undefined;
        const tenant = getTenant(ledger.readable, key.tenant_id);
        return tenant === undefined ? undefined : { key, tenant };
      }),
    revokeApiKey: (prefix, at) =>
      settle(() =>
        ledger.runInTransaction((database) => {
          let record;
          try {
            record = revokeApiKey(database, prefix, at);
          } catch (error) {
            if (error instanceof LedgerError && error.code === 'not_found') return undefined;
            throw error;
          }
          audit(database, keyRevokedAudit(record, at));
          return record;
        }),
      ),
    quotaUsed: (subject, period) => settle(() => quotaUsed(ledger.readable, subject, period)),
    countTenantReceipts: (tenantId, from, to) =>
      settle(() =>
        countReceipts(ledger.readable, {
          source: { kind: 'service', ref: `tenant:${checkText(tenantId, 'tenantId', 64)}` },
          from: checkInteger(from, 'from'),
          to: checkInteger(to, 'to'),
        }),
      ),
    appendAudit: (note) => settle(() => ledger.runInTransaction((database) => audit(database, note))),
    listAudit: (page = {}) => settle(() => listAuditEntries(ledger.readable, page)),
  };
}
