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
 * folding included), sets every mode (regular file, 0644) and caps every entry's size.
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
import yazl from 'yazl';
import { BundleError } from './errors';
import { checkEntryName, EntryNames } from './zip-hygiene';

/** Entries queued but not yet started that {@link ZipWriter.waitForRoom} allows. */
const QUEUE_LOW_WATER = 256;
/** yazl 3's Entry.FILE_DATA_DONE. */
const YAZL_FILE_DATA_DONE = 3;
/** Regular file, rw-r--r--. */
const FILE_MODE = 0o100644;
/** The largest entry written; yazl's own buffer limit is 1 GiB. */
export const MAX_WRITTEN_ENTRY_BYTES = 256 * 1024 * 1024;

/** Produces one entry's bytes when the writer reaches it. */
export type EntryProducer = () => Uint8Array | Promise<Uint8Array>;

/** A zip being written. */
export interface ZipWriter {
  /**
   * Queue an entry.
   *
   * @param name - The entry name (checked against the import's path rules).
   * @param produce - Called once, in order, when the entry is written.
   * @throws BundleError for a name the import would refuse or a duplicate.
   */
  add(name: string, produce: EntryProducer): void;
  /** Resolves when few enough entries wait (call it between batches of `add`). */
  waitForRoom(): Promise<void>;
  /** End the zip and wait for the file to be complete. */
  finish(): Promise<{ entries: number; bytes: number }>;
}

interface YazlInternals {
  entries?: { state?: unknown }[];
  /** In yazl 3 but missing from @types/yazl 2.4. */
  addReadStreamLazy(
    metadataPath: string,
    options: { mtime: Date; mode: number; compress: boolean },
    getReadStream: (callback: (error: Error | null, stream?: Readable) => void) => void,
  ): void;
}

/**
 * Start writing a zip file.
 *
 * @param file - Where to write it (created or truncated).
 * @param options - `mtime` of every entry (default now).
 * @returns The writer.
 */
export function createZipWriter(file: string, options: { mtime?: Date } = {}): ZipWriter {
  if (typeof file !== 'string' || file.length === 0) throw new TypeError('createZipWriter expects a file path');
  const mtime = options.mtime ?? new Date();
  const zip = new yazl.ZipFile();
  const internals = zip as unknown as YazlInternals;
  const output = createWriteStream(file, { mode: 0o600 });
  const names = new EntryNames();
  const written: { state?: unknown }[] = [];
  let added = 0;
  let started = 0;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  let bytes = 0;

  const finished = new Promise<void>((resolve, reject) => {
    output.on('close', () => (failure === undefined ? resolve() : reject(failure)));
    output.on('error', (error) => {
      failure ??= error;
      reject(error);
    });
    zip.on('error', (error: Error) => {
      failure ??= error;
      output.destroy(error);
      wake?.();
      reject(error);
    });
  });
  // finish() awaits this; the handler only keeps an early failure from going unhandled.
  finished.catch(() => undefined);
  zip.outputStream.pipe(output);

  function compact(): void {
    const list = internals.entries;
    if (!Array.isArray(list)) return;
    let done = 0;
    while (done < list.length && list[done]?.state === YAZL_FILE_DATA_DONE) done += 1;
    for (const entry of list.splice(0, done)) written.push(entry);
  }

  function add(name: string, produce: EntryProducer): void {
    if (typeof produce !== 'function') throw new TypeError('ZipWriter.add expects a producer function');
    checkEntryName(name);
    if (name.endsWith('/')) throw new BundleError('zip_path_invalid', `Entry "${name}": only files are written.`, { entry: name });
    names.add({ name, directory: false });
    added += 1;
    internals.addReadStreamLazy(name, { mtime, mode: FILE_MODE, compress: true }, (callback) => {
      started += 1;
      if (wake !== undefined && added - started < QUEUE_LOW_WATER) {
        const resume = wake;
        wake = undefined;
        resume();
      }
      Promise.resolve()
        .then(produce)
        .then(
          (data) => {
            if (!(data instanceof Uint8Array)) throw new TypeError(`The producer of ${name} did not return bytes`);
            if (data.length > MAX_WRITTEN_ENTRY_BYTES) {
              throw new RangeError(`Entry ${name} is ${data.length} bytes, over ${MAX_WRITTEN_ENTRY_BYTES}`);
            }
            bytes += data.length;
            callback(null, Readable.from([Buffer.from(data.buffer, data.byteOffset, data.length)]));
          },
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
    });
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

  async function finish(): Promise<{ entries: number; bytes: number }> {
    compact();
    // yazl writes the central directory from its entry list: give it back every entry, in order.
    if (Array.isArray(internals.entries)) internals.entries = written.concat(internals.entries);
    zip.end();
    await finished;
    return { entries: added, bytes };
  }

  return { add, waitForRoom, finish };
}
