/**
 * `evroom export [filters] --out FILE.zip`: write a signed evidence bundle of ledger receipts.
 */
import { isManifestTenantId, MAX_MANIFEST_TENANT_ID_LENGTH } from '../../../src-shared/evidence/manifest';
import { ExportError, SigningKeyError, type ExportProgress } from '../../evidence/index';
import { LedgerError } from '../../ledger/index';
import { CliError } from '../cli-error';
import { flag, optionValue, parseCommandArguments, type CommandSpec } from '../arguments';
import { paint, writeLine, type Terminal } from '../terminal';
import { createProgressBar, rateText } from './import';
import { FILTER_OPTIONS, openCliWorkspace, readFilters } from './ledger';
import { exportEvidence } from '../../operations/evidence';

export const exportSpec: CommandSpec = {
  name: 'export',
  summary: 'Export ledger receipts as a signed evidence bundle',
  usage: 'evroom export [filters] --out FILE.zip [--tenant ID] [--force] [--json]',
  description: [
    'Writes the receipts that match the filters (all of them without filters), their anchor',
    'records and the keys that verify them, in the evidence bundle format `evroom import` reads.',
    'The manifest is signed by this installation’s own key (a did:key, made on the first export',
    'and kept in the data folder); another machine imports the bundle with no findings and',
    'reports the signer as unpinned until someone pins that key.',
  ],
  options: {
    ...FILTER_OPTIONS,
    out: { type: 'string', value: 'FILE', help: 'the zip to write (required)' },
    tenant: { type: 'string', value: 'ID', help: 'the tenant id written in the manifest (default "local")' },
    force: { type: 'boolean', help: 'replace FILE when it exists' },
    json: { type: 'boolean', help: 'print one JSON object with the result' },
  },
  exitCodes: ['0  written', '2  usage or I/O error (nothing written)'],
  examples: [
    'evroom export --out all.zip',
    'evroom export --status PASS --from 2026-11-01 --to 2026-12-01 --out november.zip',
  ],
};

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
  const workspace = openCliWorkspace('export');
  const bar = createProgressBar(terminal);
  try {
    const result = await exportEvidence(workspace, {
      out,
      filters,
      overwrite: flag(parsed, 'force'),
      ...(tenant === undefined ? {} : { tenantId: tenant }),
      onProgress: (event) => {
        const [fraction, text] = progressText(event);
        bar.draw(fraction, text);
      },
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
    writeLine(terminal.out, `  sha256     ${result.sha256} (${result.bytes} bytes)`);
    return 0;
  } catch (error) {
    bar.clear();
    if (error instanceof ExportError || error instanceof SigningKeyError || error instanceof LedgerError) {
      throw new CliError(`export: ${error.message}`);
    }
    throw error;
  } finally {
    workspace.close();
  }
}
