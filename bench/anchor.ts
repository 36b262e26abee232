/**
 * bench/anchor.ts: the Merkle trees of PROTOCOL section 8 (anchor) and RFC 9162 (the tenants'
 * logs) over a large batch, on one core.
 *
 * Rows, all on the main thread, with Node's SHA-256 (`crypto.hash`) as the HashFunction:
 * - raw: SHA-256 of the tree's 2n - 1 node inputs (n leaves of 33 bytes, n - 1 parents of 65),
 *   one `crypto.hash` call after another: what a builder calling the provider per node stands on;
 * - sha256-batch: the same 2n - 1 hashes by src-shared/crypto/sha256-batch.ts, which the
 *   builders use when their hash function is SHA-256 (no call per hash);
 * - build + every proof: `anchorTreeLevels` (sorting, every leaf and parent) and then the path of
 *   every digest as `Uint8Array[]` (what anchorTree gives); target under 2 s for 1,000,000;
 * - verify every proof: `anchorFold` of each digest's path (what a counterparty runs), compared
 *   with the root; its ratio is against raw SHA-256 of as many hashes as the folds make;
 * - log: n leaf hashes appended at once to a `TlogMemory` (`appendMany`, whose levels are hashed
 *   by merkle.ts's level step), its root and every inclusion proof at its size (its raw row: the
 *   n - 1 node hashes of 65 bytes);
 * - log append: appending leaves to a log of 10,000,000 (`--log-size`) with `tlogLeafHash` and
 *   `tlogCompletedNodes` over a node store that keeps only the nodes an append reads (the
 *   newest complete node of each level), mean and worst time of each append; its raw row is
 *   the same number of `crypto.hash` calls of the same sizes. Target under 1 ms each.
 *
 * Every anchor proof is checked to fold to the root and every log proof is compared with
 * tlog.ts's own inclusion proofs (all of them with --quick, 2,000 spread over the tree
 * otherwise, each also verified); the compact store's appends are checked against TlogMemory
 * on a small log. A bench that gets a wrong answer fails (exit 1). With --reference the old
 * builder (`anchorTree`) is timed too and its root and paths compared.
 *
 * Options: --count N (default 1,000,000), --rounds N (best of; default 3), --quick (20,000
 * digests, one round, with --reference: a few seconds, for CI), --reference, --log-size N
 * (default 10,000,000), --appends N (default 100,000; 20,000 with --quick), --no-fold (skip the
 * anchorFold rows, about a minute a round at 1,000,000), --json (one JSON line),
 * --write-baseline (record bench/baselines/anchor.json), --check (exit 1 when build + proofs is
 * over 2 s, or an append's mean over 1 ms).
 */
