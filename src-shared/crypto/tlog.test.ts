import { readFileSync } from 'node:fs';

import { sha256 } from '@noble/hashes/sha2.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { concatBytes, hexDecode, hexEncode, utf8Encode } from './encoding';
import {
  TlogMemory,
  tlogCompletedNodes,
  tlogConsistencyProof,
  tlogInclusionProof,
  tlogLeafHash,
  tlogNodeHash,
  tlogRangeHash,
  tlogRoot,
  tlogVerifyConsistency,
  tlogVerifyInclusion,
} from './tlog';
import type { TlogNodeSource } from './tlog';

interface GoVectors {
  header: string[];
  leaf_count: number;
  leaf_hashes: string[];
  roots: string[];
  inclusion: { index: number; size: number; hashes: string[] }[];
  consistency: { from: number; to: number; hashes: string[] }[];
}

const go = JSON.parse(readFileSync(new URL('./testdata/tlog-go-vectors.json', import.meta.url), 'utf8')) as GoVectors;

// RFC 9162 section 2.1 written out literally, over a list of leaf hashes: the reference the
// node-based functions are checked against.
function largestPowerBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
function mth(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256(new Uint8Array(0));
  if (leaves.length === 1) return leaves[0] as Uint8Array;
  const k = largestPowerBelow(leaves.length);
  return sha256(concatBytes(Uint8Array.of(1), mth(leaves.slice(0, k)), mth(leaves.slice(k))));
}
function path(m: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  if (leaves.length <= 1) return [];
  const k = largestPowerBelow(leaves.length);
  return m < k
    ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))]
    : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}
function subproof(m: number, leaves: readonly Uint8Array[], whole: boolean): Uint8Array[] {
  if (m === leaves.length) return whole ? [] : [mth(leaves)];
  const k = largestPowerBelow(leaves.length);
  return m <= k
    ? [...subproof(m, leaves.slice(0, k), whole), mth(leaves.slice(k))]
    : [...subproof(m - k, leaves.slice(k), false), mth(leaves.slice(0, k))];
}
/** Levels built bottom up, pairing left to right, an odd last node carried up unchanged. */
function bottomUpRoot(leaves: readonly Uint8Array[]): Uint8Array {
  let level = [...leaves];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(tlogNodeHash(sha256, level[i]!, level[i + 1]!));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return level[0]!;
}

const leafData = (i: number): Uint8Array => utf8Encode(`leaf ${i}`);
const hex = (list: readonly Uint8Array[]): string[] => list.map((item) => hexEncode(item));
const unhex = (list: readonly string[]): Uint8Array[] => list.map((item) => hexDecode(item));

function memoryLog(count: number): { log: TlogMemory; leaves: Uint8Array[] } {
  const log = new TlogMemory(sha256);
  const leaves: Uint8Array[] = [];
  for (let i = 0; i < count; i += 1) {
    const leaf = tlogLeafHash(sha256, leafData(i));
    leaves.push(leaf);
    expect(log.append(leaf)).toBe(i);
  }
  return { log, leaves };
}

/** A store built only from tlogCompletedNodes, as the ledger keeps it: a map of (level, index). */
function storedLog(count: number): { node: TlogNodeSource; stored: Map<string, Uint8Array> } {
  const stored = new Map<string, Uint8Array>();
  const node: TlogNodeSource = (level, index) => {
    const hash = stored.get(`${level}/${index}`);
    if (hash === undefined) throw new RangeError(`no node ${level}/${index}`);
    return hash;
  };
  for (let i = 0; i < count; i += 1) {
    const leaf = tlogLeafHash(sha256, leafData(i));
    const completed = tlogCompletedNodes(sha256, i, leaf, node);
    stored.set(`0/${i}`, leaf);
    for (const item of completed) stored.set(`${item.level}/${item.index}`, item.hash);
  }
  return { node, stored };
}

