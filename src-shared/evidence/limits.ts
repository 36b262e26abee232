/**
 * The limits an import enforces on a zip before anything is written (PROTOCOL section 9).
 *
 * All four are configurable (CLI flags `--max-entries`, `--max-bytes`, `--max-entry-bytes`,
 * `--max-ratio`). The defaults fit a laptop: an import holds one small record per entry and
 * parses manifest.json whole (about 1 KB of memory per listed file), so 250,000 entries stay
 * well under 500 MB.
 *
 * The refusals a limit makes (their codes and words) are here too, so the import's zip reader
 * (src-main/evidence) and the browser reference verifier (check-bundle.ts) refuse alike.
 */
import { BundleError, printableName } from './errors';

/** Limits on a zip's entries. */
export interface ZipLimits {
  /** The most entries (files and directories) in the central directory. */
  maxEntries: number;
  /** The most bytes all entries may inflate to, together. */
  maxBytes: number;
  /** The most bytes one entry may inflate to (manifest.json included). */
  maxEntryBytes: number;
  /**
   * The most an entry may inflate relative to its compressed size, and the whole archive
   * relative to the sum of compressed sizes. Entries that inflate to at most
   * {@link RATIO_FLOOR_BYTES} are exempt one by one (they cannot be a bomb) but count in the total.
   */
  maxRatio: number;
}

/** The defaults: 250,000 entries, 2 GiB in all, 64 MiB per entry, ratio 100. */
export const DEFAULT_ZIP_LIMITS: Readonly<ZipLimits> = Object.freeze({
  maxEntries: 250_000,
  maxBytes: 2 * 1024 ** 3,
  maxEntryBytes: 64 * 1024 ** 2,
  // Deflate reaches about 1032:1 at most; JSON receipts compress 2-5:1. 100 leaves room for
  // repetitive but honest content and stops bombs, which need ratios in the hundreds.
  maxRatio: 100,
});

/** Entries that inflate to at most this many bytes are exempt from the per-entry ratio. */
export const RATIO_FLOOR_BYTES = 4096;

/**
 * Bytes one entry may take in a zip file besides its data: the local header (30) and the
 * central directory record (46), each with the name (at most 1024 bytes, zip-hygiene.ts), a data
 * descriptor (at most 24), and room for the extra fields and comments zip tools add.
 */
export const ENTRY_OVERHEAD_BYTES = 4096;

/**
 * The largest zip file that can hold entries within the limits.
 *
 * A bundle's file is checked against it before it is hashed: a file larger than this cannot pass
 * the entry limits anyway, and reading it would only cost time. It allows the stored data itself
 * (`maxBytes`; deflate may grow incompressible data by a fraction of a percent, so 1/256 more),
 * the per-entry overhead of `maxEntries` entries, and the end records with a comment.
 *
 * @param limits - The limits in force.
 * @returns The size in bytes.
 */
export function maxZipFileBytes(limits: ZipLimits): number {
  if (typeof limits !== 'object' || limits === null) throw new TypeError('maxZipFileBytes expects zip limits');
  return limits.maxBytes + Math.ceil(limits.maxBytes / 256) + limits.maxEntries * ENTRY_OVERHEAD_BYTES + 128 * 1024;
}

/**
 * Fill in defaults and check every limit.
 *
 * @param limits - Any subset of the limits.
 * @returns A complete set.
 * @throws TypeError for a limit that is not a number; RangeError for one that is not a positive
 *   safe integer (maxRatio may be any finite number of at least 1).
 */
export function resolveZipLimits(limits: Partial<ZipLimits> = {}): ZipLimits {
  if (typeof limits !== 'object' || limits === null) throw new TypeError('Zip limits must be an object');
  const resolved: ZipLimits = { ...DEFAULT_ZIP_LIMITS };
  for (const name of ['maxEntries', 'maxBytes', 'maxEntryBytes'] as const) {
    const value = limits[name];
    if (value === undefined) continue;
    if (typeof value !== 'number') throw new TypeError(`${name} must be a number`);
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
    resolved[name] = value;
  }
  if (limits.maxRatio !== undefined) {
    if (typeof limits.maxRatio !== 'number') throw new TypeError('maxRatio must be a number');
    if (!Number.isFinite(limits.maxRatio) || limits.maxRatio < 1)
      throw new RangeError('maxRatio must be a number of at least 1');
    resolved.maxRatio = limits.maxRatio;
  }
  return resolved;
}

/**
 * Refuse more entries than the limit.
 *
 * @param count - The entries of the central directory.
 * @param limits - The limits in force.
 * @throws BundleError zip_too_many_entries
 */
export function checkEntryCount(count: number, limits: ZipLimits): void {
  if (count > limits.maxEntries) {
    throw new BundleError(
      'zip_too_many_entries',
      `The zip has ${count} entries, over the limit of ${limits.maxEntries}.`,
    );
  }
}

/**
 * Refuse an entry whose declared sizes break a limit: larger than the per-entry limit, or
 * inflating more than the ratio allows (entries of at most {@link RATIO_FLOOR_BYTES} exempt).
 *
 * @param name - The entry's decoded name.
 * @param compressedSize - As declared.
 * @param uncompressedSize - As declared.
 * @param limits - The limits in force.
 * @throws BundleError zip_entry_too_large, zip_ratio_exceeded
 */
export function checkEntrySizes(
  name: string,
  compressedSize: number,
  uncompressedSize: number,
  limits: ZipLimits,
): void {
  if (uncompressedSize > limits.maxEntryBytes) throw entryTooLarge(name, uncompressedSize, limits);
  if (uncompressedSize > RATIO_FLOOR_BYTES && uncompressedSize / Math.max(compressedSize, 1) > limits.maxRatio) {
    const shown = printableName(name);
    const ratio = Math.round(uncompressedSize / Math.max(compressedSize, 1));
    throw new BundleError(
      'zip_ratio_exceeded',
      `Entry "${shown}" inflates ${ratio} times its compressed size, over the limit of ${limits.maxRatio}.`,
      { entry: shown },
    );
  }
}

/**
 * The refusal of an entry that inflates past the per-entry limit.
 *
 * @param name - The entry's decoded name.
 * @param bytes - What it inflates to (declared, or read).
 * @param limits - The limits in force.
 * @returns BundleError zip_entry_too_large
 */
export function entryTooLarge(name: string, bytes: number, limits: ZipLimits): BundleError {
  const shown = printableName(name);
  return new BundleError(
    'zip_entry_too_large',
    `Entry "${shown}" inflates to ${bytes} bytes, over the limit of ${limits.maxEntryBytes}.`,
    { entry: shown },
  );
}

/**
 * The refusal of entries that inflate past the total limit.
 *
 * @param name - The entry that took the total past it.
 * @param limits - The limits in force.
 * @returns BundleError zip_too_large
 */
export function entriesTooLarge(name: string, limits: ZipLimits): BundleError {
  return new BundleError(
    'zip_too_large',
    `The entries inflate to more than ${limits.maxBytes} bytes in total (the limit).`,
    {
      entry: printableName(name),
    },
  );
}
