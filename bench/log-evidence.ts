/**
 * A served tenant's complete evidence at scale (issue 28).
 *
 *   npx tsx bench/log-evidence.ts                   # a log of 100,000 receipts
 *   npx tsx bench/log-evidence.ts --count 1000000
 *   npx tsx bench/log-evidence.ts --write-baseline  # update bench/baselines/log-evidence.json
 *   npx tsx bench/log-evidence.ts --quick           # 3,000 receipts: a check that it runs
 *   npx tsx bench/log-evidence.ts --home DIR --no-append  # reuse (or keep) a data folder
 *
 * Fills a real SQLite ledger (a service's data folder) with one tenant whose log holds `--count`
 * receipts issued 86.4 s apart (1,000 a day), through the ledger's own functions (insertReceipts,
 * appendTlogLeaves; not the HTTP route, to fill quickly). Then, each in a child process of its
 * own so its peak RSS is its own, for the whole log and for one day in the middle:
 * - `log part`: readLogEvidence (the period's edges, every leaf's inclusion proof, the
 *   boundaries) and proofs.json's bytes, as the export writes them;
 * - `export`: the whole evidence bundle through exportTenantEvidence, the operations function
 *   `GET /tenants/:id/evidence` and `evroom export --tenant` use (checkpoint signed, receipts,
 *   proofs.json, keys, manifest, zip).
 * Then the append where the service pays it: receipts stored in group commits of 16, with and
 * without each one's append to the tenant's log (CPU µs per receipt).
 * Beside them, in the same run: raw SHA-256 of 65-byte node inputs (hashes/s), the primitive
 * a log is made of; the log part's rate is also given as leaves/s per raw hash/s.
 *
 * Targets: none binding; the product's promise is "a million receipts checked on a laptop", so
 * the whole log's part should stay a few seconds per 100,000 leaves and its peak well under
 * 500 MB. The machine is shared: times are of the run, not of an idle host.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { readLogEvidence } from '../src-main/evidence/log-evidence';
import {
  appendTlogLeaves,
  insertReceipts,
  insertTenant,
  ledgerFileIn,
  openLedger,
  type NewReceipt,
} from '../src-main/ledger/index';
import { exportTenantEvidence } from '../src-main/operations/evidence';
import { openWorkspace } from '../src-main/operations/workspace';
import { tlogLeafHash } from '../src-shared/crypto/tlog';
import { readBaseline, writeBaseline, type Measurement } from './harness';

const BASELINE = fileURLToPath(new URL('./baselines/log-evidence.json', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const TENANT = 'bench-tenant';
const START = Date.UTC(2026, 0, 1);
const STEP_MS = 86_400;
const DAY_MS = 86_400_000;

function peakRssMb(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match !== null) return Number(match[1]) / 1024;
  } catch {
    // Not Linux: fall back to getrusage.
  }
  return process.resourceUsage().maxRSS / 1024;
}

function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest());
}

function receipt(index: number): NewReceipt {
  const issued = START + index * STEP_MS;
  const document = {
    receipt_id: `rcp_bench_${String(index).padStart(9, '0')}`,
    issued_at: new Date(issued).toISOString(),
    tenant: TENANT,
    subject: { kind: 'bench', n: index },
  };
  const raw = new TextEncoder().encode(JSON.stringify(document));
  return {
    receipt_sha256: createHash('sha256').update(raw).digest('hex'),
    raw,
    report: {
      report_version: '1',
      format: 'profile/standard',
      status: 'PASS',
      trust: { status: 'trusted', key_id: 'did:svc:bench:k1' },
      checks: [{ id: 'signature', status: 'pass' }],
      errors: [],
      notes: [],
    },
    receipt_id: document.receipt_id,
    issued_at: issued,
    source: { kind: 'service', ref: `tenant:${TENANT}` },
  };
}

function buildLedger(home: string, count: number): void {
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const ledger = openLedger(ledgerFileIn(home));
  try {
    ledger.runInTransaction((database) => insertTenant(database, { id: TENANT, tier: 'scale', at: START }));
    for (let start = 0; start < count; start += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, count - start) }, (_, offset) => receipt(start + offset));
      ledger.runInTransaction((database) => {
        const rows = insertReceipts(database, batch);
        appendTlogLeaves(
          database,
          sha256,
          TENANT,
          rows.map((row, position) => ({
            receipt: row.id,
            leaf_hash: tlogLeafHash(sha256, (batch[position] as NewReceipt).raw),
          })),
        );
      });
    }
  } finally {
    ledger.close();
  }
}

/**
 * The append's cost where the service pays it: receipts stored in group commits of 16 (one
 * insertReceipts call per commit, as the service's group commit does on SQLite,
 * src-main/ledger/store/sqlite-issuance.ts), with and without each one's leaf hash and append
 * to a tenant log of `count` leaves. CPU microseconds per receipt (this thread's user + system
 * time: what the service's HTTP thread pays; the disk's flushes are waited, not spent), the best
 * of 5 rounds, the two kinds taken in turn.
 */
