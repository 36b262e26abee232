/**
 * Evidence bundles in and out: the one import and the one export every door calls.
 *
 * The import itself (verification in the worker pool, trust, the crash-safe batched writes) is
 * import.ts, over the zip library of src-main/evidence; the export is src-main/evidence's.
 * These functions bind them to a workspace, so no door passes a ledger or a data folder of its own.
 */
import { exportBundle, stopExportWorker, type ExportOptions, type ExportResult } from '../evidence/export-bundle';
import { exportTenantBundle } from '../evidence/export-tenant';
export { MAX_CONSISTENT_WITH } from '../evidence/log-evidence';
import { parseNote } from '../../src-shared/crypto/signed-note';
import { isTenantId } from '../../src-shared/api/vocabulary';
import { getTrustedKey, listAdvertisedKeys } from '../ledger';
import { importBundle, type ImportOptions, type ImportResult } from './import';
import { OperationError } from './errors';
import { loadServiceKeys } from './service-keys';
import { loadLogKey, openServiceLog, type ServiceLog } from './service-log';
import { checkAnchorsOffline } from './anchors';
import { recordSeenCheckpoint } from './log-checkpoints';
import { workspaceServiceStore, type ServiceStore } from './service-store';
import type { Workspace } from './workspace';

/**
 * Imports an evidence bundle into the workspace's ledger.
 *
 * @param workspace - The open workspace.
 * @param file - The zip file (a path the user chose, or an upload saved to a temporary file).
 * @param options - Limits, progress, cancellation, the recorded file name.
 * The bundle's log checkpoint, when its signature verified, is recorded among the checkpoints
 * the workstation has seen of its log (log-checkpoints.ts), and a split view is a finding.
 * After the ledger writes, step 1 of anchor verification runs once for the anchors no check has
 * judged yet (operations/anchors.ts), so the anchors view lists stored states.
 *
 * @returns The import's outcome (findings included).
 * @throws BundleError when the bundle is refused (nothing written); ImportCancelledError or
 *   ImportInterruptedError when it stopped part-way (the bundle is kept partial).
 */
export async function importEvidence(
  workspace: Workspace,
  file: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const result = await importBundle(workspace.ledger, file, {
    ...options,
    recordCheckpoint: (input) => recordSeenCheckpoint(workspace, input),
  });
  await checkAnchorsOffline(workspace);
  return result;
}

/**
 * Exports receipts of the workspace's ledger as a signed evidence bundle.
 *
 * @param workspace - The open workspace (its data folder holds the export signing key).
 * @param options - Where to write, which receipts, progress.
 * @returns What was written.
 * @throws ExportError out_exists, out_unwritable (nothing written).
 */
export function exportEvidence(
  workspace: Workspace,
  options: Omit<ExportOptions, 'dataDirectory'>,
): Promise<ExportResult> {
  return exportBundle(workspace.ledger, { ...options, dataDirectory: workspace.dataDirectory });
}

/**
 * Exports a served tenant's evidence (the `log` option) from the service's store: from the
 * workspace's ledger file as {@link exportEvidence} does (SQLite, on the export worker when
 * `worker` is set), or from one snapshot of the PostgreSQL database, on the calling thread,
 * whichever node issued the receipts. The `export` audit row goes to the service's audit log
 * (the store's), and the keys file names the issuers the node's trust store knows (the
 * workspace's ledger, as the SQLite export names its own).
 *
 * @param workspace - The node's workspace (its data folder, trust store and audit rows).
 * @param store - The service's store.
 * @param options - As exportEvidence's, with `log`; no `filters`.
 * @returns What was written.
 * @throws as exportEvidence; StoreUnavailableError when the database cannot be reached
 */
