/**
 * `evroom ledger list|show|stats|check`: read the local ledger.
 *
 * Also home to what the ledger-facing commands (import, export, trust) share: opening the
 * ledger of the data directory (EVROOM_HOME or the platform's user-data folder) and the
 * receipt filter options.
 */
import {
  LedgerError,
  MAX_PAGE_SIZE,
  RECEIPT_SORT_COLUMNS,
  RECEIPT_STATUSES,
  resolveDataDirectory,
  TRUST_STATUSES,
  type ListReceiptsQuery,
  type ReceiptFilters,
  type ReceiptSortColumn,
  type ReceiptSummary,
} from '../../ledger/index';
import type { ReportStatus, TrustStatus } from '../../../src-shared/verify/report';
import { isTimestamp, timestampToMillis } from '../../../src-shared/verify/timestamp';
import { describeError, OperationError } from '../../operations/errors';
import { TrustError } from '../../trust';
import { checkAuditLog, findReceipt, ledgerCounts, listReceiptPage } from '../../operations/ledger-views';
import { openWorkspace, type Workspace } from '../../operations/workspace';
import { CliError } from '../cli-error';
import { formatReportHuman } from '../format-report';
import {
  flag,
  integerOption,
  optionValue,
  parseCommandArguments,
  type CommandSpec,
  type OptionSpec,
  type ParsedArguments,
} from '../arguments';
import { paint, writeLine, type Terminal } from '../terminal';
import { receiptExportChunks } from '../../operations/receipts-export';
import { RECEIPT_EXPORT_COLUMNS, type ReceiptExportForm } from '../../../src-shared/api/receipts-export';
import type { Writable } from 'node:stream';

/**
 * Open the ledger of the data directory (created when missing).
 *
 * @param command - The command name, for messages.
 * @returns The directory and the open ledger; close the ledger when done.
 * @throws CliError (exit 2) when the folder or the ledger cannot be opened.
 */
export function openCliWorkspace(command: string): Workspace {
  try {
    return openWorkspace(resolveDataDirectory());
  } catch (error) {
    if (error instanceof LedgerError) throw new CliError(`${command}: ${error.message}`);
    throw error;
  }
}

/**
 * Runs an operation on the data folder's workspace and closes it; a refusal becomes one line
 * (`COMMAND: MESSAGE (CODE); nothing changed`, exit 2), a fault of ours stays an error.
 */
export async function withCliWorkspace<T>(command: string, run: (workspace: Workspace) => T): Promise<Awaited<T>> {
  const workspace = openCliWorkspace(command);
  try {
    return await run(workspace);
  } catch (error) {
    const { envelope, kind } = describeError(error);
    if (kind === 'internal') throw error;
    const refusal = error instanceof TrustError || error instanceof OperationError;
    throw new CliError(
      refusal
        ? `${command}: ${envelope.message} (${envelope.code}); nothing changed`
        : `${command}: ${envelope.message}`,
    );
  } finally {
    workspace.close();
  }
}

/** The filter options shared by `export` and `ledger list`. */
export const FILTER_OPTIONS: Record<string, OptionSpec> = {
  format: { type: 'string', value: 'FORMAT', help: 'only this report format, e.g. profile/standard' },
  status: { type: 'string', value: 'STATUS', help: `only this status (${RECEIPT_STATUSES.join(', ')})` },
  trust: { type: 'string', value: 'TRUST', help: `only this trust (${TRUST_STATUSES.join(', ')})` },
  issuer: { type: 'string', value: 'KEY_ID', help: 'only receipts signed by this key id' },
  from: { type: 'string', value: 'WHEN', help: 'issued at or after WHEN (YYYY-MM-DD or a timestamp)' },
  to: { type: 'string', value: 'WHEN', help: 'issued before WHEN (YYYY-MM-DD or a timestamp)' },
  text: { type: 'string', value: 'WORDS', help: 'words the receipt id, issuer or hash start with' },
};

function parseWhen(command: string, name: string, value: string): number {
  let millis: number | undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = Date.parse(`${value}T00:00:00Z`);
    if (Number.isFinite(day) && new Date(day).toISOString().startsWith(value)) millis = day;
  } else if (isTimestamp(value)) {
    millis = timestampToMillis(value);
  }
  // The ledger keeps instants as milliseconds from 1970 on.
  if (millis !== undefined && millis < 0)
    throw new CliError(`${command}: --${name} must be 1970-01-01 or later, got "${value}"`);
  if (millis !== undefined) return millis;
  throw new CliError(
    `${command}: --${name} must be a date YYYY-MM-DD or a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z, got "${value}"`,
  );
}

