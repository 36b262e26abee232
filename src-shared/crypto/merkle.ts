/**
 * The anchor tree (PROTOCOL section 8), and the level builder it shares with the tenants' logs
 * (RFC 9162 trees, src-shared/crypto/tlog.ts).
 *
 * Functions take the hash function as an argument so that the caller chooses the provider
 * (SHA-256 for the anchor tree). Builders are for the anchoring engine and tests; verifiers only
 * fold a path (`anchorFold`) and compare the result with the root they were given. (The
 * countersigner's log tree, over hex text with tagged BLAKE3, lives with its format in
 * src-shared/formats/countersigner/log.ts.)
 */
import { assertBytes, assertIndex } from './assert';
import { compareBytes, concatBytes } from './encoding';
import { sha256Batch, sha256PairWords, sha256Prefix32Words } from './sha256-batch';

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

/** How a tree orders the two children of a parent: the anchor tree sorts them, RFC 9162 does not. */
export type MerklePairOrder = 'sorted' | 'ordered';

/** A Merkle tree held as one flat buffer per level; see {@link merkleLevels}. */
export interface MerkleLevels {
  /** How many leaves the tree has. */
  readonly size: number;
  /** The Merkle root (32 bytes). */
  readonly root: Uint8Array;
  /**
   * Every level from the leaf hashes up to the root, each `count * 32` bytes: node `i` of a level
   * is bytes `32 * i` to `32 * i + 32`; the last node of a level of odd length is carried up.
   */
  readonly levels: readonly Uint8Array[];
  /**
   * The path of a leaf: its siblings from the leaf upwards, skipping the levels where it is
   * the odd node carried up (for RFC 9162, the inclusion proof in the whole tree). Views into
   * `levels`.
   *
   * @param index - The leaf's position in level 0.
   * @throws RangeError when `index` is not below `size`.
   */
  path(index: number): Uint8Array[];
  /**
   * Copies the path of a leaf into `target` at `offset`, 32 bytes per sibling, allocating
   * nothing (for writing many proofs in a row).
   *
   * @param index - The leaf's position in level 0.
   * @param target - Room for at least `32 * levels.length` bytes past `offset`.
   * @param offset - Where to start writing; default 0.
   * @returns How many siblings were written.
   * @throws RangeError when `index` is not below `size` or `target` is too small.
   */
  writePath(index: number, target: Uint8Array, offset?: number): number;
}

const DIGEST = ANCHOR_DIGEST_LENGTH;
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
/** A fixed input, and its SHA-256, to recognise a hash function that is SHA-256. */
const PROBE = Uint8Array.from({ length: 65 }, (_, index) => (index * 151 + 7) & 0xff);
let probeDigest: Uint8Array | undefined;

/**
 * Asks the hash function for one digest: it must be 32 bytes; when it is SHA-256's (the
 * probe's known digest), the tree is hashed by the batch SHA-256 of sha256-batch.ts, which gives
 * the same digests without one call per node.
 */
function usesBatchSha256(hash: HashFunction, name: string): boolean {
  const digest = hash(PROBE);
  if (digest.length !== DIGEST)
    throw new RangeError(`${name}: the hash function returned ${digest.length} bytes, not 32`);
  probeDigest ??= sha256Batch(PROBE, PROBE.length);
  for (let index = 0; index < DIGEST; index += 1) if (digest[index] !== probeDigest[index]) return false;
  return true;
}

/**
 * Builds the parent levels over level 0 in words with the batch SHA-256, then turns every level
 * into big-endian bytes in place (so the words are gone afterwards).
 */
function levelsFromWords(level0: Int32Array, count: number, order: MerklePairOrder): Uint8Array[] {
  const words: Int32Array[] = [level0];
  for (let level = level0, size = count; size > 1;) {
    const parentCount = Math.ceil(size / 2);
    const parents = new Int32Array(8 * parentCount);
    sha256PairWords(0x01, level, Math.floor(size / 2), parents, order === 'sorted');
    // An odd node at the end is carried up unchanged.
    if (size % 2 === 1) parents.set(level.subarray(8 * (size - 1), 8 * size), 8 * (parentCount - 1));
    words.push(parents);
    level = parents;
    size = parentCount;
  }
  return words.map((level) => {
    if (LITTLE_ENDIAN) {
      for (let index = 0; index < level.length; index += 1) {
        const word = level[index] as number;
        level[index] = (word << 24) | ((word & 0xff00) << 8) | ((word >>> 8) & 0xff00) | (word >>> 24);
      }
    }
    return new Uint8Array(level.buffer, level.byteOffset, level.length * 4);
  });
}

