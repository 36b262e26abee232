/**
 * Transparency logs: the Merkle tree of RFC 9162 section 2.1 over stored complete nodes.
 *
 * A log keeps its leaf hashes and every complete node: node (level, index) covers the leaves
 * [index * 2^level, (index + 1) * 2^level), level 0 being the leaf hashes. Appending a leaf
 * completes at most log2(n) nodes ({@link tlogCompletedNodes}), so an append costs O(log n)
 * hashes; roots and proofs of any size up to the log's are computed from those nodes alone
 * (a range that ends at a tree's right edge is hashed from its complete nodes, as MTH does).
 *
 * Leaf hash = SHA-256(0x00 || leaf), node = SHA-256(0x01 || left || right), the tree of size n
 * is MTH (split at the largest power of two below n): the same tree as Go's
 * golang.org/x/mod/sumdb/tlog, whose vectors the tests check byte for byte.
 *
 * Builders and verifiers take the hash function as an argument, so the caller chooses the
 * provider. Verifiers answer false for a wrong proof and never throw for one; they throw
 * TypeError or RangeError only for arguments of the wrong type or range (an index not below the
 * size, a `from` above `to`).
 */
import { assertBytes, assertIndex, describeType, isBytes } from './assert';
import { concatBytes, equalBytes } from './encoding';
import { merkleParents, type HashFunction } from './merkle';

/** Complete node (level, index) -> 32 bytes; may throw if unknown. */
export type TlogNodeSource = (level: number, index: number) => Uint8Array;

const HASH_LENGTH = 32;
const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);
/** A tree size is a safe integer, so a node's level is at most 52 (2^53 leaves would not fit). */
const MAX_LEVEL = 52;

function assertHash(hash: unknown, name: string): asserts hash is HashFunction {
  if (typeof hash !== 'function') throw new TypeError(`${name}: sha256 must be a function, got ${typeof hash}`);
}

function assertNodeSource(node: unknown, name: string): asserts node is TlogNodeSource {
  if (typeof node !== 'function') throw new TypeError(`${name}: node must be a function, got ${typeof node}`);
}

function hashed(bytes: Uint8Array, name: string): Uint8Array {
  if (!isBytes(bytes) || bytes.length !== HASH_LENGTH) {
    throw new RangeError(`${name}: the hash function returned ${describeLength(bytes)}, not 32 bytes`);
  }
  return bytes;
}

function describeLength(value: unknown): string {
  return isBytes(value) ? `${value.length} bytes` : describeType(value);
}

/** Reads a node from the caller's source and checks that it is 32 bytes. */
function readNode(node: TlogNodeSource, level: number, index: number, name: string): Uint8Array {
  const value = node(level, index);
  if (!isBytes(value)) {
    throw new TypeError(`${name}: node(${level}, ${index}) must be a Uint8Array, got ${describeType(value)}`);
  }
  if (value.length !== HASH_LENGTH) {
    throw new RangeError(`${name}: node(${level}, ${index}) must be 32 bytes, got ${value.length}`);
  }
  return value;
}

/** The largest power of two strictly below n (n >= 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The hash of a leaf (RFC 9162 section 2.1.1): SHA-256(0x00 || leaf).
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param leaf - the leaf's bytes (for our logs, the JCS bytes of a receipt)
 * @returns the 32-byte leaf hash
 * @throws TypeError on arguments of the wrong type
 * @example tlogLeafHash(provider.sha256, utf8Encode(canonicalJson))
 */
export function tlogLeafHash(sha256: HashFunction, leaf: Uint8Array): Uint8Array {
  assertHash(sha256, 'tlogLeafHash');
  assertBytes(leaf, 'tlogLeafHash: leaf');
  return hashed(sha256(concatBytes(LEAF_PREFIX, leaf)), 'tlogLeafHash');
}

/**
 * The hash of an interior node (RFC 9162 section 2.1.1): SHA-256(0x01 || left || right).
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param left - the left child's 32-byte hash
 * @param right - the right child's 32-byte hash
 * @returns the 32-byte node hash
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when a child is not 32 bytes
 */
