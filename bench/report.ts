/**
 * Audit report benchmark.
 *
 *   npx tsx bench/report.ts                     # 100,000 receipts: JSON, HTML and PDF
 *   npx tsx bench/report.ts --count 20000
 *   npx tsx bench/report.ts --write-baseline    # update bench/baselines/report.json
 *   npx tsx bench/report.ts --quick             # 500 receipts: a check that it runs
 *
 * Builds a data folder whose ledger holds `--count` receipts (synthetic reports: the report reads
 * the ledger's summaries, not the documents), then, for each form, makes a report of the whole
 * ledger in a child process of its own (so its peak RSS is the report's alone) and writes it:
 * read every row, count, sign under Rule D1 with the auditor key, keep the JSON, write the form.
 *
 * Targets (100,000 receipts): JSON and HTML under 10 s each, PDF under 30 s, peak RSS under
 * 500 MB for each. The machine is shared: times are of the run, not of an idle host.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { insertReceipts, ledgerFileIn, openLedger, type NewReceipt } from '../src-main/ledger/index';
import { createReport } from '../src-main/operations/report';
import { openWorkspace } from '../src-main/operations/workspace';
import type { Report } from '../src-shared/verify/report';
import { readBaseline, writeBaseline, type Measurement } from './harness';

const BASELINE = fileURLToPath(new URL('./baselines/report.json', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const FORMS = ['json', 'html', 'pdf'] as const;
const TARGET_SECONDS: Record<(typeof FORMS)[number], number> = { json: 10, html: 10, pdf: 30 };
const TARGET_RSS_MB = 500;

/** Peak RSS of this process in MB (VmHWM: the address space made at exec, not the parent's). */
function peakRssMb(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match !== null) return Number(match[1]) / 1024;
  } catch {
    // Not Linux: fall back to getrusage.
  }
  return process.resourceUsage().maxRSS / 1024;
}

function syntheticRow(index: number): NewReceipt {
  const statuses = ['PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'INVALID', 'MISMATCH'] as const;
  const trusts = ['trusted', 'trusted', 'unpinned', 'revoked', 'not_applicable'] as const;
  const formats = ['profile/standard', 'profile/nano', 'classical', 'wearable/r2.0.0', 'typed/proof.demand'] as const;
  const seed = `bench-report-${index}`;
  const hash = Buffer.from(String(index).padStart(16, '0')).toString('hex').padEnd(64, 'a').slice(0, 64);
  const report: Report = {
    report_version: '1',
    format: formats[index % formats.length] as Report['format'],
    status: statuses[index % statuses.length] as Report['status'],
    trust: {
      status: trusts[index % trusts.length] as Report['trust']['status'],
      key_id: `did:svc:tenant${index % 50}:k1`,
    },
    checks: [{ id: 'signature', status: 'pass' }],
    errors: [],
    notes: [],
  };
  return {
    receipt_sha256: hash,
    raw: new TextEncoder().encode(JSON.stringify({ seed })),
    report,
    receipt_id: `rcp_01KT1GW6G0${String(index).padStart(16, '0')}`,
    issued_at: Date.UTC(2026, 0, 1) + ((index * 7919) % 31_536_000) * 1000,
  };
}

function buildLedger(home: string, count: number): void {
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const ledger = openLedger(ledgerFileIn(home));
  try {
    for (let start = 0; start < count; start += 10_000) {
      const batch = Array.from({ length: Math.min(10_000, count - start) }, (_, offset) =>
        syntheticRow(start + offset),
      );
      ledger.runInTransaction((database) => insertReceipts(database, batch));
    }
  } finally {
    ledger.close();
  }
}

async function child(home: string, out: string): Promise<void> {
  const workspace = openWorkspace(home);
  try {
    const start = process.hrtime.bigint();
    const made = await createReport(workspace, {
      outputs: [{ file: out, form: path.extname(out).slice(1) as 'json' }],
      overwrite: true,
    });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    process.stdout.write(
      `${JSON.stringify({ seconds, bytes: made.files[0]?.bytes ?? 0, receipts: made.receipts, maxRssMb: peakRssMb() })}\n`,
    );
  } finally {
    workspace.close();
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      count: { type: 'string' },
      child: { type: 'boolean' },
      'write-baseline': { type: 'boolean' },
      keep: { type: 'boolean' },
      quick: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (values.child) {
    await child(positionals[0] ?? '', positionals[1] ?? '');
    return;
  }
  // --quick: a check that the bench works (seconds, small data), not a measurement: the targets
  // are printed but not enforced.
  const quick = values.quick === true;
  const count = Number(values.count ?? (quick ? 500 : 100_000));
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-bench-report-'));
  const home = path.join(directory, 'home');
  try {
    const building = Date.now();
    buildLedger(home, count);
    console.log(
      `ledger of ${count.toLocaleString('en-US')} receipts built in ${((Date.now() - building) / 1000).toFixed(1)} s`,
    );
    const baseline = readBaseline(BASELINE);
    const rows: Measurement[] = [];
    const lines: string[] = [];
    let missed = false;
    for (const form of FORMS) {
      const out = path.join(directory, `report.${form}`);
      const result = spawnSync(process.execPath, ['--import', 'tsx', SELF, '--child', home, out], {
        encoding: 'utf8',
        maxBuffer: 1 << 20,
      });
      if (result.status !== 0) throw new Error(`the ${form} child failed: ${result.stderr}`);
      const measured = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as {
        seconds: number;
        bytes: number;
        maxRssMb: number;
      };
      const ok = measured.seconds < TARGET_SECONDS[form] && measured.maxRssMb < TARGET_RSS_MB;
      missed ||= !ok;
      rows.push({ name: `report to ${form}, ${count} receipts`, rate: count / measured.seconds });
      const base = baseline?.rows[`report to ${form}, ${count} receipts`]?.rate;
      lines.push(
        `${form.padEnd(4)}  ${measured.seconds.toFixed(2).padStart(6)} s (target < ${TARGET_SECONDS[form]} s)  peak ${measured.maxRssMb.toFixed(0).padStart(4)} MB (target < ${TARGET_RSS_MB} MB)  ${(measured.bytes / 1e6).toFixed(1)} MB written  ${Math.round(count / measured.seconds).toLocaleString('en-US')} receipts/s${base === undefined ? '' : ` (baseline ${base.toLocaleString('en-US')}/s)`}  ${ok ? 'ok' : 'MISSED'}`,
      );
    }
    console.log(
      `node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown cpu'}, load average ${os
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}`,
    );
    for (const line of lines) console.log(line);
    if (values['write-baseline']) writeBaseline(BASELINE, rows);
    if (missed && !quick) process.exitCode = 1;
  } finally {
    if (!values.keep) fs.rmSync(directory, { recursive: true, force: true });
    else console.log(`kept ${directory}`);
  }
}

await main();
