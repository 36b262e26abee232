/**
 * bench/anchor.ts: the anchor Merkle tree (PROTOCOL section 8) of a large batch, on one core.
 *
 * Rows, all on the main thread with Node's SHA-256 (`crypto.hash`) as the HashFunction:
 * - raw: SHA-256 of the tree's 2n - 1 node inputs (n leaves of 33 bytes, n - 1 parents of 65),
 *   one after another: the floor any builder stands on;
 * - build + every proof: `anchorTreeLevels` (sorting, every leaf and parent) and then the path of
 *   every digest as `Uint8Array[]` (what anchorTree gives); target under 2 s for 1,000,000;
 * - verify every proof: `anchorFold` of each digest's path (what a counterparty runs), compared
 *   with the root; its ratio is against raw SHA-256 of as many hashes as the folds make.
 *
 * Every proof is checked to fold to the root (a bench that gets a wrong answer fails, exit 1).
 * With --reference the old builder (`anchorTree`) is timed too and its root and paths compared.
 *
 * Options: --count N (default 1,000,000), --rounds N (best of; default 3), --quick (20,000
 * digests, one round, with --reference: a few seconds, for CI), --reference, --json (one JSON
 * line), --write-baseline (record bench/baselines/anchor.json), --check (exit 1 when build +
 * proofs is over 2 s).
 */
import { hash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { anchorFold, anchorTree, anchorTreeLevels, type HashFunction } from '../src-shared/crypto/merkle';
import { readBaseline, writeBaseline, type Measurement } from './harness';

const BASELINE = fileURLToPath(new URL('./baselines/anchor.json', import.meta.url));
/** Target of the issue: root plus every proof for 1,000,000 digests. */
const TARGET_SECONDS = 2;

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}
const quick = process.argv.includes('--quick');
const count = Number(argument('count') ?? (quick ? 20_000 : 1_000_000));
const rounds = Number(argument('rounds') ?? (quick ? 1 : 3));
const reference = quick || process.argv.includes('--reference');
const json = process.argv.includes('--json');
if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(rounds) || rounds < 1) {
  console.error('bench/anchor.ts: --count and --rounds must be positive integers');
  process.exit(2);
}

const sha256: HashFunction = (data) => hash('sha256', data, 'buffer');

