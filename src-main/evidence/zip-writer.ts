/**
 * Writing a bundle zip with yazl, entry by entry, without holding the bundle in memory.
 *
 * Each entry is added with `addReadStreamLazy`: its bytes are produced only when yazl reaches
 * it, so at most one entry's data is in memory, and yazl switches to ZIP64 by itself past
 * 65,535 entries or 4 GiB (jszip and fflate do not: see ARCHITECTURE "Measured choices").
 * Callers pace themselves with {@link ZipWriter.waitForRoom}, which keeps the queue of entries
 * not yet started short.
 *
 * Our own code checks every name (the zip-hygiene rules the import applies, duplicates after
 * folding included), sets every mode (regular file, 0644) and holds the zip to the import's
 * limits (by default the defaults of limits.ts): what we write, we read back. Entry count, entry
 * size and total size are refused past the limits (the export fails rather than writing a zip no
 * import takes). The compression ratio is chosen, not refused: an entry is stored (method 0)
 * instead of deflated whenever deflating it would exceed the ratio limit, on its own or for the
 * archive as a whole. To choose before yazl writes the entry's local header (which names the
 * method), entries are handed to yazl one at a time, each produced just before it is added.
 *
 * The whole-archive ratio without deflating every entry twice: the writer keeps a lower bound of
 * the compressed total (exact sizes of the entries it deflated to decide, the stored sizes, and
 * for the others deflate's best possible ratio, 1032:1). While the bound keeps the ratio within
 * the limit, a small entry (at most RATIO_FLOOR_BYTES, exempt from the per-entry ratio) is
 * deflated by yazl without a trial; otherwise the entry is deflated once more to learn its size.
 * With receipts compressing 3:1 that is about one small entry in forty. finish() checks the
 * sizes yazl actually wrote against the same rules.
 *
 * yazl 3 looks for the next entry to write by scanning its whole entry list from the start on
 * every step, which makes writing n entries cost O(n^2) (100,000 entries: 103 s instead of
 * 26 s). Entries that are completely written are therefore moved out of that list while the
 * zip is written and put back, in order, just before the central directory is written. This
 * touches yazl's `entries` array and each entry's `state` (FILE_DATA_DONE = 3 in yazl 3.3); if
 * a later yazl changes either, the workaround switches itself off and writing stays correct,
 * only slower.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { deflateRawSync } from 'node:zlib';
import yazl from 'yazl';
import { BundleError } from './errors';
import { DEFAULT_ZIP_LIMITS, RATIO_FLOOR_BYTES, resolveZipLimits, type ZipLimits } from './limits';
import { checkEntryName, EntryNames } from './zip-hygiene';

/** Entries queued but not yet started that {@link ZipWriter.waitForRoom} allows. */
const QUEUE_LOW_WATER = 256;
/** yazl 3's Entry.FILE_DATA_DONE. */
const YAZL_FILE_DATA_DONE = 3;
/** Regular file, rw-r--r--. */
const FILE_MODE = 0o100644;
/** The largest entry written; yazl's own buffer limit is 1 GiB. */
export const MAX_WRITTEN_ENTRY_BYTES = 256 * 1024 * 1024;
/** yazl's deflate level when `compress` is true (zlib's default). */
const DEFLATE_LEVEL = 6;
/** Deflate never does better than this (a 258-byte match in two bits), so c >= u / 1032. */
const MAX_DEFLATE_RATIO = 1032;

/** Produces one entry's bytes when the writer reaches it. */
export type EntryProducer = () => Uint8Array | Promise<Uint8Array>;

/** Options of {@link createZipWriter}. */
export interface ZipWriterOptions {
  /** `mtime` of every entry (default now). */
  mtime?: Date;
  /** The import limits the zip must pass; unset ones take the defaults of limits.ts. */
  limits?: Partial<ZipLimits>;
}

/** A zip being written. */
export interface ZipWriter {
  /**
   * Queue an entry.
   *
   * @param name - The entry name (checked against the import's path rules).
   * @param produce - Called once, in order, when the entry is written.
   * @throws BundleError for a name the import would refuse, a duplicate, or one entry more than
   *   the limits allow (zip_too_many_entries).
   */
  add(name: string, produce: EntryProducer): void;
  /** Resolves when few enough entries wait (call it between batches of `add`). */
  waitForRoom(): Promise<void>;
  /**
   * End the zip and wait for the file to be complete.
   *
   * @throws BundleError zip_entry_too_large / zip_too_large when the entries break the limits,
   *   or whatever a producer threw.
   */
  finish(): Promise<{ entries: number; bytes: number; stored: number }>;
}