export function tlogNodeHash(sha256: HashFunction, left: Uint8Array, right: Uint8Array): Uint8Array {
  assertHash(sha256, 'tlogNodeHash');
  assertBytes(left, 'tlogNodeHash: left', HASH_LENGTH);
  assertBytes(right, 'tlogNodeHash: right', HASH_LENGTH);
  return nodeHash(sha256, left, right);
}

function nodeHash(sha256: HashFunction, left: Uint8Array, right: Uint8Array): Uint8Array {
  return hashed(sha256(concatBytes(NODE_PREFIX, left, right)), 'tlog node hash');
}

/** MTH of [start, end), unchecked: complete nodes of the binary decomposition, folded from the right. */
function rangeHash(sha256: HashFunction, start: number, end: number, node: TlogNodeSource, name: string): Uint8Array {
  // [start, end) splits into complete nodes of decreasing size, one per set bit of its width;
  // MTH pairs them right to left because each split takes the largest power of two first.
  const parts: Uint8Array[] = [];
  let at = start;
  let remaining = end - start;
  for (let level = MAX_LEVEL; level >= 0 && remaining > 0; level -= 1) {
    const width = 2 ** level;
    if (width > remaining) continue;
    if (at % width !== 0) {
      throw new RangeError(
        `${name}: [${start}, ${end}) is not a subtree (leaf ${at} does not start a node of level ${level})`,
      );
    }
    parts.push(readNode(node, level, at / width, name));
    at += width;
    remaining -= width;
  }
  let hash = parts[parts.length - 1] as Uint8Array;
  for (let index = parts.length - 2; index >= 0; index -= 1) {
    hash = nodeHash(sha256, parts[index] as Uint8Array, hash);
  }
  return hash;
}

/**
 * The Merkle tree hash (MTH) of the leaves [start, end).
 *
 * [start, end) must be a subtree of some tree: an aligned complete node (start a multiple of a
 * power-of-two width), or a range that ends at a tree's size and starts where MTH's split puts
 * it. It is hashed from the complete nodes the source gives.
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param start - the first leaf
 * @param end - one past the last leaf (above start)
 * @param node - the log's complete nodes
 * @returns the 32-byte hash
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when start >= end, the range is not a subtree, or a node is missing
 */
export function tlogRangeHash(sha256: HashFunction, start: number, end: number, node: TlogNodeSource): Uint8Array {
  assertHash(sha256, 'tlogRangeHash');
  assertIndex(start, 'tlogRangeHash: start');
  assertIndex(end, 'tlogRangeHash: end');
  assertNodeSource(node, 'tlogRangeHash');
  if (start >= end) throw new RangeError(`tlogRangeHash: start ${start} must be below end ${end}`);
  return rangeHash(sha256, start, end, node, 'tlogRangeHash');
}

/**
 * The root of the log's tree at a size (MTH of the first `size` leaves).
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param size - the tree size; 0 gives SHA-256 of the empty string
 * @param node - the log's complete nodes
 * @returns the 32-byte root
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when size is not a safe non-negative integer or a node is missing
 */
export function tlogRoot(sha256: HashFunction, size: number, node: TlogNodeSource): Uint8Array {
  assertHash(sha256, 'tlogRoot');
  assertIndex(size, 'tlogRoot: size');
  assertNodeSource(node, 'tlogRoot');
  if (size === 0) return hashed(sha256(new Uint8Array(0)), 'tlogRoot');
  return rangeHash(sha256, 0, size, node, 'tlogRoot');
}

/**
 * The inclusion proof of a leaf in the tree of a size (RFC 9162 section 2.1.3.1, PATH).
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param index - the leaf (0-based)
 * @param size - the tree size (above index)
 * @param node - the log's complete nodes
 * @returns the sibling hashes from the leaf upwards
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when index >= size or a node is missing
 */
export function tlogInclusionProof(
  sha256: HashFunction,
  index: number,
  size: number,
  node: TlogNodeSource,
): Uint8Array[] {
  assertHash(sha256, 'tlogInclusionProof');
  assertIndex(index, 'tlogInclusionProof: index');
  assertIndex(size, 'tlogInclusionProof: size');
  assertNodeSource(node, 'tlogInclusionProof');
  if (index >= size) throw new RangeError(`tlogInclusionProof: index ${index} is not below the size ${size}`);
  // PATH(m, D[start:end]) recursed from the top; the siblings are collected top down and
  // reversed, so the proof runs from the leaf upwards as RFC 9162 writes it.
  const siblings: Uint8Array[] = [];
  let start = 0;
  let end = size;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index < start + k) {
      siblings.push(rangeHash(sha256, start + k, end, node, 'tlogInclusionProof'));
      end = start + k;
    } else {
      siblings.push(rangeHash(sha256, start, start + k, node, 'tlogInclusionProof'));
      start += k;
    }
  }
  return siblings.reverse();
}