function appendCost(home: string, count: number, receipts: number): { withLog: number; without: number } {
  const ledger = openLedger(ledgerFileIn(home));
  try {
    let next = count + 10_000_000 + (Date.now() % 1_000_000) * 1_000;
    const commits = Math.ceil(receipts / 16);
    const run = (log: boolean): number => {
      const started = process.cpuUsage();
      for (let commit = 0; commit < commits; commit += 1) {
        const batch = Array.from({ length: 16 }, () => receipt(next++));
        ledger.runInTransaction((database) => {
          const rows = insertReceipts(database, batch);
          if (!log) return;
          for (const [position, row] of rows.entries()) {
            const leaf = tlogLeafHash(sha256, (batch[position] as NewReceipt).raw);
            appendTlogLeaves(database, sha256, TENANT, [{ receipt: row.id, leaf_hash: leaf }]);
          }
        });
      }
      const used = process.cpuUsage(started);
      return (used.user + used.system) / (commits * 16);
    };
    let withLog = Number.POSITIVE_INFINITY;
    let without = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 5; round += 1) {
      without = Math.min(without, run(false));
      withLog = Math.min(withLog, run(true));
    }
    return { withLog, without };
  } finally {
    ledger.close();
  }
}

interface Case {
  name: string;
  since: string | null;
  until: string | null;
}

function cases(count: number): Case[] {
  const middle = START + Math.floor(count / 2) * STEP_MS;
  const day = Math.floor(middle / DAY_MS) * DAY_MS;
  return [
    { name: 'whole log', since: null, until: null },
    { name: 'one day', since: new Date(day).toISOString(), until: new Date(day + DAY_MS).toISOString() },
  ];
}

interface ChildResult {
  /** Set when the child failed: its error's code and message. */
  error?: string;
  seconds: number;
  leaves: number;
  bytes: number;
  maxRssMb: number;
}

