/**
 * `evroom log check|cosign|list|key`: the transparency logs of tenants' receipts, checked and
 * witnessed from this workstation (docs/logs.md, "Checking a log from a workstation").
 *
 * - check: a tenant's newest checkpoint at a service, verified and compared with every
 *   checkpoint of that log seen here (consistency proofs fetched from the service); a split view
 *   exits 1.
 * - cosign: the same check, then a C2SP cosignature by this workstation's auditor key, given to
 *   the service; or offline, a checkpoint file of a log seen here.
 * - list: the logs seen here; key: this workstation's witness vkey.
 */
import { isTenantId, TENANT_ID_RULE } from '../../../src-shared/api/vocabulary';
import type { LogView } from '../../../src-shared/api/logs-contract';
import { readApiKeyFile, isApiKey } from '../../operations/anchor-client';
import { listLogs } from '../../operations/log-checkpoints';
import {
  checkLogAtService,
  cosignAtService,
  cosignCheckpointText,
  isWitnessName,
  LogRefusedError,
  witnessIdentity,
  type LogCheckResult,
} from '../../operations/log-witness';
import { CliError } from '../cli-error';
import { flag, optionValue, parseCommandArguments, type CommandSpec, type ParsedArguments } from '../arguments';
import { writeFileSafely } from '../key-files';
import { readTextFile } from '../read-input';
import { paint, writeLine, type Terminal } from '../terminal';
import type { Workspace } from '../../operations/workspace';
import { withCliWorkspace } from './ledger';

const SUBCOMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  check: ['api', 'tenant', 'api-key-file', 'json'],
  cosign: ['api', 'tenant', 'api-key-file', 'checkpoint', 'out', 'force', 'name', 'json'],
  list: ['json'],
  key: ['name', 'json'],
};

export const logSpec: CommandSpec = {
  name: 'log',
  summary: 'Check tenants’ transparency logs at a service, and witness them (cosign)',
  usage: [
    'evroom log check --api URL --tenant T [--api-key-file FILE] [--json]',
    '       evroom log cosign --api URL --tenant T [--api-key-file FILE] [--name NAME] [--json]',
    '       evroom log cosign --checkpoint FILE [--out FILE [--force]] [--name NAME] [--json]',
    '       evroom log list [--json]',
    '       evroom log key [--name NAME] [--json]',
  ].join('\n'),
  description: [
    'check   fetches tenant T’s newest signed checkpoint from the service at --api and the',
    '        service’s log key (/v1/keys); verifies the note with the log key pinned in the',
    '        trust store or, when none is pinned, with the advertised one (with a warning);',
    '        records it, and fetches a consistency proof between it and every other checkpoint',
    '        of that log seen here (from bundles or earlier checks), recording each result.',
    '        Two checkpoints that disagree are a SPLIT VIEW: the service shows different',
    '        histories to different people. It exits 1.',
    'cosign  checks as above and, only when the checkpoint is consistent with every checkpoint',
    '        seen here, signs a C2SP cosignature (type 0x04) with this workstation’s auditor key',
    '        and gives it to the service, which serves it with the checkpoint from then on.',
    '        With --checkpoint FILE (offline): cosigns a checkpoint already seen here and',
    '        consistent with every other one; writes the note with the line added to --out or',
    '        standard output.',
    'list    the logs seen here: size, consistency, how their key is known.',
    'key     this workstation’s witness key as a vkey (NAME+hex8+base64), for others to verify',
    '        its cosignatures. NAME defaults to evroom-witness/ and 16 hex digits of the key.',
    'The tenant’s API key: --api-key-file FILE (mode 0600), else the EVROOM_API_KEY variable;',
    'it is never taken as an argument.',
  ],
  options: {
    api: { type: 'string', value: 'URL', help: 'check, cosign: the service’s base URL (https, or http to 127.0.0.1)' },
    tenant: { type: 'string', value: 'T', help: 'check, cosign: the tenant whose log it is' },
    'api-key-file': { type: 'string', value: 'FILE', help: 'check, cosign: a file holding the tenant’s API key' },
    checkpoint: { type: 'string', value: 'FILE', help: 'cosign: a checkpoint file to cosign offline' },
    out: { type: 'string', value: 'FILE', help: 'cosign --checkpoint: where to write the cosigned note' },
    force: { type: 'boolean', help: 'cosign --checkpoint: replace an existing --out file' },
    name: { type: 'string', value: 'NAME', help: 'cosign, key: the witness name (no spaces or +)' },
    json: { type: 'boolean', help: 'print JSON' },
  },
  exitCodes: [
    '0  done: consistent, cosigned, listed',
    '1  a split view, or a checkpoint refused (bad signature, unknown key, not consistent with every one seen)',
    '2  usage or I/O error, the service unreachable or its answers unusable',
  ],
  examples: [
    'evroom log check --api https://receipts.example.com --tenant acme --api-key-file ~/.acme-key',
    'EVROOM_API_KEY=svc_pro_... evroom log cosign --api https://receipts.example.com --tenant acme',
    'evroom log cosign --checkpoint checkpoint.txt --out cosigned.txt',
    'evroom log list',
    'evroom log key',
  ],
};

