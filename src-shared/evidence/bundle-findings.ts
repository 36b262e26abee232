/**
 * The findings of an evidence bundle (PROTOCOL section 9): what each one is, its code and its
 * words, once for the import (src-main/operations/import.ts) and the browser reference
 * verifier (check-bundle.ts).
 *
 * A finding is something wrong with a bundle that does not stop it from being read: a file the
 * manifest lists but the zip lacks (`file_missing`), one the zip has but the manifest does not
 * list (`file_extra`), one whose bytes differ from the manifest (`file_mismatch`), one outside
 * the bundle layout (`unexpected_file`), manifest.sig problems, an unusable keys file, counts
 * that disagree, a receipt whose report is not PASS, a receipt file named neither by its id nor
 * its SHA-256. How the files are read (yauzl and worker threads on import, jszip in the page)
 * is the caller's; what they are judged by is here, so both say the same thing of the same zip.
 *
 * The file lists are read through small column interfaces ({@link ListedFiles},
 * {@link ZipFiles}) so that the import can keep its compact, columnar state (no object per
 * file for 100,000 receipts) and the page its plain objects.
 */
import type { Finding, FindingCode } from '../api/vocabulary';
import { utf8Decode } from '../crypto';
import type { KeyEntry } from '../verify/context';
import { checkKeySources, KeyFileError, parseKeyFile } from '../verify/key-file';
import type { Report, ReportStatus } from '../verify/report';
import { classifyBundlePath, KEYS_NAME, type BundlePathKind } from './bundle-layout';
import { printableName } from './errors';
import { MANIFEST_NAME, SIGNATURE_NAME, type SignatureCheck } from './manifest';

/** Findings listed one by one in a result (and an imported bundle's row); the rest are only counted. */
export const MAX_LISTED_FINDINGS = 1000;

/** The findings of one bundle: the first {@link MAX_LISTED_FINDINGS} listed, every one counted. */
export class FindingList {
  /** At most {@link MAX_LISTED_FINDINGS}, in the order found. */
  readonly listed: Finding[] = [];
  /** Every finding, counted by code. */
  readonly counts: Partial<Record<FindingCode, number>> = {};
  /** Every finding. */
  total = 0;

  /**
   * Record a finding.
   *
   * @param code - Its stable code.
   * @param path - The bundle path it concerns.
   * @param message - A sentence for people.
   */
  add(code: FindingCode, path: string, message: string): void {
    this.total += 1;
    this.counts[code] = (this.counts[code] ?? 0) + 1;
    if (this.listed.length < MAX_LISTED_FINDINGS) this.listed.push({ code, path, message });
  }
}

/**
 * The first problem of a report, in words: its first error's message, else the detail of its
 * first check that did not pass; empty for a PASS report.
 *
 * @param report - The report (only its status, errors and checks are read).
 * @returns The words a `receipt_not_pass` finding gives after the status.
 */
export function reportProblem(report: Pick<Report, 'status' | 'errors' | 'checks'>): string {
  if (report.status === 'PASS') return '';
  return report.errors[0]?.message ?? report.checks.find((check) => check.status !== 'pass')?.detail ?? '';
}

/**
 * A receipt's report: `receipt_not_pass` unless it is PASS.
 *
 * @param findings - Where the finding goes.
 * @param path - The receipt's bundle path.
 * @param status - Its report's status.
 * @param problem - {@link reportProblem} of its report.
 */
export function addReceiptStatusFinding(
  findings: FindingList,
  path: string,
  status: ReportStatus,
  problem: string,
): void {
  if (status !== 'PASS') findings.add('receipt_not_pass', path, `${status}${problem === '' ? '' : `: ${problem}`}`);
}

/**
 * A receipt's file name: `receipt_name_mismatch` when its stem is neither the receipt's id nor
 * its SHA-256 (a receipt without an id is named by its SHA-256 and never mismatches).
 *
 * @param findings - Where the finding goes.
 * @param path - The receipt's bundle path.
 * @param stem - The file name without `receipts/` and `.json`.
 * @param receiptId - The receipt's id, or null.
 * @param receiptSha256 - hex SHA-256 of its JCS form.
 */
