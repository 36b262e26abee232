/**
 * The anchor tree (PROTOCOL section 8).
 *
 * Functions take the hash function as an argument so that the caller chooses the provider
 * (SHA-256 for the anchor tree). Builders are for the anchoring engine and tests; verifiers only
 * fold a path (`anchorFold`) and compare the result with the root they were given. (The
 * countersigner's log tree, over hex text with tagged BLAKE3, lives with its format in
 * src-shared/formats/countersigner/log.ts.)
 */
import { assertBytes, assertIndex } from './assert';
import { compareBytes, concatBytes } from './encoding';

/** A hash function over bytes, e.g. `provider.blake3` or `provider.sha256`. */
export type HashFunction = (data: Uint8Array) => Uint8Array;

const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);
/** Anchor digests are SHA-256 values (PROTOCOL section 8: canonical_sha256). */
const ANCHOR_DIGEST_LENGTH = 32;

function assertHash(hash: unknown, name: string): asserts hash is HashFunction {
  if (typeof hash !== 'function') throw new TypeError(`${name}: hash must be a function, got ${typeof hash}`);
}

function assertByteList(list: unknown, name: string, length?: number): asserts list is readonly Uint8Array[] {
  if (!Array.isArray(list)) throw new TypeError(`${name} must be an array of Uint8Array`);
  for (const [index, item] of list.entries()) assertBytes(item, `${name}[${index}]`, length);
}

/**
 * Builds the anchor tree of a batch (PROTOCOL section 8).
 *
 * The digests are sorted ascending bytewise; leaf = H(0x00 || d); a parent is
 * H(0x01 || min(a, b) || max(a, b)) so paths need no direction bits; an odd node at the end
 * of a level is carried up unchanged; a single leaf is its own root.
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param digests - the batch's 32-byte digests, in any order
 * @returns the root and, for each digest in the caller's order, its path (siblings from the
 *   leaf upwards) for `anchorFold`
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when there are no digests or a digest is not 32 bytes
 */
export function anchorTree(
  sha256: HashFunction,
  digests: readonly Uint8Array[],
): { root: Uint8Array; paths: Uint8Array[][] } {
  assertHash(sha256, 'anchorTree');
  assertByteList(digests, 'anchorTree: digests', ANCHOR_DIGEST_LENGTH);
  if (digests.length === 0) throw new RangeError('anchorTree: a batch needs at least one digest');
  const order = digests
    .map((_, index) => index)
    .sort((a, b) => compareBytes(digests[a] as Uint8Array, digests[b] as Uint8Array));
  const levels: Uint8Array[][] = [order.map((index) => anchorLeafHash(sha256, digests[index] as Uint8Array))];
  for (let level = levels[0] as Uint8Array[]; level.length > 1;) {
    const parents: Uint8Array[] = [];
    for (let index = 0; index + 1 < level.length; index += 2) {
      parents.push(anchorNodeHash(sha256, level[index] as Uint8Array, level[index + 1] as Uint8Array));
    }
    if (level.length % 2 === 1) parents.push(level[level.length - 1] as Uint8Array);
    levels.push(parents);
    level = parents;
  }
  const paths: Uint8Array[][] = new Array<Uint8Array[]>(digests.length);
  order.forEach((originalIndex, sortedIndex) => {
    const path: Uint8Array[] = [];
    let position = sortedIndex;
    for (const level of levels) {
      const sibling = level[position ^ 1];
      // No sibling: this node is the odd one carried up, which adds nothing to the path.
      if (sibling !== undefined) path.push(sibling);
      position = Math.floor(position / 2);
    }
    paths[originalIndex] = path;
  });
  return { root: (levels[levels.length - 1] as Uint8Array[])[0] as Uint8Array, paths };
}

/**
 * Folds an anchor path to the root it implies (PROTOCOL section 8, counterparty step 1).
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param digest - the 32-byte digest that was anchored
 * @param path - its sibling hashes from the leaf upwards (32 bytes each)
 * @returns the root; the caller compares it with the anchored root
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when the digest or a path element is not 32 bytes
 */
export function anchorFold(sha256: HashFunction, digest: Uint8Array, path: readonly Uint8Array[]): Uint8Array {
  assertHash(sha256, 'anchorFold');
  assertBytes(digest, 'anchorFold: digest', ANCHOR_DIGEST_LENGTH);
  assertByteList(path, 'anchorFold: path', ANCHOR_DIGEST_LENGTH);
  let node = anchorLeafHash(sha256, digest);
  for (const sibling of path) node = anchorNodeHash(sha256, node, sibling);
  return node;
}

function anchorLeafHash(sha256: HashFunction, digest: Uint8Array): Uint8Array {
  return sha256(concatBytes(LEAF_PREFIX, digest));
}

