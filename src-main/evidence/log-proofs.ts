/**
 * The inclusion proofs of a run of consecutive leaves, made in bulk (issue 28; docs/logs.md,
 * "The service's log", making a period's proofs).
 *
 * `tlogInclusionProof` asked once per leaf reads about log2(n) nodes one at a time and hashes
 * the tree's right edge again for each proof. Here the leaves are taken in aligned blocks of
 * {@link BLOCK_LEAVES}: for each block every level's nodes around it are read in one range
 * query, each node turned into hex once, and the hashes of ranges that end at the tree's right
 * edge are computed once per tree size. The proofs are the same hashes in the same order
 * (tested against `TlogMemory`, src-main/evidence/log-proofs.test.ts).
 */
import { tlogRangeHash, type TlogNodeSource } from '../../src-shared/crypto/tlog';
import type { HashFunction } from '../../src-shared/crypto/merkle';

/** Leaves whose proofs are made from one set of range reads. */
export const BLOCK_LEAVES = 4096;

/** The complete nodes [from, to) of a level (level 0: the leaf hashes), in index order. */
export type TlogRangeReader = (level: number, from: number, to: number) => { index: number; hash: Uint8Array }[];

/** The largest power of two strictly below n (n >= 2). */
function splitPoint(n: number): number {
  if (n <= 2 ** 31) return 2 ** (31 - Math.clz32(n - 1));
  let k = 2 ** 31;
  while (k * 2 < n) k *= 2;
  return k;
}

/** How many hashes the inclusion proof of leaf `index` in a tree of `size` has. */
export function inclusionProofLength(index: number, size: number): number {
  let length = 0;
  let start = 0;
  let end = size;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index < start + k) end = start + k;
    else start += k;
    length += 1;
  }
  return length;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * Calls `each` with the inclusion proof (hex, from the leaf upwards, as RFC 9162 orders it) of
 * every leaf in [first, last] of the tree of `size`, in index order.
 *
 * @param sha256 - SHA-256.
 * @param size - The tree size (a size the log has reached).
 * @param first - The first leaf.
 * @param last - The last leaf (below size, at least first).
 * @param read - Range reads of the log's complete nodes.
 * @param node - Single node reads, for the few nodes outside the ranges read.
 * @param each - Takes a leaf index and its proof; the array is the callee's.
 * @throws RangeError for a range outside the tree or a node the log does not hold
 */
export function forEachInclusionProof(
  sha256: HashFunction,
  size: number,
  first: number,
  last: number,
  read: TlogRangeReader,
  node: TlogNodeSource,
  each: (index: number, proof: string[]) => void,
): void {
  if (!Number.isSafeInteger(size) || !Number.isSafeInteger(first) || !Number.isSafeInteger(last))
    throw new TypeError('size, first and last must be safe integers');
  if (first < 0 || first > last || last >= size)
    throw new RangeError(`[${first}, ${last}] is not a range of leaves below ${size}`);
  // Hashes of the ranges [start, size), by start: one per split MTH makes along the right edge.
  const edges = new Map<number, string>();
  let levels: { from: number; hashes: (string | undefined)[] }[] = [];
  let blockBytes: Map<string, Uint8Array> = new Map();

  const cachedBytes: TlogNodeSource = (level, index) => {
    const window = levels[level];
    const at = window === undefined ? -1 : index - window.from;
    const known = window !== undefined && at >= 0 ? window.hashes[at] : undefined;
    if (known !== undefined) return Uint8Array.from(Buffer.from(known, 'hex'));
    const key = `${level}:${index}`;
    const held = blockBytes.get(key);
    if (held !== undefined) return held;
    const read = node(level, index);
    blockBytes.set(key, read);
    return read;
  };
  const nodeHex = (level: number, index: number): string => {
    const window = levels[level];
    if (window !== undefined) {
      const known = window.hashes[index - window.from];
      if (known !== undefined) return known;
    }
    return hex(cachedBytes(level, index));
  };
  const edgeHex = (start: number): string => {
    let known = edges.get(start);
    if (known === undefined) {
      known = hex(tlogRangeHash(sha256, start, size, cachedBytes));
      edges.set(start, known);
    }
    return known;
  };

  for (let blockStart = first - (first % BLOCK_LEAVES); blockStart <= last; blockStart += BLOCK_LEAVES) {
    const from = Math.max(first, blockStart);
    const to = Math.min(last, blockStart + BLOCK_LEAVES - 1);
    // Every level's complete nodes around the block: the siblings its proofs take.
    levels = [];
    blockBytes = new Map();
    for (let level = 0, width = 1; width <= size; level += 1, width *= 2) {
      const count = Math.floor(size / width);
      const low = Math.max(0, Math.floor(from / width) - 1);
      const high = Math.min(count, Math.floor(to / width) + 2);
      const hashes: (string | undefined)[] = [];
      if (low < high) for (const row of read(level, low, high)) hashes[row.index - low] = hex(row.hash);
      levels.push({ from: low, hashes });
    }
    for (let index = from; index <= to; index += 1) {
      // PATH(index, D[0:size]) from the top, as tlogInclusionProof walks it.
      const siblings: string[] = [];
      let start = 0;
      let end = size;
      while (end - start > 1) {
        const k = splitPoint(end - start);
        const level = k <= 2 ** 31 ? 31 - Math.clz32(k) : Math.round(Math.log2(k));
        if (index < start + k) {
          siblings.push(end === size ? edgeHex(start + k) : nodeHex(level, (start + k) / k));
          end = start + k;
        } else {
          siblings.push(nodeHex(level, start / k));
          start += k;
        }
      }
      siblings.reverse();
      each(index, siblings);
    }
  }
}
