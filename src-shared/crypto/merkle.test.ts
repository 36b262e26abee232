import { sha256 } from '@noble/hashes/sha2.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { concatBytes, equalBytes, hexEncode } from './encoding';
import { anchorFold, anchorTree, anchorTreeLevels, merkleLevels, merkleParents } from './merkle';

describe('anchor tree (PROTOCOL section 8)', () => {
  const digest = (byte: number): Uint8Array => new Uint8Array(32).fill(byte);
  const leaf = (d: Uint8Array): Uint8Array => sha256(concatBytes(Uint8Array.of(0), d));
  const parent = (a: Uint8Array, b: Uint8Array): Uint8Array =>
    Buffer.compare(Buffer.from(a), Buffer.from(b)) <= 0
      ? sha256(concatBytes(Uint8Array.of(1), a, b))
      : sha256(concatBytes(Uint8Array.of(1), b, a));

  it('one digest: its leaf hash is the root and the path is empty', () => {
    const { root, paths } = anchorTree(sha256, [digest(7)]);
    expect(root).toEqual(leaf(digest(7)));
    expect(paths).toEqual([[]]);
    expect(anchorFold(sha256, digest(7), [])).toEqual(root);
  });

  it('three digests: sorted, paired with sorted children, the odd one carried up', () => {
    const [a, b, c] = [digest(1), digest(2), digest(3)];
    const expectedRoot = parent(parent(leaf(a), leaf(b)), leaf(c));
    // Given out of order: the tree is the same, and paths follow the caller's order.
    const { root, paths } = anchorTree(sha256, [c, a, b]);
    expect(root).toEqual(expectedRoot);
    expect(paths).toEqual([[parent(leaf(a), leaf(b))], [leaf(b), leaf(c)], [leaf(a), leaf(c)]]);
  });

  it('every path folds to the root; a changed digest or path element does not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 1, maxLength: 70 }),
        fc.nat(),
        (digests, tamperSeed) => {
          const { root, paths } = anchorTree(sha256, digests);
          expect(paths).toHaveLength(digests.length);
          const depth = Math.ceil(Math.log2(digests.length));
          digests.forEach((d, index) => {
            const path = paths[index] as Uint8Array[];
            expect(path.length).toBeLessThanOrEqual(depth);
            expect(anchorFold(sha256, d, path)).toEqual(root);
            const changed = d.slice();
            changed[tamperSeed % 32] = (changed[tamperSeed % 32] ?? 0) ^ 0x80;
            expect(equalBytes(anchorFold(sha256, changed, path), root)).toBe(false);
            if (path.length > 0) {
              const tampered = path.map((sibling) => sibling.slice());
              const victim = tampered[tamperSeed % tampered.length] as Uint8Array;
              victim[tamperSeed % 32] = (victim[tamperSeed % 32] ?? 0) ^ 1;
              expect(equalBytes(anchorFold(sha256, d, tampered), root)).toBe(false);
              expect(equalBytes(anchorFold(sha256, d, path.slice(1)), root)).toBe(false);
            }
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the root does not depend on the order the digests arrive in', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 1, maxLength: 20 }),
        (digests) => {
          expect(anchorTree(sha256, [...digests].reverse()).root).toEqual(anchorTree(sha256, digests).root);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses an empty batch and digests or path elements that are not 32 bytes', () => {
    expect(() => anchorTree(sha256, [])).toThrow(/at least one digest/);
    expect(() => anchorTree(sha256, [new Uint8Array(31)])).toThrow(/digests\[0\] must be 32 bytes/);
    expect(() => anchorTree(sha256, 'digests' as unknown as Uint8Array[])).toThrow(TypeError);
    expect(() => anchorFold(sha256, new Uint8Array(33), [])).toThrow(RangeError);
    expect(() => anchorFold(sha256, digest(1), [new Uint8Array(16)])).toThrow(/path\[0\] must be 32 bytes/);
    expect(() => anchorFold('sha256' as unknown as (data: Uint8Array) => Uint8Array, digest(1), [])).toThrow(TypeError);
  });
});

describe('anchorTreeLevels: the fast builder gives the tree of anchorTree', () => {
  /** Both builders over the same digests: same root, same path for every digest, by bytes. */
  function expectSameTree(digests: Uint8Array[]): void {
    const reference = anchorTree(sha256, digests);
    const fast = anchorTreeLevels(sha256, digests);
    expect(fast.size).toBe(digests.length);
    expect(hexEncode(fast.root)).toBe(hexEncode(reference.root));
    const buffer = new Uint8Array(64 * 32 + 5);
    digests.forEach((_, index) => {
      const expected = (reference.paths[index] as Uint8Array[]).map(hexEncode);
      expect(fast.path(index).map(hexEncode)).toEqual(expected);
      const written = fast.writePath(index, buffer, 5);
      expect(written).toBe(expected.length);
      expect(hexEncode(buffer.subarray(5, 5 + 32 * written))).toBe(expected.join(''));
    });
  }

  it('sizes 1, 2, 3, 4, 5 and every size up to 40, odd and even', () => {
    for (let size = 1; size <= 40; size += 1) {
      expectSameTree(Array.from({ length: size }, (_, index) => sha256(Uint8Array.of(size, index))));
    }
  });

  it('random batches of random sizes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 1, maxLength: 300 }),
        (digests) => expectSameTree(digests),
      ),
      { numRuns: 60 },
    );
  });

  it('digests that share their first bytes, and repeated digests, sort as anchorTree sorts them', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.uint8Array({ minLength: 28, maxLength: 28 })), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.nat(),
        (items, repeatSeed) => {
          // Only four distinct 4-byte prefixes: most digests tie on the radix key.
          const digests = items.map(([prefix, rest]) => concatBytes(Uint8Array.of(0xab, 0xcd, 0xef, prefix), rest));
          digests.push(digests[repeatSeed % digests.length] as Uint8Array);
          expectSameTree(digests);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a larger batch (5,001 digests) agrees too, and every proof folds to the root', () => {
    const digests = Array.from({ length: 5001 }, (_, index) => sha256(new TextEncoder().encode(`digest ${index}`)));
    expectSameTree(digests);
    const fast = anchorTreeLevels(sha256, digests);
    expect(fast.levels).toHaveLength(14);
    expect(equalBytes(anchorFold(sha256, digests[4321] as Uint8Array, fast.path(4321)), fast.root)).toBe(true);
  });

  it('refuses what anchorTree refuses, a bad index, a small target and a hash of the wrong length', () => {
    expect(() => anchorTreeLevels(sha256, [])).toThrow(/at least one digest/);
    expect(() => anchorTreeLevels(sha256, [new Uint8Array(31)])).toThrow(/digests\[0\] must be 32 bytes/);
    expect(() =>
      anchorTreeLevels('sha256' as unknown as (data: Uint8Array) => Uint8Array, [new Uint8Array(32)]),
    ).toThrow(TypeError);
    const tree = anchorTreeLevels(sha256, [new Uint8Array(32), new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)]);
    expect(() => tree.path(3)).toThrow(/not below the 3 digests/);
    expect(() => tree.path(-1)).toThrow(RangeError);
    expect(() => tree.writePath(0, new Uint8Array(40))).toThrow(/too small/);
    expect(() => anchorTreeLevels(() => new Uint8Array(20), [new Uint8Array(32)])).toThrow(/returned 20 bytes/);
  });
});

