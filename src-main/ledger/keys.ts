/**
 * Repository for `keys`: the trust store (pinned and revoked keys) and the advertised keys.
 *
 * This module stores and reads rows; the rules (what may be pinned, when re-pinning is
 * refused, which changes are audited) live in src-main/trust, which is the only intended
 * caller of the writing functions. A pinned or revoked row is unique per key_id. Advertised
 * rows (keys that came with a bundle, a key file or the service) are kept per (key_id, source,
 * key bytes), never consulted for trust, and may contradict the trust store: that is worth
 * showing, not hiding.
 */
import { KEY_ALGORITHMS, type KeyAlgorithm } from '../../src-shared/api/vocabulary';
import { SIGNER_ROLES, type SignerRole } from '../../src-shared/verify/context';
import { checkInstant, checkObject, checkOneOf, checkOptionalText, checkText } from './checks';
import { execute, queryAll, queryOne, type ReadableDB, type WritableDB } from './database';
import { LedgerError } from './errors';
import { sql } from './sql';

export const KEY_STATUSES = ['pinned', 'revoked', 'advertised'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];
/** Statuses of rows that form the trust store. */
export type TrustStoreStatus = Exclude<KeyStatus, 'advertised'>;
export { KEY_ALGORITHMS };
/** Public key length in bytes per algorithm (Ed25519: RFC 8032; ML-DSA-65: FIPS 204). */
export const PUBLIC_KEY_LENGTHS: Readonly<Record<KeyAlgorithm, number>> = { Ed25519: 32, 'ML-DSA-65': 1952 };
/** The longest key_id stored (a did:web with a path can be long, not this long). */
export const MAX_KEY_ID_LENGTH = 2048;

/** A stored key row. */
export interface KeyRecord {
  id: number;
  key_id: string;
  algorithm: KeyAlgorithm;
  public_key: Uint8Array;
  label: string | null;
  /** TS (PROTOCOL section 0) as given. */
  not_before: string | null;
  not_after: string | null;
  status: KeyStatus;
  /** Where it came from: 'user', 'import', 'service', 'bundle:<id>', a file path, ... */
  source: string;
  added_at: number;
  revoked_at: number | null;
  revocation_reason: string | null;
  /**
   * The roles a trust-store key signs for, in {@link SIGNER_ROLES} order; null for every role
   * (and always null for advertised keys).
   */
  roles: SignerRole[] | null;
}

/** The fields written for a key row. */
export interface KeyFields {
  key_id: string;
  algorithm: KeyAlgorithm;
  public_key: Uint8Array;
  label?: string | null;
  not_before?: string | null;
  not_after?: string | null;
  status: KeyStatus;
  source: string;
  revoked_at?: number | null;
  revocation_reason?: string | null;
  /** The roles a trust-store key signs for; null or absent for every role. Never on advertised keys. */
  roles?: readonly SignerRole[] | null;
}

interface CheckedKeyFields {
  key_id: string;
  algorithm: KeyAlgorithm;
  public_key: Uint8Array;
  label: string | null;
  not_before: string | null;
  not_after: string | null;
  status: KeyStatus;
  source: string;
  revoked_at: number | null;
  revocation_reason: string | null;
  /** The column's text: a JSON array in SIGNER_ROLES order, or null. */
  roles: string | null;
}

/** A keys row as SQLite returns it (roles as stored text). */
type KeyRow = Omit<KeyRecord, 'roles'> & { roles: string | null };

/**
 * The column text of a role set: a JSON array of distinct names in {@link SIGNER_ROLES} order,
 * so that one set has one spelling; null for every role.
 *
 * @param value - An array of role names, or null / undefined.
 * @param name - The field's name for messages.
 * @throws TypeError when not an array of strings; RangeError for an empty list, an unknown role
 *   or a repeated one
 */
