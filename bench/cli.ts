/**
 * `npx tsx bench/cli.ts`: the `evroom` command as a user runs it, a real process per run.
 *
 * Rows:
 * - raw node:crypto Ed25519 verify on one core, in this process, over the same receipts'
 *   messages (best of short rounds taken between the process runs, so both see the same load);
 * - `evroom verify --json --jobs 1` and `evroom verify --json` (default: one worker per core)
 *   over COUNT classical receipt files: documents per second over the files, that is COUNT - 1
 *   documents in the time the run takes beyond a run over one file (the start-up has its own
 *   target), as a ratio of raw one-core Ed25519. The whole run's rate is printed beside it;
 * - start-up: `evroom verify one.json` and `evroom --help`, wall time, median of 5;
 * - the floors, printed under the table (medians over the rounds, as the raw row): per file what
 *   no verifier of files can skip (read it, parse it strictly, one raw Ed25519 verification with
 *   a ready key, one output line), on one core in this process and on one worker thread per core
 *   at once; and raw Ed25519 alone on those threads. A target above its floor cannot be met by
 *   any `evroom verify` on this host.
 *
 * Every run's output is checked: one JSON line per file, in the input order, each PASS.
 *
 * The CLI runs from its bundle (out/cli, made by `npm install`'s prepare step); the bench
 * rebuilds it first, so it measures the current sources the way a fresh install runs them.
 *
 * Options: --count N (files, default 4000), --rounds N (runs of each, best taken; default 3),
 * --quick (400 files, one round, two start-up runs: a check that it works, not a measurement),
 * --write-baseline, --check (exit 1 when a row is below its target).
 */
import { spawn } from 'node:child_process';
import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { hexDecode, utf8Encode } from '../src-shared/crypto';
import { signClassical } from '../src-shared/formats/classical';
import { parseJson, parseJsonBytes } from '../src-shared/json';
import { formatTable, median, readBaseline, writeBaseline, type Measurement } from './harness';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(ROOT, 'bin', 'evroom.mjs');
const BASELINE = fileURLToPath(new URL('./baselines/cli.json', import.meta.url));
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
/** Start-up target, seconds of wall time (median of 5). */
const STARTUP_TARGET_SECONDS = 0.35;

interface RawItem {
  message: Buffer;
  signature: Buffer;
  key: KeyObject;
}

interface Run {
  seconds: number;
  lines: string[];
}

/** Runs `node bin/evroom.mjs ...args` in `cwd`, timing it from spawn to exit. */
function runEvroom(args: readonly string[], cwd: string, home: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const stdout = Buffer.concat(out).toString('utf8');
      if (code !== 0) {
        reject(
          new Error(
            `evroom ${args.slice(0, 3).join(' ')} ... exited ${code}: ${Buffer.concat(err).toString('utf8').slice(0, 500)}`,
          ),
        );
        return;
      }
      resolve({ seconds, lines: stdout.split('\n').filter((line) => line.length > 0) });
    });
  });
}

/** Checks that a verify --json run answered every file, PASS, in input order. */
function checkOutput(run: Run, files: readonly string[]): void {
  if (run.lines.length !== files.length) throw new Error(`expected ${files.length} lines, got ${run.lines.length}`);
  run.lines.forEach((line, index) => {
    const report = JSON.parse(line) as { status?: string; input?: string };
    if (report.input !== files[index])
      throw new Error(`line ${index} is for ${report.input}, expected ${files[index]} (output out of order)`);
    if (report.status !== 'PASS') throw new Error(`${files[index]} is ${report.status}, expected PASS`);
  });
}

