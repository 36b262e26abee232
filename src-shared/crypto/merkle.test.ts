import { sha256 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { concatBytes, equalBytes, hexDecode, hexEncode } from './encoding';
import {
  anchorFold,
  anchorTree,
  anchorTreeLevels,
  rfc9162InclusionPath,
  rfc9162LeafHash,
  rfc9162NodeHash,
  rfc9162Root,
  rfc9162RootFromInclusionPath,
} from './merkle';
import { createPortableProvider } from './portable-provider';

const blake3 = createPortableProvider().blake3;

/**
 * RFC 6962 / RFC 9162 reference data with SHA-256 from github.com/transparency-dev/merkle,
 * testonly/constants.go (commit 582a6ad190b6848f1d26f8bf08ddef29955d9db1): eight leaf inputs,
 * the root of every tree size 0..8, and the complete subtree hashes level by level.
 */
const LEAF_INPUTS = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map(hexDecode);
const ROOTS_BY_SIZE = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
const NODE_HASHES = [
  [
    '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
    '0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7',
    '07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7',
    'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    '4271a26be0d8a84f0bd54c8c302e7cb3a3b5d1fa6780a40bcce2873477dab658',
    'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
    '46f6ffadd3d06a09ff3c5860d2755c8b9819db7df44251788c7d8e3180de8eb1',
  ],
  [
    'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
    '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
    '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
    'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
  ],
  [
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
  ],
];
const node = (level: number, index: number): string => NODE_HASHES[level]?.[index] ?? 'missing';

describe('RFC 9162 tree (SHA-256 reference data)', () => {
  it('computes the published root of every tree size 0..8', () => {
    ROOTS_BY_SIZE.forEach((root, size) => {
      expect(hexEncode(rfc9162Root(sha256, LEAF_INPUTS.slice(0, size)))).toBe(root);
    });
  });

  it('computes the published leaf and node hashes', () => {
    LEAF_INPUTS.forEach((leaf, index) => expect(hexEncode(rfc9162LeafHash(sha256, leaf))).toBe(node(0, index)));
    expect(hexEncode(rfc9162NodeHash(sha256, hexDecode(node(0, 2)), hexDecode(node(0, 3))))).toBe(node(1, 1));
  });

  it('builds paths made of the published subtree hashes', () => {
    expect(rfc9162InclusionPath(sha256, LEAF_INPUTS, 0).map(hexEncode)).toEqual([node(0, 1), node(1, 1), node(2, 1)]);
    expect(rfc9162InclusionPath(sha256, LEAF_INPUTS, 5).map(hexEncode)).toEqual([node(0, 4), node(1, 3), node(2, 0)]);
    // Size 7, leaf 6: the right edge. Its first sibling is the 4..5 subtree (leaf 6 has none).
    expect(rfc9162InclusionPath(sha256, LEAF_INPUTS.slice(0, 7), 6).map(hexEncode)).toEqual([node(1, 2), node(2, 0)]);
    expect(rfc9162InclusionPath(sha256, LEAF_INPUTS.slice(0, 1), 0)).toEqual([]);
  });

  it('folds every path of every size 1..8 back to the published root', () => {
    for (let size = 1; size <= 8; size++) {
      const leaves = LEAF_INPUTS.slice(0, size);
      for (let index = 0; index < size; index++) {
        const path = rfc9162InclusionPath(sha256, leaves, index);
        const root = rfc9162RootFromInclusionPath(
          sha256,
          rfc9162LeafHash(sha256, leaves[index] as Uint8Array),
          index,
          size,
          path,
        );
        expect(hexEncode(root)).toBe(ROOTS_BY_SIZE[size]);
      }
    }
  });

  it('throws RangeError for an index outside the tree or a path of the wrong length', () => {
    const leaves = LEAF_INPUTS.slice(0, 5);
    const leafHash = rfc9162LeafHash(sha256, leaves[2] as Uint8Array);
    const path = rfc9162InclusionPath(sha256, leaves, 2);
    expect(() => rfc9162RootFromInclusionPath(sha256, leafHash, 5, 5, path)).toThrow(/not below treeSize/);
    expect(() => rfc9162RootFromInclusionPath(sha256, leafHash, 0, 0, [])).toThrow(RangeError);
    expect(() => rfc9162RootFromInclusionPath(sha256, leafHash, 2, 5, path.slice(1))).toThrow(/too few/);
    expect(() => rfc9162RootFromInclusionPath(sha256, leafHash, 2, 5, [...path, leafHash])).toThrow(/too many/);
    expect(() => rfc9162RootFromInclusionPath(sha256, leafHash, -1, 5, path)).toThrow(RangeError);
    expect(() => rfc9162RootFromInclusionPath(sha256, leafHash, 1.5, 5, path)).toThrow(RangeError);
    expect(() => rfc9162RootFromInclusionPath(sha256, leafHash, 2, 5, [new Uint8Array(31), ...path.slice(1)])).toThrow(
      /must be 32 bytes/,
    );
    expect(() => rfc9162RootFromInclusionPath(sha256, leafHash, '2' as unknown as number, 5, path)).toThrow(TypeError);
    expect(() => rfc9162InclusionPath(sha256, leaves, 5)).toThrow(RangeError);
  });

  it('with BLAKE3 (countersigner trees): paths fold to the root; a change breaks the fold', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 1, maxLength: 40 }),
        fc.nat(),
        fc.nat(),
        (leaves, indexSeed, tamperSeed) => {
          const index = indexSeed % leaves.length;
          const root = rfc9162Root(blake3, leaves);
          const path = rfc9162InclusionPath(blake3, leaves, index);
          const leafHash = rfc9162LeafHash(blake3, leaves[index] as Uint8Array);
          expect(rfc9162RootFromInclusionPath(blake3, leafHash, index, leaves.length, path)).toEqual(root);
          // A different entry at the same place does not fold to the root.
          const otherLeaf = rfc9162LeafHash(blake3, concatBytes(leaves[index] as Uint8Array, Uint8Array.of(1)));
          expect(equalBytes(rfc9162RootFromInclusionPath(blake3, otherLeaf, index, leaves.length, path), root)).toBe(
            false,
          );
          if (path.length > 0) {
            const tampered = path.map((sibling) => sibling.slice());
            const victim = tampered[tamperSeed % tampered.length] as Uint8Array;
            victim[tamperSeed % 32] = (victim[tamperSeed % 32] ?? 0) ^ 1;
            expect(
              equalBytes(rfc9162RootFromInclusionPath(blake3, leafHash, index, leaves.length, tampered), root),
            ).toBe(false);
          }
        },
      ),
    );
  });
});

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
