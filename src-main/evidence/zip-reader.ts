/**
 * Reading a bundle zip: yauzl parses the structure (end of central directory, ZIP64 records,
 * central directory records); our own code checks every entry and reads, inflates and checks
 * each entry's data.
 *
 * Why not yauzl's read streams: a stream pipeline per entry costs far more than the entry's
 * data when a bundle holds 100,000 small receipts (sequential streams read about 5,000 entries
 * a second here). Instead the file is read in large blocks through a small cache (the
 * RandomAccessReader yauzl reads through too), and each entry's compressed bytes are inflated
 * in one call with an output cap. Every size is enforced by our code: the declared size against
 * the limits when the central directory is read, and the actual inflated size against the
 * declared one when the data is read, so a lying header cannot slip past a limit. CRC-32 is
 * checked too.
 */
import { constants as fsConstants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { entryData } from '../core/entry-data';
import { BundleError, ImportCancelledError, printableName, throwIfCancelled } from './errors';
import { checkEntryCount, entriesTooLarge, maxZipFileBytes, type ZipLimits } from './limits';
import { checkCentralEntry, EntryNames } from './zip-hygiene';

/** One entry of the central directory, checked. */
export interface ZipEntry {
  /** Position in the central directory. */
  readonly index: number;
  /** The decoded name; directories end with `/`. */
  readonly name: string;
  readonly directory: boolean;
  /** 0 stored or 8 deflate. */
  readonly compressionMethod: number;
  readonly compressedSize: number;
  /** As declared; {@link ZipArchive.read} checks the data against it. */
  readonly uncompressedSize: number;
  readonly crc32: number;
  readonly localHeaderOffset: number;
}

/** An open, checked zip. */
export interface ZipArchive {
  /** The path it was opened from. */
  readonly file: string;
  /** Its size in bytes. */
  readonly size: number;
  /** Every entry, in central directory order. */
  readonly entries: readonly ZipEntry[];
  /** The sum of declared uncompressed sizes. */
  readonly totalBytes: number;
  /**
   * Read one entry's data, inflated and checked (size, CRC-32).
   *
   * @throws BundleError zip_corrupt, zip_size_mismatch, zip_crc_mismatch
   */
  read(entry: ZipEntry): Promise<Buffer>;
  /**
   * Read one entry's bytes as stored (compressed for method 8), after checking its local header:
   * what entry-data.ts's `entryData` turns into the checked data, on any thread.
   *
   * @throws BundleError zip_corrupt
   */
  readStored(entry: ZipEntry): Promise<Buffer>;
  /** The entry size limit the archive was opened with (for `entryData`). */
  readonly maxEntryBytes: number;
  /** Close the file. Calling it twice is harmless. */
  close(): Promise<void>;
}

/** Blocks of this size are read from the file and cached. */
const BLOCK_SIZE = 1024 * 1024;
/** Blocks kept: enough for sequential reading with a little look-behind (4 MiB). */
const CACHED_BLOCKS = 4;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const LOCAL_HEADER_SIZE = 30;

/**
 * A RandomAccessReader over a file handle with a small LRU cache of 1 MiB blocks.
 *
 * yauzl reads the central directory through it; {@link BlockReader.readBytes} serves entry data.
 *
 * An evicted full block's buffer is reused for the next block loaded: a cached block lives across
 * many awaits, long enough for V8 to move it to the old generation, where a dropped one waited for
 * a full collection; an import reads the zip twice, so about twice its size of dead blocks piled up.
 * Reuse is safe because no block leaves this class: every read copies out of a block
 * synchronously, right after getting it (a cache hit is answered without an await, and a
 * waiter for a load runs as soon as that load completes, before any other load can evict).
 */
class BlockReader extends yauzl.RandomAccessReader {
  private readonly blocks = new Map<number, Buffer>();
  private readonly loading = new Map<number, Promise<Buffer>>();
  /** Evicted full-size buffers, free for the next loads. */
  private readonly spare: Buffer[] = [];

  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {
    super();
  }

  /** The block, at once when cached (so that it is copied from before anything can evict it). */
  private block(index: number): Buffer | Promise<Buffer> {
    const cached = this.blocks.get(index);
    if (cached !== undefined) {
      // Refresh its place in the LRU order.
      this.blocks.delete(index);
      this.blocks.set(index, cached);
      return cached;
    }
    let pending = this.loading.get(index);
    if (pending === undefined) {
      pending = this.load(index);
      this.loading.set(index, pending);
    }
    return pending;
  }

  private async load(index: number): Promise<Buffer> {
    try {
      const start = index * BLOCK_SIZE;
      const length = Math.min(BLOCK_SIZE, this.size - start);
      const buffer = (length === BLOCK_SIZE ? this.spare.pop() : undefined) ?? Buffer.allocUnsafe(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await this.handle.read(buffer, filled, length - filled, start + filled);
        if (bytesRead === 0) throw new BundleError('zip_changed', 'The zip file became shorter while it was read.');
        filled += bytesRead;
      }
      this.blocks.set(index, buffer);
      if (this.blocks.size > CACHED_BLOCKS) {
        const oldest = this.blocks.keys().next().value as number;
        const evicted = this.blocks.get(oldest) as Buffer;
        this.blocks.delete(oldest);
        if (evicted.length === BLOCK_SIZE && this.spare.length < 2) this.spare.push(evicted);
      }
      return buffer;
    } finally {
      this.loading.delete(index);
    }
  }

  /**
   * Read `length` bytes at `position` into a new buffer.
   *
   * @throws BundleError zip_corrupt when the range is outside the file
   */
  async readBytes(position: number, length: number): Promise<Buffer> {
    if (position < 0 || length < 0 || position + length > this.size) {
      throw new BundleError('zip_corrupt', `The zip refers to bytes ${position}..${position + length} beyond its end.`);
    }
    const out = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const at = position + done;
      const index = Math.floor(at / BLOCK_SIZE);
      const found = this.block(index);
      // Copied from synchronously, straight after it is known (see the class comment).
      const block = found instanceof Promise ? await found : found;
      const offset = at - index * BLOCK_SIZE;
      const count = Math.min(length - done, block.length - offset);
      block.copy(out, done, offset, offset + count);
      done += count;
    }
    return out;
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (error: Error | null) => void,
  ): void {
    this.readBytes(position, length).then(
      (bytes) => {
        bytes.copy(buffer, offset);
        callback(null);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
  }

  override _readStreamForRange(start: number, end: number): Readable {
    // Never used by our code (entry data is read with readBytes); implemented for yauzl's contract.
    return Readable.from(this.chunks(start, end));
  }

  private async *chunks(start: number, end: number): AsyncGenerator<Buffer> {
    for (let at = start; at < end; at += BLOCK_SIZE) yield await this.readBytes(at, Math.min(BLOCK_SIZE, end - at));
  }

  override close(callback: (error: Error | null) => void): void {
    this.blocks.clear();
    this.spare.length = 0;
    callback(null);
  }
}

/** The yauzl Entry as it is with `decodeStrings: false`: the name and comment are Buffers. */
type RawEntry = Omit<yauzl.Entry, 'fileName'> & { fileName: Buffer | string };

function structureError(error: unknown): BundleError {
  if (error instanceof BundleError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/strong encryption/i.test(message)) {
    return new BundleError('zip_encrypted', 'An entry uses strong encryption; bundles are never encrypted.', {
      cause: error,
    });
  }
  if (/compressed\/uncompressed size mismatch/i.test(message)) {
    return new BundleError('zip_size_mismatch', `A stored entry declares two different sizes (${message}).`, {
      cause: error,
    });
  }
  if (/end of central directory record signature not found/i.test(message)) {
    return new BundleError('zip_unreadable', 'The file is not a zip archive (no end of central directory record).', {
      cause: error,
    });
  }
  return new BundleError('zip_corrupt', `The zip structure is damaged: ${message}.`, { cause: error });
}

function openWithYauzl(reader: BlockReader, size: number): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromRandomAccessReader(
      reader,
      size,
      // Names as raw bytes: our own code decodes and checks them (yauzl would silently turn
      // backslashes into slashes). Entries one at a time, closed by us.
      { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false, strictFileNames: true },
      (error, zip) => (error ? reject(structureError(error)) : resolve(zip)),
    );
  });
}

