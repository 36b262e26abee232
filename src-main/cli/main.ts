/**
 * The `evroom` command line: dispatch, help, and the one place errors become exit codes.
 */
import { describeError } from '../operations/errors';
import { APP_VERSION } from '../version';
import { CliError } from './cli-error';
import { formatHelp, HelpRequested, type CommandSpec } from './arguments';
import { processTerminal, writeLine, type Terminal } from './terminal';
import { runVerify, verifySpec } from './commands/verify';
import { appSpec, runApp } from './commands/app';
import { importSpec, runImport } from './commands/import';
import { exportSpec, runExport } from './commands/export';
import { ledgerSpec, runLedger } from './commands/ledger';
import { runTrust, trustSpec } from './commands/trust';
import { keysSpec, runKeys } from './commands/keys';
import { runSign, signSpec } from './commands/sign';
import { runSamples, samplesSpec } from './commands/samples';
import { apikeysSpec, runApikeys, runTenants, tenantsSpec } from './commands/accounts';
import { runServe, runService, serveSpec, serviceSpec } from './commands/serve';
import { reportSpec, runReport } from './commands/report';
import { runVerifier, verifierSpec } from './commands/verifier';
import { anchorSpec, runAnchor } from './commands/anchor';

interface Command {
  spec: CommandSpec;
  run(argv: readonly string[], terminal: Terminal): Promise<number>;
}

/** Every command, in the order `evroom --help` lists them. */
const COMMANDS: readonly Command[] = [
  { spec: verifySpec, run: runVerify },
  { spec: keysSpec, run: runKeys },
  { spec: signSpec, run: runSign },
  { spec: samplesSpec, run: runSamples },
  { spec: verifierSpec, run: runVerifier },
  { spec: appSpec, run: runApp },
  { spec: importSpec, run: runImport },
  { spec: exportSpec, run: runExport },
  { spec: ledgerSpec, run: runLedger },
  { spec: trustSpec, run: runTrust },
  { spec: reportSpec, run: runReport },
  { spec: anchorSpec, run: runAnchor },
  { spec: serveSpec, run: runServe },
  { spec: tenantsSpec, run: runTenants },
  { spec: apikeysSpec, run: runApikeys },
  { spec: serviceSpec, run: runService },
];

function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.spec.name.length));
  return [
    'Evidence Room: verify receipts and evidence bundles offline.',
    '',
    'Usage: evroom COMMAND [options]',
    '',
    'Commands:',
    ...COMMANDS.map((command) => `  ${command.spec.name.padEnd(width)}  ${command.spec.summary}`),
    '',
    'Run `evroom COMMAND --help` for a command’s options.',
    'Environment: EVROOM_HOME sets the data folder; NO_COLOR turns colour off.',
  ].join('\n');
}

/**
 * Runs the CLI with the given arguments.
 *
 * @returns the process exit code; never throws (errors are printed as one line, no stack trace
 *   unless EVROOM_DEBUG is set)
 */
export async function runCli(argv: readonly string[], terminal: Terminal = processTerminal()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS.find((command) => command.spec.name === rest[0]) : undefined;
    writeLine(name === undefined ? terminal.err : terminal.out, topic ? formatHelp(topic.spec) : overview());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    writeLine(terminal.out, APP_VERSION);
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.spec.name === name);
  if (!command) {
    writeLine(terminal.err, `evroom: unknown command '${name}'. Commands: ${COMMANDS.map((c) => c.spec.name).join(', ')}. See: evroom --help`);
    return 2;
  }
  try {
    return await command.run(rest, terminal);
  } catch (error) {
    if (error instanceof HelpRequested) {
      writeLine(terminal.out, formatHelp(error.spec));
      return 0;
    }
    if (error instanceof CliError) {
      writeLine(terminal.err, `evroom: ${error.message}`);
      return error.exitCode;
    }
    // Errors of the operations layer and the libraries below it carry the one envelope: print
    // its message and code, as the app and web mode show them.
    const { envelope, kind, internalMessage } = describeError(error);
    if (kind !== 'internal') {
      writeLine(terminal.err, `evroom: ${envelope.message} (${envelope.code})`);
      return 2;
    }
    writeLine(terminal.err, `evroom: unexpected error: ${internalMessage ?? envelope.message}`);
    if (process.env.EVROOM_DEBUG && error instanceof Error && error.stack) writeLine(terminal.err, error.stack);
    return 2;
  }
}
