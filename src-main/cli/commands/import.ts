/**
 * `evroom import BUNDLE.zip`: import a tenant evidence bundle into the local ledger.
 *
 * Exit 0 imported clean, 1 imported with findings, 2 refused with nothing written (or a usage
 * or I/O error). An unpinned manifest signer is shown as the signature's trust, not a finding.
 * Also home to the one-line progress bar the long commands draw on an interactive stderr.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { BundleError, DEFAULT_ZIP_LIMITS, type ZipLimits } from '../../evidence/index';
import { LedgerError } from '../../ledger/index';
import { MAX_POOL_SIZE } from '../../core/worker-pool';
import { CliError } from '../cli-error';
import {
  flag,
  integerOption,
  optionValue,
  parseCommandArguments,
  type CommandSpec,
  type ParsedArguments,
} from '../arguments';
import { paint, writeLine, type Terminal } from '../terminal';
import { describeFsError } from '../read-input';
import { openCliWorkspace } from './ledger';
import { describeError } from '../../operations/errors';
import { importEvidence } from '../../operations/evidence';
import {
  DEFAULT_TRANSACTION_SIZE,
  ImportInterruptedError,
  type ImportProgressEvent,
  type ImportResult,
} from '../../operations/import';

export const importSpec: CommandSpec = {
  name: 'import',
  summary: 'Import a tenant evidence bundle (zip) into the ledger',
  usage: 'evroom import BUNDLE.zip [--json] [--max-entries N] [--max-bytes N] [--max-entry-bytes N] [--max-ratio N]',
  description: [
    'Checks every zip entry first (paths, links, duplicates, encryption, sizes, compression ratio)',
    'and refuses the bundle, writing nothing, when one breaks a rule. Then checks the manifest and',
    'its signature, compares every file with the manifest, verifies every receipt and stores it',
    'with its report. Missing, extra and altered files and receipts that are not PASS are findings:',
    'the bundle is imported and each finding reported. Importing the same zip again changes nothing',
    'and finishes an import that stopped part-way. Sizes take a K, M or G suffix (KiB, MiB, GiB).',
  ],
  options: {
    json: { type: 'boolean', help: 'print one JSON object with the result' },
    'max-entries': { type: 'string', value: 'N', help: `most zip entries (default ${DEFAULT_ZIP_LIMITS.maxEntries})` },
    'max-bytes': { type: 'string', value: 'SIZE', help: 'most bytes all entries inflate to (default 2G)' },
    'max-entry-bytes': { type: 'string', value: 'SIZE', help: 'most bytes one entry inflates to (default 64M)' },
    'max-ratio': {
      type: 'string',
      value: 'N',
      help: `most an entry or the zip may inflate (default ${DEFAULT_ZIP_LIMITS.maxRatio})`,
    },
    workers: { type: 'string', value: 'N', help: 'verification threads (default: one per core)' },
    'batch-size': {
      type: 'string',
      value: 'N',
      help: `receipts stored per transaction (default ${DEFAULT_TRANSACTION_SIZE})`,
    },
  },
  exitCodes: [
    '0  imported, no findings',
    '1  imported, with findings (each one listed)',
    '2  refused with nothing written, or a usage or I/O error',
  ],
  examples: ['evroom import acme-2026-11.zip', 'evroom import bundle.zip --json --max-entries 500000'],
};

/** Findings printed one by one in the human output; --json has all the listed ones. */
const PRINTED_FINDINGS = 50;

function parseSize(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)([KMG]?)$/i.exec(value);
  const scale = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[
    (match?.[2] ?? '').toUpperCase() as '' | 'K' | 'M' | 'G'
  ];
  const size = match === null ? Number.NaN : Number(match[1]) * scale;
  if (!Number.isSafeInteger(size) || size < 1) {
    throw new CliError(
      `import: --${name} must be a positive whole number of bytes, optionally with K, M or G, got "${value}"`,
    );
  }
  return size;
}