export function addReceiptNameFinding(
  findings: FindingList,
  path: string,
  stem: string,
  receiptId: string | null,
  receiptSha256: string,
): void {
  if (receiptId !== null && stem !== receiptId && stem !== receiptSha256) {
    findings.add(
      'receipt_name_mismatch',
      path,
      `The file is named ${printableName(stem)} but holds receipt ${printableName(receiptId)}.`,
    );
  }
}

/** Keys the bundle's key file is compared with, named as the finding names them. */
export interface KeySource {
  name: string;
  entries: readonly KeyEntry[];
}

/**
 * The bundle's keys/service-keys.json as advertised keys, or none when it cannot be used (a
 * `keys_invalid` finding).
 *
 * One key id names one key (PROTOCOL section 0): a file that gives a key_id of one of the
 * caller's sources another key is unusable exactly as a file that names one key_id twice is,
 * with checkKeySources' rule and message. Each source is compared with the bundle's file alone:
 * a conflict between the caller's own sources is not the bundle's finding. A file that is not
 * UTF-8 cannot be JSON (RFC 8259 section 8.1) and is unusable too.
 *
 * @param bytes - The file's bytes, or undefined when the bundle has none.
 * @param sources - The caller's keys (the import: the trust store; the page: its trusted keys and the keys given).
 * @param findings - Where `keys_invalid` goes.
 * @returns The usable advertised keys.
 */
export function readAdvertisedKeys(
  bytes: Uint8Array | undefined,
  sources: readonly KeySource[],
  findings: FindingList,
): KeyEntry[] {
  if (bytes === undefined) return [];
  let text: string;
  try {
    text = utf8Decode(bytes);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    findings.add('keys_invalid', KEYS_NAME, `The key file cannot be used: ${error.message}`);
    return [];
  }
  try {
    const entries = parseKeyFile(text, { advertised: true });
    const shipped = { name: KEYS_NAME, entries };
    for (const source of sources) checkKeySources([{ name: source.name, entries: [...source.entries] }, shipped]);
    return entries;
  } catch (error) {
    if (!(error instanceof KeyFileError)) throw error;
    const where = error.path === '' ? '' : ` at ${error.path}`;
    findings.add('keys_invalid', KEYS_NAME, `The key file cannot be used${where}: ${error.message}`);
    return [];
  }
}

/**
 * Directory entries outside the bundle layout: `unexpected_file`.
 *
 * @param entries - Every entry of the zip, in central directory order.
 * @param findings - Where the findings go.
 */
export function addDirectoryFindings(
  entries: Iterable<{ readonly name: string; readonly directory: boolean }>,
  findings: FindingList,
): void {
  for (const entry of entries) {
    if (entry.directory && classifyBundlePath(entry.name) !== 'directory') {
      findings.add(
        'unexpected_file',
        entry.name,
        `The directory ${printableName(entry.name)} is not part of the bundle layout.`,
      );
    }
  }
}

/** The manifest's file list, item by item in manifest order. */
export interface ListedFiles {
  readonly count: number;
  path(item: number): string;
  bytes(item: number): number;
  /** hex SHA-256 (asked only for a message). */
  sha256(item: number): string;
}

/** The zip's files (no directories), index by index in central directory order, as read. */
export interface ZipFiles {
  readonly count: number;
  name(index: number): string;
  kind(index: number): BundlePathKind;
  /** The bytes the file holds. */
  bytes(index: number): number;
  /** hex SHA-256 of its bytes (asked only for a message). */
  sha256(index: number): string;
}

/**
 * Compare the zip's files with the manifest's list: each listed file missing from the zip
 * (`file_missing`) or differing from the manifest in size or SHA-256 (`file_mismatch`), in
 * manifest order; then each file of the zip the manifest does not list (`file_extra`) and each
 * outside the bundle layout (`unexpected_file`), in zip order. manifest.json and manifest.sig
 * are never listed.
 *
 * @param listed - The manifest's list.
 * @param zip - The zip's files; names are unique (the zip rules refuse duplicates).
 * @param sameDigest - Whether listed item `item` and zip file `index` have the same SHA-256.
 * @param findings - Where the findings go.
 */
