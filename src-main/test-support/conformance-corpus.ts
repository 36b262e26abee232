/**
 * Test support: the conformance corpus made from the real producers (test-vectors/, issue 24),
 * read for the runners that put every case through every door (the library on both providers,
 * the CLI, the service, a bundle import, the browser verifier page).
 *
 * The corpus is one folder per format, `test-vectors/<format_dir>/`, each with its documents,
 * its key files and a `cases.json`:
 *
 * ```json
 * { "format_dir": "typed-pq",
 *   "producer": { "repo": "owner/name", "commit": "<40 hex>", "paths": ["src/typed.js"] },
 *   "cases": [ { "file": "linear-valid.json", "format": "typed-pq", "status": "PASS",
 *                "trust": "unpinned", "keys": "keys.json", "producer_verdict": "valid",
 *                "error": "a-code-the-report-must-contain", "note": "one line" } ] }
 * ```
 *
 * A case's `status`, `trust`, `format` and `error` are what every door must report for the
 * document verified with `keys` given as `evroom verify --keys` gives them (keys that check
 * signatures and confer no trust) and nothing pinned; without `keys`, with no key at all.
 *
 * Every manifest is read strictly: a member this module does not know, a missing or misplaced
 * file, an unknown format, status, trust or verdict, a document of the folder that no case
 * names (unless the folder's README.md names it: a fixture the format's own tests read), a
 * folder with neither cases.json nor a README.md: each is a {@link CorpusError} listing every problem found, so a runner fails with the
 * reason rather than checking less than the corpus holds. A corpus with no case at all is an
 * error too: a runner that passes on an empty corpus could not fail.
 *
 * Extension point: a case may carry `facts` (`receipt_id`, `issuer_key_id`, `issued_at` as the
 * document states them, each a string or null), the ledger facts the bundle import runner then
 * expects exactly; without them it checks the facts against the document's own text.
 *
 * The corpus is the repository's test-vectors/ folder; the environment variable
 * {@link CORPUS_DIRECTORY_VARIABLE} names another one, for trying the runners on a corpus in the
 * making (never set in CI).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseJsonBytes, toPlain } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { formatModules } from '../../src-shared/verify/registry';
import {
  STATUS_PRECEDENCE,
  TRUST_STATUSES,
  type ReportFormat,
  type ReportStatus,
  type TrustStatus,
} from '../../src-shared/verify/report';

/** The environment variable naming another corpus folder than the repository's test-vectors/. */
export const CORPUS_DIRECTORY_VARIABLE = 'EVROOM_TEST_VECTORS_DIR';

/** The manifest's name in each format folder. */
export const CASES_NAME = 'cases.json';

/** The README of each folder: it names every file that is not a case's document or key file. */
export const README_NAME = 'README.md';

/** What the producer's own verifier said of a document. */
export const PRODUCER_VERDICTS = ['valid', 'invalid', 'not-checked'] as const;
export type ProducerVerdict = (typeof PRODUCER_VERDICTS)[number];

/** The ledger facts a case may state (the extension point of the bundle import runner). */
export interface CorpusFacts {
  receipt_id?: string | null;
  issuer_key_id?: string | null;
  /** An RFC 3339 instant, as the ledger's `issued_at` renders in ISO form. */
  issued_at?: string | null;
}

/** A key file a case is verified with. */
export interface CorpusKeyFile {
  /** As the manifest names it, relative to the format folder. */
  name: string;
  /** Absolute path. */
  path: string;
  /** Its text. */
  text: string;
}

/** One case, ready for a door. */
export interface CorpusCase {
  /** `<format_dir>/<file>` plus ` with <keys>` when given: unique in the corpus. */
  id: string;
  formatDir: string;
  /** The format folder's absolute path. */
  directory: string;
  /** As the manifest names it, relative to the format folder. */
  file: string;
  /** Absolute path of the document. */
  path: string;
  /** The document's bytes. */
  bytes: Uint8Array;
  format: ReportFormat;
  status: ReportStatus;
  trust?: TrustStatus;
  keys?: CorpusKeyFile;
  producerVerdict: ProducerVerdict;
  /** An error code the report must contain. */
  error?: string;
  note: string;
  facts?: CorpusFacts;
}

/** One format folder's manifest. */
export interface CorpusManifest {
  formatDir: string;
  directory: string;
  producer: { repo: string; commit: string; paths: string[] };
  cases: CorpusCase[];
}

/** The whole corpus. */
export interface Corpus {
  root: string;
  manifests: CorpusManifest[];
  cases: CorpusCase[];
  /** Folders without a cases.json whose README says what they hold (no case is read from them). */
  skipped: string[];
}

