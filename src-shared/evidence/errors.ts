/**
 * Why a bundle was refused: a stable code, the zip entry it concerns, and a sentence for people.
 *
 * One class for the import (src-main/evidence) and the browser reference verifier, so both
 * refuse a bundle for the same reasons with the same codes.
 *
 * A refusal is decided before anything is written (PROTOCOL section 9): whenever
 * {@link BundleError} is thrown by the import, the ledger is as it was.
 */
import { DomainError } from '../api/domain-error';

/** Stable codes of {@link BundleError}. */
export type BundleErrorCode =
  /** The file cannot be read, or is not a zip file (no end of central directory). */
  | 'zip_unreadable'
  /** The zip's structure is damaged: bad headers, data outside the file, bad deflate data. */
  | 'zip_corrupt'
  /** An entry name starts with `/`: an absolute path. */
  | 'zip_path_absolute'
  /** An entry name starts with a drive letter (`C:`). */
  | 'zip_path_drive'
  /** An entry name has a `..` segment. */
  | 'zip_path_traversal'
  /** An entry name has a backslash (a Windows separator some tools honour). */
  | 'zip_path_backslash'
  /** An entry name has a NUL or another control character. */
  | 'zip_path_control'
  /** An entry name is otherwise unusable: empty, `.` or empty segments, not UTF-8, too long. */
  | 'zip_path_invalid'
  /** An entry is a symbolic link (unix mode or a Windows reparse point). */
  | 'zip_symlink'
  /** An entry is a device, FIFO or socket. */
  | 'zip_special_file'
  /** A directory entry that is not a real one (has content, or its name and mode disagree). */
  | 'zip_directory_invalid'
  /** Two entries have the same name, also after case folding and Unicode normalisation. */
  | 'zip_duplicate_name'
  /** A file's name is also used as a directory by another entry. */
  | 'zip_path_conflict'
  /** An entry is encrypted (general purpose bit 0, or strong encryption bit 6). */
  | 'zip_encrypted'
  /** An entry uses a compression method other than stored (0) or deflate (8). */
  | 'zip_unsupported_compression'
  /** More entries than the configured limit. */
  | 'zip_too_many_entries'
  /** One entry inflates to more than the per-entry limit. */
  | 'zip_entry_too_large'
  /** The entries inflate to more bytes in total than the configured limit. */
  | 'zip_too_large'
  /** The zip file itself is larger than any zip within the configured limits can be. */
  | 'zip_file_too_large'
  /** An entry, or the whole archive, inflates more than the configured ratio allows. */
  | 'zip_ratio_exceeded'
  /** An entry's data inflates to another size than its header declares. */
  | 'zip_size_mismatch'
  /** An entry's data does not match its CRC-32. */
  | 'zip_crc_mismatch'
  /** The zip changed on disk while it was being imported. */
  | 'zip_changed'
  /** There is no manifest.json at the top of the bundle. */
  | 'manifest_missing'
  /** manifest.json is not strict JSON or breaks the manifest schema; `path` points at the problem. */
  | 'manifest_invalid'
  /** manifest.json names a bundle_format other than `evroom.evidence/1`. */
  | 'manifest_unsupported_format';

/**
 * A bundle the import refuses, with nothing written.
 */
export class BundleError extends DomainError {
  override readonly code: BundleErrorCode;
  /** The zip entry concerned (as decoded, control characters escaped), when there is one. */
  readonly entry: string | undefined;
  /** For manifest errors: a JSON Pointer into manifest.json. */
  readonly path: string | undefined;
  constructor(
    code: BundleErrorCode,
    message: string,
    options: { entry?: string; path?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BundleError';
    this.code = code;
    this.entry = options.entry;
    this.path = options.path;
  }
}

/**
 * An entry name made safe to print: control characters and backslashes as escapes, cut at
 * 200 characters.
 *
 * @param name - The name as decoded.
 * @returns A printable rendering.
 */
export function printableName(name: string): string {
  if (typeof name !== 'string') throw new TypeError('printableName expects a string');
  // JSON string escaping shows control characters and backslashes unambiguously.
  const escaped = JSON.stringify(name).slice(1, -1);
  return escaped.length > 200 ? `${escaped.slice(0, 200)}…` : escaped;
}
