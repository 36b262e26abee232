/**
 * The PostgreSQL adapter of identity.ts (tables of pg-migrations/0002-identity.ts; the issued
 * receipts of 0003-issuance.ts). Each method is one transaction on the pool; input is checked
 * as the SQLite repositories check it, so both engines refuse the same things.
 */
import { isTenantId, TENANT_ID_RULE, TIERS, type ApiKeyScope, type Tier } from '../../../src-shared/api/vocabulary';
import { auditRowHash, GENESIS_SHA256, type AuditEntry } from '../audit-log';
import { checkHex64, checkInstant, checkInteger, checkOneOf, checkText, toJsonText } from '../checks';
import { LedgerError } from '../errors';
import type { PgStoreDeps } from './deps';
import {
  keyIssuedAudit,
  keyRevokedAudit,
  tenantCreatedAudit,
  type ApiKeyRecord,
  type AuditNote,
  type IdentityStore,
  type NewApiKey,
  type NewTenant,
  type TenantRecord,
} from './identity';
import type { PgReader, PgWriter } from './pg-pool';

const ACTION_PATTERN = /^[a-z]+(?:-[a-z]+)*$/;
const MAX_ACTION_LENGTH = 64;
const MAX_SUBJECT_LENGTH = 4096;

/** BIGINT and count(*) come back as text (node-postgres keeps 64-bit integers exact); ours fit a double. */
function int(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

interface TenantRow {
  id: string;
  tier: Tier;
  created_at: string | number;
}

function toTenant(row: TenantRow): TenantRecord {
  return { id: row.id, tier: row.tier, created_at: int(row.created_at) };
}

interface ApiKeyRow {
  prefix: string;
  tenant_id: string;
  tier: Tier;
  scopes: string;
  created_at: string | number;
  revoked_at: string | number | null;
  expires_at: string | number | null;
}

const KEY_COLUMNS = 'prefix, tenant_id, tier, scopes, created_at, revoked_at, expires_at';

function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    prefix: row.prefix,
    tenant_id: row.tenant_id,
    tier: row.tier,
    scopes: JSON.parse(row.scopes) as ApiKeyScope[],
    created_at: int(row.created_at),
    revoked_at: row.revoked_at === null ? null : int(row.revoked_at),
    ...(row.expires_at === null ? {} : { expires_at: int(row.expires_at) }),
  };
}

interface AuditRow {
  id: string | number;
  at: string | number;
  action: string;
  subject: string;
  details: string;
  prev_sha256: string;
  row_sha256: string;
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: int(row.id),
    at: int(row.at),
    action: row.action,
    subject: row.subject,
    details: JSON.parse(row.details) as unknown,
    details_json: row.details,
    prev_sha256: row.prev_sha256,
    row_sha256: row.row_sha256,
  };
}

/** The checks of service-state.ts's insertTenant. */
function checkTenant(tenant: NewTenant): NewTenant {
  if (!isTenantId(tenant.id)) throw new RangeError(`tenant.id must be ${TENANT_ID_RULE}`);
  return {
    id: tenant.id,
    tier: checkOneOf(tenant.tier, TIERS, 'tenant.tier'),
    at: checkInstant(tenant.at, 'tenant.at'),
  };
}

/** The checks of audit-log.ts's appendAudit. */
function checkNote(note: AuditNote): { action: string; subject: string; details: string; at: number } {
  const { action, subject } = note;
  if (typeof action !== 'string') throw new TypeError('action must be a string');
  if (action.length > MAX_ACTION_LENGTH || !ACTION_PATTERN.test(action)) {
    throw new RangeError('action must be lowercase words joined by "-", e.g. "trust-import"');
  }
  if (typeof subject !== 'string') throw new TypeError('subject must be a string');
  if (subject.length > MAX_SUBJECT_LENGTH)
    throw new RangeError(`subject must be at most ${MAX_SUBJECT_LENGTH} characters`);
  return {
    action,
    subject,
    details: toJsonText(note.details === undefined ? {} : note.details, 'details'),
    at: checkInstant(note.at, 'at'),
  };
}

/**
 * Appends one row to the service's audit log inside `writer`'s transaction, so that it commits
 * with the change it records (the payments domain's writes use it too). Take it as the
 * transaction's last statement: it holds the audit table's lock until the commit.
 *
 * @throws TypeError / RangeError for a bad action, subject or details (audit-log.ts's rules)
 */
export function pgAppendAudit(writer: PgWriter, note: AuditNote): Promise<AuditEntry> {
  return appendChecked(writer, checkNote(note));
}

