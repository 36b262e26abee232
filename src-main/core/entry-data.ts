/**
 * One zip entry's stored bytes made into its data, with every check of PROTOCOL section 9 that
 * needs the data: inflated with an output cap, its size against the one declared, its CRC-32.
 *
 * Kept apart from src-main/evidence/zip-reader.ts (which finds the stored bytes in the file),
 * here in core beneath both the zip reader and the verification worker, so that the work can
 * run on any thread and the worker never reaches up into the zip library: the import hands batches of stored bytes to its verification workers
 * (src-main/core/verify-worker.ts), which inflate, check and hash them there, and the main
 * thread only reads the file and writes the ledger. Both paths call the one function below, so
 * the errors and their messages are the same wherever an entry is read.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { BundleError, printableName } from '../../src-shared/evidence/errors';

/** What the checks need to know of an entry (a subset of zip-reader's ZipEntry). */
export interface EntryShape {
  /** The decoded name, for messages. */
  readonly name: string;
  /** 0 stored or 8 deflate (zip-hygiene.ts refuses every other method). */
  readonly compressionMethod: number;
  /** As declared in the central directory. */
  readonly uncompressedSize: number;
  readonly crc32: number;
}

/**
 * Inflate (or take as stored) an entry's bytes and check them against its declared size and CRC-32.
 *
 * @param stored - The entry's bytes as stored in the zip (compressed for method 8).
 * @param entry - Its name, method, declared size and CRC-32.
 * @param maxEntryBytes - The entry size limit in force: nothing is inflated past it.
 * @returns The data; for a stored entry, `stored` itself.
 * @throws BundleError zip_size_mismatch when the data is longer or shorter than declared,
 *   zip_corrupt when the compressed data is damaged, zip_crc_mismatch when the CRC-32 differs.
 */
export function entryData(stored: Uint8Array, entry: EntryShape, maxEntryBytes: number): Buffer {
  // Only messages need the printable name; most reads need no message.
  const shown = (): string => printableName(entry.name);
  let data: Buffer;
  if (entry.compressionMethod === 0) {
    data = Buffer.from(stored.buffer, stored.byteOffset, stored.length);
  } else {
    // Inflate at most one byte past the declared size (and never past the entry limit): a
    // header that understates the size is caught without inflating the rest.
    const cap = Math.min(entry.uncompressedSize, maxEntryBytes) + 1;
    try {
      // An output chunk of the expected size: zlib would otherwise keep a 16 KiB buffer
      // behind every small receipt for as long as the receipt is held.
      data = inflateRawSync(stored, { maxOutputLength: cap, chunkSize: Math.max(64, Math.min(cap, 1024 * 1024)) });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        throw new BundleError(
          'zip_size_mismatch',
          `Entry "${shown()}" inflates to more than the ${entry.uncompressedSize} bytes its header declares.`,
          {
            entry: shown(),
            cause: error,
          },
        );
      }
      throw new BundleError(
        'zip_corrupt',
        `Entry "${shown()}": its compressed data is damaged (${(error as Error).message}).`,
        {
          entry: shown(),
          cause: error,
        },
      );
    }
  }
  if (data.length !== entry.uncompressedSize) {
    throw new BundleError(
      'zip_size_mismatch',
      `Entry "${shown()}" holds ${data.length} bytes, not the ${entry.uncompressedSize} its header declares.`,
      {
        entry: shown(),
      },
    );
  }
  if (crc32(data) !== entry.crc32) {
    throw new BundleError('zip_crc_mismatch', `Entry "${shown()}": its data does not match its CRC-32.`, {
      entry: shown(),
    });
  }
  return data;
}