/** Builds the parent levels over level 0 (bytes) with one call of `hash` per node. */
function levelsFromBytes(
  hash: HashFunction,
  level0: Uint8Array,
  count: number,
  order: MerklePairOrder,
  name: string,
): Uint8Array[] {
  const input = new Uint8Array(1 + 2 * DIGEST);
  input[0] = 0x01;
  const levels: Uint8Array[] = [level0];
  for (let level = level0, size = count; size > 1;) {
    const parentCount = Math.ceil(size / 2);
    const parents = new Uint8Array(parentCount * DIGEST);
    for (let pair = 0; pair + 1 < size; pair += 2) {
      const a = pair * DIGEST;
      const b = a + DIGEST;
      let difference = 0;
      if (order === 'sorted') {
        for (let byte = 0; byte < DIGEST && difference === 0; byte += 1)
          difference = (level[a + byte] as number) - (level[b + byte] as number);
      }
      const [low, high] = difference <= 0 ? [a, b] : [b, a];
      input.set(level.subarray(low, low + DIGEST), 1);
      input.set(level.subarray(high, high + DIGEST), 1 + DIGEST);
      const hashed = hash(input);
      if (hashed.length !== DIGEST)
        throw new RangeError(`${name}: the hash function returned ${hashed.length} bytes, not 32`);
      parents.set(hashed, (pair / 2) * DIGEST);
    }
    // An odd node at the end is carried up unchanged.
    if (size % 2 === 1) parents.set(level.subarray((size - 1) * DIGEST, size * DIGEST), (parentCount - 1) * DIGEST);
    levels.push(parents);
    level = parents;
    size = parentCount;
  }
  return levels;
}

/**
 * The root, paths and proofs over built levels. `position` maps a caller's index to its place
 * in level 0 (the anchor tree's sort), or is absent when they are the same.
 */
function levelsView(
  levels: Uint8Array[],
  size: number,
  position: Uint32Array | undefined,
  name: string,
  noun: string,
): MerkleLevels {
  const counts: number[] = [];
  for (let count = size, level = 0; level < levels.length; level += 1, count = Math.ceil(count / 2)) counts.push(count);
  const buffers = levels.map((level) => level.buffer);
  const offsets = levels.map((level) => level.byteOffset);
  const top = levels[levels.length - 1] as Uint8Array;
  const root = new Uint8Array(top.buffer, top.byteOffset, DIGEST);
  const checkIndex = (index: number, method: string): number => {
    assertIndex(index, `${name}.${method}`);
    if (index >= size) throw new RangeError(`${name}.${method}: index ${index} is not below the ${size} ${noun}`);
    return position === undefined ? index : (position[index] as number);
  };
  return {
    size,
    root,
    levels,
    path(index: number): Uint8Array[] {
      let node = checkIndex(index, 'path');
      const path: Uint8Array[] = [];
      for (let level = 0; level + 1 < levels.length; level += 1) {
        const sibling = node ^ 1;
        if (sibling < (counts[level] as number)) {
          // A view made by the constructor: about half the cost of subarray() (20 million of
          // them for the proofs of a million leaves).
          path.push(
            new Uint8Array(buffers[level] as ArrayBuffer, (offsets[level] as number) + sibling * DIGEST, DIGEST),
          );
        }
        node >>>= 1;
      }
      return path;
    },
    writePath(index: number, target: Uint8Array, offset = 0): number {
      let node = checkIndex(index, 'writePath');
      assertBytes(target, `${name}.writePath: target`);
      assertIndex(offset, `${name}.writePath: offset`);
      let written = 0;
      for (let level = 0; level + 1 < levels.length; level += 1) {
        const sibling = node ^ 1;
        if (sibling < (counts[level] as number)) {
          const at = offset + written * DIGEST;
          if (at + DIGEST > target.length) throw new RangeError(`${name}.writePath: target is too small for the path`);
          const bytes = levels[level] as Uint8Array;
          const start = sibling * DIGEST;
          for (let byte = 0; byte < DIGEST; byte += 1) target[at + byte] = bytes[start + byte] as number;
          written += 1;
        }
        node >>>= 1;
      }
      return written;
    },
  };
}

