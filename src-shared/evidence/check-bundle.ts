/**
 * Verify an evidence bundle without storing anything: the browser reference verifier's check.
 *
 * The same rules as the import of src-main/operations/import.ts (PROTOCOL section 9), from the
 * same functions (entry-names.ts, limits.ts, manifest.ts, bundle-findings.ts), over any archive
 * reader (the browser page hands in jszip's entries): entry names and limits,
 * manifest.json parsed strictly (a bad one refuses the bundle), every file's size and SHA-256
 * against the manifest, manifest.sig against the manifest's digest, keys/service-keys.json as
 * advertised keys (never trusted), and every receipt verified. Findings are the import's, with
 * its codes and words (src-main/operations/import-checkers.test.ts runs one set of bundles
 * through both).
 *
 * Decisions:
 * - One pass: manifest.json, manifest.sig, the keys file and the log files are read first (the
 *   keys are needed to verify receipts, the log files to check each receipt's leaf), then every
 *   other file is read once, hashed and, when it is a receipt, verified and handed to the log
 *   check (log-evidence.ts, the import's). Nothing is kept but the reports asked for.
 * - Anchor files are checked against the manifest like every file, but their records are not
 *   read (their meaning needs a chain): a note says so. `counts.anchors` is therefore not
 *   compared; `counts.receipts` is.
 * - A receipt file named neither by its receipt id nor its SHA-256 is `receipt_name_mismatch`,
 *   as on import (the page did not check it before the two checkers were made one).
 */