/** Raw one-core Ed25519 verifications per second over `items` (one pass). */
function rawRate(items: readonly RawItem[]): number {
  const started = process.hrtime.bigint();
  for (const item of items) {
    if (!cryptoVerify(null, item.message, item.key, item.signature)) throw new Error('raw verification failed');
  }
  return items.length / (Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * The floor of verifying files on one core: per file, what no verifier of files can skip, done
 * as cheaply as this process can: read it (open, fstat, read, close), parse it strictly (our
 * parser: PROTOCOL requires strict parsing), one raw Ed25519 verification with a ready key,
 * and one output line. What `evroom verify` adds beyond this is its own cost.
 */
function floorRate(items: readonly RawItem[], paths: readonly string[]): number {
  const started = process.hrtime.bigint();
  let written = 0;
  for (const [index, item] of items.entries()) {
    const tree = parseJsonBytes(readFileSync(paths[index]!));
    if (tree.type !== 'object') throw new Error('floor: not an object');
    if (!cryptoVerify(null, item.message, item.key, item.signature)) throw new Error('floor: verification failed');
    written += JSON.stringify({ input: paths[index], status: 'PASS' }).length;
  }
  if (written === 0) throw new Error('floor: nothing written');
  return items.length / (Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * The work of {@link rawRate} (`floor: false`) or of {@link floorRate} (`floor: true`) on
 * `threads` worker threads at once, each over its share of the items: the sum of their rates.
 * The floor threads parse with our strict parser, bundled for them with esbuild.
 */
const THREAD_CODE = `
const { workerData, parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { createPublicKey, verify } = require('node:crypto');
const parser = { exports: {} };
new Function('module', 'exports', 'require', workerData.parser)(parser, parser.exports, require);
const { parseJsonBytes } = parser.exports;
const keys = workerData.keys.map((der) => createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' }));
const items = workerData.items.map((item) => ({ message: Buffer.from(item.message), signature: Buffer.from(item.signature), key: keys[item.key], path: item.path }));
parentPort.once('message', () => {
  const started = process.hrtime.bigint();
  let written = 0;
  for (const item of items) {
    if (workerData.floor) {
      const tree = parseJsonBytes(readFileSync(item.path));
      if (tree.type !== 'object') throw new Error('floor: not an object');
    }
    if (!verify(null, item.message, item.key, item.signature)) throw new Error('raw verification failed');
    if (workerData.floor) written += JSON.stringify({ input: item.path, status: 'PASS' }).length;
  }
  parentPort.postMessage(items.length / (Number(process.hrtime.bigint() - started) / 1e9));
});
`;

let parserBundle: string | undefined;

function strictParserBundle(): string {
  if (parserBundle === undefined) {
    const esbuild = createRequire(import.meta.url)('esbuild') as {
      buildSync(options: object): { outputFiles: { text: string }[] };
    };
    parserBundle = esbuild.buildSync({
      stdin: { contents: "export { parseJsonBytes } from './src-shared/json';", resolveDir: ROOT, loader: 'ts' },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      logLevel: 'silent',
    }).outputFiles[0]!.text;
  }
  return parserBundle;
}

async function threadsRate(
  items: readonly RawItem[],
  paths: readonly string[],
  threads: number,
  floor: boolean,
): Promise<number> {
  const keyObjects = [...new Set(items.map((item) => item.key))];
  const keys = keyObjects.map((key) => new Uint8Array(key.export({ format: 'der', type: 'spki' })));
  const share = Math.ceil(items.length / threads);
  const workers = Array.from({ length: threads }, (_, thread) => {
    const mine = items.slice(thread * share, (thread + 1) * share).map((item, index) => ({
      message: new Uint8Array(item.message),
      signature: new Uint8Array(item.signature),
      key: keyObjects.indexOf(item.key),
      path: paths[thread * share + index],
    }));
    return new Worker(THREAD_CODE, {
      eval: true,
      workerData: { keys, items: mine, floor, parser: floor ? strictParserBundle() : '' },
    });
  });
  try {
    await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('online', resolve))));
    const rates = workers.map(
      (worker) =>
        new Promise<number>((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    );
    for (const worker of workers) worker.postMessage('go');
    return (await Promise.all(rates)).reduce((sum, rate) => sum + rate, 0);
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

export interface CliBenchOptions {
  count: number;
  rounds: number;
  startupRuns: number;
}

export interface CliBenchResult {
  rows: Measurement[];
  /** Start-up wall times, seconds (medians). */
  startup: { verifyOne: number; help: number };
  /** Whole-run rates (start-up included), documents per second. */
  whole: Record<string, number>;
  /** The floors measured in the same run (see floorRate), documents per second. */
  floor: { oneCore: number; rawThreads: number; floorThreads: number; threads: number };
}

/** Makes the receipts, runs every row and returns them. Throws when any run is wrong. */
export async function runCliBench(options: CliBenchOptions): Promise<CliBenchResult> {
  const crypto = createNodeCryptoProvider();
  const directory = mkdtempSync(join(tmpdir(), 'bench-cli-'));
  const home = join(directory, 'home');
  mkdirSync(home);
  try {
    const seeds = Array.from({ length: 8 }, (_, index) => new Uint8Array(32).fill(index + 1));
    const keys = new Map<number, KeyObject>();
    const files: string[] = [];
    const raw: RawItem[] = [];
    for (let index = 0; index < options.count; index += 1) {
      const seedIndex = index % seeds.length;
      const payload = `{"sequence":${index},"merchant":"Acme Analytics Ltd","amount":"12.50","currency":"EUR","issued_at":"2026-11-01T12:00:00.000Z","items":[{"sku":"inference-${index}","qty":1,"unit_price":12.50}],"purpose":"model inference receipt"}`;
      const text = signClassical(payload, seeds[seedIndex]!, crypto);
      const name = `r${index}.json`;
      writeFileSync(join(directory, name), text);
      files.push(name);
      const document = parseJson(text) as { raw_payload: string; signature: string; public_key_hex: string };
      if (!keys.has(seedIndex)) {
        keys.set(
          seedIndex,
          createPublicKey({
            key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(hexDecode(document.public_key_hex))]),
            format: 'der',
            type: 'spki',
          }),
        );
      }
      raw.push({
        message: Buffer.from(utf8Encode(document.raw_payload)),
        signature: Buffer.from(hexDecode(document.signature)),
        key: keys.get(seedIndex)!,
      });
    }

    const verify = ['verify', '--json', '--no-trust-store'];
    // Start-up: one file, and --help.
    const verifyOneTimes: number[] = [];
    const helpTimes: number[] = [];
    for (let run = 0; run < options.startupRuns; run += 1) {
      const one = await runEvroom([...verify, files[0]!], directory, home);
      checkOutput(one, files.slice(0, 1));
      verifyOneTimes.push(one.seconds);
      helpTimes.push((await runEvroom(['--help'], directory, home)).seconds);
    }
    const startupOne = median(verifyOneTimes);

    const variants = [
      { name: 'evroom verify --json --jobs 1', args: ['--jobs', '1'], target: 0.8 },
      { name: `evroom verify --json (default: ${availableParallelism()} workers)`, args: [] as string[], target: 1.4 },
    ];
    const raws: number[] = [];
    const floors: number[] = [];
    const rawThreads: number[] = [];
    const floorThreads: number[] = [];
    const threads = availableParallelism();
    const paths = files.map((name) => join(directory, name));
    const best = new Map<string, number>();
    for (let round = 0; round < options.rounds; round += 1) {
      floors.push(floorRate(raw, paths));
      rawThreads.push(await threadsRate(raw, paths, threads, false));
      floorThreads.push(await threadsRate(raw, paths, threads, true));
      for (const variant of variants) {
        raws.push(rawRate(raw));
        const run = await runEvroom([...verify, ...variant.args, ...files], directory, home);
        checkOutput(run, files);
        best.set(variant.name, Math.min(best.get(variant.name) ?? Number.POSITIVE_INFINITY, run.seconds));
      }
    }
    raws.push(rawRate(raw));
    const rawOne = median(raws);
    const rows: Measurement[] = [{ name: 'raw node:crypto Ed25519 verify (one core)', rate: rawOne }];
    const whole: Record<string, number> = {};
    for (const variant of variants) {
      const seconds = best.get(variant.name)!;
      // Documents per second over the files: the run beyond the start-up of a one-file run.
      const rate = (files.length - 1) / Math.max(seconds - startupOne, 1e-3);
      rows.push({ name: variant.name, rate, rawOf: 'raw Ed25519', ratio: rate / rawOne, target: variant.target });
      whole[variant.name] = files.length / seconds;
    }
    // Medians, as for the raw row: the floors are compared with it.
    const floor = {
      oneCore: median(floors),
      rawThreads: median(rawThreads),
      floorThreads: median(floorThreads),
      threads,
    };
    return { rows, startup: { verifyOne: startupOne, help: median(helpTimes) }, whole, floor };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string' },
      rounds: { type: 'string' },
      quick: { type: 'boolean' },
      'write-baseline': { type: 'boolean' },
      check: { type: 'boolean' },
    },
  });
  const quick = values.quick === true;
  const count = Number(values.count ?? (quick ? 400 : 4000));
  const rounds = Number(values.rounds ?? (quick ? 1 : 3));
  if (!Number.isSafeInteger(count) || count < 2) throw new Error('--count must be a whole number of at least 2');
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number of at least 1');
  // The bundle a fresh install makes, from the sources as they are.
  const { buildCli } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build-cli.mjs')).href)) as {
    buildCli(): Promise<number>;
  };
  await buildCli();
  // The ratios move with the host's load (the default row needs both cores free): say what it was.
  const loadBefore = loadavg()[0]!;
  const result = await runCliBench({ count, rounds, startupRuns: quick ? 2 : 5 });
  const loadAfter = loadavg()[0]!;
  const baseline = readBaseline(BASELINE);
  console.log(
    formatTable(
      `evroom verify over ${count} classical receipt files (rate over the files, start-up excluded)`,
      result.rows,
      baseline,
    ),
  );
  console.log('');
  for (const [name, rate] of Object.entries(result.whole)) {
    console.log(
      `whole run, start-up included: ${name}: ${Math.round(rate).toLocaleString('en-US')}/s = ${(rate / result.rows[0]!.rate).toFixed(2)} of raw`,
    );
  }
  // The floors: what the targets ask of the parts no verifier of files can skip.
  const rawOne = result.rows[0]!.rate;
  const { oneCore, rawThreads, floorThreads, threads } = result.floor;
  console.log('');
  console.log(
    `floor, one core (read + strict parse + raw Ed25519 + one output line per file, in this process): ${Math.round(oneCore).toLocaleString('en-US')}/s = ${(oneCore / rawOne).toFixed(2)} of raw (target for --jobs 1: 0.80${oneCore / rawOne < 0.8 ? ', beyond the floor' : ''})`,
  );
  console.log(
    `the same floor on ${threads} threads at once: ${Math.round(floorThreads).toLocaleString('en-US')}/s = ${(floorThreads / rawOne).toFixed(2)} of raw one-core (target for the default: 1.40${floorThreads / rawOne < 1.4 ? ', beyond the floor' : ''}); raw Ed25519 alone on ${threads} threads: ${(rawThreads / rawOne).toFixed(2)}`,
  );
  const verdict = (seconds: number): string => (seconds <= STARTUP_TARGET_SECONDS ? 'ok' : 'ABOVE');
  console.log(
    `load average (1 min) before and after the run: ${loadBefore.toFixed(1)}, ${loadAfter.toFixed(1)} on ${availableParallelism()} cores`,
  );
  console.log(
    `start-up (median of ${quick ? 2 : 5}): evroom verify one.json ${result.startup.verifyOne.toFixed(3)} s, evroom --help ${result.startup.help.toFixed(3)} s (target <= ${STARTUP_TARGET_SECONDS} s: ${verdict(result.startup.verifyOne)}, ${verdict(result.startup.help)})`,
  );
  if (values['write-baseline'] === true) {
    writeBaseline(BASELINE, [
      ...result.rows,
      { name: 'start-up: evroom verify one.json (ms)', rate: result.startup.verifyOne * 1000 },
      { name: 'start-up: evroom --help (ms)', rate: result.startup.help * 1000 },
    ]);
    console.log(`baseline written to ${BASELINE}`);
  }
  if (values.check === true) {
    const below = result.rows.filter(
      (row) => row.target !== undefined && row.ratio !== undefined && row.ratio < row.target,
    );
    const slow = result.startup.verifyOne > STARTUP_TARGET_SECONDS || result.startup.help > STARTUP_TARGET_SECONDS;
    if (below.length > 0 || slow) process.exitCode = 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    console.error(`bench/cli: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