/**
 * Read the filter options into ledger filters.
 *
 * @param command - The command name, for messages.
 * @param parsed - The parsed arguments.
 * @returns The filters (empty when none given).
 * @throws CliError (exit 2) for a value the ledger would not accept.
 */
export function readFilters(command: string, parsed: ParsedArguments): ReceiptFilters {
  const filters: ReceiptFilters = {};
  const format = optionValue(parsed, 'format');
  if (format !== undefined) {
    if (format.length > 128) throw new CliError(`${command}: --format is at most 128 characters`);
    filters.format = format;
  }
  const status = optionValue(parsed, 'status');
  if (status !== undefined) {
    const upper = status.toUpperCase();
    if (!(RECEIPT_STATUSES as readonly string[]).includes(upper)) {
      throw new CliError(`${command}: --status must be one of ${RECEIPT_STATUSES.join(', ')}, got "${status}"`);
    }
    filters.status = upper as ReportStatus;
  }
  const trust = optionValue(parsed, 'trust');
  if (trust !== undefined) {
    if (!(TRUST_STATUSES as readonly string[]).includes(trust)) {
      throw new CliError(`${command}: --trust must be one of ${TRUST_STATUSES.join(', ')}, got "${trust}"`);
    }
    filters.trust = trust as TrustStatus;
  }
  const issuer = optionValue(parsed, 'issuer');
  if (issuer !== undefined) {
    if (issuer.length > 2048) throw new CliError(`${command}: --issuer is at most 2048 characters`);
    filters.issuer = issuer;
  }
  const from = optionValue(parsed, 'from');
  if (from !== undefined) filters.from = parseWhen(command, 'from', from);
  const to = optionValue(parsed, 'to');
  if (to !== undefined) filters.to = parseWhen(command, 'to', to);
  if (filters.from !== undefined && filters.to !== undefined && filters.from >= filters.to) {
    throw new CliError(`${command}: --from must be before --to`);
  }
  const text = optionValue(parsed, 'text');
  if (text !== undefined) {
    if (text.length > 1024) throw new CliError(`${command}: --text is at most 1024 characters`);
    filters.text = text;
  }
  return filters;
}

export const ledgerSpec: CommandSpec = {
  name: 'ledger',
  summary: 'List, show and count stored receipts; check the audit log',
  usage: 'evroom ledger list|show|stats|check [options]',
  description: [
    'The ledger is the local database of every receipt imported or verified, with its report.',
    '  list    one page of receipts, filtered and sorted (--after continues)',
    '  show    one receipt by row id, SHA-256 or document id, with its stored report',
    '  stats   counts by format, status and trust; bundles, keys, anchors, audit entries',
    '  check   recompute the audit log’s hash chain',
    'Run `evroom ledger SUBCOMMAND --help` for each one’s options. EVROOM_HOME sets the data folder.',
  ],
  options: {},
  exitCodes: ['0  done (check: the chain holds)', '1  check: the chain is broken', '2  usage or I/O error'],
  examples: [
    'evroom ledger list --status INVALID',
    'evroom ledger show rcp_01JB6Q8F0Z9Y3X2W1V0T9S8R7Q',
    'evroom ledger stats --json',
  ],
};