function checkOptions(sub: string, parsed: ParsedArguments): void {
  const allowed = SUBCOMMAND_OPTIONS[sub] ?? [];
  for (const [name, value] of Object.entries(parsed.values)) {
    if (value === undefined || allowed.includes(name)) continue;
    throw new CliError(
      `log ${sub}: --${name} does not apply here (log ${sub} takes ${allowed.map((option) => `--${option}`).join(', ')}). See: evroom log --help`,
    );
  }
  if (parsed.positionals.length > 0)
    throw new CliError(
      `log ${sub}: takes no operand, got ${JSON.stringify(parsed.positionals[0])}. See: evroom log --help`,
    );
}

function checkName(sub: string, parsed: ParsedArguments): string | undefined {
  const name = optionValue(parsed, 'name');
  if (name !== undefined && !isWitnessName(name))
    throw new CliError(
      `log ${sub}: --name must be 1 to 256 characters without spaces or “+” (a note key name), not ${JSON.stringify(name.slice(0, 80))}`,
    );
  return name;
}

/** --api, --tenant and the API key, checked before anything is fetched. */
async function serviceOptions(
  sub: string,
  parsed: ParsedArguments,
): Promise<{ apiUrl: string; tenant: string; apiKey: string }> {
  const api = optionValue(parsed, 'api');
  const tenant = optionValue(parsed, 'tenant');
  if (api === undefined) throw new CliError(`log ${sub}: give the service with --api URL`);
  if (tenant === undefined) throw new CliError(`log ${sub}: give the tenant with --tenant T`);
  let protocol = '';
  try {
    protocol = new URL(api).protocol;
  } catch {
    // Not a URL: said below.
  }
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new CliError(`log ${sub}: --api must be an http or https URL, not ${JSON.stringify(api.slice(0, 200))}`);
  if (!isTenantId(tenant))
    throw new CliError(
      `log ${sub}: --tenant must be ${TENANT_ID_RULE}, not ${JSON.stringify(String(tenant).slice(0, 80))}`,
    );
  const keyFile = optionValue(parsed, 'api-key-file');
  let apiKey: string;
  if (keyFile !== undefined) {
    try {
      apiKey = await readApiKeyFile(keyFile);
    } catch (error) {
      throw new CliError(`log ${sub}: ${(error as Error).message}`);
    }
  } else {
    const fromEnvironment = process.env.EVROOM_API_KEY;
    if (fromEnvironment === undefined || fromEnvironment === '')
      throw new CliError(
        `log ${sub}: give the tenant’s API key with --api-key-file FILE or the EVROOM_API_KEY variable (never as an argument)`,
      );
    if (!isApiKey(fromEnvironment.trim()))
      throw new CliError(`log ${sub}: EVROOM_API_KEY must hold one API key (svc_<tier>_ and base64url characters)`);
    apiKey = fromEnvironment.trim();
  }
  return { apiUrl: api, tenant, apiKey };
}