/**
 * Call `visit` for every central directory record, in order; resolves after the last one.
 *
 * One listener set for the whole directory rather than a promise per record: a bundle can have
 * hundreds of thousands of entries. A throw from `visit` stops the reading and rejects.
 */
function eachEntry(zip: yauzl.ZipFile, visit: (entry: RawEntry) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    function finish(error?: unknown): void {
      zip.removeListener('entry', onEntry);
      zip.removeListener('end', onEnd);
      zip.removeListener('error', onError);
      if (error === undefined) resolve();
      else
        reject(error instanceof BundleError || error instanceof ImportCancelledError ? error : structureError(error));
    }
    function onEntry(entry: RawEntry): void {
      try {
        visit(entry);
      } catch (error) {
        finish(error);
        return;
      }
      // The reader answers from its cache on a microtask, so this does not grow the stack.
      zip.readEntry();
    }
    function onEnd(): void {
      finish();
    }
    function onError(error: unknown): void {
      finish(error ?? new Error('unknown zip error'));
    }
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

/**
 * The bytes in a buffer of their own.
 *
 * Small buffers from Buffer.allocUnsafe (and zlib's output for small entries) are slices of a
 * shared 8 KiB pool: keeping one keeps its whole slab. An import keeps tens of thousands of
 * small receipts for a while, which made it hold several times their size; a copy into an
 * exactly sized buffer costs one memcpy of a few hundred bytes.
 */
function ownBuffer(data: Buffer): Buffer {
  if (data.byteOffset === 0 && data.buffer.byteLength === data.length) return data;
  const copy = new Uint8Array(data.length);
  copy.set(data);
  return Buffer.from(copy.buffer, 0, copy.length);
}

/**
 * O_NONBLOCK where the platform has it: opening a FIFO for reading otherwise waits for a writer,
 * holding one of libuv's few threadpool threads for good (and the process then ignores its first
 * SIGINT). With it, the open returns at once and the fstat below refuses the FIFO.
 */
const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);