const listSpec: CommandSpec = {
  name: 'ledger list',
  summary: 'List stored receipts, one page at a time',
  usage:
    'evroom ledger list [filters] [--sort COLUMN] [--asc] [--limit N] [--after CURSOR] [--json | --csv | --all --json]',
  description: [
    'Rows are newest first by issue time unless --sort says otherwise. A last line gives the',
    'cursor of the next page.',
    '--csv writes every receipt the filters select (not one page) as CSV (RFC 4180), and',
    '--all --json as one JSON array, with the columns of the app’s "Export CSV" and "Export JSON":',
    `${RECEIPT_EXPORT_COLUMNS.join(', ')}. A CSV cell that starts with = + - @, tab or CR`,
    'is written with a leading apostrophe so a spreadsheet does not run it as a formula.',
  ],
  options: {
    ...FILTER_OPTIONS,
    sort: { type: 'string', value: 'COLUMN', help: `sort by ${RECEIPT_SORT_COLUMNS.join(', ')} (default issued_at)` },
    asc: { type: 'boolean', help: 'ascending order (default descending)' },
    limit: { type: 'string', value: 'N', help: `rows per page, 1 to ${MAX_PAGE_SIZE} (default 50)` },
    after: { type: 'string', value: 'CURSOR', help: 'continue after the page that printed this cursor' },
    json: { type: 'boolean', help: 'print {rows, nextCursor} as one JSON object (with --all: every row, as an array)' },
    csv: { type: 'boolean', help: 'every matching receipt as CSV, page after page (not with --limit or --after)' },
    all: { type: 'boolean', help: 'with --json: every matching receipt as one JSON array of the CSV’s columns' },
  },
  examples: [
    'evroom ledger list --status INVALID --csv > invalid.csv',
    'evroom ledger list --trust unpinned --all --json > unpinned.json',
  ],
};

const showSpec: CommandSpec = {
  name: 'ledger show',
  summary: 'Show one stored receipt and its report',
  usage: 'evroom ledger show ID|SHA256|RECEIPT_ID [--json]',
  description: ['ID is the row id that `ledger list` prints; SHA256 the receipt’s hash; RECEIPT_ID its own id.'],
  options: { json: { type: 'boolean', help: 'print the receipt, its report, its sources and its text as JSON' } },
};

const statsSpec: CommandSpec = {
  name: 'ledger stats',
  summary: 'Count what the ledger holds',
  usage: 'evroom ledger stats [--json]',
  description: ['`receipts` is the number of distinct receipts (each stored once however often imported).'],
  options: { json: { type: 'boolean', help: 'print one JSON object' } },
};

const checkSpec: CommandSpec = {
  name: 'ledger check',
  summary: 'Check the audit log’s hash chain',
  usage: 'evroom ledger check [--json]',
  description: ['Recomputes every row’s hash and link. Exit 0 when the chain holds, 1 when it is broken.'],
  options: { json: { type: 'boolean', help: 'print the result as JSON' } },
  exitCodes: ['0  the chain holds', '1  the chain is broken', '2  usage or I/O error'],
};

/**
 * Runs `evroom ledger`.
 *
 * @returns the exit code
 */
export async function runLedger(argv: readonly string[], terminal: Terminal): Promise<number> {
  const [sub, ...rest] = argv;
  // Arguments are parsed before the ledger is opened: a usage error or --help touches nothing.
  switch (sub) {
    case 'list': {
      const parsed = parseCommandArguments(listSpec, rest);
      const query = listQuery(parsed);
      const form = exportForm(parsed);
      if (form !== undefined) return withExport(form, query, terminal);
      return withLedger('ledger list', (workspace) => list(parsed, query, workspace, terminal));
    }
    case 'show': {
      const parsed = parseCommandArguments(showSpec, rest);
      return withLedger('ledger show', (workspace) => show(parsed, workspace, terminal));
    }
    case 'stats': {
      const parsed = parseCommandArguments(statsSpec, rest);
      return withLedger('ledger stats', (workspace) => stats(parsed, workspace, terminal));
    }
    case 'check': {
      const parsed = parseCommandArguments(checkSpec, rest);
      return withLedger('ledger check', (workspace) => check(parsed, workspace, terminal));
    }
    case undefined:
      throw new CliError('ledger: name a subcommand: list, show, stats or check. See: evroom ledger --help');
    default:
      parseCommandArguments(ledgerSpec, [sub]);
      throw new CliError(
        `ledger: unknown subcommand '${sub}'; use list, show, stats or check. See: evroom ledger --help`,
      );
  }
}

async function withLedger(command: string, run: (workspace: Workspace) => number): Promise<number> {
  const workspace = openCliWorkspace(command);
  try {
    return run(workspace);
  } catch (error) {
    if (error instanceof LedgerError) throw new CliError(`${command}: ${error.message}`);
    throw error;
  } finally {
    workspace.close();
  }
}

function noPositionals(command: string, parsed: ParsedArguments): void {
  if (parsed.positionals.length > 0)
    throw new CliError(`${command}: unexpected argument "${parsed.positionals[0]}". See: evroom ${command} --help`);
}

