/**
 * Evidence bundles in and out: the one import and the one export every door calls.
 *
 * The zip rules, the manifest and its signature, verification in the worker pool and the
 * crash-safe batched writes live in src-main/evidence; these functions bind them to a
 * workspace, so no door passes a ledger or a data folder of its own.
 */
import { exportBundle, type ExportOptions, type ExportResult } from '../evidence/export-bundle';
import { importBundle, type ImportOptions, type ImportResult } from '../evidence/import-bundle';
import type { Workspace } from './workspace';

/**
 * Imports an evidence bundle into the workspace's ledger.
 *
 * @param workspace - The open workspace.
 * @param file - The zip file (a path the user chose, or an upload saved to a temporary file).
 * @param options - Limits, progress, cancellation, the recorded file name.
 * @returns The import's outcome (findings included).
 * @throws BundleError when the bundle is refused (nothing written); ImportCancelledError or
 *   ImportInterruptedError when it stopped part-way (the bundle is kept partial).
 */
export function importEvidence(workspace: Workspace, file: string, options: ImportOptions = {}): Promise<ImportResult> {
  return importBundle(workspace.ledger, file, options);
}

/**
 * Exports receipts of the workspace's ledger as a signed evidence bundle.
 *
 * @param workspace - The open workspace (its data folder holds the export signing key).
 * @param options - Where to write, which receipts, progress.
 * @returns What was written.
 * @throws ExportError out_exists, out_unwritable (nothing written).
 */
export function exportEvidence(workspace: Workspace, options: Omit<ExportOptions, 'dataDirectory'>): Promise<ExportResult> {
  return exportBundle(workspace.ledger, { ...options, dataDirectory: workspace.dataDirectory });
}
