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
 * - start-up: `evroom verify one.json` and `evroom --help`, wall time, median of 5.
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
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { hexDecode, utf8Encode } from '../src-shared/crypto';
import { signClassical } from '../src-shared/formats/classical';
import { parseJson } from '../src-shared/json';
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
        reject(new Error(`evroom ${args.slice(0, 3).join(' ')} ... exited ${code}: ${Buffer.concat(err).toString('utf8').slice(0, 500)}`));
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
    if (report.input !== files[index]) throw new Error(`line ${index} is for ${report.input}, expected ${files[index]} (output out of order)`);
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
        keys.set(seedIndex, createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(hexDecode(document.public_key_hex))]), format: 'der', type: 'spki' }));
      }
      raw.push({ message: Buffer.from(utf8Encode(document.raw_payload)), signature: Buffer.from(hexDecode(document.signature)), key: keys.get(seedIndex)! });
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
    const best = new Map<string, number>();
    for (let round = 0; round < options.rounds; round += 1) {
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
    return { rows, startup: { verifyOne: startupOne, help: median(helpTimes) }, whole };
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
  const { buildCli } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build-cli.mjs')).href)) as { buildCli(): Promise<number> };
  await buildCli();
  // The ratios move with the host's load (the default row needs both cores free): say what it was.
  const loadBefore = loadavg()[0]!;
  const result = await runCliBench({ count, rounds, startupRuns: quick ? 2 : 5 });
  const loadAfter = loadavg()[0]!;
  const baseline = readBaseline(BASELINE);
  console.log(formatTable(`evroom verify over ${count} classical receipt files (rate over the files, start-up excluded)`, result.rows, baseline));
  console.log('');
  for (const [name, rate] of Object.entries(result.whole)) {
    console.log(`whole run, start-up included: ${name}: ${Math.round(rate).toLocaleString('en-US')}/s = ${(rate / result.rows[0]!.rate).toFixed(2)} of raw`);
  }
  const verdict = (seconds: number): string => (seconds <= STARTUP_TARGET_SECONDS ? 'ok' : 'ABOVE');
  console.log(`load average (1 min) before and after the run: ${loadBefore.toFixed(1)}, ${loadAfter.toFixed(1)} on ${availableParallelism()} cores`);
  console.log(`start-up (median of ${quick ? 2 : 5}): evroom verify one.json ${result.startup.verifyOne.toFixed(3)} s, evroom --help ${result.startup.help.toFixed(3)} s (target <= ${STARTUP_TARGET_SECONDS} s: ${verdict(result.startup.verifyOne)}, ${verdict(result.startup.help)})`);
  if (values['write-baseline'] === true) {
    writeBaseline(BASELINE, [
      ...result.rows,
      { name: 'start-up: evroom verify one.json (ms)', rate: result.startup.verifyOne * 1000 },
      { name: 'start-up: evroom --help (ms)', rate: result.startup.help * 1000 },
    ]);
    console.log(`baseline written to ${BASELINE}`);
  }
  if (values.check === true) {
    const below = result.rows.filter((row) => row.target !== undefined && row.ratio !== undefined && row.ratio < row.target);
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
