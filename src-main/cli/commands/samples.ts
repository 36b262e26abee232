/**
 * `evroom samples --out DIR`: a labelled sample of every format, for demos, docs and tests.
 *
 * The door of src-main/operations/samples.ts, which builds the samples (each format makes its
 * own, in src-shared/formats/<name>/samples.ts): this file parses the arguments and writes the
 * files, refusing to replace existing ones without --force.
 */
import { join } from 'node:path';
import { lstat } from 'node:fs/promises';
import { buildSamples, sampleOutputs } from '../../operations/samples';
import { CliError } from '../cli-error';
import { ensureDirectory, writeFileSafely } from '../key-files';
import { flag, optionValue, parseCommandArguments, type CommandSpec } from '../arguments';
import { writeLine, type Terminal } from '../terminal';

// The app API still imports the samples from here; it moves to operations/samples.ts.
export { SAMPLES_NOW, SAMPLES_SECRET_ID, buildSamples, sampleOutputs } from '../../operations/samples';
export type { SampleFile, SampleSet } from '../../operations/samples';

export const samplesSpec: CommandSpec = {
  name: 'samples',
  summary: 'Write labelled valid and broken samples of every format',
  usage: 'evroom samples --out DIR [--force]',
  description: [
    'Writes one folder per format (classical, countersigner, sealed, envelope, wearable, nano,',
    'standard, pq, legacy-standard, legacy-pq, typed, typed-pq, sigr-chain) with a valid document',
    'and broken ones: tampered (content changed after signing), forged (signed by a key nobody',
    'published), malformed (breaks the schema) and unsupported (names an algorithm evroom does',
    'not execute), where the format has one; plus format-specific cases such as wearable outcomes',
    'and a sealed document under the wrong secret. Also written:',
    '  keys.json     public keys of every sample signer (for --keys, or --trust to see "trusted")',
    "  secrets.json  the sealed samples' AES-256-GCM secret (for --secret)",
    '  index.json    [{file, format, expected_status, expected_trust, note}]',
    '  README.md     the same list as a table, and how to verify it',
    "The output is identical on every run (fixed seeds, times and IVs; ML-DSA-65 signs with FIPS 204's",
    'deterministic variant). The seeds are public: the sample keys prove nothing outside the samples.',
  ],
  options: {
    out: { type: 'string', value: 'DIR', help: 'the folder to write into (created if missing)' },
    force: { type: 'boolean', help: 'replace existing sample files' },
  },
  exitCodes: [
    '0  the samples were written',
    '2  usage or I/O error (an existing file without --force: nothing is written)',
  ],
  examples: [
    'evroom samples --out samples',
    'evroom verify --trust samples/keys.json --secret samples/secrets.json samples/*/*.json',
  ],
};

/**
 * Runs `evroom samples`.
 *
 * @param argv - The arguments after `samples`.
 * @param terminal - Where to print the summary.
 * @returns The exit code.
 * @throws CliError (exit 2) for usage errors, existing files without --force and write failures.
 */
export async function runSamples(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(samplesSpec, argv);
  if (parsed.positionals.length > 0)
    throw new CliError(`samples: unexpected argument ${parsed.positionals[0] ?? ''}; use --out DIR`);
  const directory = optionValue(parsed, 'out');
  if (directory === undefined)
    throw new CliError('samples: --out DIR is required (the folder to write the samples into)');
  const force = flag(parsed, 'force');
  const set = buildSamples();
  const outputs = sampleOutputs(set);
  if (!force) {
    const existing: string[] = [];
    for (const output of outputs) {
      const path = join(directory, output.file);
      if (
        await lstat(path).then(
          () => true,
          () => false,
        )
      )
        existing.push(path);
    }
    if (existing.length > 0) {
      const more = existing.length > 1 ? ` and ${existing.length - 1} more` : '';
      throw new CliError(`samples: ${existing[0] ?? ''}${more} already exist; pass --force to replace them`);
    }
  }
  await ensureDirectory(directory, 0o755);
  for (const folder of new Set(
    outputs.map((output) => output.file.split('/').slice(0, -1).join('/')).filter(Boolean),
  )) {
    await ensureDirectory(join(directory, folder), 0o755);
  }
  for (const output of outputs) await writeFileSafely(join(directory, output.file), output.text, { force });
  writeLine(
    terminal.out,
    `Wrote ${set.files.length} sample documents of ${new Set(set.files.map((file) => file.file.split('/')[0])).size} formats to ${directory}`,
  );
  writeLine(terminal.out, `  see ${join(directory, 'README.md')}; verify them all with:`);
  writeLine(
    terminal.out,
    `  evroom verify --trust ${join(directory, 'keys.json')} --secret ${join(directory, 'secrets.json')} ${join(directory, '*', '*.json')}`,
  );
  return 0;
}
