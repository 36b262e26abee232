/**
 * Verify an evidence bundle without storing anything: the browser reference verifier's check.
 *
 * The same rules as the import of src-main/evidence/import-bundle.ts (PROTOCOL section 9),
 * over any archive reader (the browser page hands in jszip's entries): entry names and limits,
 * manifest.json parsed strictly (a bad one refuses the bundle), every file's size and SHA-256
 * against the manifest, manifest.sig against the manifest's digest, keys/service-keys.json as
 * advertised keys (never trusted), and every receipt verified. Findings use the import's
 * codes and words.
 *
 * Decisions:
 * - One pass: manifest.json, manifest.sig and the keys file are read first (the keys are needed
 *   to verify receipts), then every other file is read once, hashed and, when it is a receipt,
 *   verified. Nothing is kept but the reports asked for.
 * - Anchor files are checked against the manifest like every file, but their records are not
 *   read (their meaning needs a chain): a note says so. `counts.anchors` is therefore not
 *   compared; `counts.receipts` is.
 * - The import's `receipt_name_mismatch` (a file named neither by its receipt id nor its
 *   SHA-256) is not checked here; a note says so.
 */
import { DEFAULT_ZIP_LIMITS, RATIO_FLOOR_BYTES, type ZipLimits } from './limits';
import type { Finding, FindingCode } from '../api/vocabulary';
import { hexEncode, utf8Decode } from '../crypto';
import type { VerifyContext, KeyEntry } from '../verify/context';
import { checkKeySources, KeyFileError, parseKeyFile } from '../verify/key-file';
import type { Report, ReportStatus, TrustStatus } from '../verify/report';
import { verifyDocument } from '../verify/verify';
import { classifyBundlePath, KEYS_NAME, type BundlePathKind } from './bundle-layout';
import { EntryNames, checkEntryName } from './entry-names';
import { BundleError, printableName, type BundleErrorCode } from './errors';
import {
  checkManifestSignature,
  MANIFEST_NAME,
  parseManifest,
  SIGNATURE_NAME,
  type Manifest,
  type SignatureCheck,
} from './manifest';

/** Findings listed one by one; the rest are only counted (the import's limit). */
export const MAX_LISTED_FINDINGS = 1000;
/** PASS receipts whose report is kept for display; reports not PASS are always kept. */
export const MAX_KEPT_PASS_REPORTS = 200;

export { RATIO_FLOOR_BYTES };

/** One entry of the archive, as a zip reader gives it. */
export interface BundleArchiveEntry {
  /** The decoded name; directories end with `/`. */
  name: string;
  directory: boolean;
  /**
   * The sizes the zip declares, when the reader exposes them: checked against the limits
   * before anything is inflated, so a zip bomb is refused without being expanded. The bytes
   * read are checked against the limits too, whatever was declared.
   */
  declared?: { compressedSize: number; uncompressedSize: number };
  /** The entry's bytes, inflated. */
  read(): Promise<Uint8Array>;
}

/** The codes of the findings the page reports: the import's (src-shared/api/vocabulary.ts). */
export type BundleFindingCode = FindingCode;

/** Something wrong with a bundle that did not stop its check: the import's {@link Finding}. */
export type BundleFinding = Finding;

/** A receipt of the bundle with its report. */
export interface BundleReceiptReport {
  path: string;
  report: Report;
}

/** Progress of {@link checkBundle}. */
export interface BundleProgress {
  /** Files read (hashed, and verified when receipts) so far. */
  done: number;
  total: number;
}

/** The outcome of {@link checkBundle}. */
export interface BundleCheck {
  /** `refused`: a rule of the zip or the manifest was broken; `findings`: read, with findings. */
  status: 'clean' | 'findings' | 'refused';
  refusal?: { code: BundleErrorCode; message: string; entry?: string; path?: string };
  manifest?: Omit<Manifest, 'files'> & { files: number };
  signature?: SignatureCheck;
  counts: {
    files: number;
    receipts: number;
    byStatus: Partial<Record<ReportStatus, number>>;
    byTrust: Partial<Record<TrustStatus, number>>;
    advertisedKeys: number;
  };
  /** At most {@link MAX_LISTED_FINDINGS}, in the order found. */
  findings: BundleFinding[];
  totalFindings: number;
  /** Every receipt not PASS (first), then the first {@link MAX_KEPT_PASS_REPORTS} that are. */
  receipts: BundleReceiptReport[];
  /** What this check did not do, for people. */
  notes: string[];
}

