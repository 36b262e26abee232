/**
 * A workspace: the data folder opened for work (its ledger, its trust store, the fast crypto).
 *
 * Every door opens its workspace through {@link openWorkspace} and hands it to the operations;
 * none opens the ledger or builds a trust store of its own. Opening creates the data folder
 * (mode 0700) and the ledger when they do not exist yet.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { equalBytes } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import type { KeyEntry, SecretEntry, VerifyContext } from '../../src-shared/verify/context';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import {
  LedgerError,
  ledgerFileIn,
  ledgerGeneration,
  listTrustedKeys,
  openLedger,
  openLedgerReadOnly,
  type Ledger,
} from '../ledger';
import { createTrustStore, type TrustStore } from '../trust';
import { advertisedEntries } from './reevaluate-trust';

/** The data folder, opened. Close it when done. */
export interface Workspace {
  readonly dataDirectory: string;
  readonly ledger: Ledger;
  readonly trust: TrustStore;
  readonly crypto: CryptoProvider;
  /** Closes the ledger; the workspace is unusable afterwards. */
  close(): void;
}

let sharedCrypto: CryptoProvider | undefined;

/** The node:crypto provider, made once per process (it keeps a key cache). */
export function nodeCrypto(): CryptoProvider {
  sharedCrypto ??= createNodeCryptoProvider();
  return sharedCrypto;
}

/**
 * Opens the data folder's ledger and trust store, creating them when missing.
 *
 * @param dataDirectory - The data folder (EVROOM_HOME or the platform's application-data folder).
 * @param options - `ledgerCacheMiB`: SQLite's page cache per ledger connection (default 64 MiB).
 * @returns The workspace.
 * @throws LedgerError when the ledger cannot be opened (not a ledger, too new, unwritable).
 */
export function openWorkspace(dataDirectory: string, options: { ledgerCacheMiB?: number } = {}): Workspace {
  if (typeof dataDirectory !== 'string' || dataDirectory.length === 0)
    throw new TypeError('openWorkspace expects the data folder path');
  mkdirSync(dataDirectory, { recursive: true, mode: 0o700 });
  const ledger = openLedger(
    ledgerFileIn(dataDirectory),
    options.ledgerCacheMiB === undefined ? {} : { cacheMiB: options.ledgerCacheMiB },
  );
  const trust = createTrustStore(ledger);
  return {
    dataDirectory,
    ledger,
    trust,
    crypto: nodeCrypto(),
    close: () => ledger.close(),
  };
}

/**
 * The pinned and revoked keys of a data folder's trust store, read without opening it for
 * writing; none when there is no ledger yet (reading never creates one).
 *
 * @param dataDirectory - The data folder.
 * @returns The entries as `VerifyContext.pinned` takes them.
 * @throws LedgerError when the ledger exists but cannot be read.
 */
export function readTrustStore(dataDirectory: string): KeyEntry[] {
  const file = ledgerFileIn(dataDirectory);
  if (!existsSync(file)) return [];
  let ledger: ReturnType<typeof openLedgerReadOnly>;
  try {
    ledger = openLedgerReadOnly(file);
  } catch (error) {
    if (!(error instanceof LedgerError) || error.code !== 'schema_outdated') throw error;
    // A ledger of an earlier version of this program: upgrade it (each migration is one
    // transaction) rather than make `evroom verify` fail after an update.
    openLedger(file).close();
    ledger = openLedgerReadOnly(file);
  }
  try {
    return listTrustedKeys(ledger.readable).map((record) => ({
      key_id: record.key_id,
      algorithm: record.algorithm,
      public_key: new Uint8Array(record.public_key),
      status: record.status === 'revoked' ? 'revoked' : 'pinned',
      ...(record.label !== null ? { label: record.label } : {}),
      ...(record.not_before !== null ? { not_before: record.not_before } : {}),
      ...(record.not_after !== null ? { not_after: record.not_after } : {}),
      // The roles it is pinned for: used in another role, its signature is not trusted.
      ...(record.roles !== null ? { roles: [...record.roles] } : {}),
    }));
  } finally {
    ledger.close();
  }
}

/** The trust store's keys as the verifier takes them, read again only after the ledger changed. */
const trustKeyCache = new WeakMap<
  Workspace,
  { generation: string; pinned: readonly KeyEntry[]; advertised: readonly KeyEntry[] }
>();

/**
 * The trust store's keys as the verifier takes them: pinned (and revoked) keys, and advertised
 * keys that confer no trust. The same object is answered until the trust store changes (after
 * any other change to the ledger the keys are read again and, being equal, not replaced), so
 * callers may cache what they derive from it against its identity.
 *
 * @param workspace - The open workspace.
 * @returns The keys; do not modify them.
 */
export function workspaceTrustKeys(workspace: Workspace): {
  readonly pinned: readonly KeyEntry[];
  readonly advertised: readonly KeyEntry[];
} {
  return trustKeys(workspace);
}

function trustKeys(workspace: Workspace): { pinned: readonly KeyEntry[]; advertised: readonly KeyEntry[] } {
  // A busy service verifies many documents between two trust changes: reading the keys table
  // for each one cost more than the verification of a small receipt.
  const generation = ledgerGeneration(workspace.ledger.readable);
  const cached = trustKeyCache.get(workspace);
  if (cached !== undefined && cached.generation === generation) return cached;
  const pinned = workspace.trust.pinnedEntries();
  const advertised = advertisedEntries(workspace.trust);
  if (cached !== undefined && sameEntries(cached.pinned, pinned) && sameEntries(cached.advertised, advertised)) {
    // Another part of the ledger changed (a receipt, a tenant): the same keys, the same object.
    cached.generation = generation;
    return cached;
  }
  const fresh = { generation, pinned, advertised };
  trustKeyCache.set(workspace, fresh);
  return fresh;
}

/** Whether two lists of key entries say the same, entry by entry and field by field. */
function sameEntries(a: readonly KeyEntry[], b: readonly KeyEntry[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((left, index) => {
    const right = b[index];
    return (
      right !== undefined &&
      left.key_id === right.key_id &&
      left.algorithm === right.algorithm &&
      left.status === right.status &&
      left.label === right.label &&
      left.not_before === right.not_before &&
      left.not_after === right.not_after &&
      String(left.roles) === String(right.roles) &&
      equalBytes(left.public_key, right.public_key)
    );
  });
}

/** What a verification may add to the workspace's own keys. */
export interface VerifyExtras {
  /** Keys that verify signatures but confer no trust (key files, bundles). */
  advertised?: readonly KeyEntry[];
  /** Keys pinned for this verification only (trust files). */
  pinned?: readonly KeyEntry[];
  secrets?: readonly SecretEntry[];
  now?: Date;
}

/**
 * The verification context of a workspace: its pinned and revoked keys as trust, its advertised
 * keys as keys that verify but never confer trust, plus whatever the caller adds.
 *
 * @param workspace - The open workspace.
 * @param extras - Keys, trust and secrets given for this verification only.
 * @returns The context the verifiers take.
 */
export function workspaceVerifyContext(workspace: Workspace, extras: VerifyExtras = {}): VerifyContext {
  const keys = trustKeys(workspace);
  return {
    crypto: workspace.crypto,
    pinned: extras.pinned?.length ? [...keys.pinned, ...extras.pinned] : keys.pinned,
    advertised: extras.advertised?.length ? [...keys.advertised, ...extras.advertised] : keys.advertised,
    secrets: [...(extras.secrets ?? [])],
    now: extras.now ?? new Date(),
  };
}
