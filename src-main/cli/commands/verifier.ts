/**
 * `evroom verifier --out FILE`: write the browser reference verifier, one self-contained HTML
 * file that verifies documents and evidence bundles with no install and no network.
 */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { verifierPage } from '../../operations/verifier-page';
import { CliError } from '../cli-error';
import { writeFileSafely } from '../key-files';
import { flag, optionValue, parseCommandArguments, type CommandSpec } from '../arguments';
import { writeLine, type Terminal } from '../terminal';

export const verifierSpec: CommandSpec = {
  name: 'verifier',
  summary: 'Write the browser reference verifier: one HTML file, no install, no network',
  usage: 'evroom verifier --out FILE [--force]',
  description: [
    'Writes the reference verifier as one self-contained HTML file (scripts, styles and its',
    'verification worker inlined). Open it in any current browser, also from a file on disk: it',
    'verifies documents of every format and whole evidence bundles (manifest hash and signature,',
    'every file against the manifest, every receipt) with the portable (@noble) crypto, and',
    'makes no network request (its Content-Security-Policy forbids any).',
    'A key file, trust file or secrets file can be chosen in the page, for that page only. Keys',
    'that come with a document or bundle never make it "trusted": they read "issuer unknown".',
    'From source the page is built on first use when the built one is missing or older than',
    'the code (about 10 s).',
  ],
  options: {
    out: { type: 'string', value: 'FILE', help: 'the HTML file to write' },
    force: { type: 'boolean', help: 'replace an existing file' },
  },
  exitCodes: ['0  the page was written', '2  usage or I/O error (nothing is written)'],
  examples: ['evroom verifier --out verifier.html', 'evroom verifier --out /media/usb/verifier.html --force'],
};

/** Runs `evroom verifier`. */
export async function runVerifier(argv: readonly string[], terminal: Terminal): Promise<number> {
  const parsed = parseCommandArguments(verifierSpec, argv);
  if (parsed.positionals.length > 0)
    throw new CliError(`verifier: unexpected argument ${parsed.positionals[0] ?? ''}; use --out FILE`);
  const out = optionValue(parsed, 'out');
  if (out === undefined || out === '') throw new CliError('verifier: --out FILE is required (the HTML file to write)');
  const folder = await stat(dirname(out)).catch(() => undefined);
  if (!folder?.isDirectory()) throw new CliError(`verifier: ${dirname(out)}: no such folder`);
  const existing = await stat(out).catch(() => undefined);
  if (existing?.isDirectory()) throw new CliError(`verifier: ${out}: is a folder; give a file name`);
  // Checked before the page is built, so a refusal is quick and writes nothing.
  if (existing && !flag(parsed, 'force'))
    throw new CliError(`verifier: ${out}: already exists; pass --force to replace it`);
  const html = await verifierPage();
  await writeFileSafely(out, html, { force: flag(parsed, 'force') });
  writeLine(
    terminal.out,
    `Wrote the reference verifier to ${out} (${Math.round(Buffer.byteLength(html) / 1024)} KiB); open it in a browser.`,
  );
  return 0;
}
