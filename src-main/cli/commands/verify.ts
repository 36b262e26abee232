/**
 * `evroom verify FILE...`: verify documents offline and report each one.
 */
import { availableParallelism } from 'node:os';
import { userDataDirectory } from '../../ledger';
import { verifyMany, type VerifyOutcome } from '../../operations/verify-many';
import { nodeCrypto, readTrustStore } from '../../operations/workspace';
import { MAX_POOL_SIZE } from '../../core/worker-pool';
import type { Report } from '../../../src-shared/verify/report';
import { checkKeySources, KeyFileError, parseKeyFile, parseSecretsFile } from '../../../src-shared/verify/key-file';
import type { KeyEntry, SecretEntry, VerifyContext } from '../../../src-shared/verify/context';
import { CliError } from '../cli-error';
import { formatReportHuman } from '../format-report';
import { readDocumentInput, readTextFile } from '../read-input';
import { paint, writeLine, type Terminal } from '../terminal';
import { flag, integerOption, optionValues, parseCommandArguments, type CommandSpec } from '../arguments';

export const verifySpec: CommandSpec = {
  name: 'verify',
  summary: 'Verify receipts and other signed documents offline',
  usage: 'evroom verify FILE... [--json] [--keys FILE] [--trust FILE] [--secret FILE] [--require-trusted] [--jobs N]',
  description: [
    'Checks each document (a path, or - for standard input) and prints its status, its trust and',
    'every check. Status is the cryptographic result; trust says whether the signing key is one',
    'you pinned: in the trust store of the data folder (see `evroom trust`) or a --trust file.',
    'An audit report is checked in any form: its HTML page, or its PDF through the signed JSON the',
    'PDF carries as an attached file ("PDF carries a signed report: PASS").',
    'Nothing is sent anywhere, and nothing is written.',
  ],
  options: {
    json: { type: 'boolean', help: 'print one JSON line per input: the report plus "input"' },
    keys: {
      type: 'string',
      multiple: true,
      value: 'FILE',
      help: 'public keys that may verify signatures (never trusted)',
    },
    trust: {
      type: 'string',
      multiple: true,
      value: 'FILE',
      help: 'a trust store file: keys you pinned',
    },
    secret: { type: 'string', multiple: true, value: 'FILE', help: 'AES-256-GCM secrets for sealed documents' },
    'require-trusted': { type: 'boolean', help: 'exit 1 unless every signing key is pinned and trusted' },
    'no-trust-store': {
      type: 'boolean',
      help: 'ignore the trust store of the data folder (EVROOM_HOME); use only --trust files',
    },
    jobs: {
      type: 'string',
      value: 'N',
      help: `threads verifying at once over many files (default: one per core, 1 to ${MAX_POOL_SIZE})`,
    },
  },
  exitCodes: [
    '0  every input is PASS (and trusted, with --require-trusted)',
    '1  some input is not PASS (or not trusted, with --require-trusted)',
    '2  usage or I/O error (a missing, empty, binary or unreadable file; a bad key file)',
  ],
  examples: [
    'evroom verify receipt.json',
    'evroom verify --trust my-keys.json --require-trusted receipts/*.json',
    'cat receipt.json | evroom verify - --json',
  ],
};

/**
 * Runs `evroom verify`.
 *
 * @returns the exit code
 */
