/**
 * The pinned-key trust store, kept in the ledger's `keys` table.
 *
 * Pinned keys are the only keys that can make a report's trust `trusted` (PROTOCOL sections 0
 * and 1); revoked keys stay in the store so that documents they signed are reported `revoked`
 * rather than merely `unpinned`. Advertised keys (from bundles, key files, the service) are
 * recorded apart for display and are never returned by {@link TrustStore.pinnedEntries}.
 *
 * Every change runs in one ledger transaction together with its audit row, so the audit log
 * and the store never disagree. Every input is checked before anything is written, and any
 * refusal is a {@link TrustError} that leaves the ledger as it was.
 */
import { createHash } from 'node:crypto';
import { b64uEncode, equalBytes } from '../../src-shared/crypto';
import type { AdvertisedKeyOf } from '../../src-shared/api/vocabulary';
import type { KeyAlgorithm, KeyEntry, SignerRole } from '../../src-shared/verify/context';
import { KeyFileError, parseKeyFile, serializeKeyFile } from '../../src-shared/verify/key-file';
import {
  appendAudit,
  deleteTrustedKey,
  getTrustedKey,
  insertAdvertisedKey,
  insertTrustedKey,
  listAdvertisedKeys,
  MAX_KEY_ID_LENGTH as LEDGER_MAX_KEY_ID_LENGTH,
  listTrustedKeys,
  updateTrustedKey,
  type KeyRecord,
  type Ledger,
  type WritableDB,
} from '../ledger/index';
import { TrustError } from './errors';
import {
  checkAlgorithm,
  checkKeyId,
  checkOptionalLabel,
  checkOptionalReason,
  checkOptionalRoles,
  checkOptionalTimestamp,
  checkPublicKey,
  checkSourceName,
  checkWindow,
} from './validate';

/** A key in the trust store. */
export interface TrustedKey {
  key_id: string;
  algorithm: KeyAlgorithm;
  public_key: Uint8Array;
  label?: string;
  not_before?: string;
  not_after?: string;
  status: 'pinned' | 'revoked';
  /** Who put it there: `user`, `trust-import`, or what the caller named. */
  source: string;
  /** When it was pinned (ms since the epoch). */
  added_at: number;
  revoked_at?: number;
  revocation_reason?: string;
  /**
   * The roles it is trusted for (PROTOCOL section 0), in role order; absent for every role. Used
   * in another role, its signature is not `trusted`.
   */
  roles?: SignerRole[];
}

/** A key that came with some input; it is shown, never trusted (the one shape: src-shared/api/vocabulary.ts). */
export type AdvertisedKey = AdvertisedKeyOf<Uint8Array>;

/** What to pin. */
export interface PinInput {
  key_id: string;
  algorithm: KeyAlgorithm;
  public_key: Uint8Array;
  label?: string;
  not_before?: string;
  not_after?: string;
  /** The roles to trust it for (distinct names of SIGNER_ROLES); absent for every role. */
  roles?: readonly SignerRole[];
}

/** The outcome of {@link TrustStore.importKeys} (keys, not receipts: a bundle import has its own counts). */
export interface TrustImportCounts {
  /** Keys newly pinned. */
  pinned: number;
  /** Keys newly revoked (new entries, or pinned entries the file marks revoked). */
  revoked: number;
  /** Entries already present whose label or validity the file changed. */
  updated: number;
  /** Entries already present exactly as the file says. */
  unchanged: number;
}

