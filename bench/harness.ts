/**
 * A small benchmark harness: rates measured in the same run as the raw primitive they are
 * compared with, so the ratio means something on any machine.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus } from 'node:os';

export interface Measurement {
  name: string;
  /** Operations per second, best of the rounds. */
  rate: number;
  /** The raw primitive's row this one is compared with, if any. */
  rawOf?: string;
  ratio?: number;
  /** Minimum ratio this row aims for. */
  target?: number;
}

/**
 * Runs `work` (which performs `operations` operations) for `rounds` rounds and returns the best
 * rate. Best-of is the usual choice on a shared machine: noise only ever slows a round down.
 */
export function bestRate(operations: number, rounds: number, work: () => void): number {
  let best = 0;
  for (let round = 0; round < rounds; round += 1) {
    const start = process.hrtime.bigint();
    work();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    best = Math.max(best, operations / seconds);
  }
  return best;
}

/** Formats a table of measurements with ratios and baseline comparison. */
export function formatTable(title: string, rows: Measurement[], baseline: Baseline | null): string {
  const lines = [title, `node ${process.version}, ${cpus()[0]?.model ?? 'unknown cpu'}, one core (single thread)`, ''];
  const header = ['row', 'ops/s', 'ratio to raw', 'target', 'baseline ratio'];
  const table = rows.map((row) => {
    const base = baseline?.rows[row.name]?.ratio;
    const verdict =
      row.target === undefined || row.ratio === undefined ? '' : row.ratio >= row.target ? ' ok' : ' BELOW';
    return [
      row.name,
      Math.round(row.rate).toLocaleString('en-US'),
      row.ratio === undefined ? '(raw)' : `${row.ratio.toFixed(2)} of ${row.rawOf}`,
      row.target === undefined ? '' : `>= ${row.target.toFixed(2)}${verdict}`,
      base === undefined ? '' : base.toFixed(2),
    ];
  });
  const widths = header.map((cell, index) => Math.max(cell.length, ...table.map((line) => line[index]!.length)));
  const render = (cells: string[]): string =>
    cells.map((cell, index) => (index === 1 ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!))).join('  ');
  lines.push(render(header), widths.map((width) => '-'.repeat(width)).join('  '), ...table.map(render));
  return lines.join('\n');
}

export interface Baseline {
  recorded: string;
  machine: string;
  rows: Record<string, { rate: number; ratio?: number }>;
}

/** Reads a committed baseline, or null when there is none yet. */
export function readBaseline(file: string): Baseline | null {
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8')) as Baseline;
}

/** Writes the baseline file from this run. */
export function writeBaseline(file: string, rows: Measurement[]): void {
  const baseline: Baseline = {
    recorded: new Date().toISOString(),
    machine: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}, node ${process.version}`,
    rows: Object.fromEntries(
      rows.map((row) => [
        row.name,
        { rate: Math.round(row.rate), ...(row.ratio === undefined ? {} : { ratio: Number(row.ratio.toFixed(3)) }) },
      ]),
    ),
  };
  writeFileSync(file, `${JSON.stringify(baseline, null, 2)}\n`);
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Measures a row against its raw primitive in short alternating pairs and returns the medians.
 *
 * On a shared machine the available CPU drifts over seconds; timing the two side by side, many
 * times over, and taking the median of each pair's ratio cancels that drift, where one long run
 * of each would compare different machine conditions.
 */
export function pairedRates(
  pairs: number,
  raw: { operations: number; work: () => void },
  row: { operations: number; work: () => void },
): { rawRate: number; rowRate: number; ratio: number } {
  const rawRates: number[] = [];
  const rowRates: number[] = [];
  const ratios: number[] = [];
  for (let pair = 0; pair < pairs; pair += 1) {
    const rawRate = bestRate(raw.operations, 1, raw.work);
    const rowRate = bestRate(row.operations, 1, row.work);
    rawRates.push(rawRate);
    rowRates.push(rowRate);
    ratios.push(rowRate / rawRate);
  }
  return { rawRate: median(rawRates), rowRate: median(rowRates), ratio: median(ratios) };
}