function anchorNodeHash(sha256: HashFunction, a: Uint8Array, b: Uint8Array): Uint8Array {
  return compareBytes(a, b) <= 0 ? sha256(concatBytes(NODE_PREFIX, a, b)) : sha256(concatBytes(NODE_PREFIX, b, a));
}

/** The anchor tree of a batch held as one flat buffer per level; see {@link anchorTreeLevels}. */
export interface AnchorTreeLevels {
  /** How many digests the batch has. */
  readonly size: number;
  /** The Merkle root (32 bytes). */
  readonly root: Uint8Array;
  /**
   * Every level from the leaves (sorted) up to the root, each `count * 32` bytes: node `i` of a
   * level is bytes `32 * i` to `32 * i + 32`.
   */
  readonly levels: readonly Uint8Array[];
  /**
   * The path of a digest, exactly as {@link anchorTree} gives it (views into `levels`).
   *
   * @param index - The digest's index in the caller's order.
   * @returns Its siblings from the leaf upwards.
   * @throws RangeError when `index` is not below `size`.
   */
  path(index: number): Uint8Array[];
  /**
   * Copies the path of a digest into `target` at `offset`, 32 bytes per sibling, allocating
   * nothing (for writing many proofs in a row).
   *
   * @param index - The digest's index in the caller's order.
   * @param target - Room for at least `32 * levels.length` bytes past `offset`.
   * @param offset - Where to start writing; default 0.
   * @returns How many siblings were written.
   * @throws RangeError when `index` is not below `size` or `target` is too small.
   */
  writePath(index: number, target: Uint8Array, offset?: number): number;
}

/** The order that sorts the digests ascending bytewise, stable (equal digests keep their order). */
function anchorSortOrder(digests: readonly Uint8Array[]): Uint32Array {
  const count = digests.length;
  // The first four bytes as a key, sorted by two stable 16-bit counting passes; runs that share
  // a key (rare for hashes) are then sorted by all 32 bytes.
  const keys = new Uint32Array(count);
  for (let index = 0; index < count; index += 1) {
    const digest = digests[index] as Uint8Array;
    keys[index] =
      (((digest[0] as number) << 24) |
        ((digest[1] as number) << 16) |
        ((digest[2] as number) << 8) |
        (digest[3] as number)) >>>
      0;
  }
  let order = new Uint32Array(count);
  for (let index = 0; index < count; index += 1) order[index] = index;
  let scratch = new Uint32Array(count);
  const counts = new Uint32Array(65_537);
  for (const shift of [0, 16]) {
    counts.fill(0);
    for (let index = 0; index < count; index += 1)
      (counts[(((keys[order[index] as number] as number) >>> shift) & 0xffff) + 1] as number) += 1;
    for (let bucket = 1; bucket < counts.length; bucket += 1)
      (counts[bucket] as number) += counts[bucket - 1] as number;
    for (let index = 0; index < count; index += 1) {
      const item = order[index] as number;
      const bucket = ((keys[item] as number) >>> shift) & 0xffff;
      scratch[counts[bucket] as number] = item;
      (counts[bucket] as number) += 1;
    }
    [order, scratch] = [scratch, order];
  }
  let start = 0;
  for (let index = 1; index <= count; index += 1) {
    if (index < count && keys[order[index] as number] === keys[order[start] as number]) continue;
    if (index - start > 1) {
      const run = Array.from(order.subarray(start, index)).sort(
        (a, b) => compareBytes(digests[a] as Uint8Array, digests[b] as Uint8Array) || a - b,
      );
      order.set(run, start);
    }
    start = index;
  }
  return order;
}

/**
 * Builds the anchor tree of a batch fast: the same tree as {@link anchorTree} (same root, same
 * paths), for large batches.
 *
 * It sorts by a radix pass instead of a comparison sort, hashes every node into one
 * preallocated buffer per level through one reused input buffer, and makes paths only when
 * asked ({@link AnchorTreeLevels.path}, {@link AnchorTreeLevels.writePath}). Memory: 64 bytes
 * per digest for the levels, plus 12 for the order.
 *
 * @param sha256 - SHA-256 (from a provider); it must not keep the input it is given
 * @param digests - the batch's 32-byte digests, in any order
 * @returns the levels, the root and the paths on demand
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when there are no digests, a digest is not 32 bytes, or the hash function
 *   does not return 32 bytes
 */