function describeKind(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a file';
}

/**
 * Open a bundle file for reading, refusing anything but a regular file at once.
 *
 * The check is made on the open handle (fstat), so the path cannot be swapped for a device
 * between the check and the reading; a FIFO is opened without blocking (see OPEN_FLAGS).
 *
 * @param file - The path.
 * @returns The open handle (close it) and the file's size.
 * @throws BundleError zip_unreadable when the path cannot be opened or is a directory, a FIFO,
 *   a device or a socket.
 */
export async function openRegularFile(file: string): Promise<{ handle: FileHandle; size: number }> {
  if (typeof file !== 'string' || file.length === 0) throw new TypeError('openRegularFile expects a file path');
  let handle: FileHandle;
  try {
    handle = await open(file, OPEN_FLAGS);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new BundleError('zip_unreadable', `The bundle cannot be read: ${reason}.`, { cause: error });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new BundleError(
        'zip_unreadable',
        `${printableName(file)} is not a regular file (it is ${describeKind(info)}); a bundle is a zip file.`,
      );
    }
    return { handle, size: info.size };
  } catch (error) {
    await handle.close();
    if (error instanceof BundleError) throw error;
    throw new BundleError('zip_unreadable', `The bundle cannot be read: ${(error as Error).message}.`, {
      cause: error,
    });
  }
}

/**
 * Open a zip and check its whole central directory against the hygiene rules and the limits.
 *
 * Nothing but the central directory is read: the entry count is checked against the limit
 * before the first record, each record as it is read, totals and duplicates as they grow.
 *
 * @param file - The zip's path.
 * @param limits - The limits in force.
 * @param options - `signal`: stops the reading of the central directory between records.
 * @returns The open archive; close it when done.
 * @throws BundleError for the first rule broken (the file is closed again): zip_unreadable for a
 *   path that is not a regular file, zip_file_too_large for a file larger than
 *   {@link maxZipFileBytes} of the limits. ImportCancelledError when the signal fired.
 */