describe('tlog (RFC 9162 section 2.1)', () => {
  const { log, leaves } = memoryLog(go.leaf_count);

  it('hashes leaves and nodes with the 0x00 / 0x01 prefixes', () => {
    const data = utf8Encode('leaf 0');
    expect(tlogLeafHash(sha256, data)).toEqual(sha256(concatBytes(Uint8Array.of(0), data)));
    const [a, b] = [leaves[0]!, leaves[1]!];
    expect(tlogNodeHash(sha256, a, b)).toEqual(sha256(concatBytes(Uint8Array.of(1), a, b)));
  });

  it('the empty tree is SHA-256 of the empty string; one leaf is its own root', () => {
    expect(hexEncode(new TlogMemory(sha256).root())).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(log.root(1)).toEqual(leaves[0]);
  });

  describe("Go's golang.org/x/mod/sumdb/tlog vectors", () => {
    it('the vector file says who made it', () => {
      expect(go.header.join(' ')).toMatch(/golang\.org\/x\/mod\/sumdb\/tlog.*0\.7\.0/);
    });

    it('leaf hashes and the root of every size 1..70 equal Go', () => {
      expect(hex(leaves)).toEqual(go.leaf_hashes);
      for (let size = 1; size <= go.leaf_count; size += 1) {
        expect(hexEncode(log.root(size)), `size ${size}`).toBe(go.roots[size - 1]);
      }
    });

    it('our inclusion proofs are byte-equal to ProveRecord, and Go proofs verify here', () => {
      expect(go.inclusion.length).toBeGreaterThan(100);
      for (const { index, size, hashes } of go.inclusion) {
        expect(hex(log.inclusionProof(index, size)), `${index} in ${size}`).toEqual(hashes);
        const root = hexDecode(go.roots[size - 1]!);
        expect(tlogVerifyInclusion(sha256, hexDecode(go.leaf_hashes[index]!), index, size, unhex(hashes), root)).toBe(
          true,
        );
      }
    });

    it('our consistency proofs are byte-equal to ProveTree, and Go proofs verify here', () => {
      expect(go.consistency.length).toBeGreaterThan(100);
      for (const { from, to, hashes } of go.consistency) {
        expect(hex(log.consistencyProof(from, to)), `${from} -> ${to}`).toEqual(hashes);
        const [fromRoot, toRoot] = [hexDecode(go.roots[from - 1]!), hexDecode(go.roots[to - 1]!)];
        expect(tlogVerifyConsistency(sha256, from, to, fromRoot, toRoot, unhex(hashes)), `${from} -> ${to}`).toBe(true);
      }
    });
  });

  it('roots equal MTH and the bottom-up levels with the odd node carried up, for every size to 70', () => {
    for (let size = 1; size <= go.leaf_count; size += 1) {
      const expected = mth(leaves.slice(0, size));
      expect(log.root(size)).toEqual(expected);
      expect(bottomUpRoot(leaves.slice(0, size))).toEqual(expected);
    }
  });

  it('every (index, size) with size <= 40: PATH equals RFC 9162 and round-trips; tampering fails', () => {
    for (let size = 1; size <= 40; size += 1) {
      const root = log.root(size);
      for (let index = 0; index < size; index += 1) {
        const proof = log.inclusionProof(index, size);
        expect(proof).toEqual(path(index, leaves.slice(0, size)));
        const leaf = leaves[index]!;
        expect(tlogVerifyInclusion(sha256, leaf, index, size, proof, root)).toBe(true);
        // Another leaf, index, size or root, a changed, dropped or added hash: all false.
        expect(tlogVerifyInclusion(sha256, leaves[(index + 1) % 70]!, index, size, proof, root)).toBe(false);
        if (size > 1) {
          expect(tlogVerifyInclusion(sha256, leaf, (index + 1) % size, size, proof, root)).toBe(false);
          expect(tlogVerifyInclusion(sha256, leaf, index, size, proof.slice(1), root)).toBe(false);
          expect(tlogVerifyInclusion(sha256, leaf, index, size, proof.slice(0, -1), root)).toBe(false);
        }
        expect(tlogVerifyInclusion(sha256, leaf, index, size + 1, proof, log.root(size + 1))).toBe(false);
        expect(tlogVerifyInclusion(sha256, leaf, index, size, proof, log.root(size + 1))).toBe(false);
        expect(tlogVerifyInclusion(sha256, leaf, index, size, [...proof, leaves[0]!], root)).toBe(false);
        for (let at = 0; at < proof.length; at += 1) {
          const tampered = proof.map((item) => item.slice());
          tampered[at]![at % 32]! ^= 0x01;
          expect(tlogVerifyInclusion(sha256, leaf, index, size, tampered, root)).toBe(false);
          const short = proof.map((item, i) => (i === at ? item.subarray(0, 31) : item));
          expect(tlogVerifyInclusion(sha256, leaf, index, size, short, root)).toBe(false);
        }
      }
    }
  });

  it('every (from, to) with to <= 40: PROOF equals RFC 9162 and round-trips; tampering fails', () => {
    for (let to = 1; to <= 40; to += 1) {
      const toRoot = log.root(to);
      for (let from = 0; from <= to; from += 1) {
        const fromRoot = log.root(from);
        const proof = log.consistencyProof(from, to);
        if (from > 0 && from < to) expect(proof).toEqual(subproof(from, leaves.slice(0, to), true));
        else expect(proof).toEqual([]);
        expect(tlogVerifyConsistency(sha256, from, to, fromRoot, toRoot, proof), `${from} -> ${to}`).toBe(true);
        if (from === 0) continue;
        // A root of another tree on either side, a changed size, a changed, dropped or added hash.
        const otherFrom = log.root(from === 1 ? 2 : from - 1);
        expect(tlogVerifyConsistency(sha256, from, to, otherFrom, toRoot, proof)).toBe(false);
        expect(tlogVerifyConsistency(sha256, from, to, fromRoot, log.root(to + 1), proof)).toBe(false);
        expect(tlogVerifyConsistency(sha256, from, to + 1, fromRoot, log.root(to + 1), proof)).toBe(false);
        if (from > 1)
          expect(tlogVerifyConsistency(sha256, from - 1, to, log.root(from - 1), toRoot, proof)).toBe(false);
        if (from === to) {
          expect(tlogVerifyConsistency(sha256, from, to, fromRoot, toRoot, [leaves[0]!])).toBe(false);
          continue;
        }
        expect(tlogVerifyConsistency(sha256, from, to, fromRoot, toRoot, [])).toBe(false);
        expect(tlogVerifyConsistency(sha256, from, to, fromRoot, toRoot, proof.slice(1))).toBe(false);
        expect(tlogVerifyConsistency(sha256, from, to, fromRoot, toRoot, proof.slice(0, -1))).toBe(false);
        expect(tlogVerifyConsistency(sha256, from, to, fromRoot, toRoot, [...proof, leaves[0]!])).toBe(false);
        for (let at = 0; at < proof.length; at += 1) {
          const tampered = proof.map((item) => item.slice());
          tampered[at]![at % 32]! ^= 0x80;
          expect(tlogVerifyConsistency(sha256, from, to, fromRoot, toRoot, tampered)).toBe(false);
          const long = proof.map((item, i) => (i === at ? concatBytes(item, Uint8Array.of(0)) : item));
          expect(tlogVerifyConsistency(sha256, from, to, fromRoot, toRoot, long)).toBe(false);
        }
      }
    }
  });

  it('a proof and root of one size claimed for a size with a longer path fail (the size is bound)', () => {
    // (A size whose path has the same length can accept it: RFC 9162 cannot tell a leaf hash from
    // a node hash, which is why a checkpoint binds size and root together.)
    for (let size = 1; size <= 20; size += 1) {
      for (const claimed of [2 * size + 1, 4 * size + 3]) {
        for (let index = 0; index < size; index += 1) {
          const proof = log.inclusionProof(index, size);
          expect(tlogVerifyInclusion(sha256, leaves[index]!, index, claimed, proof, log.root(size))).toBe(false);
        }
        for (let from = 1; from < size; from += 1) {
          const proof = log.consistencyProof(from, size);
          expect(tlogVerifyConsistency(sha256, from, claimed, log.root(from), log.root(size), proof)).toBe(false);
        }
      }
    }
  });

  it('from 0: the empty proof holds only with the empty tree root', () => {
    expect(tlogVerifyConsistency(sha256, 0, 5, log.root(0), log.root(5), [])).toBe(true);
    expect(tlogVerifyConsistency(sha256, 0, 5, log.root(1), log.root(5), [])).toBe(false);
    expect(tlogVerifyConsistency(sha256, 0, 5, log.root(0), log.root(5), [leaves[0]!])).toBe(false);
    expect(tlogVerifyConsistency(sha256, 0, 0, log.root(0), log.root(0), [])).toBe(true);
  });

  it('a store built by tlogCompletedNodes agrees with TlogMemory: nodes, roots, proofs, ranges', () => {
    const { node, stored } = storedLog(70);
    // Exactly the complete nodes: 2n - popcount(n) of them.
    const popcount = (n: number): number => n.toString(2).replace(/0/g, '').length;
    expect(stored.size).toBe(2 * 70 - popcount(70));
    for (const [key, hash] of stored) {
      const [level, index] = key.split('/').map(Number) as [number, number];
      expect(log.node(level, index)).toEqual(hash);
      expect(tlogRangeHash(sha256, index * 2 ** level, (index + 1) * 2 ** level, node)).toEqual(hash);
    }
    for (let size = 1; size <= 70; size += 1) {
      expect(tlogRoot(sha256, size, node)).toEqual(log.root(size));
      for (let index = 0; index < size; index += 7) {
        expect(tlogInclusionProof(sha256, index, size, node)).toEqual(log.inclusionProof(index, size));
      }
      for (let from = 0; from <= size; from += 5) {
        expect(tlogConsistencyProof(sha256, from, size, node)).toEqual(log.consistencyProof(from, size));
      }
    }
    // A right-edge range: [64, 70) of the tree of size 70 is MTH of those leaves.
    expect(tlogRangeHash(sha256, 64, 70, node)).toEqual(mth(leaves.slice(64, 70)));
  });

  it('an append completes the nodes bottom up, at most log2 of them', () => {
    const { node } = storedLog(63);
    const completed = tlogCompletedNodes(sha256, 63, leaves[63]!, node);
    expect(completed.map(({ level, index }) => [level, index])).toEqual([
      [1, 31],
      [2, 15],
      [3, 7],
      [4, 3],
      [5, 1],
      [6, 0],
    ]);
    expect(completed[5]!.hash).toEqual(log.root(64));
    expect(tlogCompletedNodes(sha256, 64, leaves[64]!, node)).toEqual([]);
  });

  it('costs counted in hash calls: an append at most log2(n) + 1, a root popcount(n) - 1', () => {
    let calls = 0;
    const counted = (data: Uint8Array): Uint8Array => {
      calls += 1;
      return sha256(data);
    };
    const anyNode: TlogNodeSource = (level, index) => sha256(utf8Encode(`${level}/${index}`));
    const leaf = sha256(utf8Encode('new leaf'));
    // Leaf 10,000,000 - 1 = 9,999,999 (binary ...0111 1111): it completes 7 nodes, one hash each.
    for (const [index, expected] of [
      [9_999_999, 7],
      [10_000_000, 0],
      [2 ** 24 - 1, 24],
      [2 ** 40 - 1, 40],
    ] as const) {
      calls = 0;
      expect(tlogCompletedNodes(counted, index, leaf, anyNode)).toHaveLength(expected);
      expect(calls).toBe(expected);
    }
    calls = 0;
    tlogRoot(counted, 10_000_000, anyNode);
    expect(calls).toBe((10_000_000).toString(2).replace(/0/g, '').length - 1);
  });

  it('random logs: every proof of a random log verifies (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.nat(), fc.nat(), (size, a, b) => {
        const small = new TlogMemory(sha256);
        const hashes = Array.from({ length: size }, (_, i) => sha256(utf8Encode(`random ${size} ${i}`)));
        for (const hash of hashes) small.append(hash);
        const index = a % size;
        const from = b % (size + 1);
        const root = small.root();
        expect(tlogVerifyInclusion(sha256, hashes[index]!, index, size, small.inclusionProof(index), root)).toBe(true);
        expect(tlogVerifyConsistency(sha256, from, size, small.root(from), root, small.consistencyProof(from))).toBe(
          true,
        );
        expect(root).toEqual(mth(hashes));
      }),
      { numRuns: 60 },
    );
  });

  it('large sizes use no 32-bit arithmetic: a proof in a tree of 2^40 + 3 leaves', () => {
    // A sparse but consistent log: every leaf is the same hash except a few, so that a node over
    // plain leaves is known per level and only the nodes above the special leaves are hashed.
    const special = new Set([2 ** 40 + 1, 2 ** 33 + 2, Number.MAX_SAFE_INTEGER - 1]);
    const plain: Uint8Array[] = [sha256(utf8Encode('plain'))];
    for (let level = 1; level <= 53; level += 1) plain.push(tlogNodeHash(sha256, plain[level - 1]!, plain[level - 1]!));
    const fake: TlogNodeSource = (level, index) => {
      const [first, end] = [index * 2 ** level, (index + 1) * 2 ** level];
      if (![...special].some((leaf) => leaf >= first && leaf < end)) return plain[level]!;
      if (level === 0) return sha256(utf8Encode(`special ${index}`));
      return tlogNodeHash(sha256, fake(level - 1, 2 * index), fake(level - 1, 2 * index + 1));
    };
    const size = 2 ** 40 + 3;
    const index = 2 ** 40 + 1;
    const proof = tlogInclusionProof(sha256, index, size, fake);
    const root = tlogRoot(sha256, size, fake);
    expect(tlogVerifyInclusion(sha256, fake(0, index), index, size, proof, root)).toBe(true);
    expect(tlogVerifyInclusion(sha256, fake(0, index - 1), index, size, proof, root)).toBe(false);
    const from = 2 ** 33 + 5;
    const consistency = tlogConsistencyProof(sha256, from, size, fake);
    expect(tlogVerifyConsistency(sha256, from, size, tlogRoot(sha256, from, fake), root, consistency)).toBe(true);
    const lastIndex = Number.MAX_SAFE_INTEGER - 1;
    const lastProof = tlogInclusionProof(sha256, lastIndex, Number.MAX_SAFE_INTEGER, fake);
    expect(lastProof).toHaveLength(52);
    const lastRoot = tlogRoot(sha256, Number.MAX_SAFE_INTEGER, fake);
    expect(
      tlogVerifyInclusion(sha256, fake(0, lastIndex), lastIndex, Number.MAX_SAFE_INTEGER, lastProof, lastRoot),
    ).toBe(true);
  });

  describe('arguments', () => {
    const leaf = leaves[0]!;
    const root = log.root(4);

    it('wrong types are TypeErrors', () => {
      expect(() => tlogLeafHash('sha' as never, leaf)).toThrow(TypeError);
      expect(() => tlogLeafHash(sha256, 'leaf' as never)).toThrow(TypeError);
      expect(() => tlogRoot(sha256, '4' as never, log.node)).toThrow(TypeError);
      expect(() => tlogRoot(sha256, 4, null as never)).toThrow(TypeError);
      expect(() => tlogVerifyInclusion(sha256, leaf, 0, 4, 'proof' as never, root)).toThrow(TypeError);
      expect(() => tlogVerifyInclusion(sha256, leaf, 0, 4, ['ab'] as never, root)).toThrow(TypeError);
      expect(() => tlogVerifyConsistency(sha256, 1, 4, leaf, root, [null] as never)).toThrow(TypeError);
      expect(() => new TlogMemory(undefined as never)).toThrow(TypeError);
      expect(() => tlogRoot(sha256, 4, () => 'x' as never)).toThrow(TypeError);
    });

    it('wrong ranges are RangeErrors that say what is wrong', () => {
      expect(() => tlogNodeHash(sha256, leaf, leaf.subarray(1))).toThrow(RangeError);
      expect(() => tlogInclusionProof(sha256, 4, 4, log.node)).toThrow(/index 4 is not below the size 4/);
      expect(() => tlogVerifyInclusion(sha256, leaf, 4, 4, [], root)).toThrow(RangeError);
      expect(() => tlogVerifyInclusion(sha256, leaf, -1, 4, [], root)).toThrow(RangeError);
      expect(() => tlogVerifyInclusion(sha256, leaf, 0.5, 4, [], root)).toThrow(RangeError);
      expect(() => tlogVerifyInclusion(sha256, leaf, 0, 4, [], root.subarray(1))).toThrow(RangeError);
      expect(() => tlogConsistencyProof(sha256, 5, 4, log.node)).toThrow(/from 5 is above to 4/);
      expect(() => tlogVerifyConsistency(sha256, 5, 4, root, root, [])).toThrow(RangeError);
      expect(() => tlogRangeHash(sha256, 3, 3, log.node)).toThrow(RangeError);
      expect(() => tlogRangeHash(sha256, 1, 3, log.node)).toThrow(/not a subtree/);
      expect(() => tlogRoot(sha256, 2 ** 53, log.node)).toThrow(RangeError);
      expect(() => log.root(71)).toThrow(/above the log's 70 leaves/);
      expect(() => log.inclusionProof(0, 71)).toThrow(RangeError);
      expect(() => log.consistencyProof(3, 71)).toThrow(RangeError);
      expect(() => log.node(7, 0)).toThrow(/not complete/);
      expect(() => log.append(leaf.subarray(1))).toThrow(RangeError);
      expect(() => tlogRoot(sha256, 4, () => new Uint8Array(31))).toThrow(/must be 32 bytes/);
      expect(() => tlogLeafHash(() => new Uint8Array(20), leaf)).toThrow(/not 32 bytes/);
      expect(() => tlogCompletedNodes(sha256, Number.MAX_SAFE_INTEGER, leaf, log.node)).toThrow(RangeError);
    });

    it('a missing node is the source error, and the log is unchanged', () => {
      const { node } = storedLog(5);
      expect(() => tlogRoot(sha256, 6, node)).toThrow(/no node/);
      const small = memoryLog(3).log;
      expect(() => small.append(new Uint8Array(3))).toThrow(RangeError);
      expect(small.size).toBe(3);
    });
  });
});