/** Runs an operation; a refusal of the log (split view, bad signature) exits 1. */
async function run<T>(command: string, work: (workspace: Workspace) => T): Promise<Awaited<T>> {
  return withCliWorkspace(command, async (workspace) => {
    try {
      return await work(workspace);
    } catch (error) {
      if (error instanceof LogRefusedError) throw new CliError(`${command}: ${error.message} (${error.code})`, 1);
      throw error;
    }
  });
}

function printCheck(result: LogCheckResult, terminal: Terminal): void {
  const out = terminal.out;
  writeLine(out, `Log ${result.origin}`);
  writeLine(out, `  checkpoint  size ${result.tree_size}, root ${result.root_hex}`);
  writeLine(
    out,
    `  signed by   ${result.key_name} (${result.signer === 'pinned' ? 'pinned log key' : 'advertised by the service, not pinned'})`,
  );
  if (result.cosignatures > 0) writeLine(out, `  witnesses   ${result.cosignatures} cosignature line(s)`);
  writeLine(
    out,
    `  seen before ${result.seen_before === 0 ? 'none (first checkpoint of this log seen here)' : `${result.seen_before} checkpoint(s)`}`,
  );
  for (const proof of result.proofs)
    writeLine(
      out,
      `  proof       ${proof.from_size} -> ${proof.to_size}: ${proof.result === 'fetched' ? 'fetched and checked' : `unavailable: ${proof.message ?? ''}`}`,
    );
  const outcome = result.outcome;
  if (outcome.consistency === 'split_view') {
    const split = outcome.split;
    writeLine(
      terminal.err,
      paint(
        terminal.color,
        'red',
        `evroom: SPLIT VIEW in ${result.origin}: the checkpoint of size ${split?.size} (root ${split?.root_hex}) and the one of size ${split?.other_size} (root ${split?.other_root_hex}) cannot both be true. The service has shown different histories of this log. Keep both (evroom log list shows them) and tell the tenant and the service's operator.`,
      ),
    );
    writeLine(out, '  consistency SPLIT VIEW');
  } else if (outcome.consistency === 'unchecked')
    writeLine(out, `  consistency unchecked against size ${outcome.unchecked_sizes.join(', ')} (no consistency proof)`);
  else
    writeLine(
      out,
      `  consistency ${result.seen_before === 0 ? 'nothing to compare yet' : 'consistent with every checkpoint seen'}`,
    );
}

function exitOf(result: LogCheckResult): number {
  return result.outcome.consistency === 'consistent' ? 0 : 1;
}

function printLogs(logs: LogView[], terminal: Terminal): void {
  if (logs.length === 0) {
    writeLine(terminal.out, 'No log has been seen (evroom log check, or import a bundle with log evidence).');
    return;
  }
  for (const log of logs) {
    const consistency =
      log.consistency === 'split_view'
        ? paint(terminal.color, 'red', `SPLIT VIEW (size ${log.split?.size} vs size ${log.split?.other_size})`)
        : log.consistency;
    writeLine(
      terminal.out,
      `${log.origin}  size ${log.latest.tree_size}  ${consistency}  key ${log.signer}${log.keys > 1 ? ` (${log.keys} keys sign this origin)` : ''}  ${log.checkpoints} checkpoint(s)  ${log.bundles} bundle(s)`,
    );
  }
}

/**
 * Runs `evroom log`.
 *
 * @returns The exit code.
 */