export async function openZipArchive(
  file: string,
  limits: ZipLimits,
  options: { signal?: AbortSignal } = {},
): Promise<ZipArchive> {
  if (typeof file !== 'string' || file.length === 0) throw new TypeError('openZipArchive expects a file path');
  const { signal } = options;
  const { handle, size } = await openRegularFile(file);
  let zip: yauzl.ZipFile | undefined;
  try {
    checkFileSize(size, limits);
    throwIfCancelled(signal);
    const reader = new BlockReader(handle, size);
    zip = await openWithYauzl(reader, size);
    checkEntryCount(zip.entryCount, limits);
    const entries: ZipEntry[] = [];
    const names = new EntryNames();
    let totalBytes = 0;
    let totalCompressed = 0;
    await eachEntry(zip, (raw) => {
      throwIfCancelled(signal);
      const nameBytes = typeof raw.fileName === 'string' ? Buffer.from(raw.fileName, 'utf8') : raw.fileName;
      const checked = checkCentralEntry(
        {
          nameBytes,
          generalPurposeBitFlag: raw.generalPurposeBitFlag,
          versionMadeBy: raw.versionMadeBy,
          externalFileAttributes: raw.externalFileAttributes,
          compressionMethod: raw.compressionMethod,
          compressedSize: raw.compressedSize,
          uncompressedSize: raw.uncompressedSize,
          extraFields: raw.extraFields,
        },
        limits,
      );
      names.add(checked);
      totalBytes += raw.uncompressedSize;
      totalCompressed += raw.compressedSize;
      if (totalBytes > limits.maxBytes) throw entriesTooLarge(checked.name, limits);
      entries.push({
        index: entries.length,
        name: checked.name,
        directory: checked.directory,
        compressionMethod: raw.compressionMethod,
        compressedSize: raw.compressedSize,
        uncompressedSize: raw.uncompressedSize,
        crc32: raw.crc32,
        localHeaderOffset: raw.relativeOffsetOfLocalHeader,
      });
    });
    if (totalBytes > 0 && totalBytes / Math.max(totalCompressed, 1) > limits.maxRatio) {
      throw new BundleError(
        'zip_ratio_exceeded',
        `The archive inflates ${Math.round(totalBytes / Math.max(totalCompressed, 1))} times its compressed size, ` +
          `over the limit of ${limits.maxRatio}.`,
      );
    }
    return createArchive(file, size, entries, totalBytes, reader, zip, handle, limits);
  } catch (error) {
    zip?.close();
    await handle.close();
    if (error instanceof ImportCancelledError) throw error;
    throw structureError(error);
  }
}

/**
 * Refuse a zip file larger than any zip within the limits.
 *
 * @param size - The file's size in bytes.
 * @param limits - The limits in force.
 * @throws BundleError zip_file_too_large
 */
export function checkFileSize(size: number, limits: ZipLimits): void {
  const cap = maxZipFileBytes(limits);
  if (size > cap) {
    throw new BundleError(
      'zip_file_too_large',
      `The bundle file is ${size} bytes, more than a zip within the limits can be (${cap} bytes for at most ` +
        `${limits.maxEntries} entries inflating to ${limits.maxBytes} bytes).`,
    );
  }
}

function createArchive(
  file: string,
  size: number,
  entries: readonly ZipEntry[],
  totalBytes: number,
  reader: BlockReader,
  zip: yauzl.ZipFile,
  handle: FileHandle,
  limits: ZipLimits,
): ZipArchive {
  let closed = false;

  async function readStored(entry: ZipEntry): Promise<Buffer> {
    if (closed) throw new Error('The zip archive is closed.');
    // Only messages need the printable name; most reads need no message.
    let shownName: string | undefined;
    const shownOf = (): string => (shownName ??= printableName(entry.name));
    const header = await reader.readBytes(entry.localHeaderOffset, LOCAL_HEADER_SIZE);
    if (header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) {
      throw new BundleError(
        'zip_corrupt',
        `Entry "${shownOf()}": no local file header where the central directory says.`,
        {
          entry: shownOf(),
        },
      );
    }
    const dataStart = entry.localHeaderOffset + LOCAL_HEADER_SIZE + header.readUInt16LE(26) + header.readUInt16LE(28);
    if (dataStart + entry.compressedSize > size) {
      throw new BundleError('zip_corrupt', `Entry "${shownOf()}": its data runs past the end of the file.`, {
        entry: shownOf(),
      });
    }
    return reader.readBytes(dataStart, entry.compressedSize);
  }

  async function read(entry: ZipEntry): Promise<Buffer> {
    return ownBuffer(entryData(await readStored(entry), entry, limits.maxEntryBytes));
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    zip.close();
    await handle.close();
  }

  return { file, size, entries, totalBytes, maxEntryBytes: limits.maxEntryBytes, read, readStored, close };
}