/**
 * Builds every level of a Merkle tree over SHA-256 from its level-0 hashes, bottom up: a parent
 * is SHA-256(0x01 || left || right), an odd node at the end of a level is carried up unchanged.
 * With `order` 'ordered' this is RFC 9162's tree (MTH) over leaf hashes SHA-256(0x00 || data);
 * with 'sorted' each pair is ordered bytewise first, as in the anchor tree (PROTOCOL section 8).
 *
 * When `sha256` is SHA-256 (checked on one probe input), every node is hashed by the batch
 * SHA-256 of sha256-batch.ts instead of one call per node; any other 32-byte hash function is
 * called once per node. Memory: 64 bytes per leaf.
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param leaves - the level-0 hashes laid end to end, 32 bytes each (copied)
 * @param order - 'ordered' (RFC 9162) or 'sorted' (anchor tree)
 * @returns the levels, the root and the paths on demand
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when there are no leaves, `leaves` is not a multiple of 32 bytes, or the
 *   hash function does not return 32 bytes
 */
export function merkleLevels(sha256: HashFunction, leaves: Uint8Array, order: MerklePairOrder): MerkleLevels {
  assertHash(sha256, 'merkleLevels');
  assertBytes(leaves, 'merkleLevels: leaves');
  if (order !== 'sorted' && order !== 'ordered')
    throw new TypeError(`merkleLevels: order must be 'sorted' or 'ordered', got ${String(order)}`);
  if (leaves.length === 0 || leaves.length % DIGEST !== 0)
    throw new RangeError(`merkleLevels: leaves must be a positive multiple of 32 bytes, got ${leaves.length}`);
  const size = leaves.length / DIGEST;
  if (size > 0xffffffff) throw new RangeError('merkleLevels: at most 2^32 - 1 leaves');
  let levels: Uint8Array[];
  if (usesBatchSha256(sha256, 'merkleLevels')) {
    const words = new Int32Array(8 * size);
    for (let index = 0; index < words.length; index += 1) {
      const at = 4 * index;
      words[index] =
        ((leaves[at] as number) << 24) |
        ((leaves[at + 1] as number) << 16) |
        ((leaves[at + 2] as number) << 8) |
        (leaves[at + 3] as number);
    }
    levels = levelsFromWords(words, size, order);
  } else {
    levels = levelsFromBytes(sha256, leaves.slice(), size, order, 'merkleLevels');
  }
  return levelsView(levels, size, undefined, 'MerkleLevels', 'leaves');
}

/**
 * Hashes the parents of consecutive pairs of nodes: parent `p` is SHA-256(0x01 || node 2p ||
 * node 2p + 1), the pair ordered as `order` says. The step of {@link merkleLevels}, for a tree
 * grown by parts (TlogMemory's appends of many leaves). An odd last node is not hashed (the
 * caller decides whether it is carried up or waits for its sibling).
 *
 * When `sha256` is SHA-256 (checked on one probe input), the batch SHA-256 of sha256-batch.ts
 * hashes every pair; any other 32-byte hash function is called once per pair.
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param nodes - the nodes laid end to end, 32 bytes each
 * @param order - 'ordered' (RFC 9162) or 'sorted' (anchor tree)
 * @returns floor(n / 2) parents laid end to end, 32 bytes each (a new array)
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when `nodes` is not a multiple of 32 bytes or the hash function does not
 *   return 32 bytes
 */