function when(millis: number | null): string {
  return millis === null ? '-' : new Date(millis).toISOString();
}

function listQuery(parsed: ParsedArguments): ListReceiptsQuery {
  noPositionals('ledger list', parsed);
  const filters = readFilters('ledger list', parsed);
  const limit = integerOption('ledger list', parsed, 'limit', 1, MAX_PAGE_SIZE) ?? 50;
  const sortName = optionValue(parsed, 'sort');
  if (sortName !== undefined && !(RECEIPT_SORT_COLUMNS as readonly string[]).includes(sortName)) {
    throw new CliError(`ledger list: --sort must be one of ${RECEIPT_SORT_COLUMNS.join(', ')}, got "${sortName}"`);
  }
  const after = optionValue(parsed, 'after');
  const sort = {
    column: (sortName ?? 'issued_at') as ReceiptSortColumn,
    direction: flag(parsed, 'asc') ? ('asc' as const) : ('desc' as const),
  };
  return { filters, sort, limit, ...(after === undefined ? {} : { after }) };
}

/** The export form `--csv` or `--all --json` asks for, or undefined for one page. */
function exportForm(parsed: ParsedArguments): ReceiptExportForm | undefined {
  const csv = flag(parsed, 'csv');
  const all = flag(parsed, 'all');
  const json = flag(parsed, 'json');
  if (!csv && !all) return undefined;
  if (csv && json) throw new CliError('ledger list: choose --csv or --json, not both');
  if (all && !csv && !json) throw new CliError('ledger list: --all writes JSON: add --json (or use --csv)');
  for (const name of ['limit', 'after'] as const) {
    if (optionValue(parsed, name) !== undefined)
      throw new CliError(`ledger list: --${name} pages one screen; ${csv ? '--csv' : '--all'} writes every row`);
  }
  return csv ? 'csv' : 'json';
}

/** Writes text, waiting while the stream's buffer is full, so a million rows never pile up in memory. */
async function writeChunk(stream: Writable, text: string): Promise<void> {
  if (text === '' || stream.write(text)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error): void => {
      stream.off('drain', done);
      stream.off('error', done);
      if (error) reject(error);
      else resolve();
    };
    stream.on('drain', done);
    stream.on('error', done);
  });
}

/** `ledger list --csv` / `--all --json`: every matching row, a page at a time. */
async function withExport(form: ReceiptExportForm, query: ListReceiptsQuery, terminal: Terminal): Promise<number> {
  const workspace = openCliWorkspace('ledger list');
  try {
    const { filters, sort } = query;
    for (const chunk of receiptExportChunks(workspace, form, {
      ...(filters ? { filters } : {}),
      ...(sort ? { sort } : {}),
    }))
      await writeChunk(terminal.out, chunk.text);
    return 0;
  } catch (error) {
    if (error instanceof LedgerError) throw new CliError(`ledger list: ${error.message}`);
    throw error;
  } finally {
    workspace.close();
  }
}

function list(parsed: ParsedArguments, query: ListReceiptsQuery, workspace: Workspace, terminal: Terminal): number {
  let page;
  try {
    page = listReceiptPage(workspace, query);
  } catch (error) {
    if (error instanceof LedgerError && error.code === 'bad_cursor') {
      throw new CliError('ledger list: --after is not a cursor of this listing (same filters and sort) or is damaged');
    }
    throw error;
  }
  if (flag(parsed, 'json')) {
    writeLine(terminal.out, JSON.stringify(page));
    return 0;
  }
  if (page.rows.length === 0) {
    writeLine(terminal.out, 'No receipts match.');
    return 0;
  }
  const table = page.rows.map((row: ReceiptSummary) => [
    String(row.id),
    when(row.issued_at),
    row.status,
    row.trust,
    row.format,
    row.receipt_id ?? `${row.receipt_sha256.slice(0, 16)}…`,
    row.issuer_key_id ?? '-',
  ]);
  const header = ['id', 'issued', 'status', 'trust', 'format', 'receipt', 'issuer'];
  const widths = header.map((cell, index) => Math.max(cell.length, ...table.map((line) => (line[index] ?? '').length)));
  const render = (cells: string[]): string =>
    cells
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  writeLine(terminal.out, paint(terminal.color, 'bold', render(header)));
  for (const line of table) writeLine(terminal.out, render(line));
  if (page.nextCursor !== null) writeLine(terminal.out, `More: --after ${page.nextCursor}`);
  return 0;
}