interface YazlEntry {
  state?: unknown;
  uncompressedSize?: unknown;
  compressedSize?: unknown;
  utf8FileName?: unknown;
}

interface YazlInternals {
  entries?: YazlEntry[];
  /** In yazl 3 but missing from @types/yazl 2.4. */
  addReadStreamLazy(
    metadataPath: string,
    options: { mtime: Date; mode: number; compress: boolean; size: number },
    getReadStream: (callback: (error: Error | null, stream?: Readable) => void) => void,
  ): void;
}

/**
 * Whether an entry is deflated or stored, keeping the zip within the ratio limit.
 *
 * @param data - The entry's bytes.
 * @param totals - The uncompressed total so far and a lower bound of the compressed total;
 *   updated with this entry.
 * @param limits - The limits.
 * @returns True to deflate.
 */
function chooseDeflate(
  data: Uint8Array,
  totals: { bytes: number; compressedAtLeast: number },
  limits: ZipLimits,
): boolean {
  const size = data.length;
  const fits = (compressed: number): boolean =>
    totals.bytes + size <= limits.maxRatio * Math.max(totals.compressedAtLeast + compressed, 1);
  const atLeast = Math.ceil(size / MAX_DEFLATE_RATIO);
  let deflate: boolean;
  let counted: number;
  if (size <= RATIO_FLOOR_BYTES && fits(atLeast)) {
    deflate = true;
    counted = atLeast;
  } else {
    const compressed = deflateRawSync(data, { level: DEFLATE_LEVEL }).length;
    const ownRatioOk = size <= RATIO_FLOOR_BYTES || size <= limits.maxRatio * Math.max(compressed, 1);
    deflate = ownRatioOk && fits(compressed);
    counted = deflate ? compressed : size;
  }
  totals.bytes += size;
  totals.compressedAtLeast += counted;
  return deflate;
}

/**
 * Start writing a zip file.
 *
 * @param file - Where to write it (created or truncated).
 * @param options - `mtime` of every entry (default now); `limits` the zip must pass (default
 *   the import's defaults).
 * @returns The writer.
 */