/**
 * The consistency proof between two sizes of the log (RFC 9162 section 2.1.4.1, PROOF).
 *
 * For 0 < from < to it is RFC 9162's PROOF(from, D[to]). When from is 0 or equals to, the proof
 * is empty (every tree extends the empty one, and a tree is consistent with itself), as in Go's
 * sumdb/tlog.
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param from - the older size
 * @param to - the newer size (at least from)
 * @param node - the log's complete nodes
 * @returns the proof's hashes
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when from > to or a node is missing
 */
export function tlogConsistencyProof(
  sha256: HashFunction,
  from: number,
  to: number,
  node: TlogNodeSource,
): Uint8Array[] {
  assertHash(sha256, 'tlogConsistencyProof');
  assertIndex(from, 'tlogConsistencyProof: from');
  assertIndex(to, 'tlogConsistencyProof: to');
  assertNodeSource(node, 'tlogConsistencyProof');
  if (from > to) throw new RangeError(`tlogConsistencyProof: from ${from} is above to ${to}`);
  if (from === 0 || from === to) return [];
  // SUBPROOF(m, D[start:end], b), iterated from the top; collected top down, reversed at the end.
  const hashes: Uint8Array[] = [];
  let start = 0;
  let end = to;
  let m = from;
  let whole = true;
  while (m !== end - start) {
    const k = splitPoint(end - start);
    if (m <= k) {
      hashes.push(rangeHash(sha256, start + k, end, node, 'tlogConsistencyProof'));
      end = start + k;
    } else {
      hashes.push(rangeHash(sha256, start, start + k, node, 'tlogConsistencyProof'));
      start += k;
      m -= k;
      whole = false;
    }
  }
  // m == width of [start, end): SUBPROOF gives nothing when this is the old tree itself.
  if (!whole) hashes.push(rangeHash(sha256, start, end, node, 'tlogConsistencyProof'));
  return hashes.reverse();
}

function assertProof(proof: unknown, name: string): asserts proof is readonly Uint8Array[] {
  if (!Array.isArray(proof))
    throw new TypeError(`${name}: proof must be an array of Uint8Array, got ${describeType(proof)}`);
  for (const [index, item] of proof.entries()) {
    if (!isBytes(item)) throw new TypeError(`${name}: proof[${index}] must be a Uint8Array, got ${describeType(item)}`);
  }
}

/**
 * Verifies an inclusion proof (RFC 9162 section 2.1.3.2).
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param leafHash - the leaf's 32-byte hash ({@link tlogLeafHash})
 * @param index - the leaf (0-based)
 * @param size - the tree size (above index)
 * @param proof - the sibling hashes from the leaf upwards
 * @param root - the tree's 32-byte root at that size
 * @returns true when the proof shows the leaf at that index in that tree; false for any wrong
 *   proof (a changed or missing hash, an element that is not 32 bytes, a proof too long)
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when leafHash or root is not 32 bytes, or index >= size
 */