/** Options of {@link checkBundle}. */
export interface CheckBundleOptions {
  limits?: Partial<ZipLimits>;
  onProgress?: (progress: BundleProgress) => void;
}

const NOTES = [
  'Anchor records (anchors/) are checked against the manifest as files; their chain inclusion is not checked here.',
  'Receipt file names are not compared with the receipt ids.',
];

function resolveLimits(limits: Partial<ZipLimits>): ZipLimits {
  const resolved = { ...DEFAULT_ZIP_LIMITS };
  for (const name of ['maxEntries', 'maxBytes', 'maxEntryBytes', 'maxRatio'] as const) {
    const value = limits[name];
    if (value === undefined) continue;
    if (typeof value !== 'number') throw new TypeError(`checkBundle: ${name} must be a number`);
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`checkBundle: ${name} must be a positive integer`);
    resolved[name] = value;
  }
  return resolved;
}

function emptyCounts(): BundleCheck['counts'] {
  return { files: 0, receipts: 0, byStatus: {}, byTrust: {}, advertisedKeys: 0 };
}

/**
 * Check an evidence bundle and verify its receipts, storing nothing.
 *
 * @param entries - Every entry of the zip, in central directory order.
 * @param context - Crypto, the user's pinned keys, secrets and the clock; the bundle's own keys
 *   are added as advertised keys.
 * @param options - Limits (the import's defaults) and a progress listener.
 * @returns The outcome; a broken rule is `refused` with its code, never a throw.
 * @throws TypeError for entries that are not an array or a context without a provider.
 */