async function child(mode: string, home: string, since: string, until: string, out: string): Promise<void> {
  const workspace = openWorkspace(home);
  try {
    const period = { since: since === '-' ? null : since, until: until === '-' ? null : until };
    const start = process.hrtime.bigint();
    let leaves: number;
    let bytes: number;
    if (mode === 'log') {
      // The export signs a checkpoint first: sign it in the parent's build, then time the log part.
      const evidence = readLogEvidence(workspace.ledger.readable, createNodeCryptoProvider().sha256, {
        tenantId: TENANT,
        ...period,
      });
      const proofs = evidence.proofs();
      leaves = evidence.receipts.length;
      bytes = proofs.length;
    } else {
      try {
        const made = await exportTenantEvidence(workspace, { tenantId: TENANT, ...period, out, overwrite: true });
        leaves = made.receipts;
        bytes = fs.statSync(out).size;
      } catch (error) {
        // A bundle the import's limits would refuse is a result: how long it took to say so.
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        const code = (error as { code?: string }).code ?? 'error';
        const result: ChildResult = {
          error: `${code}: ${(error as Error).message}`,
          seconds,
          leaves: 0,
          bytes: 0,
          maxRssMb: peakRssMb(),
        };
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const result: ChildResult = { seconds, leaves, bytes, maxRssMb: peakRssMb() };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    workspace.close();
  }
}

function runChild(mode: string, home: string, period: Case, out: string): ChildResult {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', SELF, '--child', mode, home, period.since ?? '-', period.until ?? '-', out],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (result.status !== 0) {
    // An export the zip limits refuse is a result, not a crash of the bench.
    const refused = /(\w*Error): ([^\n]*)[\s\S]*?code: '(\w+)'/.exec(result.stderr);
    if (refused === null) throw new Error(`the ${mode} child failed: ${result.stderr}`);
    return { error: `${refused[3]}: ${refused[2]}`, seconds: 0, leaves: 0, bytes: 0, maxRssMb: 0 };
  }
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as ChildResult;
}

/** Raw SHA-256 of `n` 65-byte node inputs, hashes per second (best of 3). */
function rawSha256Rate(n: number): number {
  const input = new Uint8Array(65).fill(1);
  let best = 0;
  for (let round = 0; round < 3; round += 1) {
    const start = process.hrtime.bigint();
    for (let index = 0; index < n; index += 1) {
      input[1] = index & 0xff;
      createHash('sha256').update(input).digest();
    }
    best = Math.max(best, n / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  return best;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      count: { type: 'string' },
      child: { type: 'boolean' },
      'write-baseline': { type: 'boolean' },
      keep: { type: 'boolean' },
      quick: { type: 'boolean' },
      home: { type: 'string' },
      'no-append': { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (values.child) {
    const [mode = '', home = '', since = '-', until = '-', out = ''] = positionals;
    await child(mode, home, since, until, out);
    return;
  }
  const quick = values.quick === true;
  const count = Number(values.count ?? (quick ? 3_000 : 100_000));
  if (!Number.isSafeInteger(count) || count < 2_000) throw new RangeError('--count must be at least 2000');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-bench-log-'));
  const home = values.home ?? path.join(directory, 'home');
  try {
    if (values.home === undefined || !fs.existsSync(ledgerFileIn(home))) {
      const building = Date.now();
      buildLedger(home, count);
      console.log(
        `ledger with a tenant log of ${count.toLocaleString('en-US')} receipts built in ${((Date.now() - building) / 1000).toFixed(1)} s`,
      );
    }
    const raw = rawSha256Rate(quick ? 20_000 : 1_000_000);

    const baseline = readBaseline(BASELINE);
    const rows: Measurement[] = [{ name: 'raw SHA-256 (65 bytes)', rate: raw }];
    const lines: string[] = [];
    for (const period of cases(count)) {
      const out = path.join(directory, 'evidence.zip');
      // The export first: it signs the checkpoint the log part then reads.
      const exported = runChild('export', home, period, out);
      const log = runChild('log', home, period, out);
      for (const [what, measured] of [
        ['log part', log],
        ['export', exported],
      ] as const) {
        const name = `${what}, ${period.name}, ${count} receipts`;
        if (measured.error !== undefined) {
          lines.push(
            `${name.padEnd(46)} ${measured.seconds.toFixed(3).padStart(8)} s  refused (${measured.error})  peak ${measured.maxRssMb.toFixed(0)} MB`,
          );
          continue;
        }
        const rate = measured.leaves / measured.seconds;
        rows.push({ name, rate, rawOf: 'raw SHA-256 (65 bytes)', ratio: rate / raw });
        const base = baseline?.rows[name]?.rate;
        lines.push(
          `${name.padEnd(46)} ${measured.seconds.toFixed(3).padStart(8)} s  ${measured.leaves.toLocaleString('en-US').padStart(9)} leaves  ${Math.round(rate).toLocaleString('en-US').padStart(9)} leaves/s (${(rate / raw).toFixed(4)} of raw SHA-256)  peak ${measured.maxRssMb.toFixed(0).padStart(4)} MB  ${(measured.bytes / 1e6).toFixed(1)} MB${base === undefined ? '' : `  (baseline ${base.toLocaleString('en-US')} leaves/s)`}`,
        );
      }
    }
    // After the exports: it adds receipts and leaves (so with --home, pass --no-append to keep the log's size).
    const append = values['no-append'] === true ? undefined : appendCost(home, count, quick ? 320 : 2_000);
    console.log(
      `node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown cpu'}, load average ${os
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}`,
    );
    console.log(`raw SHA-256 of 65-byte inputs: ${Math.round(raw).toLocaleString('en-US')} hashes/s`);
    if (append !== undefined)
      console.log(
        `a receipt stored in commits of 16 (file ledger): ${append.without.toFixed(0)} µs of CPU; with its leaf hash and append to a log of ${count.toLocaleString('en-US')}: ${append.withLog.toFixed(0)} µs (+${(append.withLog - append.without).toFixed(0)} µs)`,
      );
    for (const line of lines) console.log(line);
    console.log(
      "targets: none binding (bench/README.md): the whole log's part a few seconds per 100,000 leaves with its peak under 500 MB; a period's part independent of the log's size",
    );
    if (values['write-baseline']) writeBaseline(BASELINE, rows);
  } finally {
    if (!values.keep) fs.rmSync(directory, { recursive: true, force: true });
    else console.log(`kept ${directory}`);
  }
}

await main();