export async function runVerify(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(verifySpec, argv);
  const { positionals } = parsed;
  if (positionals.length === 0) {
    throw new CliError('verify: name at least one FILE (or - for standard input). See: evroom verify --help');
  }
  if (positionals.filter((name) => name === '-').length > 1) {
    throw new CliError('verify: standard input (-) can be named only once');
  }
  const store = flag(parsed, 'no-trust-store') ? [] : ledgerTrustStore();
  const trustFiles = await loadKeyFiles(optionValues(parsed, 'trust'), 'trust store', true);
  const keyFiles = await loadKeyFiles(optionValues(parsed, 'keys'), 'key file', false);
  // One key id, one key, wherever the keys came from (PROTOCOL section 0).
  try {
    checkKeySources([
      { name: 'the trust store', entries: store },
      { name: 'the --trust files', entries: trustFiles },
      { name: 'the --keys files', entries: keyFiles },
    ]);
  } catch (error) {
    if (error instanceof KeyFileError) throw new CliError(error.message);
    throw error;
  }
  const context: VerifyContext = {
    crypto: nodeCrypto(),
    pinned: [...store, ...trustFiles],
    advertised: keyFiles,
    secrets: await loadSecretFiles(optionValues(parsed, 'secret')),
    now: new Date(),
  };
  const jobs =
    integerOption('verify', parsed, 'jobs', 1, MAX_POOL_SIZE) ?? Math.min(availableParallelism(), MAX_POOL_SIZE);
  const json = flag(parsed, 'json');
  const requireTrusted = flag(parsed, 'require-trusted');
  let exitCode = 0;
  let passed = 0;
  let failed = 0;

  /** The lines for one input, in input order. */
  function render(index: number, input: string, outcome: VerifyOutcome): { out: string; err: string } {
    if ('error' in outcome) {
      exitCode = 2;
      failed += 1;
      const out = json ? `${JSON.stringify({ input, error: { code: 'io_error', message: outcome.error } })}\n` : '';
      return { out, err: `evroom: ${outcome.error}\n` };
    }
    const status = 'report' in outcome ? outcome.report.status : outcome.status;
    const trust = 'report' in outcome ? outcome.report.trust.status : outcome.trust;
    const ok = status === 'PASS' && (!requireTrusted || trust === 'trusted');
    if (ok) passed += 1;
    else {
      failed += 1;
      exitCode = Math.max(exitCode, 1);
    }
    if (json) {
      // The report's JSON with "input" added last: what JSON.stringify({ ...report, input }) writes.
      const text = 'report' in outcome ? JSON.stringify(outcome.report) : outcome.json;
      return { out: `${text.slice(0, -1)},"input":${JSON.stringify(input)}}\n`, err: '' };
    }
    const report = 'report' in outcome ? outcome.report : (JSON.parse(outcome.json) as Report);
    let out = `${index > 0 ? '\n' : ''}${formatReportHuman(report, input === '-' ? 'standard input' : input, terminal.color)}\n`;
    if (requireTrusted && report.status === 'PASS' && report.trust.status !== 'trusted') {
      out += `  ${paint(terminal.color, 'yellow', 'not trusted')}: --require-trusted needs a pinned, valid key\n`;
    }
    return { out, err: '' };
  }

  // Standard input is read first (it can be named once); every other input is a file.
  const stdin = positionals.includes('-') ? await readOutcome(() => readDocumentInput('-')) : undefined;
  await verifyMany(positionals, {
    context,
    jobs,
    ...(stdin === undefined ? {} : { stdin }),
    emit: (start, outcomes) => {
      let out = '';
      let err = '';
      for (let offset = 0; offset < outcomes.length; offset += 1) {
        const lines = render(start + offset, positionals[start + offset] as string, outcomes[offset] as VerifyOutcome);
        out += lines.out;
        err += lines.err;
      }
      // One write per run of answers: a write per line costs more than verifying a receipt.
      if (err) terminal.err.write(err);
      if (out) terminal.out.write(out);
    },
  });
  if (!json && positionals.length > 1) {
    writeLine(terminal.out);
    writeLine(terminal.out, `${positionals.length} inputs: ${passed} passed, ${failed} did not`);
  }
  return exitCode;
}

async function readOutcome(read: () => Promise<Uint8Array>): Promise<{ bytes: Uint8Array } | { error: string }> {
  try {
    return { bytes: await read() };
  } catch (error) {
    if (error instanceof CliError) return { error: error.message };
    throw error;
  }
}

/** The data folder's trust store, read-only (never created by verify). */
function ledgerTrustStore(): KeyEntry[] {
  try {
    return readTrustStore(userDataDirectory());
  } catch (error) {
    throw new CliError(
      `the trust store in ${userDataDirectory()} cannot be read: ${error instanceof Error ? error.message : String(error)} (use --no-trust-store to skip it)`,
    );
  }
}

/** Reads and merges key files; trust store entries without a status count as pinned. */
async function loadKeyFiles(names: readonly string[], what: string, pinned: boolean): Promise<KeyEntry[]> {
  const entries: KeyEntry[] = [];
  const sources: { name: string; entries: KeyEntry[] }[] = [];
  for (const name of names) {
    const text = await readTextFile(name, what);
    try {
      const file = parseKeyFile(text, { advertised: !pinned });
      // Two files that define one key id differently are refused, as one file with a duplicate is.
      sources.push({ name: `${what} ${name}`, entries: file });
      checkKeySources(sources);
      for (const entry of file) {
        entries.push(pinned ? { ...entry, status: entry.status ?? 'pinned' } : entry);
      }
    } catch (error) {
      throw asFileError(error, what, name);
    }
  }
  return entries;
}

async function loadSecretFiles(names: readonly string[]): Promise<SecretEntry[]> {
  const entries: SecretEntry[] = [];
  for (const name of names) {
    const text = await readTextFile(name, 'secret file');
    try {
      entries.push(...parseSecretsFile(text));
    } catch (error) {
      throw asFileError(error, 'secret file', name);
    }
  }
  return entries;
}

function asFileError(error: unknown, what: string, name: string): Error {
  if (error instanceof KeyFileError) {
    const where = error.path ? ` at ${error.path}` : '';
    return new CliError(`${what} ${name}${where}: ${error.message}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
