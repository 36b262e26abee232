/**
 * The `evroom` command line: dispatch, help, and the one place errors become exit codes.
 *
 * Start-up time matters here (issue 16: `evroom --help` and `evroom verify one.json` in a few
 * tenths of a second), so this module imports only what every run needs; each command is
 * loaded when it runs (COMMANDS). scripts/build-cli.test.ts fails when the bundle's entry
 * reaches a heavy package statically.
 */
import { checkFailpoints, FailpointConfigError } from '../core/failpoints';
import { describeError, internalLogLine } from '../operations/errors';
import { APP_VERSION } from '../version';
import { CliError } from './cli-error';
import { formatHelp, HelpRequested, type CommandSpec } from './arguments';
import { processTerminal, writeLine, type Terminal } from './terminal';

/** What a command's module gives: its specification (options, help) and how it runs. */
export interface LoadedCommand {
  spec: CommandSpec;
  run(argv: readonly string[], terminal: Terminal): Promise<number>;
}

/**
 * One entry of the command table: what `evroom --help` lists, and how to load the rest.
 *
 * The name and summary are here, in the table, so that `evroom --help` loads no command; each
 * command's module (its spec, its code and the packages it needs: SQLite, viem, fastify, pdfkit)
 * is loaded only when that command runs, behind a dynamic import() that esbuild splits into a
 * chunk of its own. `summary` must equal the module's `spec.summary` (main.test.ts checks).
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<LoadedCommand>;
}

/** Every command, in the order `evroom --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'verify',
    summary: 'Verify receipts and other signed documents offline',
    load: async () => {
      const { verifySpec, runVerify } = await import('./commands/verify');
      return { spec: verifySpec, run: runVerify };
    },
  },
  {
    name: 'keys',
    summary: 'Create a signing key pair (Ed25519 or ML-DSA-65) as key files',
    load: async () => {
      const { keysSpec, runKeys } = await import('./commands/keys');
      return { spec: keysSpec, run: runKeys };
    },
  },
  {
    name: 'sign',
    summary: 'Sign your own fields as a receipt of any supported format',
    load: async () => {
      const { signSpec, runSign } = await import('./commands/sign');
      return { spec: signSpec, run: runSign };
    },
  },
  {
    name: 'samples',
    summary: 'Write labelled valid and broken samples of every format',
    load: async () => {
      const { samplesSpec, runSamples } = await import('./commands/samples');
      return { spec: samplesSpec, run: runSamples };
    },
  },
  {
    name: 'verifier',
    summary: 'Write the browser reference verifier: one HTML file, no install, no network',
    load: async () => {
      const { verifierSpec, runVerifier } = await import('./commands/verifier');
      return { spec: verifierSpec, run: runVerifier };
    },
  },
  {
    name: 'app',
    summary: 'Open the desktop app (or local web mode in a browser)',
    load: async () => {
      const { appSpec, runApp } = await import('./commands/app');
      return { spec: appSpec, run: runApp };
    },
  },
  {
    name: 'import',
    summary: 'Import a tenant evidence bundle (zip) into the ledger',
    load: async () => {
      const { importSpec, runImport } = await import('./commands/import');
      return { spec: importSpec, run: runImport };
    },
  },
  {
    name: 'export',
    summary: 'Export ledger receipts as a signed evidence bundle',
    load: async () => {
      const { exportSpec, runExport } = await import('./commands/export');
      return { spec: exportSpec, run: runExport };
    },
  },
  {
    name: 'ledger',
    summary: 'List, show and count stored receipts; check the audit log',
    load: async () => {
      const { ledgerSpec, runLedger } = await import('./commands/ledger');
      return { spec: ledgerSpec, run: runLedger };
    },
  },
  {
    name: 'trust',
    summary: 'Pin, revoke and list the keys you trust',
    load: async () => {
      const { trustSpec, runTrust } = await import('./commands/trust');
      return { spec: trustSpec, run: runTrust };
    },
  },
  {
    name: 'report',
    summary: 'Make a signed audit report (JSON, HTML, PDF), or diff two reports',
    load: async () => {
      const { reportSpec, runReport } = await import('./commands/report');
      return { spec: reportSpec, run: runReport };
    },
  },
  {
    name: 'anchor',
    summary: 'Verify a receipt’s anchor on a chain; submit receipts for anchoring',
    load: async () => {
      const { anchorSpec, runAnchor } = await import('./commands/anchor');
      return { spec: anchorSpec, run: runAnchor };
    },
  },
  {
    name: 'context',
    summary: 'Context packs: a chain’s evidence for anchors, for an air-gapped workstation',
    load: async () => {
      const { contextSpec, runContext } = await import('./commands/context');
      return { spec: contextSpec, run: runContext };
    },
  },
  {
    name: 'log',
    summary: 'Check tenants’ transparency logs at a service, and witness them (cosign)',
    load: async () => {
      const { logSpec, runLog } = await import('./commands/log');
      return { spec: logSpec, run: runLog };
    },
  },
  {
    name: 'serve',
    summary: 'Run the HTTP service (receipts, verification, tenants, evidence bundles)',
    load: async () => {
      const { serveSpec, runServe } = await import('./commands/serve');
      return { spec: serveSpec, run: runServe };
    },
  },
  {
    name: 'tenants',
    summary: 'Create and list the HTTP service’s tenants',
    load: async () => {
      const { tenantsSpec, runTenants } = await import('./commands/accounts');
      return { spec: tenantsSpec, run: runTenants };
    },
  },
  {
    name: 'apikeys',
    summary: 'Issue, list, revoke, buy and redeem API keys of the HTTP service',
    load: async () => {
      const { apikeysSpec, runApikeys } = await import('./commands/accounts');
      return { spec: apikeysSpec, run: runApikeys };
    },
  },
  {
    name: 'service',
    summary: 'Manage the HTTP service’s signing keys',
    load: async () => {
      const { serviceSpec, runService } = await import('./commands/serve');
      return { spec: serviceSpec, run: runService };
    },
  },
];

function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    'Evidence Room: verify receipts and evidence bundles offline.',
    '',
    'Usage: evroom COMMAND [options]',
    '',
    'Commands:',
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
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
    const topic = name === 'help' ? COMMANDS.find((command) => command.name === rest[0]) : undefined;
    // `evroom help COMMAND` loads that one command, for its options.
    writeLine(
      name === undefined ? terminal.err : terminal.out,
      topic ? formatHelp((await topic.load()).spec) : overview(),
    );
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    writeLine(terminal.out, APP_VERSION);
    return 0;
  }
  try {
    // A mistyped failpoint setting (tests only) is refused before anything runs.
    checkFailpoints();
  } catch (error) {
    if (!(error instanceof FailpointConfigError)) throw error;
    writeLine(terminal.err, `evroom: ${error.message}`);
    return 2;
  }
  const entry = COMMANDS.find((candidate) => candidate.name === name);
  if (!entry) {
    writeLine(
      terminal.err,
      `evroom: unknown command '${name}'. Commands: ${COMMANDS.map((c) => c.name).join(', ')}. See: evroom --help`,
    );
    return 2;
  }
  try {
    // Loading is inside the try: a package that fails to load (a native module built for
    // another Node) is reported as any other error, for this command only.
    const command = await entry.load();
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
    // its message and code, as the app and web mode show them. A fault of ours (a TypeError from
    // a defect, say) prints only its correlation id; EVROOM_DEBUG adds the log line with that id,
    // the original message and the stack.
    const { envelope, internal } = describeError(error);
    writeLine(terminal.err, `evroom: ${envelope.message} (${envelope.code})`);
    if (internal !== undefined && process.env.EVROOM_DEBUG) writeLine(terminal.err, internalLogLine(internal));
    else if (internal !== undefined)
      writeLine(
        terminal.err,
        'evroom: this is a fault of evroom, not of your input; EVROOM_DEBUG=1 shows its details (report them with the ref)',
      );
    return 2;
  }
}
