/**
 * `evroom report`: make a signed audit report of the ledger (JSON, HTML, PDF), and
 * `evroom report diff OLD NEW`: what changed between two reports, and why.
 */
import fs from 'node:fs';
import { timestampToMillis, isTimestamp } from '../../../src-shared/verify/timestamp';
import { createReport, diffReports, readVerifiedReport, reportOutput, type ReportDiff } from '../../operations/report';
import { OperationError } from '../../operations/errors';
import { workspaceVerifyContext } from '../../operations/workspace';
import { CliError } from '../cli-error';
import { flag, optionValue, optionValues, parseCommandArguments, type CommandSpec } from '../arguments';
import { paint, writeLine, type Terminal } from '../terminal';
import { FILTER_OPTIONS, openCliWorkspace, readFilters } from './ledger';
import { MAX_DOCUMENT_BYTES } from '../read-input';

export const reportSpec: CommandSpec = {
  name: 'report',
  summary: 'Make a signed audit report (JSON, HTML, PDF), or diff two reports',
  usage:
    'evroom report [filters] [--as-of WHEN] --out FILE.json|.html|.pdf... [--allow-empty] [--force] [--json]\n       evroom report diff OLD.json NEW.json [--json]',
  description: [
    'Reports the receipts that match the filters (all of them without filters): scope, environment,',
    'the trust store snapshot, the bundles read, counts, findings, one row per receipt and what the',
    'evidence does not prove. The JSON is signed by this workstation’s auditor key (a did:key made on',
    'first use in the data folder); the HTML embeds it; the PDF shows the same with its payload_sha256',
    'on every page and the signed JSON attached. The extension of each --out picks its form.',
    '`evroom verify` checks a report in any form (a PDF through its attached JSON).',
    'A scope with no receipts is refused unless --allow-empty: then the report says EMPTY at the top.',
    '--as-of judges trust from the trust store’s audit history as it stood then.',
    '`diff` lists receipts added, removed and changed (status, trust, anchor state) with the reason',
    'the audit log records; both reports must verify. When their scopes differ it warns first.',
  ],
  options: {
    ...FILTER_OPTIONS,
    'as-of': {
      type: 'string',
      value: 'WHEN',
      help: 'judge trust as the trust store stood at WHEN (YYYY-MM-DD or a timestamp)',
    },
    out: {
      type: 'string',
      multiple: true,
      value: 'FILE',
      help: 'a file to write: .json, .html or .pdf (required)',
    },
    'allow-empty': {
      type: 'boolean',
      help: 'make the report even with no receipts in scope (marked "EMPTY: no receipts in scope")',
    },
    force: { type: 'boolean', help: 'replace files that exist' },
    json: { type: 'boolean', help: 'print one JSON object with the result' },
  },
  exitCodes: [
    '0  written (diff: both reports verify)',
    '2  usage or I/O error, a report that does not verify, or no receipts in scope without',
    '   --allow-empty (nothing written)',
  ],
  examples: [
    'evroom report --out audit.json --out audit.html --out audit.pdf',
    'evroom report --status PASS --as-of 2026-11-01 --out november.pdf',
    'evroom report diff october.json november.json --json',
  ],
};

function parseAsOf(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const millis = Date.parse(`${value}T00:00:00Z`);
    if (Number.isFinite(millis) && new Date(millis).toISOString().startsWith(value))
      return new Date(millis).toISOString();
  } else if (isTimestamp(value)) {
    return new Date(timestampToMillis(value)).toISOString();
  }
  throw new CliError(
    `report: --as-of must be a date YYYY-MM-DD or a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z, got "${value}"`,
  );
}

function readReportFile(file: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new CliError(`report diff: ${file}: no such file`);
  }
  if (!stat.isFile()) throw new CliError(`report diff: ${file}: not a file`);
  if (stat.size > MAX_DOCUMENT_BYTES)
    throw new CliError(
      `report diff: ${file}: is ${stat.size} bytes; files over ${MAX_DOCUMENT_BYTES} bytes are not read`,
    );
  return fs.readFileSync(file, 'utf8');
}