/** A corpus that cannot be used, with every problem found. */
export class CorpusError extends Error {
  readonly problems: readonly string[];
  constructor(root: string, problems: readonly string[]) {
    super(`The conformance corpus in ${root} cannot be used:\n${problems.map((line) => `- ${line}`).join('\n')}`);
    this.name = 'CorpusError';
    this.problems = problems;
  }
}

const MANIFEST_MEMBERS = ['format_dir', 'producer', 'cases'];
const PRODUCER_MEMBERS = ['repo', 'commit', 'paths'];
const CASE_MEMBERS = ['file', 'format', 'status', 'trust', 'keys', 'producer_verdict', 'error', 'note', 'facts'];
const FACT_MEMBERS = ['receipt_id', 'issuer_key_id', 'issued_at'];
const REPO_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,38}\/[A-Za-z0-9._-]{1,100}$/;
const COMMIT_PATTERN = /^[0-9a-f]{40}$/;
const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The corpus folder: {@link CORPUS_DIRECTORY_VARIABLE} when set, else the repository's test-vectors/.
 *
 * @returns An absolute path.
 */
export function corpusRoot(): string {
  const named = process.env[CORPUS_DIRECTORY_VARIABLE];
  if (named !== undefined && named !== '') return resolve(named);
  return fileURLToPath(new URL('../../test-vectors', import.meta.url));
}

/**
 * Read and check the whole corpus.
 *
 * @param root - The corpus folder (default {@link corpusRoot}).
 * @returns Every manifest and every case, in folder then manifest order.
 * @throws CorpusError listing every problem: no folder, no cases.json, no case, a manifest that
 *   is not exactly the shape above, a file missing or outside its folder, a document no case names.
 */
export function loadCorpus(root: string = corpusRoot()): Corpus {
  const problems: string[] = [];
  let folders: string[];
  try {
    folders = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CorpusError(root, [
      code === 'ENOENT'
        ? `there is no such folder: the conformance corpus (test-vectors/<format folder>/cases.json) is missing; every door's runner needs it (or ${CORPUS_DIRECTORY_VARIABLE} naming a corpus folder)`
        : `the folder cannot be read (${code ?? String(error)})`,
    ]);
  }
  const manifests: CorpusManifest[] = [];
  const skipped: string[] = [];
  for (const folder of folders) {
    const directory = join(root, folder);
    const exists = isFile(join(directory, CASES_NAME));
    if (!exists) {
      // A folder of other test data (key files, say) is no format folder: its README says so.
      if (!isFile(join(directory, README_NAME)))
        problems.push(`${folder}/: no ${CASES_NAME}, and no ${README_NAME} saying what the folder holds instead`);
      else skipped.push(folder);
      continue;
    }
    const manifest = readManifest(folder, directory, problems);
    if (manifest !== undefined) manifests.push(manifest);
  }
  const cases = manifests.flatMap((manifest) => manifest.cases);
  if (folders.length === skipped.length) problems.push(`no format folder with a ${CASES_NAME}`);
  else if (cases.length === 0 && problems.length === 0) problems.push('no case in any cases.json');
  if (problems.length > 0) throw new CorpusError(root, problems);
  return { root, manifests, cases, skipped };
}

/**
 * {@link loadCorpus}, for a test file's top level: the corpus, or the error a first test throws.
 *
 * @returns The cases (none when the corpus cannot be used) and the error, if any.
 */
export function tryLoadCorpus(): { corpus?: Corpus; cases: CorpusCase[]; error?: Error } {
  try {
    const corpus = loadCorpus();
    return { corpus, cases: corpus.cases };
  } catch (error) {
    return { cases: [], error: error instanceof Error ? error : new Error(String(error)) };
  }
}

/**
 * Cases grouped by the key file they are verified with (none, or one file), in corpus order:
 * a door that takes one set of keys per run (the CLI, a bundle, a page) runs one group at a time,
 * so that no case is judged with another case's keys.
 *
 * @param cases - The cases.
 * @returns The groups, each keyed by its folder and key file.
 */
export function groupByKeys(
  cases: readonly CorpusCase[],
): { label: string; keys?: CorpusKeyFile; cases: CorpusCase[] }[] {
  const groups = new Map<string, { label: string; keys?: CorpusKeyFile; cases: CorpusCase[] }>();
  for (const entry of cases) {
    const label = `${entry.formatDir}${entry.keys === undefined ? ' without keys' : ` with ${entry.keys.name}`}`;
    let group = groups.get(label);
    if (group === undefined) {
      group = entry.keys === undefined ? { label, cases: [] } : { label, keys: entry.keys, cases: [] };
      groups.set(label, group);
    }
    group.cases.push(entry);
  }
  return [...groups.values()];
}