function readLimits(parsed: ParsedArguments): Partial<ZipLimits> {
  const limits: Partial<ZipLimits> = {};
  const entries = integerOption('import', parsed, 'max-entries', 1, Number.MAX_SAFE_INTEGER);
  if (entries !== undefined) limits.maxEntries = entries;
  const bytes = parseSize('max-bytes', optionValue(parsed, 'max-bytes'));
  if (bytes !== undefined) limits.maxBytes = bytes;
  const entryBytes = parseSize('max-entry-bytes', optionValue(parsed, 'max-entry-bytes'));
  if (entryBytes !== undefined) limits.maxEntryBytes = entryBytes;
  const ratio = optionValue(parsed, 'max-ratio');
  if (ratio !== undefined) {
    if (!/^\d+(?:\.\d+)?$/.test(ratio) || Number(ratio) < 1)
      throw new CliError(`import: --max-ratio must be a number of at least 1, got "${ratio}"`);
    limits.maxRatio = Number(ratio);
  }
  return limits;
}

/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
export interface ProgressBar {
  draw(fraction: number, text: string): void;
  clear(): void;
}

/**
 * A progress bar for an interactive terminal, or one that draws nothing.
 *
 * @param terminal - Where to draw (stderr), and whether it is interactive.
 * @returns The bar.
 */
export function createProgressBar(terminal: Terminal): ProgressBar {
  if (!terminal.interactive) return { draw: () => undefined, clear: () => undefined };
  let drawn = false;
  return {
    draw(fraction, text) {
      const width = 24;
      const filled = Math.max(0, Math.min(width, Math.round(fraction * width)));
      const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
      terminal.err.write(`\r\u001b[2K${bar} ${String(Math.floor(fraction * 100)).padStart(3)}%  ${text}`);
      drawn = true;
    },
    clear() {
      if (drawn) terminal.err.write('\r\u001b[2K');
      drawn = false;
    },
  };
}

/**
 * Describe a rate and time left for the bar.
 *
 * @param perSecond - Items per second.
 * @param secondsLeft - Estimated seconds left, or null.
 * @returns Text such as `9,800/s · 6 s left`.
 */
export function rateText(perSecond: number, secondsLeft: number | null): string {
  const left =
    secondsLeft === null
      ? ''
      : ` · ${secondsLeft >= 120 ? `${Math.round(secondsLeft / 60)} min` : `${secondsLeft} s`} left`;
  return perSecond > 0 ? `${perSecond.toLocaleString('en-US')}/s${left}` : '';
}

function progressText(event: ImportProgressEvent): [number, string] {
  switch (event.phase) {
    case 'hashing':
      return [0, 'hashing the zip'];
    case 'checking':
      return [
        event.filesTotal === 0 ? 0 : (event.filesRead / event.filesTotal) * 0.2,
        `checking ${event.filesRead.toLocaleString('en-US')}/${event.filesTotal.toLocaleString('en-US')} files  ${rateText(event.perSecond, event.secondsLeft)}`,
      ];
    case 'verifying':
      return [
        0.2 + (event.receiptsTotal === 0 ? 0 : (event.receiptsVerified / event.receiptsTotal) * 0.8),
        `verifying ${event.receiptsVerified.toLocaleString('en-US')}/${event.receiptsTotal.toLocaleString('en-US')} receipts  ${rateText(event.perSecond, event.secondsLeft)}`,
      ];
    default:
      return [1, 'finishing'];
  }
}

/**
 * Runs `evroom import`.
 *
 * @returns the exit code
 */
export async function runImport(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(importSpec, argv);
  const [file, ...extra] = parsed.positionals;
  if (file === undefined) throw new CliError('import: name the bundle zip to import. See: evroom import --help');
  if (extra.length > 0) throw new CliError(`import: name one bundle, not ${parsed.positionals.length}`);
  const limits = readLimits(parsed);
  const workers = integerOption('import', parsed, 'workers', 1, MAX_POOL_SIZE);
  const transactionSize = integerOption('import', parsed, 'batch-size', 1, 1_000_000);
  const json = flag(parsed, 'json');
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(`import: ${file}: is not a regular file`);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`import: ${file}: ${describeFsError(error)}`);
  }

  const workspace = openCliWorkspace('import');
  const bar = createProgressBar(terminal);
  try {
    const result = await importEvidence(workspace, file, {
      limits,
      ...(workers === undefined ? {} : { workers }),
      ...(transactionSize === undefined ? {} : { transactionSize }),
      fileName: path.basename(file),
      onProgress: (event) => {
        const [fraction, text] = progressText(event);
        bar.draw(fraction, text);
      },
    });
    bar.clear();
    if (json) writeLine(terminal.out, JSON.stringify({ status: 'imported', file, ...result }));
    else printResult(result, file, terminal);
    return result.clean ? 0 : 1;
  } catch (error) {
    bar.clear();
    if (error instanceof BundleError) {
      const where =
        error.entry === undefined
          ? ''
          : ` (entry ${error.entry}${error.path === undefined ? '' : `, at ${error.path}`})`;
      if (json)
        writeLine(terminal.out, JSON.stringify({ status: 'refused', file, error: describeError(error).envelope }));
      throw new CliError(`import: refused, nothing was written: ${error.code}${where}: ${error.message}`);
    }
    if (error instanceof ImportInterruptedError || error instanceof LedgerError) {
      if (json)
        writeLine(
          terminal.out,
          JSON.stringify({
            status: 'failed',
            file,
            error: {
              code: error instanceof LedgerError ? error.code : 'import_interrupted',
              message: error.message,
              details: [],
            },
          }),
        );
      throw new CliError(`import: ${error.message}`);
    }
    throw error;
  } finally {
    workspace.close();
  }
}