export function merkleParents(sha256: HashFunction, nodes: Uint8Array, order: MerklePairOrder): Uint8Array {
  assertHash(sha256, 'merkleParents');
  assertBytes(nodes, 'merkleParents: nodes');
  if (order !== 'sorted' && order !== 'ordered')
    throw new TypeError(`merkleParents: order must be 'sorted' or 'ordered', got ${String(order)}`);
  if (nodes.length % DIGEST !== 0)
    throw new RangeError(`merkleParents: nodes must be a multiple of 32 bytes, got ${nodes.length}`);
  const pairs = Math.floor(nodes.length / (2 * DIGEST));
  if (pairs === 0) return new Uint8Array(0);
  if (!usesBatchSha256(sha256, 'merkleParents')) {
    const parents = levelsFromBytes(
      sha256,
      nodes.subarray(0, 2 * pairs * DIGEST),
      2 * pairs,
      order,
      'merkleParents',
    )[1];
    return parents as Uint8Array;
  }
  const words = new Int32Array(16 * pairs);
  for (let index = 0; index < words.length; index += 1) {
    const at = 4 * index;
    words[index] =
      ((nodes[at] as number) << 24) |
      ((nodes[at + 1] as number) << 16) |
      ((nodes[at + 2] as number) << 8) |
      (nodes[at + 3] as number);
  }
  sha256PairWords(0x01, words, pairs, words, order === 'sorted');
  const parents = new Uint8Array(pairs * DIGEST);
  for (let index = 0; index < 8 * pairs; index += 1) {
    const word = words[index] as number;
    const at = 4 * index;
    parents[at] = word >>> 24;
    parents[at + 1] = word >>> 16;
    parents[at + 2] = word >>> 8;
    parents[at + 3] = word;
  }
  return parents;
}

/**
 * Builds the anchor tree of a batch fast: the same tree as {@link anchorTree} (same root, same
 * paths), for large batches.
 *
 * It sorts by a radix pass instead of a comparison sort, builds the levels with the level
 * builder of {@link merkleLevels} (with SHA-256 itself, the batch SHA-256 of sha256-batch.ts:
 * no call per node), and makes paths only when asked ({@link AnchorTreeLevels.path},
 * {@link AnchorTreeLevels.writePath}). Memory: 64 bytes per digest for the levels, plus 12 for
 * the order.
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
  const batch = usesBatchSha256(sha256, 'anchorTreeLevels');
  const order = anchorSortOrder(digests);
  const position = new Uint32Array(size);
  for (let sorted = 0; sorted < size; sorted += 1) position[order[sorted] as number] = sorted;

  let levels: Uint8Array[];
  if (batch) {
    // The digests as words in the caller's order (read one after another: reading a million
    // digests in sorted order straight from their arrays is ten times slower, a cache miss per
    // byte read), then put in sorted order, then hashed in place into the leaves H(0x00 || d).
    const given = new Int32Array(8 * size);
    for (let index = 0; index < size; index += 1) {
      const digest = digests[index] as Uint8Array;
      for (let word = 0, at = 8 * index; word < 8; word += 1) {
        const byte = 4 * word;
        given[at + word] =
          ((digest[byte] as number) << 24) |
          ((digest[byte + 1] as number) << 16) |
          ((digest[byte + 2] as number) << 8) |
          (digest[byte + 3] as number);
      }
    }
    const words = new Int32Array(8 * size);
    for (let sorted = 0, at = 0; sorted < size; sorted += 1, at += 8) {
      const from = 8 * (order[sorted] as number);
      for (let word = 0; word < 8; word += 1) words[at + word] = given[from + word] as number;
    }
    sha256Prefix32Words(0x00, words, size, words);
    levels = levelsFromWords(words, size, 'sorted');
  } else {
    const leaves = new Uint8Array(size * DIGEST);
    const leafInput = new Uint8Array(1 + DIGEST);
    for (let sorted = 0; sorted < size; sorted += 1) {
      leafInput.set(digests[order[sorted] as number] as Uint8Array, 1);
      const hashed = sha256(leafInput);
      if (hashed.length !== DIGEST)
        throw new RangeError(`anchorTreeLevels: the hash function returned ${hashed.length} bytes, not 32`);
      leaves.set(hashed, sorted * DIGEST);
    }
    levels = levelsFromBytes(sha256, leaves, size, 'sorted', 'anchorTreeLevels');
  }
  return levelsView(levels, size, position, 'AnchorTreeLevels', 'digests');
}