function readManifest(folder: string, directory: string, problems: string[]): CorpusManifest | undefined {
  const where = `${folder}/${CASES_NAME}`;
  let value: JsonValue;
  try {
    value = toPlain(parseJsonBytes(readFileSync(join(directory, CASES_NAME))));
  } catch (error) {
    problems.push(`${where}: not strict JSON (${error instanceof Error ? error.message : String(error)})`);
    return undefined;
  }
  const before = problems.length;
  const top = objectOf(value, where, MANIFEST_MEMBERS, ['format_dir', 'producer', 'cases'], problems);
  if (top === undefined) return undefined;
  if (top['format_dir'] !== folder) {
    problems.push(
      `${where}: "format_dir" must be the folder's name ${JSON.stringify(folder)}, got ${JSON.stringify(top['format_dir'])}`,
    );
  }
  const producer = objectOf(top['producer'], `${where} /producer`, PRODUCER_MEMBERS, PRODUCER_MEMBERS, problems);
  if (producer !== undefined) {
    if (typeof producer['repo'] !== 'string' || !REPO_PATTERN.test(producer['repo']))
      problems.push(`${where} /producer/repo: must be "owner/name", got ${JSON.stringify(producer['repo'])}`);
    if (typeof producer['commit'] !== 'string' || !COMMIT_PATTERN.test(producer['commit']))
      problems.push(
        `${where} /producer/commit: must be 40 lowercase hex digits, got ${JSON.stringify(producer['commit'])}`,
      );
    const paths = producer['paths'];
    if (!Array.isArray(paths) || paths.length === 0 || !paths.every((path) => typeof path === 'string' && path !== ''))
      problems.push(`${where} /producer/paths: must be a non-empty list of paths in the producer's repository`);
  }
  const list = top['cases'];
  if (!Array.isArray(list) || list.length === 0) {
    problems.push(`${where} /cases: must be a non-empty list of cases`);
    return undefined;
  }
  const cases: CorpusCase[] = [];
  const named = new Set<string>();
  const ids = new Set<string>();
  list.forEach((item, index) => {
    // A case with problems still names its files: they are not reported as unnamed too.
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      for (const member of ['file', 'keys']) {
        const value = (item as Record<string, JsonValue>)[member];
        if (typeof value === 'string') named.add(value);
      }
    }
    const entry = readCase(item, `${where} /cases/${index}`, folder, directory, problems);
    if (entry === undefined) return;
    if (ids.has(entry.id)) problems.push(`${where} /cases/${index}: ${entry.id} is listed twice`);
    ids.add(entry.id);
    named.add(entry.file);
    if (entry.keys !== undefined) named.add(entry.keys.name);
    cases.push(entry);
  });
  // Every document of the folder is a case (or a key file of one), so none is left unchecked;
  // another JSON file (a fixture a format's own tests read) is named in the README, which says why.
  const readme = isFile(join(directory, README_NAME)) ? readFileSync(join(directory, README_NAME), 'utf8') : '';
  for (const file of jsonFiles(directory)) {
    if (file !== CASES_NAME && !named.has(file) && !readme.includes(file))
      problems.push(
        `${folder}/${file}: a JSON file that no case of ${CASES_NAME} names (as "file" or "keys") and ${README_NAME} does not mention`,
      );
  }
  if (problems.length > before) return undefined;
  return {
    formatDir: folder,
    directory,
    producer: producer as unknown as CorpusManifest['producer'],
    cases,
  };
}

