/**
 * Evidence bundles as files: the zip library (reading entries with the limits and hygiene rules,
 * the manifest and its signature, anchors files, writing zips) and the export of a signed bundle.
 * The only code that reads or writes zip files. Importing a bundle into the ledger (scheduling
 * the verification workers, batching, trust, ledger writes) is an operation:
 * src-main/operations/import.ts.
 *
 * @example
 * const archive = await openZipArchive('acme-2026-11.zip', resolveZipLimits());
 *
 * await exportBundle(ledger, { out: 'selection.zip', dataDirectory, filters: { status: 'PASS' } });
 */
export { BundleError, printableName, type BundleErrorCode } from './errors';
export { DEFAULT_ZIP_LIMITS, RATIO_FLOOR_BYTES, resolveZipLimits, type ZipLimits } from './limits';
export {
  BUNDLE_FORMAT,
  MANIFEST_NAME,
  SIGNATURE_NAME,
  checkManifestSignature,
  parseManifest,
  serializeManifest,
  serializeManifestSignature,
  signManifest,
  type Manifest,
  type ManifestFile,
  type ManifestSignature,
  type SignatureCheck,
} from './manifest';
export { KEYS_NAME, classifyBundlePath, receiptPath, type BundlePathKind } from './bundle-layout';
export {
  BATCH_ID_PATTERN,
  AnchorsFileError,
  parseAnchorsFile,
  serializeAnchorsFile,
  type AnchorsFile,
} from './anchors-file';
export { ImportCancelledError } from './errors';
export { hashFile, type HashFileOptions } from './hash-file';
export {
  DEFAULT_EXPORT_TENANT,
  ExportError,
  exportBundle,
  stopExportWorker,
  type ExportOptions,
  type ExportResult,
} from './export-bundle';
export { SIGNING_KEY_PATH, SigningKeyError, loadOrCreateSigningKey, type LocalSigningKey } from './signing-key';
export type { ExportPhase, ExportProgress } from './progress';
export { createZipWriter, type ZipWriter } from './zip-writer';
export { openZipArchive, type ZipArchive, type ZipEntry } from './zip-reader';
export {
  LOG_CHECKPOINT_NAME,
  LOG_EVIDENCE_FORMAT,
  LOG_PROOFS_NAME,
  LogEvidenceError,
  MAX_CONSISTENT_WITH,
  readLogEvidence,
  type LogEvidence,
  type LogEvidenceRequest,
} from './log-evidence';