export async function checkBundle(
  entries: readonly BundleArchiveEntry[],
  context: VerifyContext,
  options: CheckBundleOptions = {},
): Promise<BundleCheck> {
  if (!Array.isArray(entries)) throw new TypeError('checkBundle expects the archive entries as an array');
  if (typeof context !== 'object' || context === null || typeof context.crypto !== 'object') {
    throw new TypeError('checkBundle expects a verification context');
  }
  const limits = resolveLimits(options.limits ?? {});
  const findings: BundleFinding[] = [];
  let totalFindings = 0;
  const addFinding = (code: BundleFindingCode, path: string, message: string): void => {
    totalFindings += 1;
    if (findings.length < MAX_LISTED_FINDINGS) findings.push({ code, path, message });
  };
  const counts = emptyCounts();
  const failed: BundleReceiptReport[] = [];
  const passed: BundleReceiptReport[] = [];
  let manifest: Manifest | undefined;
  let signature: SignatureCheck | undefined;
  try {
    if (entries.length > limits.maxEntries) {
      throw new BundleError(
        'zip_too_many_entries',
        `The zip has ${entries.length} entries, over the limit of ${limits.maxEntries}.`,
      );
    }
    const names = new EntryNames();
    let declaredTotal = 0;
    for (const entry of entries) {
      checkEntryName(entry.name);
      if (entry.directory !== entry.name.endsWith('/')) {
        throw new BundleError(
          'zip_directory_invalid',
          `Entry "${printableName(entry.name)}" is a directory whose name does not end with "/".`,
          {
            entry: printableName(entry.name),
          },
        );
      }
      names.add(entry);
      if (entry.declared !== undefined) {
        const { compressedSize, uncompressedSize } = entry.declared;
        const shown = printableName(entry.name);
        if (uncompressedSize > limits.maxEntryBytes) {
          throw new BundleError(
            'zip_entry_too_large',
            `Entry "${shown}" inflates to ${uncompressedSize} bytes, over the limit of ${limits.maxEntryBytes}.`,
            { entry: shown },
          );
        }
        if (uncompressedSize > RATIO_FLOOR_BYTES && uncompressedSize / Math.max(compressedSize, 1) > limits.maxRatio) {
          const ratio = Math.round(uncompressedSize / Math.max(compressedSize, 1));
          throw new BundleError(
            'zip_ratio_exceeded',
            `Entry "${shown}" inflates ${ratio} times its compressed size, over the limit of ${limits.maxRatio}.`,
            { entry: shown },
          );
        }
        declaredTotal += uncompressedSize;
        if (declaredTotal > limits.maxBytes)
          throw new BundleError('zip_too_large', `The entries inflate to more than ${limits.maxBytes} bytes.`);
      }
    }
    const files = entries.filter((entry) => !entry.directory);
    counts.files = files.length;
    let totalBytes = 0;
    const readChecked = async (entry: BundleArchiveEntry): Promise<Uint8Array> => {
      const bytes = await entry.read();
      if (bytes.length > limits.maxEntryBytes) {
        throw new BundleError(
          'zip_entry_too_large',
          `Entry "${printableName(entry.name)}" inflates to ${bytes.length} bytes, over the limit of ${limits.maxEntryBytes}.`,
          {
            entry: printableName(entry.name),
          },
        );
      }
      totalBytes += bytes.length;
      if (totalBytes > limits.maxBytes)
        throw new BundleError('zip_too_large', `The entries inflate to more than ${limits.maxBytes} bytes.`);
      return bytes;
    };

    // manifest.json first: without it (or with a bad one) nothing else is worth reading.
    const byName = new Map(files.map((entry) => [entry.name, entry]));
    const manifestEntry = byName.get(MANIFEST_NAME);
    if (manifestEntry === undefined) {
      throw new BundleError('manifest_missing', 'The bundle has no manifest.json at its top level.', {
        entry: MANIFEST_NAME,
      });
    }
    const manifestBytes = await readChecked(manifestEntry);
    manifest = parseManifest(manifestBytes);
    const signatureEntry = byName.get(SIGNATURE_NAME);
    const signatureBytes = signatureEntry === undefined ? undefined : await readChecked(signatureEntry);
    const keysEntry = byName.get(KEYS_NAME);
    const keysBytes = keysEntry === undefined ? undefined : await readChecked(keysEntry);
    const advertised = readAdvertisedKeys(keysBytes, context, addFinding);
    counts.advertisedKeys = advertised.length;
    const bundleContext: VerifyContext = { ...context, advertised: [...context.advertised, ...advertised] };

    const known = new Map<BundleArchiveEntry, Uint8Array>([[manifestEntry, manifestBytes]]);
    if (signatureEntry !== undefined && signatureBytes !== undefined) known.set(signatureEntry, signatureBytes);
    if (keysEntry !== undefined && keysBytes !== undefined) known.set(keysEntry, keysBytes);
    const scanned = new Map<string, { kind: BundlePathKind; sha256: string; bytes: number }>();
    let done = 0;
    options.onProgress?.({ done, total: files.length });
    for (const entry of files) {
      const data = known.get(entry) ?? (await readChecked(entry));
      const kind = classifyBundlePath(entry.name);
      scanned.set(entry.name, { kind, sha256: hexEncode(context.crypto.sha256(data)), bytes: data.length });
      if (kind === 'receipt') {
        const report = verifyDocument(data, bundleContext);
        counts.receipts += 1;
        counts.byStatus[report.status] = (counts.byStatus[report.status] ?? 0) + 1;
        counts.byTrust[report.trust.status] = (counts.byTrust[report.trust.status] ?? 0) + 1;
        if (report.status !== 'PASS') {
          const problem =
            report.errors[0]?.message ?? report.checks.find((check) => check.status !== 'pass')?.detail ?? '';
          addFinding('receipt_not_pass', entry.name, `${report.status}${problem === '' ? '' : `: ${problem}`}`);
          failed.push({ path: entry.name, report });
        } else if (passed.length < MAX_KEPT_PASS_REPORTS) {
          passed.push({ path: entry.name, report });
        }
      }
      done += 1;
      options.onProgress?.({ done, total: files.length });
    }
    for (const entry of entries) {
      if (entry.directory && classifyBundlePath(entry.name) !== 'directory') {
        addFinding(
          'unexpected_file',
          entry.name,
          `The directory ${printableName(entry.name)} is not part of the bundle layout.`,
        );
      }
    }
    checkFiles(manifest, scanned, addFinding);
    signature = checkManifestSignature(manifestBytes, signatureBytes, bundleContext);
    addSignatureFindings(signature, manifest, addFinding);
    const listedReceipts = manifest.files.filter((file) => classifyBundlePath(file.path) === 'receipt').length;
    if (manifest.counts.receipts !== undefined && manifest.counts.receipts !== listedReceipts) {
      addFinding(
        'count_mismatch',
        MANIFEST_NAME,
        `counts.receipts is ${manifest.counts.receipts} but the manifest lists ${listedReceipts} receipt files.`,
      );
    }
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    const refusal: NonNullable<BundleCheck['refusal']> = { code: error.code, message: error.message };
    if (error.entry !== undefined) refusal.entry = error.entry;
    if (error.path !== undefined) refusal.path = error.path;
    return { status: 'refused', refusal, counts, findings, totalFindings, receipts: [], notes: [] };
  }
  const { files: listed, ...rest } = manifest;
  return {
    status: totalFindings === 0 ? 'clean' : 'findings',
    manifest: { ...rest, files: listed.length },
    signature,
    counts,
    findings,
    totalFindings,
    receipts: [...failed, ...passed],
    notes: [...NOTES],
  };
}