export function createZipWriter(file: string, options: ZipWriterOptions = {}): ZipWriter {
  if (typeof file !== 'string' || file.length === 0) throw new TypeError('createZipWriter expects a file path');
  const mtime = options.mtime ?? new Date();
  const limits = resolveZipLimits(options.limits ?? DEFAULT_ZIP_LIMITS);
  const maxEntryBytes = Math.min(limits.maxEntryBytes, MAX_WRITTEN_ENTRY_BYTES);
  const zip = new yazl.ZipFile();
  const internals = zip as unknown as YazlInternals;
  const output = createWriteStream(file, { mode: 0o600 });
  const names = new EntryNames();
  const written: YazlEntry[] = [];
  const queue: { name: string; produce: EntryProducer }[] = [];
  const totals = { bytes: 0, compressedAtLeast: 0 };
  let added = 0;
  let started = 0;
  let stored = 0;
  /** An entry is being produced, or added to yazl and not yet reached by it. */
  let busy = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  let drained: (() => void) | undefined;

  let rejectFinished: (error: Error) => void = () => undefined;
  const finished = new Promise<void>((resolve, reject) => {
    rejectFinished = reject;
    output.on('close', () => (failure === undefined ? resolve() : reject(failure)));
    output.on('error', (error) => {
      failure ??= error;
      reject(error);
    });
  });
  // finish() awaits this; the handler only keeps an early failure from going unhandled.
  finished.catch(() => undefined);
  zip.on('error', (error: Error) => fail(error));

  /** A producer or yazl failed: the zip is abandoned and finish() rejects with the first error. */
  function fail(error: Error): void {
    failure ??= error;
    output.destroy(error);
    wake?.();
    drained?.();
    rejectFinished(error);
  }
  zip.outputStream.pipe(output);

  function compact(): void {
    const list = internals.entries;
    if (!Array.isArray(list)) return;
    let done = 0;
    while (done < list.length && list[done]?.state === YAZL_FILE_DATA_DONE) done += 1;
    for (const entry of list.splice(0, done)) written.push(entry);
  }

  function checkData(name: string, data: unknown): Uint8Array {
    if (!(data instanceof Uint8Array)) throw new TypeError(`The producer of ${name} did not return bytes`);
    if (data.length > maxEntryBytes) {
      throw new BundleError(
        'zip_entry_too_large',
        `Entry ${name} is ${data.length} bytes, over the limit of ${maxEntryBytes} an import accepts.`,
        {
          entry: name,
        },
      );
    }
    if (totals.bytes + data.length > limits.maxBytes) {
      throw new BundleError(
        'zip_too_large',
        `The entries come to more than ${limits.maxBytes} bytes, the limit an import accepts.`,
        { entry: name },
      );
    }
    return data;
  }

  /** Produce the next queued entry and hand it to yazl; the next one follows when yazl reaches it. */
  function pump(): void {
    if (busy || failure !== undefined) return;
    const next = queue.shift();
    if (next === undefined) {
      drained?.();
      return;
    }
    busy = true;
    started += 1;
    if (wake !== undefined && added - started < QUEUE_LOW_WATER) {
      const resume = wake;
      wake = undefined;
      resume();
    }
    Promise.resolve()
      .then(next.produce)
      .then((data) => {
        const bytes = checkData(next.name, data);
        const compress = chooseDeflate(bytes, totals, limits);
        if (!compress) stored += 1;
        compact();
        internals.addReadStreamLazy(next.name, { mtime, mode: FILE_MODE, compress, size: bytes.length }, (callback) => {
          // yazl has written this entry's local header: produce the next while this one streams.
          callback(null, Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)]));
          busy = false;
          pump();
        });
      })
      .catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
  }

  function add(name: string, produce: EntryProducer): void {
    if (typeof produce !== 'function') throw new TypeError('ZipWriter.add expects a producer function');
    checkEntryName(name);
    if (name.endsWith('/'))
      throw new BundleError('zip_path_invalid', `Entry "${name}": only files are written.`, { entry: name });
    if (added >= limits.maxEntries) {
      throw new BundleError(
        'zip_too_many_entries',
        `More than ${limits.maxEntries} entries, the limit an import accepts.`,
        { entry: name },
      );
    }
    names.add({ name, directory: false });
    added += 1;
    queue.push({ name, produce });
    pump();
  }

  async function waitForRoom(): Promise<void> {
    compact();
    if (failure !== undefined) throw failure;
    if (added - started < QUEUE_LOW_WATER) return;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    compact();
    if (failure !== undefined) throw failure;
  }

  /** The sizes yazl wrote, against the rules the import applies (a guard: chooseDeflate keeps them). */
  function checkWritten(entries: readonly YazlEntry[]): void {
    let bytes = 0;
    let compressed = 0;
    for (const entry of entries) {
      const size = Number(entry.uncompressedSize);
      const packed = Number(entry.compressedSize);
      bytes += size;
      compressed += packed;
      if (size > RATIO_FLOOR_BYTES && size / Math.max(packed, 1) > limits.maxRatio) {
        throw new BundleError(
          'zip_ratio_exceeded',
          `Entry ${String(entry.utf8FileName)} was written ${Math.round(size / Math.max(packed, 1))} times smaller than its size, over the limit of ${limits.maxRatio}.`,
        );
      }
    }
    if (bytes > 0 && bytes / Math.max(compressed, 1) > limits.maxRatio) {
      throw new BundleError(
        'zip_ratio_exceeded',
        `The zip was written ${Math.round(bytes / Math.max(compressed, 1))} times smaller than its entries, over the limit of ${limits.maxRatio}.`,
      );
    }
  }

  async function finish(): Promise<{ entries: number; bytes: number; stored: number }> {
    // Every queued entry produced and handed to yazl before it is told the zip ends.
    if (queue.length > 0 || busy) {
      await new Promise<void>((resolve) => {
        drained = resolve;
        pump();
      });
    }
    if (failure !== undefined) {
      await finished.catch(() => undefined);
      throw failure;
    }
    compact();
    // yazl writes the central directory from its entry list: give it back every entry, in order.
    if (Array.isArray(internals.entries)) internals.entries = written.concat(internals.entries);
    zip.end();
    await finished;
    if (Array.isArray(internals.entries)) checkWritten(internals.entries);
    return { entries: added, bytes: totals.bytes, stored };
  }

  return { add, waitForRoom, finish };
}
