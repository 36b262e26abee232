/**
 * `evroom export [filters] --out FILE.zip`: write a signed evidence bundle of ledger receipts.
 */
import { isManifestTenantId, MAX_MANIFEST_TENANT_ID_LENGTH } from '../../../src-shared/evidence/manifest';
import { isTimestamp, timestampToMillis } from '../../../src-shared/verify/timestamp';
import { ExportError, LogEvidenceError, SigningKeyError, type ExportProgress } from '../../evidence/index';
import { LedgerError } from '../../ledger/index';
import { CliError } from '../cli-error';
import { flag, optionValue, parseCommandArguments, type CommandSpec } from '../arguments';
import { paint, writeLine, type Terminal } from '../terminal';
import { createProgressBar, rateText } from './import';
import { FILTER_OPTIONS, openCliWorkspace, readFilters } from './ledger';
import { exportEvidence, exportTenantEvidence, isStoreTenant } from '../../operations/evidence';
import {
  openServiceStore,
  StoreUnavailableError,
  workspaceServiceStore,
  type ServiceStore,
} from '../../operations/service-store';
import { DATABASE_HELP, DATABASE_OPTION, databaseUrlOf } from './service-database';

export const exportSpec: CommandSpec = {
  name: 'export',
  summary: 'Export ledger receipts as a signed evidence bundle',
  usage:
    'evroom export [filters] --out FILE.zip [--tenant ID [--since TS] [--until TS] [--database URL]] [--force] [--json]',
  description: [
    'Writes the receipts that match the filters (all of them without filters), their anchor',
    'records and the keys that verify them, in the evidence bundle format `evroom import` reads.',
    'The manifest is signed by this installation’s own key (a did:key, made on the first export',
    'and kept in the data folder); another machine imports the bundle with no findings and',
    'reports the signer as unpinned until someone pins that key.',
    'Over a service’s data folder, --tenant naming one of its tenants exports that tenant’s',
    'evidence as GET /tenants/ID/evidence does: its logged receipts issued in [--since, --until),',
    'the log’s signed checkpoint and proofs (log/checkpoint.txt, log/proofs.json; docs/logs.md),',
    'signed by the service’s key. The filters do not apply to it.',
    `With a service on PostgreSQL, ${DATABASE_HELP.join(' ')} It exports a served --tenant's evidence only.`,
  ],
  options: {
    ...FILTER_OPTIONS,
    out: { type: 'string', value: 'FILE', help: 'the zip to write (required)' },
    tenant: {
      type: 'string',
      value: 'ID',
      help: 'the tenant id written in the manifest (default "local"); a tenant of this data folder’s service: its evidence with its log',
    },
    since: { type: 'string', value: 'TS', help: 'with a served --tenant: receipts issued at or after TS' },
    until: { type: 'string', value: 'TS', help: 'with a served --tenant: receipts issued before TS' },
    force: { type: 'boolean', help: 'replace FILE when it exists' },
    json: { type: 'boolean', help: 'print one JSON object with the result' },
    ...DATABASE_OPTION,
  },
  exitCodes: ['0  written', '2  usage or I/O error (nothing written)'],
  examples: [
    'evroom export --out all.zip',
    'evroom export --status PASS --from 2026-11-01 --to 2026-12-01 --out november.zip',
  ],
};

/** --since / --until: a TS from 1970 on. */
function periodBound(parsed: Parameters<typeof optionValue>[0], name: 'since' | 'until'): string | undefined {
  const value = optionValue(parsed, name);
  if (value !== undefined && !(isTimestamp(value) && timestampToMillis(value) >= 0))
    throw new CliError(`export: --${name} must be a TS (YYYY-MM-DDThh:mm:ss[.f]Z) from 1970 on, got "${value}"`);
  return value;
}

function progressText(event: ExportProgress): [number, string] {
  if (event.phase !== 'writing') return [1, 'finishing'];
  const fraction = event.receiptsTotal === 0 ? 0 : event.receiptsWritten / event.receiptsTotal;
  return [
    fraction,
    `writing ${event.receiptsWritten.toLocaleString('en-US')}/${event.receiptsTotal.toLocaleString('en-US')} receipts  ${rateText(event.perSecond, event.secondsLeft)}`,
  ];
}