describe('TlogMemory: appendMany and proofs at its own size (the shared level builder)', () => {
  // A 32-byte hash that is not SHA-256: merkle.ts then calls it per node instead of batching.
  const sha3 = (data: Uint8Array): Uint8Array => sha3_256(data);
  /** Every complete node of a log, as hex, level by level. */
  function allNodes(log: TlogMemory): string[][] {
    const levels: string[][] = [];
    for (let level = 0, width = 1; width <= log.size; level += 1, width *= 2) {
      const row: string[] = [];
      for (let index = 0; index < Math.floor(log.size / width); index += 1) row.push(hexEncode(log.node(level, index)));
      levels.push(row);
    }
    return levels;
  }

  it('appending in chunks gives the nodes, roots and proofs of appending one by one (SHA-256 and another hash)', () => {
    for (const hash of [sha256, sha3]) {
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 8 }), (chunks) => {
          const one = new TlogMemory(hash);
          const many = new TlogMemory(hash);
          let next = 0;
          for (const chunk of chunks) {
            const leaves = Array.from({ length: chunk }, (_, offset) => tlogLeafHash(hash, leafData(next + offset)));
            expect(many.appendMany(leaves)).toBe(next);
            for (const leaf of leaves) one.append(leaf);
            next += chunk;
            expect(many.size).toBe(next);
            expect(allNodes(many)).toEqual(allNodes(one));
          }
          for (let size = 0; size <= next; size += 1)
            expect(hexEncode(many.root(size))).toBe(hexEncode(one.root(size)));
        }),
        { numRuns: 40 },
      );
    }
  });

  it('proofs at the log size equal tlogInclusionProof for every leaf of every size to 70, through appends', () => {
    const log = new TlogMemory(sha256);
    for (let size = 1; size <= 70; size += 1) {
      // Sizes grow by one append or by appendMany, so the right-edge cache must follow both.
      if (size % 3 === 0) log.appendMany([tlogLeafHash(sha256, leafData(size - 1))]);
      else log.append(tlogLeafHash(sha256, leafData(size - 1)));
      const root = log.root();
      for (let index = 0; index < size; index += 1) {
        const proof = log.inclusionProof(index);
        expect(hex(proof), `index ${index}, size ${size}`).toEqual(
          hex(tlogInclusionProof(sha256, index, size, log.node)),
        );
        expect(tlogVerifyInclusion(sha256, log.node(0, index), index, size, proof, root)).toBe(true);
      }
      // Proofs at an earlier size still come from the stored nodes.
      if (size > 1)
        expect(hex(log.inclusionProof(0, size - 1))).toEqual(hex(tlogInclusionProof(sha256, 0, size - 1, log.node)));
    }
    expect(() => log.inclusionProof(70)).toThrow(/not below the size 70/);
  });

  it('a large appendMany agrees with tlog.ts at its edges, and bad input changes nothing', () => {
    const leaves = Array.from({ length: 5003 }, (_, index) => tlogLeafHash(sha256, leafData(index)));
    const log = new TlogMemory(sha256);
    expect(log.appendMany(leaves.slice(0, 1))).toBe(0);
    expect(log.appendMany(leaves.slice(1))).toBe(1);
    const { node } = storedLog(5003);
    expect(hexEncode(log.root())).toBe(hexEncode(tlogRoot(sha256, 5003, node)));
    for (const index of [0, 1, 2047, 2048, 4095, 4096, 4999, 5000, 5002])
      expect(hex(log.inclusionProof(index))).toEqual(hex(tlogInclusionProof(sha256, index, 5003, node)));
    const copy = leaves[0] as Uint8Array;
    expect(log.appendMany([])).toBe(5003);
    expect(() => log.appendMany([copy, new Uint8Array(31)])).toThrow(/leafHashes\[1\] must be 32 bytes/);
    expect(() => log.appendMany('x' as unknown as Uint8Array[])).toThrow(TypeError);
    expect(() => log.appendMany([copy, 'x' as unknown as Uint8Array])).toThrow(TypeError);
    expect(log.size).toBe(5003);
    expect(hexEncode(log.root())).toBe(hexEncode(tlogRoot(sha256, 5003, node)));
  });
});
