/**
 * Trust changes, each followed by re-judging the stored receipts it affects.
 *
 * Reports are stored with the trust of the moment they were verified; the ledger's trust column
 * (which the views filter and the counts group on) must tell the truth after the user pins,
 * revokes, unpins or imports keys. Every door changes trust through these functions only, so a
 * pin made with `evroom trust pin` re-judges exactly what the same pin made in the app does.
 */
import { OperationError } from './errors';
import { reevaluateTrust } from './reevaluate-trust';
import type { Workspace } from './workspace';
import type { PinInput, TrustedKey, TrustImportCounts } from '../trust';

/** How many stored receipts a trust change verified again, and how many of them changed. */
export interface Reevaluation {
  reverified: number;
  changed: number;
}

function reevaluate(
  workspace: Workspace,
  keys: readonly Pick<TrustedKey, 'key_id' | 'algorithm' | 'public_key'>[],
): Reevaluation {
  const total: Reevaluation = { reverified: 0, changed: 0 };
  for (const key of keys) {
    const one = reevaluateTrust(workspace.ledger, workspace.trust, workspace.crypto, key);
    total.reverified += one.reverified;
    total.changed += one.changed;
  }
  return total;
}

/**
 * Pins a key and re-judges the receipts it signed.
 *
 * @returns Whether the store changed, the key as stored, and the re-evaluation.
 * @throws TrustError as {@link TrustStore.pin} (nothing changed).
 */
export function pinKey(
  workspace: Workspace,
  input: PinInput,
  options: { source?: string } = {},
): { changed: boolean; key: TrustedKey; reevaluation: Reevaluation } {
  const { changed, key } = workspace.trust.pin(input, options);
  const reevaluation = changed ? reevaluate(workspace, [key]) : { reverified: 0, changed: 0 };
  return { changed, key, reevaluation };
}

/**
 * Revokes a pinned key and re-judges the receipts it signed.
 *
 * @throws TrustError unknown_key, already_revoked, invalid_reason (nothing changed).
 */
export function revokeKey(
  workspace: Workspace,
  keyId: string,
  reason?: string,
): { key: TrustedKey; reevaluation: Reevaluation } {
  const key = workspace.trust.revoke(keyId, reason);
  return { key, reevaluation: reevaluate(workspace, [key]) };
}

/**
 * Removes a key from the trust store and re-judges the receipts it signed.
 *
 * @throws OperationError not_found when the key is not in the store (nothing changed).
 */
export function unpinKey(workspace: Workspace, keyId: string): { key: TrustedKey; reevaluation: Reevaluation } {
  if (typeof keyId !== 'string') throw new TypeError('unpinKey expects a key id');
  const key = workspace.trust.get(keyId);
  if (key === undefined) {
    throw new OperationError('not_found', 'unknown_key', `The key ${keyId} is not in the trust store.`, {
      details: [{ path: '/key_id', message: 'not in the trust store' }],
    });
  }
  workspace.trust.unpin(keyId);
  return { key, reevaluation: reevaluate(workspace, [key]) };
}

function fingerprint(key: TrustedKey): string {
  return JSON.stringify([
    key.status,
    key.algorithm,
    Array.from(key.public_key),
    key.not_before ?? null,
    key.not_after ?? null,
    key.roles ?? null,
  ]);
}

/**
 * Imports a key file into the trust store (all or nothing) and re-judges the receipts of every
 * key whose trust it changed.
 *
 * @throws TrustError invalid_key_file, key_conflict, key_revoked (nothing changed).
 */
export function importTrustKeys(
  workspace: Workspace,
  text: string,
  options: { source?: string } = {},
): { counts: TrustImportCounts; reevaluation: Reevaluation } {
  const before = new Map(workspace.trust.list().map((key) => [key.key_id, fingerprint(key)]));
  const counts = workspace.trust.importKeys(text, options);
  const touched = workspace.trust.list().filter((key) => before.get(key.key_id) !== fingerprint(key));
  return { counts, reevaluation: reevaluate(workspace, touched) };
}

/** The trust store as a key file (audited). */
export function exportTrustKeys(workspace: Workspace): string {
  return workspace.trust.exportKeys();
}