export async function runLog(argv: readonly string[], terminal: Terminal): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== undefined && sub.startsWith('-')) parseCommandArguments(logSpec, argv);
  const parsed = parseCommandArguments(logSpec, rest);
  if (sub === undefined)
    throw new CliError('log: name a subcommand: check, cosign, list or key. See: evroom log --help');
  if (SUBCOMMAND_OPTIONS[sub] === undefined)
    throw new CliError(`log: unknown subcommand '${sub}'; use check, cosign, list or key. See: evroom log --help`);
  checkOptions(sub, parsed);
  const json = flag(parsed, 'json');
  const warn = (message: string): void =>
    writeLine(terminal.err, paint(terminal.color, 'yellow', `evroom: warning: ${message}`));
  switch (sub) {
    case 'check': {
      const options = await serviceOptions(sub, parsed);
      const result = await run('log check', (workspace) => checkLogAtService(workspace, options, warn));
      if (json) writeLine(terminal.out, JSON.stringify(result));
      else printCheck(result, terminal);
      if (json && result.outcome.consistency === 'split_view')
        writeLine(terminal.err, `evroom: SPLIT VIEW in ${result.origin}`);
      return exitOf(result);
    }
    case 'cosign':
      return runCosign(parsed, terminal, warn);
    case 'list': {
      const logs = await run('log list', (workspace) => listLogs(workspace));
      if (json) writeLine(terminal.out, JSON.stringify(logs));
      else printLogs(logs, terminal);
      return logs.some((log) => log.consistency === 'split_view') ? 1 : 0;
    }
    default: {
      const name = checkName(sub, parsed);
      const identity = await run('log key', (workspace) => witnessIdentity(workspace, name));
      if (json) writeLine(terminal.out, JSON.stringify(identity));
      else writeLine(terminal.out, identity.vkey);
      return 0;
    }
  }
}

async function runCosign(
  parsed: ParsedArguments,
  terminal: Terminal,
  warn: (message: string) => void,
): Promise<number> {
  const json = flag(parsed, 'json');
  const name = checkName('cosign', parsed);
  const file = optionValue(parsed, 'checkpoint');
  if (file !== undefined) {
    for (const option of ['api', 'tenant', 'api-key-file'])
      if (optionValue(parsed, option) !== undefined)
        throw new CliError(`log cosign: --checkpoint cosigns offline; --${option} does not go with it`);
    const out = optionValue(parsed, 'out');
    if (out === undefined && flag(parsed, 'force'))
      throw new CliError('log cosign: --force only applies with --out FILE');
    const text = await readTextFile(file, 'log cosign: --checkpoint');
    const result = await run('log cosign', (workspace) =>
      cosignCheckpointText(workspace, text, name === undefined ? {} : { name }),
    );
    if (out !== undefined) await writeFileSafely(out, result.note, { force: flag(parsed, 'force') });
    if (json) writeLine(terminal.out, JSON.stringify({ ...result, ...(out === undefined ? {} : { out }) }));
    else if (out === undefined) terminal.out.write(result.note);
    else
      writeLine(
        terminal.out,
        `Cosigned the checkpoint of size ${result.tree_size} of ${result.origin} as ${result.witness.name}; wrote ${out}`,
      );
    return 0;
  }
  for (const option of ['out', 'force'])
    if (parsed.values[option] !== undefined)
      throw new CliError(`log cosign: --${option} applies only with --checkpoint FILE`);
  const options = await serviceOptions('cosign', parsed);
  const result = await run('log cosign', (workspace) =>
    cosignAtService(workspace, { ...options, ...(name === undefined ? {} : { name }) }, warn),
  );
  if (json) {
    writeLine(terminal.out, JSON.stringify(result));
    return 0;
  }
  printCheck(result.check, terminal);
  writeLine(terminal.out, `Cosigned as ${result.witness.name}; the service took the cosignature.`);
  if (!result.served_with_cosignature)
    writeLine(terminal.out, '  (the log has grown since: the newest checkpoint served is a later one)');
  writeLine(terminal.out, `  witness key ${result.witness.vkey}`);
  return 0;
}