function rolesColumn(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of role names or null`);
  if (value.length === 0) throw new RangeError(`${name} must name at least one role (null means every role)`);
  const seen = new Set<SignerRole>();
  for (const role of value) {
    if (typeof role !== 'string') throw new TypeError(`${name} must hold strings`);
    if (!(SIGNER_ROLES as readonly string[]).includes(role))
      throw new RangeError(`${name}: unknown role ${JSON.stringify(role)}`);
    if (seen.has(role as SignerRole)) throw new RangeError(`${name}: role ${JSON.stringify(role)} appears twice`);
    seen.add(role as SignerRole);
  }
  return JSON.stringify(SIGNER_ROLES.filter((role) => seen.has(role)));
}

/** A stored row with its roles read back into names (only this module writes them). */
function toKeyRecord(row: KeyRow): KeyRecord {
  if (row.roles === null) return { ...row, roles: null };
  const parsed = JSON.parse(row.roles) as unknown;
  const roles = Array.isArray(parsed)
    ? parsed.filter((role): role is SignerRole => (SIGNER_ROLES as readonly unknown[]).includes(role))
    : [];
  // A list this program cannot read (a role a newer version knows) narrows rather than widens.
  return { ...row, roles: roles.length === 0 ? [] : roles };
}

/**
 * Structural checks (types and lengths the schema enforces); semantic rules are src-main/trust's.
 */
function checkKeyFields(value: unknown): CheckedKeyFields {
  const fields = checkObject(value, 'key');
  const algorithm = checkOneOf(fields.algorithm, KEY_ALGORITHMS, 'key.algorithm');
  if (!(fields.public_key instanceof Uint8Array)) throw new TypeError('key.public_key must be a Uint8Array');
  if (fields.public_key.length !== PUBLIC_KEY_LENGTHS[algorithm]) {
    throw new RangeError(`key.public_key must be ${PUBLIC_KEY_LENGTHS[algorithm]} bytes for ${algorithm}`);
  }
  const status = checkOneOf(fields.status, KEY_STATUSES, 'key.status');
  const revokedAt =
    fields.revoked_at === undefined || fields.revoked_at === null
      ? null
      : checkInstant(fields.revoked_at, 'key.revoked_at');
  if ((status === 'revoked') !== (revokedAt !== null)) {
    throw new RangeError('key.revoked_at must be set exactly when status is revoked');
  }
  return {
    key_id: checkText(fields.key_id, 'key.key_id', MAX_KEY_ID_LENGTH),
    algorithm,
    public_key: fields.public_key,
    label: checkOptionalText(fields.label, 'key.label', 1024),
    not_before: checkOptionalText(fields.not_before, 'key.not_before', 64),
    not_after: checkOptionalText(fields.not_after, 'key.not_after', 64),
    status,
    source: checkText(fields.source, 'key.source', 4096),
    revoked_at: revokedAt,
    revocation_reason: checkOptionalText(fields.revocation_reason, 'key.revocation_reason', 4096),
    roles: rolesColumn(fields.roles, 'key.roles'),
  };
}

/**
 * Add a key to the trust store (status pinned or revoked).
 *
 * @param database - a writable handle
 * @param key - the row's fields
 * @param options - `at`: when (ms; default now)
 * @returns the row id
 * @throws LedgerError `constraint` when the key_id is already in the trust store; TypeError /
 *   RangeError for bad fields
 */
export function insertTrustedKey(database: WritableDB, key: KeyFields, options: { at?: number } = {}): number {
  const checked = checkKeyFields(key);
  if (checked.status === 'advertised') throw new RangeError('insertTrustedKey: status must be pinned or revoked');
  const at = checkInstant(options.at, 'at');
  return execute(
    database,
    sql`INSERT INTO keys (key_id, algorithm, public_key, label, not_before, not_after, status, source, added_at,
                          revoked_at, revocation_reason, roles)
        VALUES (${checked.key_id}, ${checked.algorithm}, ${checked.public_key}, ${checked.label}, ${checked.not_before},
                ${checked.not_after}, ${checked.status}, ${checked.source}, ${at}, ${checked.revoked_at},
                ${checked.revocation_reason}, ${checked.roles})`,
  ).lastInsertRowid;
}

/**
 * Rewrite the mutable fields of a trust-store row (label, validity, status, revocation, roles).
 *
 * Key id, algorithm and key bytes never change: a different key is a different entry.
 *
 * @param database - a writable handle
 * @param keyId - the key_id of a pinned or revoked row
 * @param fields - the new values, all given
 * @throws LedgerError `not_found` when no such row
 */
export function updateTrustedKey(
  database: WritableDB,
  keyId: string,
  fields: {
    label: string | null;
    not_before: string | null;
    not_after: string | null;
    status: TrustStoreStatus;
    revoked_at: number | null;
    revocation_reason: string | null;
    /** null for every role. */
    roles: readonly SignerRole[] | null;
  },
): void {
  checkText(keyId, 'keyId', MAX_KEY_ID_LENGTH);
  const input = checkObject(fields, 'fields');
  const status = checkOneOf(input.status, ['pinned', 'revoked'] as const, 'fields.status');
  const label = checkOptionalText(input.label, 'fields.label', 1024);
  const notBefore = checkOptionalText(input.not_before, 'fields.not_before', 64);
  const notAfter = checkOptionalText(input.not_after, 'fields.not_after', 64);
  const reason = checkOptionalText(input.revocation_reason, 'fields.revocation_reason', 4096);
  const revokedAt = input.revoked_at === null ? null : checkInstant(input.revoked_at, 'fields.revoked_at');
  if (input.roles === undefined) throw new TypeError('fields.roles must be given (null for every role)');
  const roles = rolesColumn(input.roles, 'fields.roles');
  const result = execute(
    database,
    sql`UPDATE keys SET label = ${label}, not_before = ${notBefore}, not_after = ${notAfter}, status = ${status},
               revoked_at = ${revokedAt}, revocation_reason = ${reason}, roles = ${roles}
        WHERE key_id = ${keyId} AND status IN ('pinned', 'revoked')`,
  );
  if (result.changes === 0) throw new LedgerError('not_found', `No key ${keyId} in the trust store.`);
}

/**
 * Remove a key from the trust store.
 *
 * @returns true when a row was removed
 */
export function deleteTrustedKey(database: WritableDB, keyId: string): boolean {
  checkText(keyId, 'keyId', MAX_KEY_ID_LENGTH);
  return (
    execute(database, sql`DELETE FROM keys WHERE key_id = ${keyId} AND status IN ('pinned', 'revoked')`).changes === 1
  );
}

/**
 * The trust-store row of a key_id (pinned or revoked), if any.
 */
export function getTrustedKey(database: ReadableDB, keyId: string): KeyRecord | undefined {
  checkText(keyId, 'keyId', MAX_KEY_ID_LENGTH);
  const row = queryOne<KeyRow>(
    database,
    sql`SELECT * FROM keys WHERE key_id = ${keyId} AND status IN ('pinned', 'revoked')`,
  );
  return row === undefined ? undefined : toKeyRecord(row);
}

/**
 * Every trust-store row (pinned and revoked), by key_id.
 */
export function listTrustedKeys(database: ReadableDB): KeyRecord[] {
  return queryAll<KeyRow>(database, sql`SELECT * FROM keys WHERE status IN ('pinned', 'revoked') ORDER BY key_id`).map(
    toKeyRecord,
  );
}

/**
 * Record a key that came with some input. Idempotent per (key_id, source, key bytes).
 *
 * @param database - a writable handle
 * @param key - fields with status `advertised`
 * @returns true when the row is new
 */
export function insertAdvertisedKey(database: WritableDB, key: KeyFields, options: { at?: number } = {}): boolean {
  const checked = checkKeyFields(key);
  if (checked.status !== 'advertised') throw new RangeError('insertAdvertisedKey: status must be advertised');
  if (checked.roles !== null) throw new RangeError('insertAdvertisedKey: advertised keys carry no roles');
  const at = checkInstant(options.at, 'at');
  return (
    execute(
      database,
      sql`INSERT INTO keys (key_id, algorithm, public_key, label, not_before, not_after, status, source, added_at)
          VALUES (${checked.key_id}, ${checked.algorithm}, ${checked.public_key}, ${checked.label}, ${checked.not_before},
                  ${checked.not_after}, 'advertised', ${checked.source}, ${at})
          ON CONFLICT (key_id, source, public_key) WHERE status = 'advertised' DO NOTHING`,
    ).changes === 1
  );
}

/**
 * Advertised keys, by key_id then first seen; optionally only those of one key_id.
 */
export function listAdvertisedKeys(database: ReadableDB, options: { key_id?: string } = {}): KeyRecord[] {
  if (options.key_id !== undefined) {
    const keyId = checkText(options.key_id, 'key_id', MAX_KEY_ID_LENGTH);
    return queryAll<KeyRow>(
      database,
      sql`SELECT * FROM keys WHERE key_id = ${keyId} AND status = 'advertised' ORDER BY id`,
    ).map(toKeyRecord);
  }
  return queryAll<KeyRow>(database, sql`SELECT * FROM keys WHERE status = 'advertised' ORDER BY key_id, id`).map(
    toKeyRecord,
  );
}

/**
 * How many keys of each status are stored.
 */
export function countKeys(database: ReadableDB): Record<KeyStatus, number> {
  const rows = queryAll<{ status: KeyStatus; n: number }>(
    database,
    sql`SELECT status, count(*) AS n FROM keys GROUP BY status`,
  );
  const counts: Record<KeyStatus, number> = { pinned: 0, revoked: 0, advertised: 0 };
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}