function printResult(result: ImportResult, file: string, terminal: Terminal): void {
  const { counts, signature } = result;
  const colour = terminal.color;
  const note = result.alreadyImported
    ? ' (imported before; nothing new)'
    : result.resumed
      ? ' (finished an import that had stopped part-way)'
      : '';
  writeLine(terminal.out, paint(colour, 'bold', `Imported ${file}${note}`));
  writeLine(
    terminal.out,
    `  bundle     #${result.bundle.id}, tenant ${result.bundle.tenant_id}, generated ${result.bundle.generated_at}, sha256 ${result.bundle.sha256}`,
  );
  const signatureColour = signature.status === 'valid' ? 'green' : 'red';
  writeLine(
    terminal.out,
    `  signature  ${paint(colour, signatureColour, signature.status)}${signature.key_id === undefined ? '' : `, key ${signature.key_id}`}; trust ${signature.trust.status}`,
  );
  writeLine(terminal.out, `             ${paint(colour, 'dim', signature.detail)}`);
  const statuses = Object.entries(counts.byStatus)
    .map(([status, count]) => `${status} ${count}`)
    .join(', ');
  writeLine(
    terminal.out,
    `  receipts   ${counts.receipts} read: ${counts.receiptsNew} new, ${counts.receiptsKnown} already stored${statuses === '' ? '' : `; ${statuses}`}`,
  );
  if (counts.anchors > 0) writeLine(terminal.out, `  anchors    ${counts.anchors} read: ${counts.anchorsNew} new`);
  if (counts.advertisedKeys > 0) {
    writeLine(
      terminal.out,
      `  keys       ${counts.advertisedKeys} listed by the bundle (recorded as advertised, never trusted)`,
    );
  }
  if (result.log !== null) {
    const logColour = result.log.status === 'complete' ? 'green' : 'red';
    const where = result.log.origin === undefined ? '' : ` (log ${result.log.origin}, key ${result.log.signer})`;
    writeLine(terminal.out, `  log        ${paint(colour, logColour, result.log.sentence)}${where}`);
  }
  if (result.totalFindings === 0) {
    writeLine(terminal.out, `  findings   none`);
    writeLine(terminal.out, `Result: ${paint(colour, 'green', 'imported clean')}.`);
    return;
  }
  writeLine(terminal.out, `  findings   ${result.totalFindings}`);
  const shown = result.findings.slice(0, PRINTED_FINDINGS);
  const width = Math.max(...shown.map((finding) => finding.code.length));
  for (const finding of shown) {
    const where = finding.path === '' ? '' : `${finding.path}: `;
    writeLine(terminal.out, `    ${paint(colour, 'yellow', finding.code.padEnd(width))}  ${where}${finding.message}`);
  }
  if (result.totalFindings > shown.length) {
    const byCode = Object.entries(result.findingCounts)
      .map(([code, count]) => `${code} ${count}`)
      .join(', ');
    writeLine(terminal.out, `    … ${result.totalFindings - shown.length} more (${byCode}); --json lists up to 1000`);
  }
  writeLine(
    terminal.out,
    `Result: ${paint(colour, 'yellow', `imported with ${result.totalFindings} finding${result.totalFindings === 1 ? '' : 's'}`)}.`,
  );
}
