/**
 * Merkle trees: RFC 9162 (countersigner logs) and the anchor tree (PROTOCOL sections 5 and 8).
 *
 * Both take the hash function as an argument so that the caller chooses the provider: BLAKE3 for
 * the countersigner's RFC 9162 tree, SHA-256 for the anchor tree. Builders are for signers and
 * tests; verifiers only fold a path (`rfc9162RootFromInclusionPath`, `anchorFold`) and compare
 * the result with the root they were given.
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
 * RFC 9162 leaf hash: hash(0x00 || data).
 *
 * @param hash - the tree's hash function
 * @param data - the leaf entry
 * @returns the leaf hash
 * @throws TypeError when `hash` is not a function or `data` not a Uint8Array
 */
export function rfc9162LeafHash(hash: HashFunction, data: Uint8Array): Uint8Array {
  assertHash(hash, 'rfc9162LeafHash');
  assertBytes(data, 'rfc9162LeafHash: data');
  return hash(concatBytes(LEAF_PREFIX, data));
}

/**
 * RFC 9162 interior node hash: hash(0x01 || left || right).
 *
 * @param hash - the tree's hash function
 * @param left - the left child's hash
 * @param right - the right child's hash
 * @returns the node hash
 * @throws TypeError when `hash` is not a function or a child not a Uint8Array
 */
export function rfc9162NodeHash(hash: HashFunction, left: Uint8Array, right: Uint8Array): Uint8Array {
  assertHash(hash, 'rfc9162NodeHash');
  assertBytes(left, 'rfc9162NodeHash: left');
  assertBytes(right, 'rfc9162NodeHash: right');
  return hash(concatBytes(NODE_PREFIX, left, right));
}

/**
 * The root implied by an RFC 9162 inclusion proof (section 2.1.3.2, steps 1 to 5).
 *
 * The caller compares the result with the signed root; this function only checks that the
 * path has exactly the length a leaf at `leafIndex` in a tree of `treeSize` needs.
 *
 * @param hash - the tree's hash function
 * @param leafHash - the hash of the leaf (see `rfc9162LeafHash`)
 * @param leafIndex - the leaf's zero-based index
 * @param treeSize - the number of leaves in the tree
 * @param path - the inclusion path, from the leaf's sibling upwards
 * @returns the computed root hash
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when `leafIndex >= treeSize`, a number is not a non-negative integer, a
 *   path element's length differs from the leaf hash's, or the path is too short or too long
 */
export function rfc9162RootFromInclusionPath(
  hash: HashFunction,
  leafHash: Uint8Array,
  leafIndex: number,
  treeSize: number,
  path: readonly Uint8Array[],
): Uint8Array {
  assertHash(hash, 'rfc9162RootFromInclusionPath');
  assertBytes(leafHash, 'rfc9162RootFromInclusionPath: leafHash');
  assertIndex(leafIndex, 'rfc9162RootFromInclusionPath: leafIndex');
  assertIndex(treeSize, 'rfc9162RootFromInclusionPath: treeSize');
  assertByteList(path, 'rfc9162RootFromInclusionPath: path', leafHash.length);
  if (leafIndex >= treeSize) {
    throw new RangeError(`rfc9162RootFromInclusionPath: leafIndex ${leafIndex} is not below treeSize ${treeSize}`);
  }
  // Division instead of >> keeps indexes above 2^31 exact.
  let index = leafIndex;
  let lastIndex = treeSize - 1;
  let root = leafHash;
  for (const sibling of path) {
    if (lastIndex === 0) {
      throw new RangeError(
        `rfc9162RootFromInclusionPath: path has ${path.length} elements, too many for leaf ${leafIndex} of ${treeSize}`,
      );
    }
    if (index % 2 === 1 || index === lastIndex) {
      root = hash(concatBytes(NODE_PREFIX, sibling, root));
      if (index % 2 === 0) {
        // A right-edge node with no sibling at these levels moves up unchanged.
        while (index % 2 === 0 && index !== 0) {
          index /= 2;
          lastIndex = Math.floor(lastIndex / 2);
        }
      }
    } else {
      root = hash(concatBytes(NODE_PREFIX, root, sibling));
    }
    index = Math.floor(index / 2);
    lastIndex = Math.floor(lastIndex / 2);
  }
  if (lastIndex !== 0) {
    throw new RangeError(
      `rfc9162RootFromInclusionPath: path has ${path.length} elements, too few for leaf ${leafIndex} of ${treeSize}`,
    );
  }
  return root;
}

/**
 * The RFC 9162 tree head MTH(D[n]) of a list of entries (section 2.1.1).
 *
 * The empty list's root is the hash of the empty string.
 *
 * @param hash - the tree's hash function
 * @param leaves - the entries (not yet leaf-hashed)
 * @returns the root hash
 * @throws TypeError on arguments of the wrong type
 */
export function rfc9162Root(hash: HashFunction, leaves: readonly Uint8Array[]): Uint8Array {
  assertHash(hash, 'rfc9162Root');
  assertByteList(leaves, 'rfc9162Root: leaves');
  if (leaves.length === 0) return hash(new Uint8Array(0));
  return subtreeRoot(
    hash,
    leaves.map((leaf) => rfc9162LeafHash(hash, leaf)),
  );
}

/**
 * The RFC 9162 inclusion path PATH(m, D[n]) of entry `index` (section 2.1.3.1).
 *
 * @param hash - the tree's hash function
 * @param leaves - the entries (not yet leaf-hashed)
 * @param index - the entry whose path is wanted
 * @returns the sibling hashes from the leaf upwards
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when `index` is not below `leaves.length`
 */
export function rfc9162InclusionPath(hash: HashFunction, leaves: readonly Uint8Array[], index: number): Uint8Array[] {
  assertHash(hash, 'rfc9162InclusionPath');
  assertByteList(leaves, 'rfc9162InclusionPath: leaves');
  assertIndex(index, 'rfc9162InclusionPath: index');
  if (index >= leaves.length) {
    throw new RangeError(`rfc9162InclusionPath: index ${index} is not below the ${leaves.length} leaves`);
  }
  const leafHashes = leaves.map((leaf) => rfc9162LeafHash(hash, leaf));
  const path: Uint8Array[] = [];
  let low = 0;
  let high = leafHashes.length;
  let position = index;
  // Walk down from the root; each split contributes the other half's root, so the path is
  // collected top-down and reversed at the end.
  while (high - low > 1) {
    const split = largestPowerOfTwoBelow(high - low);
    if (position < split) {
      path.push(subtreeRoot(hash, leafHashes.slice(low + split, high)));
      high = low + split;
    } else {
      path.push(subtreeRoot(hash, leafHashes.slice(low, low + split)));
      low += split;
      position -= split;
    }
  }
  return path.reverse();
}

/** MTH over leaf hashes that are already computed (a non-empty list). */
function subtreeRoot(hash: HashFunction, leafHashes: readonly Uint8Array[]): Uint8Array {
  if (leafHashes.length === 1) return leafHashes[0] as Uint8Array;
  const split = largestPowerOfTwoBelow(leafHashes.length);
  return hash(
    concatBytes(NODE_PREFIX, subtreeRoot(hash, leafHashes.slice(0, split)), subtreeRoot(hash, leafHashes.slice(split))),
  );
}

/** The largest power of two strictly below `count` (count >= 2), as RFC 9162's k. */
function largestPowerOfTwoBelow(count: number): number {
  let power = 1;
  while (power * 2 < count) power *= 2;
  return power;
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
