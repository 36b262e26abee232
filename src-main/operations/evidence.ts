/**
 * Evidence bundles in and out: the one import and the one export every door calls.
 *
 * The import itself (verification in the worker pool, trust, the crash-safe batched writes) is
 * import.ts, over the zip library of src-main/evidence; the export is src-main/evidence's.
 * These functions bind them to a workspace, so no door passes a ledger or a data folder of its own.
 */
import { exportBundle, stopExportWorker, type ExportOptions, type ExportResult } from '../evidence/export-bundle';
import { importBundle, type ImportOptions, type ImportResult } from './import';
import { checkAnchorsOffline } from './anchors';
import type { Workspace } from './workspace';

/**
 * Imports an evidence bundle into the workspace's ledger.
 *
 * @param workspace - The open workspace.
 * @param file - The zip file (a path the user chose, or an upload saved to a temporary file).
 * @param options - Limits, progress, cancellation, the recorded file name.
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
  const result = await importBundle(workspace.ledger, file, options);
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
 * Stops the thread that writes evidence bundles for `worker: true` exports, if one runs (the
 * HTTP service, when it closes). An export still in flight is written on its calling thread.
 */
export function stopEvidenceWorker(): Promise<void> {
  return stopExportWorker();
}