function seconds(work: () => void): number {
  const start = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function best(work: () => void): number {
  let fastest = Infinity;
  for (let round = 0; round < rounds; round += 1) fastest = Math.min(fastest, seconds(work));
  return fastest;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}

const pool = randomBytes(count * 32);
const digests = Array.from({ length: count }, (_, index) => pool.subarray(index * 32, index * 32 + 32));

/** SHA-256 of `hashes` inputs shaped like tree nodes (33-byte leaves, 65-byte parents). */
function rawHashes(hashes: number, leaves: number): void {
  const input = new Uint8Array(65);
  const leafInput = input.subarray(0, 33);
  for (let index = 0; index < hashes; index += 1) {
    input[1] = index & 0xff;
    sha256(index < leaves ? leafInput : input);
  }
}

const nodes = 2 * count - 1;
const rawSeconds = best(() => rawHashes(nodes, count));

let tree = anchorTreeLevels(sha256, digests);
let pathElements = 0;
const buildSeconds = best(() => {
  tree = anchorTreeLevels(sha256, digests);
  pathElements = 0;
  for (let index = 0; index < count; index += 1) pathElements += tree.path(index).length;
});

let mismatches = 0;
const foldSeconds = best(() => {
  mismatches = 0;
  for (let index = 0; index < count; index += 1) {
    if (!equal(anchorFold(sha256, digests[index] as Uint8Array, tree.path(index)), tree.root)) mismatches += 1;
  }
});
// A fold hashes the leaf and one parent per path element.
const foldHashes = count + pathElements;
const rawFoldSeconds = best(() => rawHashes(foldHashes, count));

let referenceSeconds: number | undefined;
let referenceAgrees: boolean | undefined;
if (reference) {
  let old = anchorTree(sha256, digests);
  referenceSeconds = best(() => {
    old = anchorTree(sha256, digests);
  });
  referenceAgrees =
    equal(old.root, tree.root) &&
    digests.every((_, index) => {
      const a = old.paths[index] as Uint8Array[];
      const b = tree.path(index);
      return a.length === b.length && a.every((sibling, step) => equal(sibling, b[step] as Uint8Array));
    });
}

const rows: Measurement[] = [
  { name: 'raw SHA-256 of the tree nodes (2n-1)', rate: nodes / rawSeconds },
  {
    name: 'anchorTreeLevels: root + every proof',
    rate: nodes / buildSeconds,
    rawOf: 'raw SHA-256 of the tree nodes (2n-1)',
    ratio: rawSeconds / buildSeconds,
  },
  { name: 'raw SHA-256 of the fold hashes', rate: foldHashes / rawFoldSeconds },
  {
    name: 'anchorFold: verify every proof',
    rate: foldHashes / foldSeconds,
    rawOf: 'raw SHA-256 of the fold hashes',
    ratio: rawFoldSeconds / foldSeconds,
  },
];
if (referenceSeconds !== undefined) {
  rows.push({
    name: 'anchorTree (reference): root + every proof',
    rate: nodes / referenceSeconds,
    rawOf: 'raw SHA-256 of the tree nodes (2n-1)',
    ratio: rawSeconds / referenceSeconds,
  });
}

const correct = mismatches === 0 && referenceAgrees !== false;
const result = {
  count,
  rounds,
  depth: tree.levels.length - 1,
  seconds: {
    raw_nodes: rawSeconds,
    build_and_proofs: buildSeconds,
    fold_all: foldSeconds,
    raw_fold: rawFoldSeconds,
    reference: referenceSeconds ?? null,
  },
  ratios: { build_and_proofs: rawSeconds / buildSeconds, fold_all: rawFoldSeconds / foldSeconds },
  target_seconds: TARGET_SECONDS,
  mismatches,
  reference_agrees: referenceAgrees ?? null,
  correct,
};

if (json) {
  console.log(JSON.stringify(result));
} else {
  const baseline = readBaseline(BASELINE);
  const lines = [
    `Anchor tree of ${count.toLocaleString('en-US')} random 32-byte digests (depth ${result.depth}), main thread, node ${process.version}, best of ${rounds}`,
    '',
    ...rows.map((row) => {
      const base = baseline?.rows[row.name]?.ratio;
      const ratio = row.ratio === undefined ? '(raw)' : `${row.ratio.toFixed(2)} of raw`;
      return `${row.name.padEnd(44)} ${Math.round(row.rate).toLocaleString('en-US').padStart(12)} hashes/s  ${ratio.padEnd(12)}${base === undefined ? '' : `  baseline ${base.toFixed(2)}`}`;
    }),
    '',
    `root + every proof: ${buildSeconds.toFixed(3)} s (target < ${TARGET_SECONDS} s for 1,000,000${count === 1_000_000 ? (buildSeconds < TARGET_SECONDS ? ': met' : ': MISSED') : '; this run has another count'})`,
    `verify every proof: ${foldSeconds.toFixed(3)} s; ${mismatches === 0 ? 'every proof folds to the root' : `${mismatches} proofs do NOT fold to the root`}`,
    ...(referenceSeconds === undefined
      ? []
      : [
          `reference anchorTree: ${referenceSeconds.toFixed(3)} s; same root and paths: ${referenceAgrees ? 'yes' : 'NO'}`,
        ]),
  ];
  console.log(lines.join('\n'));
}
if (process.argv.includes('--write-baseline') && correct) writeBaseline(BASELINE, rows);
if (!correct) process.exitCode = 1;
if (process.argv.includes('--check') && count === 1_000_000 && buildSeconds >= TARGET_SECONDS) process.exitCode = 1;