/** The trust store's operations. */
export interface TrustStore {
  /**
   * Pin a key.
   *
   * Pinning again the same key_id with the same bytes changes nothing (`changed: false`) when
   * the label, window and roles given (if any) match; a different label or window is refused with
   * `already_pinned` (use {@link TrustStore.label} / {@link TrustStore.setValidity}), and so are
   * other roles (roles change only by unpinning and pinning again, both audited). Other key
   * bytes for a pinned key_id are refused with `key_conflict`, and a revoked key_id with
   * `key_revoked`: re-pinning needs an explicit {@link TrustStore.unpin}.
   *
   * @throws TrustError invalid_key_id, invalid_algorithm, invalid_public_key, did_key_mismatch,
   *   invalid_timestamp, invalid_window, invalid_label, invalid_roles, key_conflict, already_pinned,
   *   key_revoked
   */
  pin(entry: PinInput, options?: { source?: string }): { changed: boolean; key: TrustedKey };
  /**
   * Set (or with `null`, remove) a key's label.
   *
   * @throws TrustError unknown_key, invalid_label
   */
  label(keyId: string, label: string | null): TrustedKey;
  /**
   * Change a key's validity window. `undefined` keeps a bound, `null` removes it.
   *
   * @throws TrustError unknown_key, invalid_timestamp, invalid_window
   */
  setValidity(keyId: string, notBefore?: string | null, notAfter?: string | null): TrustedKey;
  /**
   * Mark a pinned key revoked. It stays in the store so its signatures report `revoked`.
   *
   * @throws TrustError unknown_key, already_revoked, invalid_reason
   */
  revoke(keyId: string, reason?: string): TrustedKey;
  /**
   * Remove a key (pinned or revoked) from the store. Its signatures then report `unpinned`.
   *
   * @throws TrustError unknown_key
   */
  unpin(keyId: string): void;
  /** Every pinned and revoked key, by key_id. */
  list(): TrustedKey[];
  /** One key of the store, if present. */
  get(keyId: string): TrustedKey | undefined;
  /** Every advertised key recorded, by key_id. */
  listAdvertised(): AdvertisedKey[];
  /**
   * Record keys that came with some input. They are never trusted. Idempotent per
   * (key_id, source, key bytes); labels and statuses in the entries are ignored.
   *
   * @returns how many were new and how many already recorded
   * @throws TrustError for an invalid entry (nothing recorded) or source
   */
  recordAdvertised(entries: readonly KeyEntry[], source: string): { recorded: number; known: number };
  /** The store as a key file (PROTOCOL section 0) with status and label; audited. */
  exportKeys(): string;
  /**
   * Import a key file: each key pinned or revoked as its `status` says (default pinned).
   *
   * All or nothing: a file that does not parse, or any key that conflicts with the store
   * (other bytes: `key_conflict`; pinned in the file but revoked here: `key_revoked`), refuses
   * the whole import. For keys already present, the file's label and bounds replace the stored
   * ones where the file gives them. A key's `roles` are kept: a new key is pinned for the roles
   * the file lists (every role without `roles`); a key already present whose stored roles differ
   * from the roles the file lists refuses the import (`already_pinned`: unpin it first), and a
   * file entry without `roles` leaves the stored roles as they are.
   *
   * @throws TrustError invalid_key_file (with `path`), key_conflict, key_revoked, already_pinned
   */
  importKeys(text: string, options?: { source?: string }): TrustImportCounts;
  /**
   * The trust store as the verifier takes it (`VerifyContext.pinned`): pinned entries and
   * revoked entries (with `status: 'revoked'`, so their signatures report `revoked`).
   * Advertised keys are never included.
   */
  pinnedEntries(): KeyEntry[];
}

function toTrustedKey(record: KeyRecord): TrustedKey {
  const key: TrustedKey = {
    key_id: record.key_id,
    algorithm: record.algorithm,
    public_key: new Uint8Array(record.public_key),
    status: record.status === 'revoked' ? 'revoked' : 'pinned',
    source: record.source,
    added_at: record.added_at,
  };
  if (record.label !== null) key.label = record.label;
  if (record.not_before !== null) key.not_before = record.not_before;
  if (record.not_after !== null) key.not_after = record.not_after;
  if (record.revoked_at !== null) key.revoked_at = record.revoked_at;
  if (record.revocation_reason !== null) key.revocation_reason = record.revocation_reason;
  if (record.roles !== null) key.roles = [...record.roles];
  return key;
}

function toKeyEntry(key: TrustedKey): KeyEntry {
  const entry: KeyEntry = {
    key_id: key.key_id,
    algorithm: key.algorithm,
    public_key: key.public_key,
    status: key.status,
  };
  if (key.label !== undefined) entry.label = key.label;
  if (key.not_before !== undefined) entry.not_before = key.not_before;
  if (key.not_after !== undefined) entry.not_after = key.not_after;
  if (key.roles !== undefined) entry.roles = [...key.roles];
  return entry;
}

/** What the audit log keeps of a key: enough to know exactly what was trusted. */
function describeKey(key: { algorithm: KeyAlgorithm; public_key: Uint8Array }): Record<string, string> {
  return {
    algorithm: key.algorithm,
    public_key: b64uEncode(key.public_key),
    public_key_sha256: createHash('sha256').update(key.public_key).digest('hex'),
  };
}

interface CheckedEntry {
  key_id: string;
  algorithm: KeyAlgorithm;
  public_key: Uint8Array;
  label: string | undefined;
  not_before: string | undefined;
  not_after: string | undefined;
  roles: SignerRole[] | undefined;
}