export function tlogVerifyInclusion(
  sha256: HashFunction,
  leafHash: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  assertHash(sha256, 'tlogVerifyInclusion');
  assertBytes(leafHash, 'tlogVerifyInclusion: leafHash', HASH_LENGTH);
  assertIndex(index, 'tlogVerifyInclusion: index');
  assertIndex(size, 'tlogVerifyInclusion: size');
  assertProof(proof, 'tlogVerifyInclusion');
  assertBytes(root, 'tlogVerifyInclusion: root', HASH_LENGTH);
  if (index >= size) throw new RangeError(`tlogVerifyInclusion: index ${index} is not below the size ${size}`);
  if (proof.length > MAX_LEVEL + 1) return false;
  // Numbers, not 32-bit bit operations: sizes go up to 2^53 - 1.
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (p.length !== HASH_LENGTH || sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(sha256, p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      r = nodeHash(sha256, r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalBytes(r, root);
}

function isPowerOfTwo(n: number): boolean {
  return n > 0 && 2 ** Math.round(Math.log2(n)) === n;
}

/**
 * Verifies a consistency proof (RFC 9162 section 2.1.4.2).
 *
 * For 0 < fromSize < toSize it is RFC 9162's algorithm. fromSize == toSize holds when the proof
 * is empty and the roots are equal; fromSize == 0 holds when the proof is empty and fromRoot is
 * the empty tree's root (SHA-256 of the empty string).
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param fromSize - the older size
 * @param toSize - the newer size (at least fromSize)
 * @param fromRoot - the 32-byte root at fromSize
 * @param toRoot - the 32-byte root at toSize
 * @param proof - the proof's hashes
 * @returns true when the tree at toSize extends the tree at fromSize; false for any wrong proof
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when a root is not 32 bytes or fromSize > toSize
 */
export function tlogVerifyConsistency(
  sha256: HashFunction,
  fromSize: number,
  toSize: number,
  fromRoot: Uint8Array,
  toRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  assertHash(sha256, 'tlogVerifyConsistency');
  assertIndex(fromSize, 'tlogVerifyConsistency: fromSize');
  assertIndex(toSize, 'tlogVerifyConsistency: toSize');
  assertBytes(fromRoot, 'tlogVerifyConsistency: fromRoot', HASH_LENGTH);
  assertBytes(toRoot, 'tlogVerifyConsistency: toRoot', HASH_LENGTH);
  assertProof(proof, 'tlogVerifyConsistency');
  if (fromSize > toSize) {
    throw new RangeError(`tlogVerifyConsistency: fromSize ${fromSize} is above toSize ${toSize}`);
  }
  if (fromSize === 0) return proof.length === 0 && equalBytes(fromRoot, hashed(sha256(new Uint8Array(0)), 'tlog'));
  if (fromSize === toSize) return proof.length === 0 && equalBytes(fromRoot, toRoot);
  if (proof.length === 0 || proof.length > 2 * (MAX_LEVEL + 1)) return false;
  for (const item of proof) if (item.length !== HASH_LENGTH) return false;
  const path = isPowerOfTwo(fromSize) ? [fromRoot, ...proof] : [...proof];
  let fn = fromSize - 1;
  let sn = toSize - 1;
  while (fn % 2 === 1) {
    fn = (fn - 1) / 2;
    sn = Math.floor(sn / 2);
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(sha256, c, fr);
      sr = nodeHash(sha256, c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sha256, sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equalBytes(fr, fromRoot) && equalBytes(sr, toRoot);
}

/**
 * The complete nodes that appending a leaf completes, to store beside its leaf hash.
 *
 * Appending leaf `index` completes node (level, (index + 1) / 2^level - 1) for every level >= 1
 * with 2^level dividing index + 1: each is the node hash of its left child, read from the
 * source, and the right child just computed. O(log n) hashes and reads.
 *
 * @param sha256 - SHA-256 (from a provider)
 * @param index - the new leaf's index (0-based), i.e. the log's size before the append
 * @param leafHash - its 32-byte leaf hash
 * @param node - the log's complete nodes before the append
 * @returns the new nodes bottom up, level >= 1 (empty when index is even)
 * @throws TypeError on arguments of the wrong type
 * @throws RangeError when leafHash is not 32 bytes, index + 1 is not a safe integer, or a node
 *   is missing
 */
export function tlogCompletedNodes(
  sha256: HashFunction,
  index: number,
  leafHash: Uint8Array,
  node: TlogNodeSource,
): { level: number; index: number; hash: Uint8Array }[] {
  assertHash(sha256, 'tlogCompletedNodes');
  assertIndex(index, 'tlogCompletedNodes: index');
  assertBytes(leafHash, 'tlogCompletedNodes: leafHash', HASH_LENGTH);
  assertNodeSource(node, 'tlogCompletedNodes');
  if (!Number.isSafeInteger(index + 1)) throw new RangeError('tlogCompletedNodes: the log is full (2^53 - 1 leaves)');
  const completed: { level: number; index: number; hash: Uint8Array }[] = [];
  let hash = leafHash;
  let position = index;
  for (let level = 1; position % 2 === 1; level += 1) {
    const left = readNode(node, level - 1, position - 1, 'tlogCompletedNodes');
    position = (position - 1) / 2;
    hash = nodeHash(sha256, left, hash);
    completed.push({ level, index: position, hash });
  }
  return completed;
}

/**
 * An in-memory log: for tests, benchmarks and small exports.
 *
 * It stores every complete node, level by level, and answers roots and proofs of any size up
 * to its own through the same functions a stored log uses. `appendMany` grows it by many leaves
 * at once with merkle.ts's level step (the batch SHA-256 when the hash function is SHA-256), and
 * inclusion proofs at the log's own size are read from the stored nodes and the few right-edge
 * hashes of that size, kept until the next append, instead of hashing the right edge again
 * for every proof.
 *
 * @example
 * const log = new TlogMemory(provider.sha256);
 * log.append(tlogLeafHash(provider.sha256, leaf));
 * const proof = log.inclusionProof(0);
 */
export class TlogMemory {
  readonly #sha256: HashFunction;
  readonly #levels: Uint8Array[][] = [[]];
  /** For the size `#edgeSize`: level -> MTH of the right edge carried up there (or undefined). */
  #edges: (Uint8Array | undefined)[] = [];
  #edgeSize = -1;

  /**
   * @param sha256 - SHA-256 (from a provider)
   * @throws TypeError when sha256 is not a function
   */
  constructor(sha256: HashFunction) {
    assertHash(sha256, 'TlogMemory');
    this.#sha256 = sha256;
  }

  /** How many leaves the log holds. */
  get size(): number {
    return (this.#levels[0] as Uint8Array[]).length;
  }

  /**
   * Complete node (level, index) of the log.
   *
   * @throws RangeError when the node is not complete in the log (yet)
   */
  readonly node: TlogNodeSource = (level: number, index: number): Uint8Array => {
    assertIndex(level, 'TlogMemory.node: level');
    assertIndex(index, 'TlogMemory.node: index');
    const hash = this.#levels[level]?.[index];
    if (hash === undefined) {
      throw new RangeError(
        `TlogMemory.node: node (${level}, ${index}) is not complete in a log of ${this.size} leaves`,
      );
    }
    return hash;
  };

  /**
   * Appends a leaf hash.
   *
   * @param leafHash - the 32-byte leaf hash ({@link tlogLeafHash})
   * @returns the new leaf's index
   * @throws TypeError / RangeError when leafHash is not 32 bytes
   */
  append(leafHash: Uint8Array): number {
    assertBytes(leafHash, 'TlogMemory.append: leafHash', HASH_LENGTH);
    const index = this.size;
    const completed = tlogCompletedNodes(this.#sha256, index, leafHash, this.node);
    (this.#levels[0] as Uint8Array[]).push(leafHash.slice());
    for (const item of completed) {
      let level = this.#levels[item.level];
      if (level === undefined) {
        level = [];
        this.#levels[item.level] = level;
      }
      level.push(item.hash);
    }
    return index;
  }

  /**
   * Appends many leaf hashes: the same log as appending them one by one, in order. The new
   * complete nodes of each level are hashed together (merkleParents: with SHA-256, the batch
   * SHA-256 instead of one call per node).
   *
   * @param leafHashes - 32-byte leaf hashes ({@link tlogLeafHash}), copied
   * @returns the index of the first new leaf (the size before the call)
   * @throws TypeError / RangeError when an item is not 32 bytes; the log is then unchanged
   */
  appendMany(leafHashes: readonly Uint8Array[]): number {
    if (!Array.isArray(leafHashes))
      throw new TypeError(`TlogMemory.appendMany: leafHashes must be an array, got ${describeType(leafHashes)}`);
    leafHashes.forEach((leafHash, index) =>
      assertBytes(leafHash, `TlogMemory.appendMany: leafHashes[${index}]`, HASH_LENGTH),
    );
    const first = this.size;
    if (!Number.isSafeInteger(first + leafHashes.length))
      throw new RangeError('TlogMemory.appendMany: the log would be over 2^53 - 1 leaves');
    const copy = new Uint8Array(HASH_LENGTH * leafHashes.length);
    leafHashes.forEach((leafHash, index) => copy.set(leafHash, HASH_LENGTH * index));
    pushViews(this.#levels[0] as Uint8Array[], copy);
    for (let level = 1; ; level += 1) {
      const children = this.#levels[level - 1] as Uint8Array[];
      let parents = this.#levels[level];
      const have = parents?.length ?? 0;
      const complete = Math.floor(children.length / 2);
      if (complete === have) break;
      const pairs = new Uint8Array(HASH_LENGTH * 2 * (complete - have));
      for (let child = 2 * have; child < 2 * complete; child += 1)
        pairs.set(children[child] as Uint8Array, HASH_LENGTH * (child - 2 * have));
      if (parents === undefined) {
        parents = [];
        this.#levels[level] = parents;
      }
      pushViews(parents, merkleParents(this.#sha256, pairs, 'ordered'));
    }
    return first;
  }

  #checkSize(size: number, name: string): void {
    assertIndex(size, `${name}: size`);
    if (size > this.size) throw new RangeError(`${name}: size ${size} is above the log's ${this.size} leaves`);
  }

  /**
   * The root at a size.
   *
   * @param size - default: the log's size
   * @throws RangeError when size is above the log's size
   */
  root(size: number = this.size): Uint8Array {
    this.#checkSize(size, 'TlogMemory.root');
    return tlogRoot(this.#sha256, size, this.node);
  }

  /**
   * The inclusion proof of a leaf at a size.
   *
   * @param index - the leaf
   * @param size - default: the log's size
   * @throws RangeError when size is above the log's size or index is not below it
   */
  inclusionProof(index: number, size: number = this.size): Uint8Array[] {
    this.#checkSize(size, 'TlogMemory.inclusionProof');
    if (size !== this.size || typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || index >= size)
      return tlogInclusionProof(this.#sha256, index, size, this.node);
    // At the log's own size: RFC 9162's PATH is the sibling at each level, bottom up, where a
    // sibling past the last complete node is the right edge carried up to that level, and a
    // level where the node has no sibling adds nothing (as merkleLevels builds the tree).
    const edges = this.#edgesOfSize();
    const proof: Uint8Array[] = [];
    let position = index;
    for (let level = 0, width = 1; width < size; level += 1, width *= 2) {
      const sibling = position % 2 === 0 ? position + 1 : position - 1;
      const complete = Math.floor(size / width);
      if (sibling < complete) proof.push((this.#levels[level] as Uint8Array[])[sibling] as Uint8Array);
      else if (sibling === complete && size % width !== 0) proof.push(edges[level] as Uint8Array);
      position = Math.floor(position / 2);
    }
    return proof;
  }

  /** The right-edge hashes of the log's current size, per level (computed once per size). */
  #edgesOfSize(): (Uint8Array | undefined)[] {
    const size = this.size;
    if (this.#edgeSize !== size) {
      const edges: (Uint8Array | undefined)[] = [];
      // Level `edges.length` has nodes `width` leaves wide.
      for (let width = 1; width < size; width *= 2) {
        // The node at position floor(size / width) of this level covers [start, size): a
        // partial node, the MTH of what the complete nodes below it hold.
        const start = Math.floor(size / width) * width;
        edges.push(start < size ? tlogRangeHash(this.#sha256, start, size, this.node) : undefined);
      }
      this.#edges = edges;
      this.#edgeSize = size;
    }
    return this.#edges;
  }

  /**
   * The consistency proof between two sizes.
   *
   * @param from - the older size
   * @param to - default: the log's size
   * @throws RangeError when to is above the log's size or from above to
   */
  consistencyProof(from: number, to: number = this.size): Uint8Array[] {
    this.#checkSize(to, 'TlogMemory.consistencyProof');
    return tlogConsistencyProof(this.#sha256, from, to, this.node);
  }
}

/** Pushes each 32-byte hash of `flat` as a view onto `list` (one buffer for all of them). */
function pushViews(list: Uint8Array[], flat: Uint8Array): void {
  for (let at = 0; at < flat.length; at += HASH_LENGTH)
    list.push(new Uint8Array(flat.buffer, flat.byteOffset + at, HASH_LENGTH));
}