/**
 * Appends a checked audit row inside `writer`'s transaction. The table lock (EXCLUSIVE: reads go on)
 * serializes appends across nodes until this transaction ends, so the row read as the last is
 * the last, and ids run without gaps.
 */
async function appendChecked(
  writer: PgWriter,
  checked: { action: string; subject: string; details: string; at: number },
): Promise<AuditEntry> {
  await writer.query('LOCK TABLE audit_log IN EXCLUSIVE MODE');
  const last = (
    await writer.query<{ id: string; row_sha256: string }>(
      'SELECT id, row_sha256 FROM audit_log ORDER BY id DESC LIMIT 1',
    )
  ).rows[0];
  const row = {
    id: (last === undefined ? 0 : int(last.id)) + 1,
    at: checked.at,
    action: checked.action,
    subject: checked.subject,
    details_json: checked.details,
    prev_sha256: last?.row_sha256 ?? GENESIS_SHA256,
  };
  const rowSha256 = auditRowHash(row);
  await writer.query(
    `INSERT INTO audit_log (id, at, action, subject, details, prev_sha256, row_sha256)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [row.id, row.at, row.action, row.subject, row.details_json, row.prev_sha256, rowSha256],
  );
  return {
    id: row.id,
    at: row.at,
    action: row.action,
    subject: row.subject,
    details: JSON.parse(row.details_json) as unknown,
    details_json: row.details_json,
    prev_sha256: row.prev_sha256,
    row_sha256: rowSha256,
  };
}

async function selectTenant(database: PgReader, id: string): Promise<TenantRecord | undefined> {
  const row = (await database.query<TenantRow>('SELECT id, tier, created_at FROM tenants WHERE id = $1', [id])).rows[0];
  return row === undefined ? undefined : toTenant(row);
}

/** Whether an error is PostgreSQL's unique_violation. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/** The identity domain on PostgreSQL. */
export function pgIdentity(deps: PgStoreDeps): IdentityStore {
  const { pool } = deps;
  return {
    async createTenant(tenant) {
      const checked = checkTenant(tenant);
      return pool.write(async (writer) => {
        const inserted = await writer.query<TenantRow>(
          `INSERT INTO tenants (id, tier, created_at) VALUES ($1, $2, $3)
           ON CONFLICT (id) DO NOTHING RETURNING id, tier, created_at`,
          [checked.id, checked.tier, checked.at],
        );
        const row = inserted.rows[0];
        if (row === undefined) return undefined;
        const created = toTenant(row);
        await pgAppendAudit(writer, tenantCreatedAudit(created));
        return created;
      });
    },

    async getTenant(id) {
      if (typeof id !== 'string') throw new TypeError('id must be a string');
      return pool.read((reader) => selectTenant(reader, id));
    },

    async listTenants() {
      return pool.read(async (reader) =>
        (await reader.query<TenantRow>('SELECT id, tier, created_at FROM tenants ORDER BY id')).rows.map(toTenant),
      );
    },

    async issueApiKey(key: NewApiKey) {
      const keySha256 = checkHex64(key.key_sha256, 'key.key_sha256');
      const prefix = checkText(key.prefix, 'key.prefix', 32);
      const tier = checkOneOf(key.tier, TIERS, 'key.tier');
      const at = checkInstant(key.at, 'key.at');
      if (typeof key.tenant_id !== 'string') throw new TypeError('key.tenant_id must be a string');
      if (!Array.isArray(key.scopes)) throw new TypeError('key.scopes must be an array');
      const scopes = JSON.stringify([...key.scopes]);
      return pool.write(async (writer) => {
        // FOR SHARE: the tenant stays as read until the key is stored.
        const tenantRow = (
          await writer.query<TenantRow>('SELECT id, tier, created_at FROM tenants WHERE id = $1 FOR SHARE', [
            key.tenant_id,
          ])
        ).rows[0];
        if (tenantRow === undefined) return undefined;
        if (tenantRow.tier !== tier)
          throw new RangeError(`key.tier must be the tenant's tier (${tenantRow.tier}), not ${tier}`);
        let row: ApiKeyRow | undefined;
        try {
          row = (
            await writer.query<ApiKeyRow>(
              `INSERT INTO api_keys (key_sha256, prefix, tenant_id, tier, scopes, created_at)
               VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${KEY_COLUMNS}`,
              [keySha256, prefix, key.tenant_id, tier, scopes, at],
            )
          ).rows[0];
        } catch (error) {
          if (isUniqueViolation(error))
            throw new LedgerError('constraint', 'An API key with this hash or prefix is stored already.', {
              cause: error,
            });
          throw error;
        }
        if (row === undefined) throw new Error('INSERT … RETURNING gave no row');
        const record = toApiKey(row);
        await pgAppendAudit(writer, keyIssuedAudit(record));
        return record;
      });
    },

    async listApiKeys(tenantId) {
      if (tenantId !== undefined && typeof tenantId !== 'string') throw new TypeError('tenantId must be a string');
      return pool.read(async (reader) => {
        const result =
          tenantId === undefined
            ? await reader.query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY id`)
            : await reader.query<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 ORDER BY id`, [
                tenantId,
              ]);
        return result.rows.map(toApiKey);
      });
    },

    async findKeyHolder(keySha256) {
      const hash = checkHex64(keySha256, 'keySha256');
      // One statement, no cache: a key revoked through any node is refused here at once.
      const row = await pool.read(
        async (reader) =>
          (
            await reader.query<ApiKeyRow & { tenant_tier: Tier; tenant_created_at: string | number }>(
              `SELECT k.prefix, k.tenant_id, k.tier, k.scopes, k.created_at, k.revoked_at, k.expires_at,
                      t.tier AS tenant_tier, t.created_at AS tenant_created_at
               FROM api_keys AS k JOIN tenants AS t ON t.id = k.tenant_id
               WHERE k.key_sha256 = $1`,
              [hash],
            )
          ).rows[0],
        { isolation: 'read committed' },
      );
      if (row === undefined) return undefined;
      return {
        key: toApiKey(row),
        tenant: { id: row.tenant_id, tier: row.tenant_tier, created_at: int(row.tenant_created_at) },
      };
    },

    async revokeApiKey(prefix, at) {
      checkText(prefix, 'prefix', 32);
      const when = checkInstant(at, 'at');
      return pool.write(async (writer) => {
        // COALESCE keeps the first revocation's time; the row lock orders concurrent revocations.
        const row = (
          await writer.query<ApiKeyRow>(
            `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE prefix = $1 RETURNING ${KEY_COLUMNS}`,
            [prefix, when],
          )
        ).rows[0];
        if (row === undefined) return undefined;
        const record = toApiKey(row);
        await pgAppendAudit(writer, keyRevokedAudit(record, when));
        return record;
      });
    },

    async quotaUsed(subject, period) {
      if (typeof subject !== 'string' || typeof period !== 'string')
        throw new TypeError('subject and period must be strings');
      return pool.read(async (reader) => {
        const row = (
          await reader.query<{ used: string | number }>(
            'SELECT used FROM quota_usage WHERE subject = $1 AND period = $2',
            [subject, period],
          )
        ).rows[0];
        return row === undefined ? 0 : int(row.used);
      });
    },

    async countTenantReceipts(tenantId, from, to) {
      const ref = `tenant:${checkText(tenantId, 'tenantId', 64)}`;
      const lower = checkInteger(from, 'from');
      const upper = checkInteger(to, 'to');
      return pool.read(async (reader) => {
        const row = (
          await reader.query<{ n: string | number }>(
            'SELECT count(*) AS n FROM issued_receipts WHERE ref = $1 AND issued_at >= $2 AND issued_at < $3',
            [ref, lower, upper],
          )
        ).rows[0];
        return row === undefined ? 0 : int(row.n);
      });
    },

    async appendAudit(note) {
      const checked = checkNote(note);
      return pool.write((writer) => appendChecked(writer, checked));
    },

    async listAudit(page = {}) {
      const direction =
        page.direction === undefined ? 'desc' : checkOneOf(page.direction, ['asc', 'desc'] as const, 'direction');
      const limit = page.limit === undefined ? 100 : checkInteger(page.limit, 'limit', 1, 1000);
      const after = page.afterId === undefined ? undefined : checkInteger(page.afterId, 'afterId');
      return pool.read(async (reader) => {
        const result =
          direction === 'asc'
            ? await reader.query<AuditRow>('SELECT * FROM audit_log WHERE id > $1 ORDER BY id ASC LIMIT $2', [
                after ?? 0,
                limit,
              ])
            : await reader.query<AuditRow>('SELECT * FROM audit_log WHERE id < $1 ORDER BY id DESC LIMIT $2', [
                after ?? Number.MAX_SAFE_INTEGER,
                limit,
              ]);
        return result.rows.map(toEntry);
      });
    },
  };
}
