/**
 * `evroom verify FILE...`: verify documents offline and report each one.
 */
import { userDataDirectory } from '../../ledger';
import { verifyReport } from '../../operations/verify';
import { nodeCrypto, readTrustStore } from '../../operations/workspace';
import { checkKeySources, KeyFileError, parseKeyFile, parseSecretsFile } from '../../../src-shared/verify/key-file';
import type { KeyEntry, SecretEntry, VerifyContext } from '../../../src-shared/verify/context';
import { CliError } from '../cli-error';
import { formatReportHuman } from '../format-report';
import { readDocumentInput, readTextFile } from '../read-input';
import { paint, writeLine, type Terminal } from '../terminal';
import { flag, optionValues, parseCommandArguments, type CommandSpec } from '../arguments';

export const verifySpec: CommandSpec = {
  name: 'verify',
  summary: 'Verify receipts and other signed documents offline',
  usage: 'evroom verify FILE... [--json] [--keys FILE] [--trust FILE] [--secret FILE] [--require-trusted]',
  description: [
    'Checks each document (a path, or - for standard input) and prints its status, its trust and',
    'every check. Status is the cryptographic result; trust says whether the signing key is one',
    'you pinned: in the trust store of the data folder (see `evroom trust`) or a --trust file.',
    'Nothing is sent anywhere, and nothing is written.',
  ],
  options: {
    json: { type: 'boolean', help: 'print one JSON line per input: the report plus "input"' },
    keys: { type: 'string', multiple: true, value: 'FILE', help: 'public keys that may verify signatures (never trusted)' },
    trust: { type: 'string', multiple: true, value: 'FILE', help: 'a trust store file: keys you pinned (may be repeated)' },
    secret: { type: 'string', multiple: true, value: 'FILE', help: 'AES-256-GCM secrets for sealed documents' },
    'require-trusted': { type: 'boolean', help: 'exit 1 unless every signing key is pinned and trusted' },
    'no-trust-store': { type: 'boolean', help: 'ignore the trust store of the data folder (EVROOM_HOME); use only --trust files' },
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
    checkKeySources([{ name: 'the trust store', entries: store }, { name: 'the --trust files', entries: trustFiles }, { name: 'the --keys files', entries: keyFiles }]);
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
  const json = flag(parsed, 'json');
  const requireTrusted = flag(parsed, 'require-trusted');
  let exitCode = 0;
  let passed = 0;
  let failed = 0;
  for (const [index, input] of positionals.entries()) {
    let bytes: Uint8Array;
    try {
      bytes = await readDocumentInput(input);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      exitCode = 2;
      failed += 1;
      writeLine(terminal.err, `evroom: ${error.message}`);
      if (json) writeLine(terminal.out, JSON.stringify({ input, error: { code: 'io_error', message: error.message } }));
      continue;
    }
    const report = verifyReport(bytes, context);
    const ok = report.status === 'PASS' && (!requireTrusted || report.trust.status === 'trusted');
    if (ok) passed += 1;
    else {
      failed += 1;
      exitCode = Math.max(exitCode, 1);
    }
    if (json) {
      writeLine(terminal.out, JSON.stringify({ ...report, input }));
    } else {
      if (index > 0) writeLine(terminal.out);
      writeLine(terminal.out, formatReportHuman(report, input === '-' ? 'standard input' : input, terminal.color));
      if (requireTrusted && report.status === 'PASS' && report.trust.status !== 'trusted') {
        writeLine(terminal.out, `  ${paint(terminal.color, 'yellow', 'not trusted')}: --require-trusted needs a pinned, valid key`);
      }
    }
  }
  if (!json && positionals.length > 1) {
    writeLine(terminal.out);
    writeLine(terminal.out, `${positionals.length} inputs: ${passed} passed, ${failed} did not`);
  }
  return exitCode;
}

/** The data folder's trust store, read-only (never created by verify). */
function ledgerTrustStore(): KeyEntry[] {
  try {
    return readTrustStore(userDataDirectory());
  } catch (error) {
    throw new CliError(`the trust store in ${userDataDirectory()} cannot be read: ${error instanceof Error ? error.message : String(error)} (use --no-trust-store to skip it)`);
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