export function anchorTreeLevels(sha256: HashFunction, digests: readonly Uint8Array[]): AnchorTreeLevels {
  assertHash(sha256, 'anchorTreeLevels');
  assertByteList(digests, 'anchorTreeLevels: digests', ANCHOR_DIGEST_LENGTH);
  const size = digests.length;
  if (size === 0) throw new RangeError('anchorTreeLevels: a batch needs at least one digest');
  if (size > 0xffffffff) throw new RangeError('anchorTreeLevels: at most 2^32 - 1 digests');
  const order = anchorSortOrder(digests);
  const position = new Uint32Array(size);
  for (let sorted = 0; sorted < size; sorted += 1) position[order[sorted] as number] = sorted;

  const input = new Uint8Array(1 + 2 * ANCHOR_DIGEST_LENGTH);
  const leafInput = input.subarray(0, 1 + ANCHOR_DIGEST_LENGTH);
  const put = (data: Uint8Array, level: Uint8Array, offset: number): void => {
    const hashed = sha256(data);
    if (hashed.length !== ANCHOR_DIGEST_LENGTH)
      throw new RangeError(`anchorTreeLevels: the hash function returned ${hashed.length} bytes, not 32`);
    level.set(hashed, offset);
  };

  const leaves = new Uint8Array(size * ANCHOR_DIGEST_LENGTH);
  input[0] = 0x00;
  for (let sorted = 0; sorted < size; sorted += 1) {
    input.set(digests[order[sorted] as number] as Uint8Array, 1);
    put(leafInput, leaves, sorted * ANCHOR_DIGEST_LENGTH);
  }
  const levels: Uint8Array[] = [leaves];
  const counts: number[] = [size];
  input[0] = 0x01;
  for (let level = leaves, count = size; count > 1;) {
    const parentCount = Math.ceil(count / 2);
    const parents = new Uint8Array(parentCount * ANCHOR_DIGEST_LENGTH);
    for (let pair = 0; pair + 1 < count; pair += 2) {
      const a = pair * ANCHOR_DIGEST_LENGTH;
      const b = a + ANCHOR_DIGEST_LENGTH;
      let difference = 0;
      for (let byte = 0; byte < ANCHOR_DIGEST_LENGTH && difference === 0; byte += 1)
        difference = (level[a + byte] as number) - (level[b + byte] as number);
      const [low, high] = difference <= 0 ? [a, b] : [b, a];
      input.set(level.subarray(low, low + ANCHOR_DIGEST_LENGTH), 1);
      input.set(level.subarray(high, high + ANCHOR_DIGEST_LENGTH), 1 + ANCHOR_DIGEST_LENGTH);
      put(input, parents, (pair / 2) * ANCHOR_DIGEST_LENGTH);
    }
    // An odd node at the end is carried up unchanged.
    if (count % 2 === 1)
      parents.set(level.subarray((count - 1) * ANCHOR_DIGEST_LENGTH), (parentCount - 1) * ANCHOR_DIGEST_LENGTH);
    levels.push(parents);
    counts.push(parentCount);
    level = parents;
    count = parentCount;
  }
  const root = (levels[levels.length - 1] as Uint8Array).subarray(0, ANCHOR_DIGEST_LENGTH);

  const checkIndex = (index: number, name: string): number => {
    assertIndex(index, name);
    if (index >= size) throw new RangeError(`${name}: index ${index} is not below the ${size} digests`);
    return position[index] as number;
  };
  return {
    size,
    root,
    levels,
    path(index: number): Uint8Array[] {
      let node = checkIndex(index, 'AnchorTreeLevels.path');
      const path: Uint8Array[] = [];
      for (let level = 0; level + 1 < levels.length; level += 1) {
        const sibling = node ^ 1;
        if (sibling < (counts[level] as number)) {
          const start = sibling * ANCHOR_DIGEST_LENGTH;
          path.push((levels[level] as Uint8Array).subarray(start, start + ANCHOR_DIGEST_LENGTH));
        }
        node = Math.floor(node / 2);
      }
      return path;
    },
    writePath(index: number, target: Uint8Array, offset = 0): number {
      let node = checkIndex(index, 'AnchorTreeLevels.writePath');
      assertBytes(target, 'AnchorTreeLevels.writePath: target');
      assertIndex(offset, 'AnchorTreeLevels.writePath: offset');
      let written = 0;
      for (let level = 0; level + 1 < levels.length; level += 1) {
        const sibling = node ^ 1;
        if (sibling < (counts[level] as number)) {
          const at = offset + written * ANCHOR_DIGEST_LENGTH;
          if (at + ANCHOR_DIGEST_LENGTH > target.length)
            throw new RangeError('AnchorTreeLevels.writePath: target is too small for the path');
          const start = sibling * ANCHOR_DIGEST_LENGTH;
          target.set((levels[level] as Uint8Array).subarray(start, start + ANCHOR_DIGEST_LENGTH), at);
          written += 1;
        }
        node = Math.floor(node / 2);
      }
      return written;
    },
  };
}
