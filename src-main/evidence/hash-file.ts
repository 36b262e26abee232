/**
 * The SHA-256 of a bundle file (its identity in the ledger), read in chunks with a size cap and
 * cancellation: the import hashes the zip before it reads it, an export hashes what it wrote.
 */
import { createHash } from 'node:crypto';
import { BundleError, throwIfCancelled } from './errors';
import { openRegularFile } from './zip-reader';

/** Bytes read per step while hashing: between steps the signal and the size cap are checked. */
const HASH_CHUNK_BYTES = 1024 * 1024;

/** Options of {@link hashFile}. */
export interface HashFileOptions {
  /** Stops the hashing between chunks with ImportCancelledError. */
  signal?: AbortSignal;
  /** The most bytes read: a larger file is refused before reading, one that grows past it on the way. */
  maxBytes?: number;
  /** Called after each chunk with the bytes hashed so far and the size the file had when opened. */
  onChunk?: (hashed: number, size: number) => void;
}

/**
 * The SHA-256 of a whole regular file, read in chunks.
 *
 * Only a regular file is read (a FIFO or a device would never end); between chunks the
 * signal is checked and the bytes read are held to the cap, so hashing stops promptly whatever
 * the file does.
 *
 * @param file - The path.
 * @param options - Signal, size cap, chunk listener.
 * @returns HEX64.
 * @throws BundleError zip_unreadable when the file cannot be read or is not a regular file;
 *   zip_file_too_large when it is, or grows, larger than `maxBytes`. ImportCancelledError when
 *   the signal fired.
 */
export async function hashFile(file: string, options: HashFileOptions = {}): Promise<string> {
  if (typeof options !== 'object' || options === null) throw new TypeError('hashFile: options must be an object');
  const { signal, maxBytes = Number.MAX_SAFE_INTEGER, onChunk } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
    throw new RangeError('hashFile: maxBytes must be a non-negative integer');
  throwIfCancelled(signal);
  const { handle, size } = await openRegularFile(file);
  try {
    const tooLarge = (bytes: number): BundleError =>
      new BundleError(
        'zip_file_too_large',
        `The bundle file is ${bytes} bytes or more, over the limit of ${maxBytes} bytes.`,
      );
    if (size > maxBytes) throw tooLarge(size);
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
    let hashed = 0;
    for (;;) {
      throwIfCancelled(signal);
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, buffer.length, hashed));
      } catch (error) {
        throw new BundleError('zip_unreadable', `The bundle cannot be read: ${(error as Error).message}.`, {
          cause: error,
        });
      }
      if (bytesRead === 0) break;
      hashed += bytesRead;
      if (hashed > maxBytes) throw tooLarge(hashed);
      hash.update(buffer.subarray(0, bytesRead));
      onChunk?.(hashed, size);
    }
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}