describe('merkleLevels: the level builder of both trees', () => {
  /** RFC 9162 section 2.1.1's MTH, recursively, over the leaf hashes. */
  function mth(hash: (data: Uint8Array) => Uint8Array, leaves: Uint8Array[]): Uint8Array {
    if (leaves.length === 1) return leaves[0] as Uint8Array;
    let k = 1;
    while (k * 2 < leaves.length) k *= 2;
    return hash(concatBytes(Uint8Array.of(1), mth(hash, leaves.slice(0, k)), mth(hash, leaves.slice(k))));
  }
  /** RFC 9162 section 2.1.3.1's PATH(m, D[n]), from the leaf upwards. */
  function path(hash: (data: Uint8Array) => Uint8Array, m: number, leaves: Uint8Array[]): Uint8Array[] {
    if (leaves.length === 1) return [];
    let k = 1;
    while (k * 2 < leaves.length) k *= 2;
    return m < k
      ? [...path(hash, m, leaves.slice(0, k)), mth(hash, leaves.slice(k))]
      : [...path(hash, m - k, leaves.slice(k)), mth(hash, leaves.slice(0, k))];
  }
  const leafHashes = (size: number): Uint8Array[] =>
    Array.from({ length: size }, (_, index) => sha256(concatBytes(Uint8Array.of(0), Uint8Array.of(size, index))));
  // A 32-byte hash that is not SHA-256: the builder must call it for every node.
  const sha3 = (data: Uint8Array): Uint8Array => sha3_256(data);

  it("'ordered' is RFC 9162's tree: MTH root and PATH of every leaf, every size up to 70, with SHA-256 and another hash", () => {
    for (const hash of [sha256, sha3]) {
      for (let size = 1; size <= 70; size += 1) {
        const leaves = leafHashes(size);
        const tree = merkleLevels(hash, concatBytes(...leaves), 'ordered');
        expect(tree.size).toBe(size);
        expect(hexEncode(tree.root)).toBe(hexEncode(mth(hash, leaves)));
        const buffer = new Uint8Array(32 * 8);
        leaves.forEach((_, index) => {
          const expected = path(hash, index, leaves).map(hexEncode);
          expect(tree.path(index).map(hexEncode), `size ${size}, leaf ${index}`).toEqual(expected);
          expect(tree.writePath(index, buffer)).toBe(expected.length);
          expect(hexEncode(buffer.subarray(0, 32 * expected.length))).toBe(expected.join(''));
        });
      }
    }
  });

  it("'sorted' over the leaf hashes is the anchor tree, with SHA-256 and with another hash", () => {
    for (const hash of [sha256, sha3]) {
      const digests = Array.from({ length: 77 }, (_, index) => sha256(Uint8Array.of(index, 7)));
      const reference = anchorTree(hash, digests);
      const sortedLeaves = [...digests]
        .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
        .map((digest) => hash(concatBytes(Uint8Array.of(0), digest)));
      expect(hexEncode(merkleLevels(hash, concatBytes(...sortedLeaves), 'sorted').root)).toBe(
        hexEncode(reference.root),
      );
      const fast = anchorTreeLevels(hash, digests);
      expect(hexEncode(fast.root)).toBe(hexEncode(reference.root));
      digests.forEach((_, index) =>
        expect(fast.path(index).map(hexEncode)).toEqual((reference.paths[index] as Uint8Array[]).map(hexEncode)),
      );
    }
  });

  it('copies its input, and refuses bad arguments', () => {
    const leaves = concatBytes(...leafHashes(5));
    const tree = merkleLevels(sha256, leaves, 'ordered');
    const root = hexEncode(tree.root);
    leaves.fill(0);
    expect(hexEncode(tree.root)).toBe(root);
    expect(() => merkleLevels(sha256, new Uint8Array(0), 'ordered')).toThrow(/positive multiple of 32 bytes/);
    expect(() => merkleLevels(sha256, new Uint8Array(33), 'ordered')).toThrow(/positive multiple of 32 bytes, got 33/);
    expect(() => merkleLevels(sha256, new Uint8Array(32), 'up' as 'sorted')).toThrow(TypeError);
    expect(() => merkleLevels(sha256, [] as unknown as Uint8Array, 'ordered')).toThrow(TypeError);
    expect(() => merkleLevels(() => new Uint8Array(31), new Uint8Array(64), 'ordered')).toThrow(/returned 31 bytes/);
    expect(() => tree.path(5)).toThrow(/not below the 5 leaves/);
  });

  it('merkleParents hashes each pair in the given order and leaves an odd last node out', () => {
    for (const hash of [sha256, sha3]) {
      const nodes = leafHashes(7);
      const parents = merkleParents(hash, concatBytes(...nodes), 'ordered');
      const sortedParents = merkleParents(hash, concatBytes(...nodes), 'sorted');
      expect(parents.length).toBe(3 * 32);
      for (let pair = 0; pair < 3; pair += 1) {
        const [a, b] = [nodes[2 * pair] as Uint8Array, nodes[2 * pair + 1] as Uint8Array];
        const [low, high] = Buffer.compare(Buffer.from(a), Buffer.from(b)) <= 0 ? [a, b] : [b, a];
        expect(hexEncode(parents.subarray(32 * pair, 32 * pair + 32))).toBe(
          hexEncode(hash(concatBytes(Uint8Array.of(1), a, b))),
        );
        expect(hexEncode(sortedParents.subarray(32 * pair, 32 * pair + 32))).toBe(
          hexEncode(hash(concatBytes(Uint8Array.of(1), low, high))),
        );
      }
    }
    expect(merkleParents(sha256, new Uint8Array(32), 'ordered').length).toBe(0);
    expect(() => merkleParents(sha256, new Uint8Array(40), 'ordered')).toThrow(/multiple of 32 bytes, got 40/);
    expect(() => merkleParents(sha256, new Uint8Array(64), 'down' as 'sorted')).toThrow(TypeError);
  });
});