/**
 * Runs `evroom export`.
 *
 * @returns the exit code
 */
export async function runExport(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(exportSpec, argv);
  if (parsed.positionals.length > 0) {
    throw new CliError(
      `export: unexpected argument "${parsed.positionals[0]}"; name the output with --out. See: evroom export --help`,
    );
  }
  const out = optionValue(parsed, 'out');
  if (out === undefined) throw new CliError('export: name the zip to write with --out FILE.zip');
  const filters = readFilters('export', parsed);
  const tenant = optionValue(parsed, 'tenant');
  if (tenant !== undefined && !isManifestTenantId(tenant)) {
    throw new CliError(
      `export: --tenant must be 1 to ${MAX_MANIFEST_TENANT_ID_LENGTH} characters without control characters`,
    );
  }
  const since = periodBound(parsed, 'since');
  const until = periodBound(parsed, 'until');
  if (since !== undefined && until !== undefined && timestampToMillis(until) <= timestampToMillis(since))
    throw new CliError('export: --until must be after --since (the period is since <= issued_at < until)');
  const databaseUrl = databaseUrlOf('export', parsed);
  if (databaseUrl !== undefined && tenant === undefined)
    throw new CliError("export: --database exports a served tenant's evidence; name the tenant with --tenant");
  const workspace = openCliWorkspace('export');
  const bar = createProgressBar(terminal);
  let store: ServiceStore | undefined;
  try {
    store =
      databaseUrl === undefined ? workspaceServiceStore(workspace) : await openServiceStore(workspace, databaseUrl);
    const served = tenant !== undefined && (await isStoreTenant(store, tenant));
    if (!served && databaseUrl !== undefined)
      throw new CliError(`export: the service's database has no tenant "${tenant}"`);
    if (!served && (since !== undefined || until !== undefined))
      throw new CliError(
        `export: --since and --until export a served tenant's evidence; this data folder's service has no tenant ${tenant === undefined ? '(name one with --tenant)' : `"${tenant}"`}`,
      );
    if (served && Object.keys(filters).length > 0)
      throw new CliError(
        `export: the filters do not apply to a served tenant's evidence (its log's receipts, contiguous); choose the period with --since and --until`,
      );
    const onProgress = (event: ExportProgress): void => {
      const [fraction, text] = progressText(event);
      bar.draw(fraction, text);
    };
    const result = served
      ? await exportTenantEvidence(workspace, {
          out,
          tenantId: tenant,
          since: since ?? null,
          until: until ?? null,
          overwrite: flag(parsed, 'force'),
          onProgress,
          store,
        })
      : await exportEvidence(workspace, {
          out,
          filters,
          overwrite: flag(parsed, 'force'),
          ...(tenant === undefined ? {} : { tenantId: tenant }),
          onProgress,
        });
    bar.clear();
    if (flag(parsed, 'json')) {
      writeLine(terminal.out, JSON.stringify(result));
      return 0;
    }
    writeLine(
      terminal.out,
      paint(
        terminal.color,
        'bold',
        `Exported ${result.receipts} receipt${result.receipts === 1 ? '' : 's'} to ${result.file}`,
      ),
    );
    writeLine(terminal.out, `  anchors    ${result.anchors}`);
    writeLine(terminal.out, `  keys       ${result.keys} listed in keys/service-keys.json`);
    writeLine(
      terminal.out,
      `  signed by  ${result.key_id}${result.keyCreated ? ' (a new local signing key, made for this export)' : ''}`,
    );
    writeLine(terminal.out, `  tenant     ${result.tenant_id}`);
    if (result.log_tree_size !== undefined)
      writeLine(terminal.out, `  log        checkpoint at size ${result.log_tree_size}, with proofs`);
    writeLine(terminal.out, `  sha256     ${result.sha256} (${result.bytes} bytes)`);
    return 0;
  } catch (error) {
    bar.clear();
    if (
      error instanceof ExportError ||
      error instanceof SigningKeyError ||
      error instanceof LedgerError ||
      error instanceof LogEvidenceError ||
      error instanceof StoreUnavailableError
    ) {
      throw new CliError(`export: ${error.message}`);
    }
    throw error;
  } finally {
    if (databaseUrl !== undefined) await store?.close();
    workspace.close();
  }
}