export function exportServedEvidence(
  workspace: Workspace,
  store: ServiceStore,
  options: Omit<ExportOptions, 'dataDirectory' | 'filters' | 'log'> & { log: NonNullable<ExportOptions['log']> },
): Promise<ExportResult> {
  if (store.evidence.exportPath === 'ledger-file') return exportEvidence(workspace, options);
  const { worker, onWorkerError, ...rest } = options;
  void worker;
  void onWorkerError;
  const readable = workspace.ledger.readable;
  return exportTenantBundle(
    store.evidence,
    { ...rest, dataDirectory: workspace.dataDirectory },
    {
      knownKey: (keyId) => getTrustedKey(readable, keyId) ?? listAdvertisedKeys(readable, { key_id: keyId })[0],
      audit: (action, subject, details) => store.identity.appendAudit({ action, subject, details }),
    },
  );
}

/**
 * The `log` export option of a served tenant's evidence under `log` (the evidence route and
 * `evroom export --tenant`).
 */
export function tenantLogOption(
  log: ServiceLog,
  request: { tenantId: string; since: string | null; until: string | null; consistentWith?: readonly number[] },
): NonNullable<ExportOptions['log']> {
  return {
    tenantId: request.tenantId,
    since: request.since,
    until: request.until,
    ...(request.consistentWith === undefined ? {} : { consistentWith: [...request.consistentWith] }),
    key: { key_id: log.keyId, public_key: log.publicKey, note_key_name: log.name, vkey: log.vkey },
  };
}

/**
 * Whether the service's store has this tenant (whose receipts are logged).
 *
 * @throws StoreUnavailableError when the database cannot be reached
 */
export async function isStoreTenant(store: ServiceStore, tenantId: string): Promise<boolean> {
  return isTenantId(tenantId) && (await store.evidence.hasTenant(tenantId));
}

/**
 * Exports a served tenant's evidence from the service's store (`evroom export --tenant T`; the
 * data folder's ledger unless `store` names another, a PostgreSQL database), as
 * `GET /tenants/:id/evidence` does: the tenant's logged receipts of the period, the log's
 * checkpoint (signed now with the log key if the log grew since its last one, under the name
 * its last checkpoint bears, or for a log without one the name of the store's last checkpoint of
 * any tenant) and proofs, the manifest signed by the service's signing key.
 *
 * @throws OperationError not_found for a tenant the store does not know; as exportServedEvidence
 */
export async function exportTenantEvidence(
  workspace: Workspace,
  options: Omit<ExportOptions, 'dataDirectory' | 'log' | 'filters' | 'signingKey' | 'tenantId'> & {
    tenantId: string;
    since: string | null;
    until: string | null;
    /** The service's store (default the workspace's own, SQLite). */
    store?: ServiceStore;
  },
): Promise<ExportResult> {
  const { tenantId, since, until, store: given, ...rest } = options;
  const store = given ?? workspaceServiceStore(workspace);
  if (!(await isStoreTenant(store, tenantId)))
    throw new OperationError(
      'not_found',
      'not_found',
      `This ${store.engine === 'sqlite' ? 'ledger' : 'database'} has no tenant ${tenantId}.`,
    );
  // The name the tenant's newest checkpoint bears; for a log with none yet, the name the service
  // signs under now (its last checkpoint of any tenant bears it), so the first checkpoint this
  // export signs is of the origin the service would sign (docs/logs.md, "The service's log").
  const latest =
    (await store.evidence.snapshot(tenantId, (reader) => reader.checkpoint())) ??
    (await store.issuance.lastSignedCheckpoint());
  const name = latest === undefined ? undefined : parseNote(latest.note).signatures[0]?.name;
  const log = openServiceLog(workspace, loadLogKey(workspace), { ...(name === undefined ? {} : { name }), store });
  const { active } = loadServiceKeys(workspace);
  try {
    await log.freshCheckpoint(tenantId);
    return await exportServedEvidence(workspace, store, {
      ...rest,
      tenantId,
      signingKey: { key_id: active.key_id, seed: active.seed, public_key: active.public_key },
      log: tenantLogOption(log, { tenantId, since, until }),
    });
  } finally {
    log.close();
    active.seed.fill(0);
  }
}

/**
 * Stops the thread that writes evidence bundles for `worker: true` exports, if one runs (the
 * HTTP service, when it closes). An export still in flight is written on its calling thread.
 */
export function stopEvidenceWorker(): Promise<void> {
  return stopExportWorker();
}