export function addFileFindings(
  listed: ListedFiles,
  zip: ZipFiles,
  sameDigest: (item: number, index: number) => boolean,
  findings: FindingList,
): void {
  const present = new Map<string, number>();
  for (let index = 0; index < zip.count; index += 1) present.set(zip.name(index), index);
  const isListed = new Uint8Array(zip.count);
  for (let item = 0; item < listed.count; item += 1) {
    const expectedPath = listed.path(item);
    const index = present.get(expectedPath);
    if (index === undefined) {
      findings.add('file_missing', expectedPath, 'The manifest lists this file but the zip does not have it.');
      continue;
    }
    isListed[index] = 1;
    const expectedBytes = listed.bytes(item);
    if (zip.bytes(index) !== expectedBytes || !sameDigest(item, index)) {
      findings.add(
        'file_mismatch',
        expectedPath,
        `The file differs from the manifest: ${zip.bytes(index)} bytes with SHA-256 ${zip.sha256(index)}, ` +
          `the manifest says ${expectedBytes} bytes with SHA-256 ${listed.sha256(item)}.`,
      );
    }
  }
  for (let index = 0; index < zip.count; index += 1) {
    const kind = zip.kind(index);
    if (kind === 'manifest' || kind === 'signature') continue;
    const name = zip.name(index);
    if (isListed[index] === 0)
      findings.add('file_extra', name, 'The zip has this file but the manifest does not list it.');
    if (kind === 'other')
      findings.add('unexpected_file', name, 'The file is not part of the bundle layout and was not read.');
  }
}

/**
 * manifest.sig's check as findings: its status when it is not valid, and a signer other than
 * the key the manifest names (`manifest_key_mismatch`).
 *
 * @param signature - checkManifestSignature's answer.
 * @param keyId - The manifest's key_id.
 * @param findings - Where the findings go.
 */
export function addSignatureFindings(signature: SignatureCheck, keyId: string, findings: FindingList): void {
  const codes: Partial<Record<SignatureCheck['status'], FindingCode>> = {
    missing: 'manifest_signature_missing',
    malformed: 'manifest_signature_malformed',
    mismatch: 'manifest_signature_mismatch',
    unavailable: 'manifest_signature_unavailable',
    unsupported: 'manifest_signature_unsupported',
    invalid: 'manifest_signature_invalid',
  };
  const code = codes[signature.status];
  if (code !== undefined) findings.add(code, SIGNATURE_NAME, signature.detail);
  if (signature.key_id !== undefined && signature.key_id !== keyId) {
    findings.add(
      'manifest_key_mismatch',
      SIGNATURE_NAME,
      `manifest.sig is signed by ${signature.key_id} but manifest.json names ${keyId}.`,
    );
  }
}

/**
 * How many of the manifest's listed paths are receipts.
 *
 * @param paths - The listed paths.
 * @returns The count `counts.receipts` is compared with.
 */
export function countListedReceipts(paths: Iterable<string>): number {
  let count = 0;
  for (const path of paths) if (classifyBundlePath(path) === 'receipt') count += 1;
  return count;
}

/**
 * The manifest's `counts` against what the bundle holds: `count_mismatch`.
 *
 * @param declared - The manifest's counts.
 * @param listedReceipts - {@link countListedReceipts} of its list.
 * @param anchors - The records the anchors files hold, or undefined when they were not read
 *   (the page does not read them, so `counts.anchors` is not compared there).
 * @param findings - Where the findings go.
 */
export function addCountFindings(
  declared: Readonly<Record<string, number>>,
  listedReceipts: number,
  anchors: number | undefined,
  findings: FindingList,
): void {
  if (declared.receipts !== undefined && declared.receipts !== listedReceipts) {
    findings.add(
      'count_mismatch',
      MANIFEST_NAME,
      `counts.receipts is ${declared.receipts} but the manifest lists ${listedReceipts} receipt files.`,
    );
  }
  if (anchors !== undefined && declared.anchors !== undefined && declared.anchors !== anchors) {
    findings.add(
      'count_mismatch',
      MANIFEST_NAME,
      `counts.anchors is ${declared.anchors} but the anchors files hold ${anchors} records.`,
    );
  }
}