function readCase(
  item: JsonValue,
  where: string,
  folder: string,
  directory: string,
  problems: string[],
): CorpusCase | undefined {
  const before = problems.length;
  const entry = objectOf(item, where, CASE_MEMBERS, ['file', 'format', 'status', 'producer_verdict', 'note'], problems);
  if (entry === undefined) return undefined;
  const file = inFolder(entry['file'], `${where}/file`, directory, problems);
  const format = entry['format'];
  if (typeof format !== 'string' || !isKnownFormat(format))
    problems.push(`${where}/format: not a report format the verifier knows: ${JSON.stringify(format)}`);
  const status = entry['status'];
  if (typeof status !== 'string' || !(STATUS_PRECEDENCE as readonly string[]).includes(status))
    problems.push(`${where}/status: must be one of ${STATUS_PRECEDENCE.join(', ')}, got ${JSON.stringify(status)}`);
  const trust = entry['trust'];
  if (trust !== undefined && (typeof trust !== 'string' || !(TRUST_STATUSES as readonly string[]).includes(trust)))
    problems.push(`${where}/trust: must be one of ${TRUST_STATUSES.join(', ')}, got ${JSON.stringify(trust)}`);
  const verdict = entry['producer_verdict'];
  if (typeof verdict !== 'string' || !(PRODUCER_VERDICTS as readonly string[]).includes(verdict))
    problems.push(
      `${where}/producer_verdict: must be one of ${PRODUCER_VERDICTS.join(', ')}, got ${JSON.stringify(verdict)}`,
    );
  const error = entry['error'];
  if (error !== undefined && (typeof error !== 'string' || !/^[a-z0-9_]+$/.test(error)))
    problems.push(`${where}/error: must be an error code (lowercase letters, digits, _), got ${JSON.stringify(error)}`);
  const note = entry['note'];
  if (typeof note !== 'string' || note.trim() === '' || /[\r\n]/.test(note))
    problems.push(`${where}/note: must be one non-empty line`);
  const keys = entry['keys'] === undefined ? undefined : inFolder(entry['keys'], `${where}/keys`, directory, problems);
  const facts = entry['facts'] === undefined ? undefined : readFacts(entry['facts'], `${where}/facts`, problems);
  if (problems.length > before || file === undefined) return undefined;
  const name = entry['file'] as string;
  const keyName = entry['keys'] as string | undefined;
  return {
    id: `${folder}/${name}${keyName === undefined ? '' : ` with ${keyName}`}`,
    formatDir: folder,
    directory,
    file: name,
    path: file,
    bytes: new Uint8Array(readFileSync(file)),
    format: format as ReportFormat,
    status: status as ReportStatus,
    ...(trust === undefined ? {} : { trust: trust as TrustStatus }),
    ...(keys === undefined ? {} : { keys: { name: keyName as string, path: keys, text: readFileSync(keys, 'utf8') } }),
    producerVerdict: verdict as ProducerVerdict,
    ...(error === undefined ? {} : { error: error as string }),
    note: note as string,
    ...(facts === undefined ? {} : { facts }),
  };
}

function readFacts(value: JsonValue, where: string, problems: string[]): CorpusFacts | undefined {
  const facts = objectOf(value, where, FACT_MEMBERS, [], problems);
  if (facts === undefined) return undefined;
  for (const name of FACT_MEMBERS) {
    const fact = facts[name];
    if (fact !== undefined && fact !== null && typeof fact !== 'string')
      problems.push(`${where}/${name}: must be a string or null`);
  }
  const issued = facts['issued_at'];
  if (typeof issued === 'string' && !INSTANT_PATTERN.test(issued))
    problems.push(`${where}/issued_at: must be an RFC 3339 instant, got ${JSON.stringify(issued)}`);
  return facts as CorpusFacts;
}

/** A relative path to a regular file inside the folder, as an absolute path. */
function inFolder(
  value: JsonValue | undefined,
  where: string,
  directory: string,
  problems: string[],
): string | undefined {
  if (typeof value !== 'string' || value === '' || isAbsolute(value) || value.includes('\\')) {
    problems.push(`${where}: must be a relative path inside the folder, got ${JSON.stringify(value)}`);
    return undefined;
  }
  const path = resolve(directory, value);
  const inside = relative(directory, path);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside) || inside.split(sep).join('/') !== value) {
    problems.push(
      `${where}: must be a plain relative path inside the folder (no "..", no "./"), got ${JSON.stringify(value)}`,
    );
    return undefined;
  }
  try {
    if (!statSync(path).isFile()) throw new Error('not a file');
  } catch {
    problems.push(`${where}: ${JSON.stringify(value)} is not a file of the folder`);
    return undefined;
  }
  return path;
}

function objectOf(
  value: JsonValue | undefined,
  where: string,
  known: readonly string[],
  required: readonly string[],
  problems: string[],
): Record<string, JsonValue> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${where}: must be an object`);
    return undefined;
  }
  const object = value as Record<string, JsonValue>;
  for (const name of Object.keys(object))
    if (!known.includes(name))
      problems.push(`${where}: unknown member ${JSON.stringify(name)} (known: ${known.join(', ')})`);
  for (const name of required)
    if (!Object.hasOwn(object, name)) problems.push(`${where}: required member ${JSON.stringify(name)} is missing`);
  return object;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isKnownFormat(format: string): boolean {
  return format === 'unknown' || formatModules().some((module) => module.owns(format));
}

/** The folder's .json files, relative with `/`, recursively. */
function jsonFiles(directory: string, prefix = ''): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(directory, prefix), { withFileTypes: true })) {
    const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...jsonFiles(directory, name));
    else if (entry.name.endsWith('.json')) files.push(name);
  }
  return files.sort();
}