function checkEntry(value: unknown): CheckedEntry {
  if (typeof value !== 'object' || value === null) throw new TypeError('A key entry must be an object');
  const entry = value as Record<string, unknown>;
  const keyId = checkKeyId(entry.key_id);
  const algorithm = checkAlgorithm(entry.algorithm);
  const publicKey = checkPublicKey(keyId, algorithm, entry.public_key);
  const notBefore = checkOptionalTimestamp(entry.not_before, 'not_before');
  const notAfter = checkOptionalTimestamp(entry.not_after, 'not_after');
  checkWindow(notBefore, notAfter);
  return {
    key_id: keyId,
    algorithm,
    public_key: publicKey,
    label: checkOptionalLabel(entry.label),
    not_before: notBefore,
    not_after: notAfter,
    roles: checkOptionalRoles(entry.roles),
  };
}

/** Roles as the audit log and messages show them: the list, or null for every role. */
function rolesText(roles: readonly SignerRole[] | null | undefined): string {
  return roles === null || roles === undefined ? 'every role' : roles.join(', ');
}

/** Whether two role sets (each in SIGNER_ROLES order, null/undefined for every role) are equal. */
function sameRoles(
  left: readonly SignerRole[] | null | undefined,
  right: readonly SignerRole[] | null | undefined,
): boolean {
  if (left === null || left === undefined || right === null || right === undefined)
    return (left ?? null) === (right ?? null);
  return left.length === right.length && left.every((role, index) => role === right[index]);
}

function rolesDifferError(
  keyId: string,
  stored: readonly SignerRole[] | null,
  given: readonly SignerRole[],
): TrustError {
  return new TrustError(
    'already_pinned',
    `Key ${keyId} is in the trust store for ${rolesText(stored)}, not for ${rolesText(given)} only. Roles change only by unpinning the key and pinning it again.`,
    { path: '/roles' },
  );
}

function sameKey(record: KeyRecord, entry: { algorithm: KeyAlgorithm; public_key: Uint8Array }): boolean {
  return record.algorithm === entry.algorithm && equalBytes(new Uint8Array(record.public_key), entry.public_key);
}

function requireKey(database: WritableDB, keyId: string): KeyRecord {
  const record = getTrustedKey(database, keyId);
  if (record === undefined) {
    throw new TrustError('unknown_key', `Key ${keyId} is not in the trust store.`, { path: '/key_id' });
  }
  return record;
}

function conflictError(keyId: string): TrustError {
  return new TrustError(
    'key_conflict',
    `Key ${keyId} is already pinned with other key bytes. Unpin it first if the new key is meant to replace it.`,
    { path: '/public_key' },
  );
}

function revokedError(keyId: string): TrustError {
  return new TrustError(
    'key_revoked',
    `Key ${keyId} is revoked in the trust store. Unpin it first if you mean to trust it again.`,
    { path: '/key_id' },
  );
}

/** The fields of a stored row, in the shape updateTrustedKey takes. */
function mutableFields(record: KeyRecord): {
  label: string | null;
  not_before: string | null;
  not_after: string | null;
  status: 'pinned' | 'revoked';
  revoked_at: number | null;
  revocation_reason: string | null;
  roles: SignerRole[] | null;
} {
  return {
    label: record.label,
    not_before: record.not_before,
    not_after: record.not_after,
    status: record.status === 'revoked' ? 'revoked' : 'pinned',
    revoked_at: record.revoked_at,
    revocation_reason: record.revocation_reason,
    roles: record.roles,
  };
}

/**
 * A trust store over an open ledger.
 *
 * @param ledger - the open ledger (writable)
 * @param options - `now`: the clock (ms since the epoch), for tests
 * @returns the trust store
 * @example
 * const trust = createTrustStore(ledger);
 * trust.pin({ key_id: 'did:svc:evroom:k1', algorithm: 'Ed25519', public_key, label: 'Acme' });
 * const context = createVerifyContext({ pinned: trust.pinnedEntries(), ... });
 */
