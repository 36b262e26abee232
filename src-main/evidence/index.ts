/**
 * Evidence bundles: import (zip hygiene, manifest, signature, verification on the worker pool,
 * batched storage) and export (a signed bundle of a ledger selection). The only code that reads
 * or writes zip files.
 *
 * @example
 * const result = await importBundle(ledger, 'acme-2026-11.zip', { onProgress: draw });
 * if (!result.clean) for (const finding of result.findings) console.log(finding.code, finding.path);
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
export {
  DEFAULT_TRANSACTION_SIZE,
  MAX_LISTED_FINDINGS,
  hashFile,
  ImportCancelledError,
  ImportInterruptedError,
  importBundle,
  type Finding,
  type FindingCode,
  type ImportCounts,
  type ImportOptions,
  type ImportResult,
} from './import-bundle';
export {
  DEFAULT_EXPORT_TENANT,
  ExportError,
  exportBundle,
  stopExportWorker,
  type ExportOptions,
  type ExportResult,
} from './export-bundle';
export { SIGNING_KEY_PATH, SigningKeyError, loadOrCreateSigningKey, type LocalSigningKey } from './signing-key';
export type { ExportPhase, ExportProgress, ImportPhase, ImportProgress } from './progress';
export { createZipWriter, type ZipWriter } from './zip-writer';
export { openZipArchive, type ZipArchive, type ZipEntry } from './zip-reader';
