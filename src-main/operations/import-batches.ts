/**
 * The import's batches of zip entries for the verification workers, and the reused buffers the
 * receipts travel in (operations/import.ts).
 */
import { DEFAULT_VERIFY_BATCH_SIZE, type EntriesResult, type EntryBatch } from '../core/worker-pool';
import { BundleError, type BundleErrorCode } from '../evidence/errors';
import type { ZipEntry } from '../evidence/zip-reader';

/** The smallest buffer a batch's receipts are gathered in (see {@link SlabPool}); most batches fit one. */
const MIN_SLAB_BYTES = 256 * 1024;
/** Free slabs kept for reuse; the import has about (transaction + in flight) / batch of them in use. */
const MAX_FREE_SLABS = 32;

/**
 * Reusable buffers for the bytes of receipts between reading and storing.
 *
 * Each receipt read in pass 2 lives until the transaction that stores it, long enough for V8 to
 * move it to the old generation, where its buffer is freed only by a full collection: on 100,000
 * receipts that let 50 to 90 MB of dead buffers pile up on the importing thread at a time. A
 * batch's receipts are instead copied into one slab, stored from views of it, and the slab is
 * reused once every receipt in it is stored; the buffers the zip reader returns die young. The
 * slab travels to the verification worker, which writes the batch's inflated receipts into it,
 * and comes back with them.
 */
export class SlabPool {
  private readonly free: Uint8Array[] = [];

  /** A slab of at least `bytes` bytes, with `count` receipts that will each be {@link release}d. */
  take(bytes: number, count: number): Slab {
    const index = this.free.findIndex((slab) => slab.length >= bytes);
    const buffer =
      index === -1 ? new Uint8Array(Math.max(bytes, MIN_SLAB_BYTES)) : (this.free.splice(index, 1)[0] as Uint8Array);
    return { buffer, live: count };
  }

  /** One receipt of the slab is stored; the last one makes the slab free again. */
  release(slab: Slab): void {
    slab.live -= 1;
    if (slab.live === 0 && this.free.length < MAX_FREE_SLABS) this.free.push(slab.buffer);
  }
}

/** A slab in use (see {@link SlabPool}). */
export interface Slab {
  buffer: Uint8Array;
  /** Receipts in it not yet stored. */
  live: number;
}

/** Batches queued per verification worker in pass 2 (each holds at most a slab and its stored bytes). */
export const IN_FLIGHT_PER_WORKER = 8;
/**
 * The most bytes (stored plus inflated) of the batches in flight in pass 2: small receipts make
 * batches of about 300 KB, but a bundle of large receipts makes 4 MiB batches, and 16 of them
 * would hold over 100 MB.
 */
export const MAX_IN_FLIGHT_BYTES = 32 * 1024 * 1024;

/** Bytes of receipts per batch sent to a worker, whatever the count: large receipts make small batches. */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Zip entries gathered as stored (compressed) for one {@link VerifyPool.entries} batch: the
 * workers inflate, check and hash them, so the importing thread only reads the file and writes
 * the ledger (both passes used to inflate and hash every entry on this thread while a core idled).
 */
export class StoredBatch {
  readonly indexes: number[] = [];
  readonly entries: ZipEntry[] = [];
  private readonly stored: Uint8Array[] = [];
  storedBytes = 0;
  declaredBytes = 0;

  add(index: number, entry: ZipEntry, stored: Uint8Array): void {
    this.indexes.push(index);
    this.entries.push(entry);
    this.stored.push(stored);
    this.storedBytes += stored.length;
    this.declaredBytes += entry.uncompressedSize;
  }

  get length(): number {
    return this.entries.length;
  }

  /** Whether the batch is as large as one message should be. */
  full(): boolean {
    return (
      this.entries.length >= DEFAULT_VERIFY_BATCH_SIZE ||
      this.storedBytes >= MAX_BATCH_BYTES ||
      this.declaredBytes >= MAX_BATCH_BYTES
    );
  }

  /** The batch in the pool's form (its own buffers, ready to be transferred). */
  toBatch(maxEntryBytes: number, verify: boolean): EntryBatch {
    const count = this.entries.length;
    const bytes = new Uint8Array(this.storedBytes);
    const offsets = new Uint32Array(count + 1);
    const methods = new Uint8Array(count);
    const sizes = new Float64Array(count);
    const crcs = new Uint32Array(count);
    let at = 0;
    for (let index = 0; index < count; index += 1) {
      const entry = this.entries[index] as ZipEntry;
      const stored = this.stored[index] as Uint8Array;
      bytes.set(stored, at);
      at += stored.length;
      offsets[index + 1] = at;
      methods[index] = entry.compressionMethod;
      sizes[index] = entry.uncompressedSize;
      crcs[index] = entry.crc32;
    }
    return {
      bytes,
      offsets,
      names: this.entries.map((entry) => entry.name),
      methods,
      sizes,
      crcs,
      maxEntryBytes,
      verify,
    };
  }
}

/** The BundleError a worker reported for an entry of a batch. */
export function entryFailure(failure: NonNullable<EntriesResult['failure']>): BundleError {
  return new BundleError(
    failure.code as BundleErrorCode,
    failure.message,
    failure.entry === undefined ? {} : { entry: failure.entry },
  );
}