import {
  checkEntryCount,
  checkEntrySizes,
  DEFAULT_ZIP_LIMITS,
  entriesTooLarge,
  entryTooLarge,
  RATIO_FLOOR_BYTES,
  type ZipLimits,
} from './limits';
import type { Finding, FindingCode } from '../api/vocabulary';
import type { LogCompleteness } from '../api/logs-contract';
import { tlogLeafHash } from '../crypto/tlog';
import { hexEncode, utf8Encode } from '../crypto';
import type { VerifyContext } from '../verify/context';
import type { Report, ReportStatus, TrustStatus } from '../verify/report';
import { verifyDocumentFacts } from '../verify/receipt-facts';
import {
  classifyBundlePath,
  KEYS_NAME,
  LOG_CHECKPOINT_NAME,
  LOG_PROOFS_NAME,
  pathStem,
  type BundlePathKind,
} from './bundle-layout';
import {
  addCountFindings,
  addDirectoryFindings,
  addFileFindings,
  addReceiptNameFinding,
  addReceiptStatusFinding,
  addSignatureFindings,
  countListedReceipts,
  FindingList,
  MAX_LISTED_FINDINGS,
  readAdvertisedKeys,
  reportProblem,
} from './bundle-findings';
import { EntryNames, checkEntryName } from './entry-names';
import { LogEvidenceCheck } from './log-evidence';
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
export { MAX_LISTED_FINDINGS };
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
  /** How many findings of each code, listed or not. */
  findingCounts: Partial<Record<BundleFindingCode, number>>;
  /** Every receipt not PASS (first), then the first {@link MAX_KEPT_PASS_REPORTS} that are. */
  receipts: BundleReceiptReport[];
  /** What the bundle's log evidence shows (log-evidence.ts); null without log files or when refused. */
  log: LogCompleteness | null;
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
  const found = new FindingList();
  const counts = emptyCounts();
  const failed: BundleReceiptReport[] = [];
  const passed: BundleReceiptReport[] = [];
  let manifest: Manifest | undefined;
  let signature: SignatureCheck | undefined;
  let log: LogCompleteness | null = null;
  try {
    checkEntryCount(entries.length, limits);
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
        checkEntrySizes(entry.name, compressedSize, uncompressedSize, limits);
        declaredTotal += uncompressedSize;
        if (declaredTotal > limits.maxBytes) throw entriesTooLarge(entry.name, limits);
      }
    }
    const files = entries.filter((entry) => !entry.directory);
    counts.files = files.length;
    let totalBytes = 0;
    const readChecked = async (entry: BundleArchiveEntry): Promise<Uint8Array> => {
      const bytes = await entry.read();
      if (bytes.length > limits.maxEntryBytes) throw entryTooLarge(entry.name, bytes.length, limits);
      totalBytes += bytes.length;
      if (totalBytes > limits.maxBytes) throw entriesTooLarge(entry.name, limits);
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
    // The log files are read with the keys, as the import reads them: the receipts are checked against them.
    const checkpointEntry = byName.get(LOG_CHECKPOINT_NAME);
    const checkpointBytes = checkpointEntry === undefined ? undefined : await readChecked(checkpointEntry);
    const proofsEntry = byName.get(LOG_PROOFS_NAME);
    const proofsBytes = proofsEntry === undefined ? undefined : await readChecked(proofsEntry);
    const keysInvalidBefore = found.counts.keys_invalid ?? 0;
    // Each of the caller's sources against the bundle's file alone: a conflict the bundle did not bring is not its finding.
    const advertised = readAdvertisedKeys(
      keysBytes,
      [
        { name: 'the trusted keys', entries: context.pinned },
        { name: 'the keys given', entries: context.advertised },
      ],
      found,
    );
    counts.advertisedKeys = advertised.length;
    const bundleContext: VerifyContext = { ...context, advertised: [...context.advertised, ...advertised] };
    const logCheck = new LogEvidenceCheck(context.crypto, {
      checkpoint: checkpointBytes,
      proofs: proofsBytes,
      pinned: context.pinned,
      // An unusable keys file advertises no log key either.
      keysFile: (found.counts.keys_invalid ?? 0) === keysInvalidBefore ? keysBytes : undefined,
      tenantId: manifest.tenant_id,
    });

    const known = new Map<BundleArchiveEntry, Uint8Array>([[manifestEntry, manifestBytes]]);
    if (signatureEntry !== undefined && signatureBytes !== undefined) known.set(signatureEntry, signatureBytes);
    if (keysEntry !== undefined && keysBytes !== undefined) known.set(keysEntry, keysBytes);
    if (checkpointEntry !== undefined && checkpointBytes !== undefined) known.set(checkpointEntry, checkpointBytes);
    if (proofsEntry !== undefined && proofsBytes !== undefined) known.set(proofsEntry, proofsBytes);
    const scanned: { name: string; kind: BundlePathKind; sha256: string; bytes: number }[] = [];
    let done = 0;
    options.onProgress?.({ done, total: files.length });
    for (const entry of files) {
      const data = known.get(entry) ?? (await readChecked(entry));
      const kind = classifyBundlePath(entry.name);
      scanned.push({ name: entry.name, kind, sha256: hexEncode(context.crypto.sha256(data)), bytes: data.length });
      if (kind === 'receipt') {
        const verified = verifyDocumentFacts(data, bundleContext);
        const { report } = verified;
        counts.receipts += 1;
        counts.byStatus[report.status] = (counts.byStatus[report.status] ?? 0) + 1;
        counts.byTrust[report.trust.status] = (counts.byTrust[report.trust.status] ?? 0) + 1;
        addReceiptStatusFinding(found, entry.name, report.status, reportProblem(report));
        const stem = pathStem(entry.name);
        if (verified.receipt_id !== null && stem !== verified.receipt_id) {
          // Its identity is asked for only when the file is not named by the receipt's id.
          const identity = context.crypto.sha256(
            verified.canonical === undefined ? data : utf8Encode(verified.canonical),
          );
          addReceiptNameFinding(found, entry.name, stem, verified.receipt_id, hexEncode(identity));
        }
        if (logCheck.active) {
          const canonical = verified.canonical === undefined ? data : utf8Encode(verified.canonical);
          logCheck.addReceipt({
            path: entry.name,
            receipt_sha256: hexEncode(context.crypto.sha256(canonical)),
            leaf_hash: tlogLeafHash((bytes) => context.crypto.sha256(bytes), canonical),
          });
        }
        if (report.status !== 'PASS') failed.push({ path: entry.name, report });
        else if (passed.length < MAX_KEPT_PASS_REPORTS) passed.push({ path: entry.name, report });
      }
      done += 1;
      options.onProgress?.({ done, total: files.length });
    }
    addDirectoryFindings(entries, found);
    const listed = manifest.files;
    addFileFindings(
      {
        count: listed.length,
        path: (item) => (listed[item] as Manifest['files'][number]).path,
        bytes: (item) => (listed[item] as Manifest['files'][number]).bytes,
        sha256: (item) => (listed[item] as Manifest['files'][number]).sha256,
      },
      {
        count: scanned.length,
        name: (index) => (scanned[index] as (typeof scanned)[number]).name,
        kind: (index) => (scanned[index] as (typeof scanned)[number]).kind,
        bytes: (index) => (scanned[index] as (typeof scanned)[number]).bytes,
        sha256: (index) => (scanned[index] as (typeof scanned)[number]).sha256,
      },
      (item, index) => listed[item]?.sha256 === scanned[index]?.sha256,
      found,
    );
    signature = checkManifestSignature(manifestBytes, signatureBytes, bundleContext);
    addSignatureFindings(signature, manifest.key_id, found);
    // Anchor records are not read here (module comment): counts.anchors is not compared.
    addCountFindings(manifest.counts, countListedReceipts(listed.map((file) => file.path)), undefined, found);
    log = logCheck.finish(found);
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    const refusal: NonNullable<BundleCheck['refusal']> = { code: error.code, message: error.message };
    if (error.entry !== undefined) refusal.entry = error.entry;
    if (error.path !== undefined) refusal.path = error.path;
    return {
      status: 'refused',
      refusal,
      counts,
      findings: found.listed,
      totalFindings: found.total,
      findingCounts: { ...found.counts },
      receipts: [],
      log: null,
      notes: [],
    };
  }
  const { files: listed, ...rest } = manifest;
  return {
    status: found.total === 0 ? 'clean' : 'findings',
    manifest: { ...rest, files: listed.length },
    signature,
    counts,
    findings: found.listed,
    totalFindings: found.total,
    findingCounts: { ...found.counts },
    receipts: [...failed, ...passed],
    log,
    notes: [...NOTES],
  };
}