import { hash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { anchorFold, anchorTree, anchorTreeLevels, merkleLevels, type HashFunction } from '../src-shared/crypto/merkle';
import { sha256PairWords, sha256Prefix32Words } from '../src-shared/crypto/sha256-batch';
import {
  TlogMemory,
  tlogCompletedNodes,
  tlogInclusionProof,
  tlogLeafHash,
  tlogRoot,
  tlogVerifyInclusion,
  type TlogNodeSource,
} from '../src-shared/crypto/tlog';
import { readBaseline, writeBaseline, type Measurement } from './harness';

const BASELINE = fileURLToPath(new URL('./baselines/anchor.json', import.meta.url));
/** Target of the issue: root plus every proof for 1,000,000 digests. */
const TARGET_SECONDS = 2;
/** Target of the issue: an append to a log of 10,000,000 leaves. */
const TARGET_APPEND_MS = 1;

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}
const quick = process.argv.includes('--quick');
const count = Number(argument('count') ?? (quick ? 20_000 : 1_000_000));
const rounds = Number(argument('rounds') ?? (quick ? 1 : 3));
const reference = quick || process.argv.includes('--reference');
const json = process.argv.includes('--json');
const logSize = Number(argument('log-size') ?? 10_000_000);
const appends = Number(argument('appends') ?? (quick ? 20_000 : 100_000));
if (
  ![count, rounds, logSize, appends].every((value) => Number.isSafeInteger(value) && value >= 1) ||
  logSize + appends > 2 ** 52
) {
  console.error('bench/anchor.ts: --count, --rounds, --log-size and --appends must be positive integers');
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

// The batch SHA-256 alone over the same shapes: n leaves, then n - 1 parents in pairs.
const batchWords = new Int32Array(8 * count);
for (let index = 0; index < batchWords.length; index += 1) batchWords[index] = pool.readInt32BE(4 * index);
const batchSeconds = best(() => {
  const leaves = new Int32Array(8 * count);
  sha256Prefix32Words(0x00, batchWords, count, leaves);
  for (let level = leaves, size = count; size > 1; size = Math.ceil(size / 2)) {
    const parents = new Int32Array(8 * Math.ceil(size / 2));
    sha256PairWords(0x01, level, Math.floor(size / 2), parents);
    if (size % 2 === 1) parents.set(level.subarray(8 * (size - 1)), 8 * (Math.ceil(size / 2) - 1));
    level = parents;
  }
});

let tree = anchorTreeLevels(sha256, digests);
let pathElements = 0;
const buildSeconds = best(() => {
  tree = anchorTreeLevels(sha256, digests);
  pathElements = 0;
  for (let index = 0; index < count; index += 1) pathElements += tree.path(index).length;
});

// anchorFold calls crypto.hash for every step (about a minute for 1,000,000 proofs): one round.
let mismatches = 0;
const foldSeconds = seconds(() => {
  mismatches = 0;
  for (let index = 0; index < count; index += 1) {
    if (!equal(anchorFold(sha256, digests[index] as Uint8Array, tree.path(index)), tree.root)) mismatches += 1;
  }
});
// A fold hashes the leaf and one parent per path element.
const foldHashes = count + pathElements;
const rawFoldSeconds = seconds(() => rawHashes(foldHashes, count));

// The log: n leaf hashes (here the random digests stand for SHA-256(0x00 || receipt)) appended
// to a TlogMemory at once (appendMany: the new nodes of each level hashed by merkle.ts's level
// step), its root and every inclusion proof at its size.
const logNodes = count - 1;
const rawLogSeconds = best(() => rawHashes(logNodes, 0));
let log = new TlogMemory(sha256);
let logRootHash: Uint8Array = new Uint8Array(32);
let logPathElements = 0;
const logSeconds = best(() => {
  log = new TlogMemory(sha256);
  log.appendMany(digests);
  logRootHash = log.root();
  logPathElements = 0;
  for (let index = 0; index < count; index += 1) logPathElements += log.inclusionProof(index).length;
});

// Checked against the level builder and against tlog.ts's proofs over the stored nodes.
let logMismatches = 0;
const logChecked = quick ? count : Math.min(count, 2000);
{
  const levels = merkleLevels(sha256, pool, 'ordered');
  if (!equal(tlogRoot(sha256, count, log.node), logRootHash) || !equal(levels.root, logRootHash)) logMismatches += 1;
  for (let step = 0; step < logChecked; step += 1) {
    const index = Math.floor((step * (count - 1)) / Math.max(1, logChecked - 1));
    const proof = log.inclusionProof(index);
    const expected = tlogInclusionProof(sha256, index, count, log.node);
    const built = levels.path(index);
    const same =
      proof.length === expected.length &&
      proof.length === built.length &&
      proof.every((item, at) => equal(item, expected[at] as Uint8Array) && equal(item, built[at] as Uint8Array));
    const leaf = pool.subarray(32 * index, 32 * index + 32);
    if (!same || !tlogVerifyInclusion(sha256, leaf, index, count, proof, logRootHash)) logMismatches += 1;
  }
}
// Its two million nodes are let go before the appends are timed, so that the collector does
// not walk them in the middle of an append (a service's heap holds no such log).
log = new TlogMemory(sha256);

/**
 * A node store that keeps only what an append reads: the newest complete node of each level
 * (tlogCompletedNodes reads the left sibling of each node it completes, which is that node).
 */
class FrontierStore {
  readonly hashes: (Uint8Array | undefined)[] = [];
  readonly indexes: number[] = [];
  readonly node: TlogNodeSource = (level, index) => {
    const hash = this.hashes[level];
    if (hash === undefined || this.indexes[level] !== index) throw new RangeError(`node (${level}, ${index}) not kept`);
    return hash;
  };
  put(level: number, index: number, hash: Uint8Array): void {
    this.hashes[level] = hash;
    this.indexes[level] = index;
  }
  /** Appends leaf `index` and returns how many hashes it took. */
  append(index: number, leaf: Uint8Array): number {
    const leafHash = tlogLeafHash(sha256, leaf);
    const completed = tlogCompletedNodes(sha256, index, leafHash, this.node);
    this.put(0, index, leafHash);
    for (const item of completed) this.put(item.level, item.index, item.hash);
    return 1 + completed.length;
  }
}

/** A receipt-sized leaf (JCS of a standard receipt is about 600 bytes); its first bytes vary. */
const leafBytes = randomBytes(600);

// The compact store appends as TlogMemory does: checked on a small log, root by root.
let appendMismatches = 0;
{
  const memory = new TlogMemory(sha256);
  const store = new FrontierStore();
  for (let index = 0; index < 1500; index += 1) {
    leafBytes.writeUInt32BE(index, 0);
    memory.append(tlogLeafHash(sha256, leafBytes));
    store.append(index, leafBytes);
    if (!equal(tlogRoot(sha256, index + 1, store.node), memory.root())) appendMismatches += 1;
  }
}

// A log of logSize leaves: its frontier (the newest complete node of each level) is all an
// append reads, so it is filled with random hashes instead of hashing logSize leaves first.
// Then `appends` leaves are appended, each timed.
function frontierOf(size: number): FrontierStore {
  const store = new FrontierStore();
  for (let level = 0; 2 ** level <= size; level += 1)
    store.put(level, Math.floor(size / 2 ** level) - 1, new Uint8Array(randomBytes(32)));
  return store;
}
// Warm-up: the first appends run before V8 has compiled the path (not what a service does).
{
  const store = frontierOf(logSize);
  for (let step = 0; step < 5000; step += 1) store.append(logSize + step, leafBytes);
}
let appendTimes = new Float64Array(appends);
let appendMade = new Uint8Array(appends);
let appendHashes = 0;
let maxHashesPerAppend = 0;
let bestMeanMs = Infinity;
for (let round = 0; round < rounds; round += 1) {
  const store = frontierOf(logSize);
  const times = new Float64Array(appends);
  const made = new Uint8Array(appends);
  let hashes = 0;
  for (let step = 0; step < appends; step += 1) {
    leafBytes.writeUInt32BE(step, 0);
    const start = process.hrtime.bigint();
    made[step] = store.append(logSize + step, leafBytes);
    times[step] = Number(process.hrtime.bigint() - start) / 1e6;
    hashes += made[step] as number;
  }
  const mean = times.reduce((sum, value) => sum + value, 0) / appends;
  if (mean < bestMeanMs) {
    bestMeanMs = mean;
    appendTimes = times;
    appendMade = made;
    appendHashes = hashes;
    maxHashesPerAppend = Math.max(...made);
  }
}
const sortedTimes = Float64Array.from(appendTimes).sort();
const appendWorstMs = sortedTimes[sortedTimes.length - 1] as number;
const percentile = (fraction: number): number =>
  sortedTimes[Math.min(sortedTimes.length - 1, Math.floor(sortedTimes.length * fraction))] as number;
const appendP99Ms = percentile(0.99);
const appendP999Ms = percentile(0.999);
const appendsOverTarget = sortedTimes.filter((value) => value >= TARGET_APPEND_MS).length;
// The hashes the slowest append made: a slow append with few hashes was the host or a GC.
const worstHashes = appendMade[appendTimes.indexOf(appendWorstMs)] as number;
// The slowest of the appends that complete the most nodes (at most log2 n + 1 hashes each).
let deepestWorstMs = 0;
appendMade.forEach((made, step) => {
  if (made === maxHashesPerAppend) deepestWorstMs = Math.max(deepestWorstMs, appendTimes[step] as number);
});
// Raw for the appends: as many crypto.hash calls, one per leaf (1 + 600 bytes) and 65-byte nodes.
const rawAppendSeconds = best(() => {
  const leafInput = new Uint8Array(601);
  const nodeInput = new Uint8Array(65);
  for (let index = 0; index < appends; index += 1) {
    leafInput[1] = index & 0xff;
    sha256(leafInput);
  }
  for (let index = 0; index < appendHashes - appends; index += 1) {
    nodeInput[1] = index & 0xff;
    sha256(nodeInput);
  }
});
const appendSeconds = (bestMeanMs * appends) / 1000;

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

const RAW_NODES = 'raw SHA-256 of the tree nodes (2n-1)';
const RAW_LOG = 'raw SHA-256 of the log nodes (n-1)';
const RAW_APPENDS = "raw SHA-256 of the appends' hashes";
const rows: Measurement[] = [
  { name: RAW_NODES, rate: nodes / rawSeconds },
  {
    name: 'sha256-batch: the tree nodes (2n-1)',
    rate: nodes / batchSeconds,
    rawOf: RAW_NODES,
    ratio: rawSeconds / batchSeconds,
  },
  {
    name: 'anchorTreeLevels: root + every proof',
    rate: nodes / buildSeconds,
    rawOf: RAW_NODES,
    ratio: rawSeconds / buildSeconds,
  },
  { name: 'raw SHA-256 of the fold hashes', rate: foldHashes / rawFoldSeconds },
  {
    name: 'anchorFold: verify every proof',
    rate: foldHashes / foldSeconds,
    rawOf: 'raw SHA-256 of the fold hashes',
    ratio: rawFoldSeconds / foldSeconds,
  },
  { name: RAW_LOG, rate: logNodes / rawLogSeconds },
  {
    name: 'TlogMemory: appendMany + root + every proof',
    rate: logNodes / logSeconds,
    rawOf: RAW_LOG,
    ratio: rawLogSeconds / logSeconds,
  },
  { name: RAW_APPENDS, rate: appendHashes / rawAppendSeconds },
  {
    name: 'log append (leaf hash + completed nodes)',
    rate: appendHashes / appendSeconds,
    rawOf: RAW_APPENDS,
    ratio: rawAppendSeconds / appendSeconds,
  },
];
if (referenceSeconds !== undefined) {
  rows.push({
    name: 'anchorTree (reference): root + every proof',
    rate: nodes / referenceSeconds,
    rawOf: RAW_NODES,
    ratio: rawSeconds / referenceSeconds,
  });
}

const correct = mismatches === 0 && logMismatches === 0 && appendMismatches === 0 && referenceAgrees !== false;
const result = {
  count,
  rounds,
  depth: tree.levels.length - 1,
  seconds: {
    raw_nodes: rawSeconds,
    batch_nodes: batchSeconds,
    build_and_proofs: buildSeconds,
    fold_all: foldSeconds,
    raw_fold: rawFoldSeconds,
    raw_log_nodes: rawLogSeconds,
    log_root_and_proofs: logSeconds,
    raw_appends: rawAppendSeconds,
    appends: appendSeconds,
    reference: referenceSeconds ?? null,
  },
  ratios: {
    batch_nodes: rawSeconds / batchSeconds,
    build_and_proofs: rawSeconds / buildSeconds,
    fold_all: rawFoldSeconds / foldSeconds,
    log_root_and_proofs: rawLogSeconds / logSeconds,
    appends: rawAppendSeconds / appendSeconds,
  },
  append: {
    log_size: logSize,
    appends,
    mean_ms: bestMeanMs,
    p99_ms: appendP99Ms,
    p999_ms: appendP999Ms,
    worst_ms: appendWorstMs,
    worst_hashes: worstHashes,
    over_target: appendsOverTarget,
    deepest_worst_ms: deepestWorstMs,
    hashes_per_append: appendHashes / appends,
    max_hashes_per_append: maxHashesPerAppend,
  },
  target_seconds: TARGET_SECONDS,
  target_append_ms: TARGET_APPEND_MS,
  mismatches,
  log_mismatches: logMismatches,
  log_proofs_checked: logChecked,
  log_path_elements: logPathElements,
  append_mismatches: appendMismatches,
  reference_agrees: referenceAgrees ?? null,
  correct,
};

if (json) {
  console.log(JSON.stringify(result));
} else {
  const baseline = readBaseline(BASELINE);
  const lines = [
    `Anchor tree and log of ${count.toLocaleString('en-US')} random 32-byte digests (depth ${result.depth}), main thread, node ${process.version}, best of ${rounds} (anchorFold rows: one round)`,
    '',
    ...rows.map((row) => {
      const base = baseline?.rows[row.name]?.ratio;
      const ratio = row.ratio === undefined ? '(raw)' : `${row.ratio.toFixed(2)} of raw`;
      return `${row.name.padEnd(46)} ${Math.round(row.rate).toLocaleString('en-US').padStart(12)} hashes/s  ${ratio.padEnd(13)}${base === undefined ? '' : `  baseline ${base.toFixed(2)}`}`;
    }),
    '',
    `root + every proof: ${buildSeconds.toFixed(3)} s (target < ${TARGET_SECONDS} s for 1,000,000${count === 1_000_000 ? (buildSeconds < TARGET_SECONDS ? ': met' : ': MISSED') : '; this run has another count'}); raw SHA-256 of its nodes ${rawSeconds.toFixed(3)} s, sha256-batch ${batchSeconds.toFixed(3)} s`,
    `verify every proof: ${foldSeconds.toFixed(3)} s; ${mismatches === 0 ? 'every proof folds to the root' : `${mismatches} proofs do NOT fold to the root`}`,
    `log (TlogMemory) append of all + root + every inclusion proof: ${logSeconds.toFixed(3)} s (raw SHA-256 of its ${logNodes.toLocaleString('en-US')} nodes ${rawLogSeconds.toFixed(3)} s); ${logMismatches === 0 ? `root and ${logChecked.toLocaleString('en-US')} proofs equal tlog.ts's and verify` : `${logMismatches} of the root and ${logChecked} proofs do NOT agree with tlog.ts`}`,
    `append to a log of ${logSize.toLocaleString('en-US')}: mean ${(bestMeanMs * 1000).toFixed(1)} us, p99 ${(appendP99Ms * 1000).toFixed(1)} us, p99.9 ${(appendP999Ms * 1000).toFixed(1)} us, worst ${(appendWorstMs * 1000).toFixed(1)} us (an append of ${worstHashes} hashes) of ${appends.toLocaleString('en-US')} appends, ${appendsOverTarget} at or over ${TARGET_APPEND_MS} ms; ${(appendHashes / appends).toFixed(2)} hashes each, at most ${maxHashesPerAppend} (slowest of those ${(deepestWorstMs * 1000).toFixed(1)} us); target < ${TARGET_APPEND_MS} ms${appendWorstMs < TARGET_APPEND_MS ? ': met' : bestMeanMs < TARGET_APPEND_MS ? ': mean met, worst over' : ': MISSED'}; ${appendMismatches === 0 ? 'compact store agrees with TlogMemory' : `compact store DISAGREES with TlogMemory ${appendMismatches} times`}`,
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
if (
  process.argv.includes('--check') &&
  ((count === 1_000_000 && buildSeconds >= TARGET_SECONDS) || bestMeanMs >= TARGET_APPEND_MS)
)
  process.exitCode = 1;