function show(parsed: ParsedArguments, workspace: Workspace, terminal: Terminal): number {
  const [reference, ...extra] = parsed.positionals;
  if (reference === undefined) throw new CliError('ledger show: name a receipt: its row id, SHA-256 or receipt id');
  if (extra.length > 0) throw new CliError(`ledger show: name one receipt, not ${parsed.positionals.length}`);
  const found = findReceipt(workspace, reference);
  if (found.kind === 'ambiguous') {
    throw new CliError(
      `ledger show: ${found.rows.length} stored receipts have the id ${reference} (rows ${found.rows.join(', ')}); name one by row id`,
    );
  }
  if (found.kind === 'none') throw new CliError(`ledger show: no receipt ${reference} in the ledger`);
  const record = found.receipt;
  const text = Buffer.from(record.raw).toString('utf8');
  if (flag(parsed, 'json')) {
    const { raw: _raw, report, sources, ...summary } = record;
    writeLine(terminal.out, JSON.stringify({ receipt: summary, report, sources, document: text }));
    return 0;
  }
  writeLine(
    terminal.out,
    formatReportHuman(record.report, `receipt ${record.id}  ${record.receipt_id ?? ''}`.trimEnd(), terminal.color),
  );
  writeLine(terminal.out, `  sha256   ${record.receipt_sha256}`);
  writeLine(terminal.out, `  issued   ${when(record.issued_at)}`);
  writeLine(terminal.out, `  imported ${when(record.imported_at)}`);
  writeLine(terminal.out, '  sources');
  for (const source of record.sources) {
    writeLine(
      terminal.out,
      `    - ${source.kind}${source.ref === '' ? '' : ` ${source.ref}`} (${when(source.imported_at)})`,
    );
  }
  writeLine(terminal.out, '  document');
  writeLine(terminal.out, `    ${text.length > 4000 ? `${text.slice(0, 4000)}… (${text.length} characters)` : text}`);
  return 0;
}

function stats(parsed: ParsedArguments, workspace: Workspace, terminal: Terminal): number {
  noPositionals('ledger stats', parsed);
  const { file, counts } = ledgerCounts(workspace);
  if (flag(parsed, 'json')) {
    writeLine(terminal.out, JSON.stringify(counts));
    return 0;
  }
  const byGroup = (group: Record<string, number | undefined>): string =>
    Object.entries(group)
      .filter(([, count]) => count !== undefined && count > 0)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ') || '-';
  writeLine(terminal.out, `Ledger: ${file}`);
  writeLine(terminal.out, `  receipts      ${counts.receipts}`);
  writeLine(terminal.out, `    by status   ${byGroup(counts.byStatus)}`);
  writeLine(terminal.out, `    by trust    ${byGroup(counts.byTrust)}`);
  writeLine(terminal.out, `    by format   ${byGroup(counts.byFormat)}`);
  writeLine(terminal.out, `  bundles       ${counts.bundles}`);
  writeLine(
    terminal.out,
    `  keys          pinned ${counts.keys.pinned}, revoked ${counts.keys.revoked}, advertised ${counts.keys.advertised}`,
  );
  writeLine(terminal.out, `  anchors       ${counts.anchors}`);
  writeLine(terminal.out, `  audit entries ${counts.auditEntries}`);
  return 0;
}

function check(parsed: ParsedArguments, workspace: Workspace, terminal: Terminal): number {
  noPositionals('ledger check', parsed);
  const result = checkAuditLog(workspace);
  if (flag(parsed, 'json')) {
    writeLine(terminal.out, JSON.stringify(result));
  } else if (result.ok) {
    writeLine(terminal.out, `Audit log: ${result.entries} entries; the hash chain holds.`);
  } else {
    writeLine(
      terminal.out,
      `${paint(terminal.color, 'red', 'Audit log: the hash chain is broken')} at row ${result.firstBadId ?? '?'}: ${result.problem ?? ''} (${result.entries} rows before it hold).`,
    );
  }
  return result.ok ? 0 : 1;
}
