/**
 * `evroom verify FILE...`: verify documents offline and report each one.
 */
import { availableParallelism } from 'node:os';
import { userDataDirectory } from '../../ledger';
import { verifyReport } from '../../operations/verify';
import { nodeCrypto, readTrustStore } from '../../operations/workspace';
import { createVerifyPool, MAX_POOL_SIZE, type ReportResult } from '../../core/worker-pool';
import type { Report } from '../../../src-shared/verify/report';
import { checkKeySources, KeyFileError, parseKeyFile, parseSecretsFile } from '../../../src-shared/verify/key-file';
import type { KeyEntry, SecretEntry, VerifyContext } from '../../../src-shared/verify/context';
import { CliError } from '../cli-error';
import { formatReportHuman } from '../format-report';
import { readDocumentFileSync, readDocumentInput, readTextFile } from '../read-input';
import { paint, writeLine, type Terminal } from '../terminal';
import { flag, optionValues, parseCommandArguments, type CommandSpec } from '../arguments';
import { integerOption } from './ledger';

export const verifySpec: CommandSpec = {
  name: 'verify',
  summary: 'Verify receipts and other signed documents offline',
  usage: 'evroom verify FILE... [--json] [--keys FILE] [--trust FILE] [--secret FILE] [--require-trusted] [--jobs N]',
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
    jobs: { type: 'string', value: 'N', help: `threads verifying at once over many files (default: one per core, 1 to ${MAX_POOL_SIZE})` },
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
  const jobs = integerOption('verify', parsed, 'jobs', 1, MAX_POOL_SIZE) ?? Math.min(availableParallelism(), MAX_POOL_SIZE);
  const json = flag(parsed, 'json');
  const requireTrusted = flag(parsed, 'require-trusted');
  let exitCode = 0;
  let passed = 0;
  let failed = 0;

  /** The lines for one input, in input order. */
  function render(index: number, input: string, outcome: Outcome): { out: string; err: string } {
    if ('error' in outcome) {
      exitCode = 2;
      failed += 1;
      const out = json ? `${JSON.stringify({ input, error: { code: 'io_error', message: outcome.error } })}\n` : '';
      return { out, err: `evroom: ${outcome.error}\n` };
    }
    const { result } = outcome;
    const ok = result.status === 'PASS' && (!requireTrusted || result.trust === 'trusted');
    if (ok) passed += 1;
    else {
      failed += 1;
      exitCode = Math.max(exitCode, 1);
    }
    // The report's JSON with "input" added last: what JSON.stringify({ ...report, input }) writes.
    if (json) return { out: `${result.json.slice(0, -1)},"input":${JSON.stringify(input)}}\n`, err: '' };
    const report = JSON.parse(result.json) as Report;
    let out = `${index > 0 ? '\n' : ''}${formatReportHuman(report, input === '-' ? 'standard input' : input, terminal.color)}\n`;
    if (requireTrusted && report.status === 'PASS' && report.trust.status !== 'trusted') {
      out += `  ${paint(terminal.color, 'yellow', 'not trusted')}: --require-trusted needs a pinned, valid key\n`;
    }
    return { out, err: '' };
  }

  // Over many inputs this thread reads and verifies, and jobs - 1 worker threads verify
  // beside it: a batch goes to a worker while the workers have fewer than two batches each,
  // else it is verified here (so nothing waits while the workers start). The answers are
  // written in input order. A few inputs are verified here alone: starting a worker costs more.
  const pool =
    jobs > 1 && positionals.length >= POOL_MIN_INPUTS
      ? createVerifyPool({ pinned: context.pinned, advertised: context.advertised, secrets: context.secrets, now: context.now, size: jobs - 1 })
      : undefined;
  let atWorkers = 0;
  function verifyBatch(documents: Uint8Array[]): Promise<ReportResult[]> {
    if (pool !== undefined && atWorkers < 2 * pool.size) {
      atWorkers += 1;
      return pool.reports(documents).finally(() => {
        atWorkers -= 1;
      });
    }
    return Promise.resolve(documents.map((bytes) => reportHere(bytes, context)));
  }
  try {
    await verifyInOrder(positionals, BATCH, pool === undefined ? 1 : 8 * jobs, verifyBatch, (start, inputs, outcomes) => {
      let out = '';
      let err = '';
      outcomes.forEach((outcome, offset) => {
        const lines = render(start + offset, inputs[offset] as string, outcome);
        out += lines.out;
        err += lines.err;
      });
      // One write per batch: a write per line costs more than verifying a receipt.
      if (err) terminal.err.write(err);
      if (out) terminal.out.write(out);
    });
  } finally {
    await pool?.close();
  }
  if (!json && positionals.length > 1) {
    writeLine(terminal.out);
    writeLine(terminal.out, `${positionals.length} inputs: ${passed} passed, ${failed} did not`);
  }
  return exitCode;
}

/** Inputs from this many on are verified on worker threads too (when --jobs is above 1). */
const POOL_MIN_INPUTS = 256;
/**
 * Documents per batch: enough to make a worker's message cheap beside the work, few enough
 * that this thread turns back to reading and writing often.
 */
const BATCH = 32;

/** What became of one input: its report, or why it could not be read. */
type Outcome = { result: ReportResult } | { error: string };

function reportHere(bytes: Uint8Array, context: VerifyContext): ReportResult {
  const report = verifyReport(bytes, context);
  return { json: JSON.stringify(report), status: report.status, trust: report.trust.status };
}

/**
 * Reads the inputs, verifies them in batches (up to `inFlight` batches at once) and hands each
 * batch's outcomes to `emit` in input order. Errors other than an unreadable input (CliError)
 * stop everything and are rethrown.
 */
async function verifyInOrder(
  inputs: readonly string[],
  batchSize: number,
  inFlight: number,
  verifyBatch: (documents: Uint8Array[]) => Promise<ReportResult[]>,
  emit: (start: number, inputs: readonly string[], outcomes: Outcome[]) => void,
): Promise<void> {
  const pending: Promise<void>[] = [];
  let emitted: Promise<void> = Promise.resolve();
  for (let start = 0; start < inputs.length; start += batchSize) {
    const batchInputs = inputs.slice(start, start + batchSize);
    const read: (Uint8Array | string)[] = [];
    for (const input of batchInputs) {
      try {
        // Files are read synchronously (see readDocumentFileSync); only - waits.
        read.push(input === '-' ? await readDocumentInput(input) : readDocumentFileSync(input));
      } catch (error) {
        if (!(error instanceof CliError)) throw error;
        read.push(error.message);
      }
    }
    const documents = read.filter((item): item is Uint8Array => typeof item !== 'string');
    const verified = documents.length === 0 ? Promise.resolve([]) : verifyBatch(documents);
    const previous = emitted;
    emitted = (async () => {
      const results = await verified;
      await previous;
      let next = 0;
      emit(start, batchInputs, read.map((item): Outcome => (typeof item === 'string' ? { error: item } : { result: results[next++] as ReportResult })));
    })();
    // A failure surfaces where the batch is awaited; the later batches, chained to it, are
    // never awaited then, and must not count as unhandled.
    emitted.catch(() => undefined);
    pending.push(emitted);
    if (pending.length >= inFlight) await pending.shift();
    // With workers, back to the event loop after every batch, so that their answers are taken
    // in (and they are given more) while this thread verifies; else it would verify batch after
    // batch here while the workers sat idle with their answers unread.
    else if (inFlight > 1) await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(pending);
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