async function runDiff(positionals: readonly string[], json: boolean, terminal: Terminal): Promise<number> {
  if (positionals.length !== 2)
    throw new CliError('report diff: name two report files, OLD.json NEW.json. See: evroom report --help');
  const [oldFile = '', newFile = ''] = positionals;
  const oldText = readReportFile(oldFile);
  const newText = readReportFile(newFile);
  const workspace = openCliWorkspace('report');
  try {
    const context = workspaceVerifyContext(workspace);
    const older = readVerifiedReport(oldText, context, oldFile).report;
    const newer = readVerifiedReport(newText, context, newFile).report;
    const diff: ReportDiff = diffReports(workspace, older, newer);
    if (json) {
      writeLine(terminal.out, JSON.stringify(diff));
      return 0;
    }
    // The warning comes first: what follows may reflect the scopes, not the ledger.
    if (diff.scope_warning !== null) writeLine(terminal.out, paint(terminal.color, 'yellow', diff.scope_warning));
    writeLine(terminal.out, paint(terminal.color, 'bold', `${older.report_id} → ${newer.report_id}`));
    writeLine(terminal.out, `  added    ${diff.added.length}`);
    for (const sha of diff.added.slice(0, 50)) writeLine(terminal.out, `    + ${sha}`);
    writeLine(terminal.out, `  removed  ${diff.removed.length}`);
    for (const sha of diff.removed.slice(0, 50)) writeLine(terminal.out, `    - ${sha}`);
    writeLine(terminal.out, `  changed  ${diff.changed.length}`);
    for (const change of diff.changed.slice(0, 200)) {
      writeLine(
        terminal.out,
        `    ~ ${change.receipt_sha256} ${change.field}: ${change.from} → ${change.to}${change.reason ? ` (${change.reason})` : ''}`,
      );
    }
    return 0;
  } finally {
    workspace.close();
  }
}

/**
 * Runs `evroom report`.
 *
 * @returns the exit code
 */
export async function runReport(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(reportSpec, argv);
  const json = flag(parsed, 'json');
  if (parsed.positionals[0] === 'diff') {
    const stray = Object.keys(parsed.values).filter((name) => name !== 'json' && parsed.values[name] !== undefined);
    if (stray.length > 0) throw new CliError(`report diff: --${stray[0]} does not apply to diff`);
    return runDiff(parsed.positionals.slice(1), json, terminal);
  }
  if (parsed.positionals.length > 0) {
    throw new CliError(
      `report: unexpected argument "${parsed.positionals[0]}"; name the output with --out. See: evroom report --help`,
    );
  }
  const outs = optionValues(parsed, 'out');
  if (outs.length === 0) throw new CliError('report: name the file(s) to write with --out FILE.json|.html|.pdf');
  const outputs = outs.map((file) => {
    try {
      return reportOutput(file);
    } catch (error) {
      throw new CliError(`report: ${(error as Error).message}`);
    }
  });
  const filters = readFilters('report', parsed);
  const asOfText = optionValue(parsed, 'as-of');
  const asOf = asOfText === undefined ? undefined : parseAsOf(asOfText);
  const workspace = openCliWorkspace('report');
  try {
    const result = await createReport(workspace, {
      filters,
      ...(asOf === undefined ? {} : { asOf }),
      outputs,
      overwrite: flag(parsed, 'force'),
      allowEmpty: flag(parsed, 'allow-empty'),
    }).catch((error: unknown) => {
      if (error instanceof OperationError && error.code === 'empty_report')
        throw new CliError(
          `report: ${error.message.replace(/ask for an empty report/, 'pass --allow-empty for a report')} (empty_report)`,
        );
      throw error;
    });
    if (json) {
      writeLine(terminal.out, JSON.stringify(result));
      return 0;
    }
    writeLine(
      terminal.out,
      paint(
        terminal.color,
        'bold',
        `Report ${result.report_id}: ${result.receipts === 0 ? 'EMPTY: no receipts in scope' : `${result.receipts} receipt${result.receipts === 1 ? '' : 's'}`}`,
      ),
    );
    for (const file of result.files)
      writeLine(terminal.out, `  ${file.form.padEnd(5)} ${file.file} (${file.bytes} bytes)`);
    writeLine(terminal.out, `  kept      ${result.kept}`);
    writeLine(
      terminal.out,
      `  signed by ${result.signer_key_id}${result.keyCreated ? ' (a new auditor key, made for this report)' : ''}`,
    );
    writeLine(terminal.out, `  payload_sha256 ${result.payload_sha256}`);
    return 0;
  } finally {
    workspace.close();
  }
}
