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
    throw new RangeError(
      `rfc9162RootFromInclusionPath: leafIndex ${leafIndex} is not below treeSize ${treeSize}`,
    );
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
  return subtreeRoot(hash, leaves.map((leaf) => rfc9162LeafHash(hash, leaf)));
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
  const order = digests.map((_, index) => index).sort((a, b) => compareBytes(digests[a] as Uint8Array, digests[b] as Uint8Array));
  const levels: Uint8Array[][] = [order.map((index) => anchorLeafHash(sha256, digests[index] as Uint8Array))];
  for (let level = levels[0] as Uint8Array[]; level.length > 1; ) {
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
  return compareBytes(a, b) <= 0
    ? sha256(concatBytes(NODE_PREFIX, a, b))
    : sha256(concatBytes(NODE_PREFIX, b, a));
}