export function createTrustStore(ledger: Ledger, options: { now?: () => number } = {}): TrustStore {
  if (typeof ledger !== 'object' || ledger === null || typeof ledger.runInTransaction !== 'function') {
    throw new TypeError('createTrustStore: ledger must be an open Ledger');
  }
  const now = options.now ?? Date.now;

  function get(keyId: string): TrustedKey | undefined {
    if (typeof keyId !== 'string') throw new TypeError('key_id must be a string');
    // No key id of another length can have been stored (the ledger's bound, wider than today's
    // key id rule: rows pinned under an earlier rule are still found, revoked and unpinned).
    if (keyId.length === 0 || keyId.length > LEDGER_MAX_KEY_ID_LENGTH) return undefined;
    const record = getTrustedKey(ledger.readable, keyId);
    return record === undefined ? undefined : toTrustedKey(record);
  }

  function list(): TrustedKey[] {
    return listTrustedKeys(ledger.readable).map(toTrustedKey);
  }

  function pin(entry: PinInput, pinOptions: { source?: string } = {}): { changed: boolean; key: TrustedKey } {
    const checked = checkEntry(entry);
    const source = checkSourceName(pinOptions.source ?? 'user');
    return ledger.runInTransaction((database) => {
      const at = now();
      const existing = getTrustedKey(database, checked.key_id);
      if (existing !== undefined) {
        if (existing.status === 'revoked') throw revokedError(checked.key_id);
        if (!sameKey(existing, checked)) throw conflictError(checked.key_id);
        if (checked.roles !== undefined && !sameRoles(existing.roles, checked.roles)) {
          throw rolesDifferError(checked.key_id, existing.roles, checked.roles);
        }
        const differs =
          (checked.label !== undefined && checked.label !== existing.label) ||
          (checked.not_before !== undefined && checked.not_before !== existing.not_before) ||
          (checked.not_after !== undefined && checked.not_after !== existing.not_after);
        if (differs) {
          throw new TrustError(
            'already_pinned',
            `Key ${checked.key_id} is already pinned with another label or validity window; change those with label or validity.`,
          );
        }
        return { changed: false, key: toTrustedKey(existing) };
      }
      insertTrustedKey(
        database,
        {
          key_id: checked.key_id,
          algorithm: checked.algorithm,
          public_key: checked.public_key,
          label: checked.label ?? null,
          not_before: checked.not_before ?? null,
          not_after: checked.not_after ?? null,
          status: 'pinned',
          source,
          roles: checked.roles ?? null,
        },
        { at },
      );
      appendAudit(
        database,
        'pin',
        checked.key_id,
        {
          ...describeKey(checked),
          label: checked.label ?? null,
          not_before: checked.not_before ?? null,
          not_after: checked.not_after ?? null,
          // Recorded only when narrowed, so the rows of a pin for every role read as before.
          ...(checked.roles === undefined ? {} : { roles: checked.roles }),
          source,
        },
        { at },
      );
      return { changed: true, key: toTrustedKey(requireKey(database, checked.key_id)) };
    });
  }

  function label(keyId: string, newLabel: string | null): TrustedKey {
    if (typeof keyId !== 'string') throw new TypeError('key_id must be a string');
    const checked = newLabel === null ? undefined : checkOptionalLabel(newLabel);
    if (newLabel !== null && checked === undefined) throw new TypeError('label must be a string or null');
    return ledger.runInTransaction((database) => {
      const record = requireKey(database, keyId);
      if (record.label === (checked ?? null)) return toTrustedKey(record);
      updateTrustedKey(database, keyId, { ...mutableFields(record), label: checked ?? null });
      appendAudit(database, 'label', keyId, { from: record.label, to: checked ?? null }, { at: now() });
      return toTrustedKey(requireKey(database, keyId));
    });
  }

  function setValidity(keyId: string, notBefore?: string | null, notAfter?: string | null): TrustedKey {
    if (typeof keyId !== 'string') throw new TypeError('key_id must be a string');
    const before = checkOptionalTimestamp(notBefore, 'not_before');
    const after = checkOptionalTimestamp(notAfter, 'not_after');
    return ledger.runInTransaction((database) => {
      const record = requireKey(database, keyId);
      const nextBefore = notBefore === undefined ? record.not_before : (before ?? null);
      const nextAfter = notAfter === undefined ? record.not_after : (after ?? null);
      checkWindow(nextBefore ?? undefined, nextAfter ?? undefined);
      if (nextBefore === record.not_before && nextAfter === record.not_after) return toTrustedKey(record);
      updateTrustedKey(database, keyId, { ...mutableFields(record), not_before: nextBefore, not_after: nextAfter });
      appendAudit(
        database,
        'validity',
        keyId,
        {
          from: { not_before: record.not_before, not_after: record.not_after },
          to: { not_before: nextBefore, not_after: nextAfter },
        },
        { at: now() },
      );
      return toTrustedKey(requireKey(database, keyId));
    });
  }

  function revoke(keyId: string, reason?: string): TrustedKey {
    if (typeof keyId !== 'string') throw new TypeError('key_id must be a string');
    const checkedReason = checkOptionalReason(reason);
    return ledger.runInTransaction((database) => {
      const record = requireKey(database, keyId);
      if (record.status === 'revoked') {
        throw new TrustError('already_revoked', `Key ${keyId} is already revoked.`, { path: '/key_id' });
      }
      const at = now();
      updateTrustedKey(database, keyId, {
        ...mutableFields(record),
        status: 'revoked',
        revoked_at: at,
        revocation_reason: checkedReason ?? null,
      });
      appendAudit(database, 'revoke', keyId, { ...describeKey(record), reason: checkedReason ?? null }, { at });
      return toTrustedKey(requireKey(database, keyId));
    });
  }

  function unpin(keyId: string): void {
    if (typeof keyId !== 'string') throw new TypeError('key_id must be a string');
    ledger.runInTransaction((database) => {
      const record = requireKey(database, keyId);
      deleteTrustedKey(database, keyId);
      // The audit row keeps the whole entry: after this, the log is the only record of it.
      appendAudit(
        database,
        'unpin',
        keyId,
        {
          ...describeKey(record),
          status: record.status,
          label: record.label,
          not_before: record.not_before,
          not_after: record.not_after,
          ...(record.roles === null ? {} : { roles: record.roles }),
        },
        { at: now() },
      );
    });
  }

  function listAdvertised(): AdvertisedKey[] {
    const trusted = new Map(listTrustedKeys(ledger.readable).map((record) => [record.key_id, record]));
    return listAdvertisedKeys(ledger.readable).map((record) => {
      const pinned = trusted.get(record.key_id);
      const key: AdvertisedKey = {
        key_id: record.key_id,
        algorithm: record.algorithm,
        public_key: new Uint8Array(record.public_key),
        source: record.source,
        added_at: record.added_at,
        contradictsTrustStore: pinned !== undefined && !sameKey(pinned, record),
      };
      if (record.not_before !== null) key.not_before = record.not_before;
      if (record.not_after !== null) key.not_after = record.not_after;
      return key;
    });
  }

  function recordAdvertised(entries: readonly KeyEntry[], source: string): { recorded: number; known: number } {
    if (!Array.isArray(entries)) throw new TypeError('entries must be an array of key entries');
    const checkedSource = checkSourceName(source);
    const checked = entries.map((entry, index) => {
      try {
        // Labels and statuses mean nothing for advertised keys (PROTOCOL section 0).
        return checkEntry({ ...entry, label: undefined, roles: undefined });
      } catch (error) {
        if (error instanceof TrustError) {
          throw new TrustError(error.code, `Key ${index + 1}: ${error.message}`, {
            path: `/keys/${index}${error.path ?? ''}`,
          });
        }
        throw error;
      }
    });
    return ledger.runInTransaction((database) => {
      const at = now();
      const added: string[] = [];
      for (const entry of checked) {
        const created = insertAdvertisedKey(
          database,
          {
            key_id: entry.key_id,
            algorithm: entry.algorithm,
            public_key: entry.public_key,
            not_before: entry.not_before ?? null,
            not_after: entry.not_after ?? null,
            status: 'advertised',
            source: checkedSource,
          },
          { at },
        );
        if (created) added.push(entry.key_id);
      }
      if (added.length > 0) {
        // Cap the list: a service may advertise many keys, the audit row should stay small.
        appendAudit(
          database,
          'advertise',
          checkedSource,
          { recorded: added.length, key_ids: added.slice(0, 100) },
          { at },
        );
      }
      return { recorded: added.length, known: checked.length - added.length };
    });
  }

  function exportKeys(): string {
    return ledger.runInTransaction((database) => {
      const keys = listTrustedKeys(database).map(toTrustedKey);
      const revoked = keys.filter((key) => key.status === 'revoked').length;
      appendAudit(database, 'trust-export', 'trust store', { pinned: keys.length - revoked, revoked }, { at: now() });
      return serializeKeyFile(keys.map(toKeyEntry));
    });
  }

  function importKeys(text: string, importOptions: { source?: string } = {}): TrustImportCounts {
    if (typeof text !== 'string') throw new TypeError('importKeys expects the key file text');
    const source = checkSourceName(importOptions.source ?? 'trust-import');
    let entries: KeyEntry[];
    try {
      entries = parseKeyFile(text);
    } catch (error) {
      if (error instanceof KeyFileError) {
        const where = error.path === '' ? '' : ` at ${error.path}`;
        throw new TrustError('invalid_key_file', `The key file cannot be imported${where}: ${error.message}`, {
          path: error.path,
          cause: error,
        });
      }
      throw error;
    }
    // parseKeyFile applies the same rules; checking again keeps this store's own limits (labels
    // without control characters) and gives entry errors their position in the file.
    const checked = entries.map((entry, index) => {
      try {
        return { ...checkEntry(entry), status: entry.status ?? 'pinned' };
      } catch (error) {
        if (error instanceof TrustError) {
          throw new TrustError(
            'invalid_key_file',
            `The key file cannot be imported at /keys/${index}: ${error.message}`,
            {
              path: `/keys/${index}${error.path ?? ''}`,
              cause: error,
            },
          );
        }
        throw error;
      }
    });
    return ledger.runInTransaction((database) => {
      const at = now();
      const counts: TrustImportCounts = { pinned: 0, revoked: 0, updated: 0, unchanged: 0 };
      for (const entry of checked) {
        const existing = getTrustedKey(database, entry.key_id);
        if (existing === undefined) {
          insertTrustedKey(
            database,
            {
              key_id: entry.key_id,
              algorithm: entry.algorithm,
              public_key: entry.public_key,
              label: entry.label ?? null,
              not_before: entry.not_before ?? null,
              not_after: entry.not_after ?? null,
              status: entry.status,
              source,
              revoked_at: entry.status === 'revoked' ? at : null,
              roles: entry.roles ?? null,
            },
            { at },
          );
          appendAudit(
            database,
            entry.status === 'revoked' ? 'revoke' : 'pin',
            entry.key_id,
            {
              ...describeKey(entry),
              label: entry.label ?? null,
              not_before: entry.not_before ?? null,
              not_after: entry.not_after ?? null,
              ...(entry.roles === undefined ? {} : { roles: entry.roles }),
              source,
              via: 'trust-import',
            },
            { at },
          );
          counts[entry.status === 'revoked' ? 'revoked' : 'pinned'] += 1;
          continue;
        }
        // Throwing here rolls back every entry already applied: the import is all or nothing.
        if (!sameKey(existing, entry)) throw conflictError(entry.key_id);
        if (existing.status === 'revoked' && entry.status === 'pinned') throw revokedError(entry.key_id);
        if (entry.roles !== undefined && !sameRoles(existing.roles, entry.roles)) {
          throw rolesDifferError(entry.key_id, existing.roles, entry.roles);
        }
        const next = {
          ...mutableFields(existing),
          label: entry.label ?? existing.label,
          not_before: entry.not_before ?? existing.not_before,
          not_after: entry.not_after ?? existing.not_after,
        };
        checkWindow(next.not_before ?? undefined, next.not_after ?? undefined);
        const revoking = existing.status === 'pinned' && entry.status === 'revoked';
        if (revoking) {
          next.status = 'revoked';
          next.revoked_at = at;
          next.revocation_reason = 'revoked by an imported key file';
        }
        const labelChanged = next.label !== existing.label;
        const windowChanged = next.not_before !== existing.not_before || next.not_after !== existing.not_after;
        if (!revoking && !labelChanged && !windowChanged) {
          counts.unchanged += 1;
          continue;
        }
        updateTrustedKey(database, entry.key_id, next);
        if (revoking) {
          appendAudit(
            database,
            'revoke',
            entry.key_id,
            { ...describeKey(entry), reason: next.revocation_reason, via: 'trust-import' },
            { at },
          );
          counts.revoked += 1;
        } else {
          counts.updated += 1;
        }
        if (labelChanged) {
          appendAudit(
            database,
            'label',
            entry.key_id,
            { from: existing.label, to: next.label, via: 'trust-import' },
            { at },
          );
        }
        if (windowChanged) {
          appendAudit(
            database,
            'validity',
            entry.key_id,
            {
              from: { not_before: existing.not_before, not_after: existing.not_after },
              to: { not_before: next.not_before, not_after: next.not_after },
              via: 'trust-import',
            },
            { at },
          );
        }
      }
      appendAudit(database, 'trust-import', source, { ...counts, keys: checked.length }, { at });
      return counts;
    });
  }

  function pinnedEntries(): KeyEntry[] {
    return list().map(toKeyEntry);
  }

  return {
    pin,
    label,
    setValidity,
    revoke,
    unpin,
    list,
    get,
    listAdvertised,
    recordAdvertised,
    exportKeys,
    importKeys,
    pinnedEntries,
  };
}