/**
 * The bundle's keys/service-keys.json, or none when it cannot be used (a `keys_invalid` finding).
 *
 * One key id names one key (PROTOCOL section 0), as the import applies it: a file that gives a
 * key_id of the caller's pinned keys, or of the keys the caller gave, another key is unusable,
 * as a file naming one key_id twice is (checkKeySources' rule and message).
 */
function readAdvertisedKeys(
  bytes: Uint8Array | undefined,
  context: VerifyContext,
  addFinding: (code: BundleFindingCode, path: string, message: string) => void,
): KeyEntry[] {
  if (bytes === undefined) return [];
  try {
    const entries = parseKeyFile(utf8Decode(bytes), { advertised: true });
    const shipped = { name: KEYS_NAME, entries };
    // Each source against the bundle's file alone: a conflict the bundle did not bring is not its finding.
    checkKeySources([{ name: 'the trusted keys', entries: context.pinned }, shipped]);
    checkKeySources([{ name: 'the keys given', entries: context.advertised }, shipped]);
    return entries;
  } catch (error) {
    // utf8Decode refuses bytes that are not UTF-8 with a RangeError; the file is then unusable.
    if (!(error instanceof KeyFileError) && !(error instanceof RangeError)) throw error;
    const where = error instanceof KeyFileError && error.path !== '' ? ` at ${error.path}` : '';
    addFinding('keys_invalid', KEYS_NAME, `The key file cannot be used${where}: ${error.message}`);
    return [];
  }
}

/** Compare the zip's files with the manifest's list: missing, extra, mismatching, unexpected. */
function checkFiles(
  manifest: Manifest,
  scanned: ReadonlyMap<string, { kind: BundlePathKind; sha256: string; bytes: number }>,
  addFinding: (code: BundleFindingCode, path: string, message: string) => void,
): void {
  const listed = new Set<string>();
  for (const expected of manifest.files) {
    listed.add(expected.path);
    const file = scanned.get(expected.path);
    if (file === undefined) {
      addFinding('file_missing', expected.path, 'The manifest lists this file but the zip does not have it.');
      continue;
    }
    if (file.bytes !== expected.bytes || file.sha256 !== expected.sha256) {
      addFinding(
        'file_mismatch',
        expected.path,
        `The file differs from the manifest: ${file.bytes} bytes with SHA-256 ${file.sha256}, ` +
          `the manifest says ${expected.bytes} bytes with SHA-256 ${expected.sha256}.`,
      );
    }
  }
  for (const [name, file] of scanned) {
    if (file.kind === 'manifest' || file.kind === 'signature') continue;
    if (!listed.has(name)) addFinding('file_extra', name, 'The zip has this file but the manifest does not list it.');
    if (file.kind === 'other')
      addFinding('unexpected_file', name, 'The file is not part of the bundle layout and was not read.');
  }
}

function addSignatureFindings(
  signature: SignatureCheck,
  manifest: Manifest,
  addFinding: (code: BundleFindingCode, path: string, message: string) => void,
): void {
  const codes: Partial<Record<SignatureCheck['status'], BundleFindingCode>> = {
    missing: 'manifest_signature_missing',
    malformed: 'manifest_signature_malformed',
    mismatch: 'manifest_signature_mismatch',
    unavailable: 'manifest_signature_unavailable',
    unsupported: 'manifest_signature_unsupported',
    invalid: 'manifest_signature_invalid',
  };
  const code = codes[signature.status];
  if (code !== undefined) addFinding(code, SIGNATURE_NAME, signature.detail);
  if (signature.key_id !== undefined && signature.key_id !== manifest.key_id) {
    addFinding(
      'manifest_key_mismatch',
      SIGNATURE_NAME,
      `manifest.sig is signed by ${signature.key_id} but manifest.json names ${manifest.key_id}.`,
    );
  }
}
