#!/usr/bin/env node
// The Electron scan (issue 15): @doyensec/electronegativity over the app's TypeScript sources,
// gated on its SARIF output. Electronegativity itself exits 0 whatever it finds, so this script
// is the gate: every finding above LOW (MEDIUM, HIGH) fails it unless a committed answer
// (security/electronegativity-answers.json: rule, file, the reason in words) covers it, and an
// answer that no longer matches any such finding fails it too (stale), so the list cannot rot.
//
//   node scripts/electron-scan.mjs [--root DIR] [--answers FILE] [--sarif FILE]
//
// - What is scanned: the sources that ship in the app, src-main, src-shared and src-renderer
//   (TypeScript, TSX, HTML; not tests, not .d.ts), copied to a temporary folder with the
//   package.json, at their repository paths. The sources rather than out/: findings then name
//   the file and line a person edits, and electronegativity's parser cannot read two of the
//   built bundles (out/renderer's and a main-process chunk: "Unknown node type
//   ClassPrivateProperty"), while it reads every source file. The main window's webPreferences
//   are an object literal in src-main/app/main.ts, which it analyses.
// - Severity: electronegativity's SARIF gives each result only a level ("warning", or "note"
//   when it wants a manual review). Its own severity (INFORMATIONAL, LOW, MEDIUM, HIGH) and
//   confidence come from the same run's results, which list the findings in the SARIF's order;
//   the script checks the two lists agree finding by finding and refuses to judge otherwise.
// - Offline and quick: the scanner runs in this process with the Electron version pinned in
//   package.json. Its two network uses are cut: the translation download (the English messages
//   ship with it) is answered "unavailable" without any request, and the check of Electron's
//   release list on GitHub (AVAILABLE_SECURITY_FIXES_GLOBAL_CHECK) is off; `npm run audit`
//   covers advisories of the pinned Electron instead.
// - A source file the scanner cannot parse fails the gate: the scan would be blind to it.
//
// Exit status: 0 the gate passes; 1 it fails (the list says why); 2 the scan could not be made
// or judged (bad arguments, a bad answers file, a scanner error).
import Module, { createRequire } from 'node:module';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError as ScanError, readAnswers as readAnswersFile, runScript, verdict as finish } from './answers.mjs';

const REPOSITORY = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The folders whose sources ship in the app. */
const SOURCE_FOLDERS = ['src-main', 'src-shared', 'src-renderer'];
/** The file kinds electronegativity analyses (it reads package.json apart). */
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.jsx', '.html', '.htm'];
/** Electronegativity's severities, lowest first; the gate fails on those after LOW. */
const SEVERITIES = ['INFORMATIONAL', 'LOW', 'MEDIUM', 'HIGH'];
const GATED = new Set(['MEDIUM', 'HIGH']);
/** Checks that need the network: off, so the scan is the same offline. */
const NETWORK_CHECKS = ['availablesecurityfixesglobalcheck'];
const ANSWER_KEYS = ['rule', 'file', 'reason'];
const MIN_REASON_LENGTH = 20;

/** Parses the command line. */
function parseArguments(argv) {
  const options = { root: REPOSITORY, answers: undefined, sarif: undefined };
  for (let index = 0; index < argv.length; index += 1) {
    const name = argv[index];
    const value = argv[index + 1];
    if (name !== '--root' && name !== '--answers' && name !== '--sarif') {
      throw new ScanError(
        `unknown argument "${name}" (usage: electron-scan.mjs [--root DIR] [--answers FILE] [--sarif FILE])`,
      );
    }
    if (value === undefined || value.startsWith('--')) throw new ScanError(`${name} needs a value`);
    options[name.slice(2)] = resolve(value);
    index += 1;
  }
  options.answers ??= join(options.root, 'security', 'electronegativity-answers.json');
  return options;
}

/** The pinned Electron version from the project's package.json (the scanner's defaults depend on it). */
function electronVersion(root) {
  const file = join(root, 'package.json');
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ScanError(`cannot read ${file}: ${error.message}`);
  }
  for (const field of ['dependencies', 'optionalDependencies', 'devDependencies']) {
    const version = manifest?.[field]?.electron;
    if (typeof version === 'string') {
      if (!/^\d+\.\d+\.\d+$/.test(version))
        throw new ScanError(`${file}: ${field}.electron must be an exact version, not "${version}"`);
      return version;
    }
  }
  throw new ScanError(`${file} pins no electron version`);
}

/** Reads and checks the answers file: {"answers": [{rule, file, reason}]}, errors with a JSON Pointer. */
function readAnswers(file, root) {
  return readAnswersFile(file, relative(root, file) || file, {
    members: ANSWER_KEYS,
    check(answer, at, fail) {
      for (const key of ANSWER_KEYS) if (typeof answer[key] !== 'string') fail(`${at}/${key}`, 'must be a string');
      if (!/^[A-Z0-9_]+_CHECK$/.test(answer.rule))
        fail(
          `${at}/rule`,
          `must be an electronegativity check id such as CONTEXT_ISOLATION_JS_CHECK, not "${answer.rule}"`,
        );
      if (
        answer.file === '' ||
        isAbsolute(answer.file) ||
        answer.file.includes('\\') ||
        answer.file.split('/').includes('..')
      ) {
        fail(`${at}/file`, `must be a path relative to the repository with forward slashes, not "${answer.file}"`);
      }
      if (answer.reason.trim().length < MIN_REASON_LENGTH)
        fail(
          `${at}/reason`,
          `must say in words why the finding does not apply (at least ${MIN_REASON_LENGTH} characters)`,
        );
    },
    key: (answer) => `${answer.rule} ${answer.file}`,
    duplicate: (answer) => `a second answer for ${answer.rule} in ${answer.file}`,
  });
}

/** Copies the shipped sources (no tests, no declarations) and package.json to a scan folder. */
function stageSources(root, stage) {
  let files = 0;
  const folders = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else if (
        entry.isFile() &&
        SOURCE_EXTENSIONS.some((extension) => entry.name.endsWith(extension)) &&
        !/\.test\.[cm]?[jt]sx?$/.test(entry.name) &&
        !entry.name.endsWith('.d.ts')
      ) {
        const target = join(stage, relative(root, path));
        mkdirSync(dirname(target), { recursive: true });
        cpSync(path, target);
        files += 1;
      }
    }
  };
  for (const folder of SOURCE_FOLDERS) {
    if (existsSync(join(root, folder))) {
      folders.push(folder);
      walk(join(root, folder));
    }
  }
  if (files === 0) throw new ScanError(`no sources to scan under ${root} (looked in ${SOURCE_FOLDERS.join(', ')})`);
  cpSync(join(root, 'package.json'), join(stage, 'package.json'));
  return { files, folders };
}

/**
 * Loads electronegativity with its HTTP client replaced, so the scan makes no request: the
 * translation download sees "unavailable" and keeps the English messages it ships.
 */
function loadScanner() {
  const require = createRequire(join(REPOSITORY, 'package.json'));
  const manifestPath = require.resolve('@doyensec/electronegativity/package.json');
  const scannerRequire = createRequire(manifestPath);
  const refused = [];
  const gotPath = createRequire(scannerRequire.resolve('@doyensec/electronegativity/dist/locales/i18n.js')).resolve(
    'got',
  );
  const offline = new Module(gotPath);
  offline.filename = gotPath;
  offline.loaded = true;
  offline.exports = (url) => {
    refused.push(String(url));
    return Promise.resolve({ statusCode: 503, body: '' });
  };
  Module._cache[gotPath] = offline;
  // Messages in the English that ships with the package, whatever the machine's locale.
  process.env.LANG = 'en-US';
  return { run: scannerRequire('@doyensec/electronegativity'), version: scannerRequire(manifestPath).version, refused };
}

/**
 * Reads the SARIF file. Electronegativity starts writing it without waiting for the write to
 * finish, so a missing or partial file is read again for up to ten seconds.
 */
async function readSarif(path) {
  let lastError;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    try {
      return JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      lastError = error;
      await new Promise((done) => setTimeout(done, 50));
    }
  }
  throw new ScanError(`electronegativity wrote no readable SARIF file (${lastError?.message})`);
}

/** Where a SARIF result points, as writeIssues spells it for a run's issue. */
function sarifKey(ruleId, uri, line, column) {
  return `${ruleId} ${uri} ${line}:${column}`;
}

/**
 * The findings: the SARIF's results, each with the severity and confidence of the run's issue
 * at the same place (same order, checked one by one).
 */
function findingsOf(sarif, issues) {
  const results = sarif?.runs?.[0]?.results;
  if (!Array.isArray(results)) throw new ScanError('the SARIF file has no runs[0].results');
  if (results.length !== issues.length)
    throw new ScanError(`the SARIF lists ${results.length} results but the scan found ${issues.length}`);
  return results.map((result, index) => {
    const issue = issues[index];
    const region = result.locations?.[0]?.physicalLocation?.region ?? {};
    const uri = result.locations?.[0]?.physicalLocation?.artifactLocation?.uri;
    const line = issue.location?.line === undefined ? 1 : issue.location.line === 0 ? 1 : issue.location.line;
    const column = issue.location?.column === undefined ? 1 : issue.location.column + 1;
    const expected = sarifKey(issue.id, issue.file !== 'N/A' ? issue.file : 'file:///', line, column);
    const found = sarifKey(result.ruleId, uri, region.startLine, region.startColumn);
    if (expected !== found)
      throw new ScanError(`SARIF result ${index} (${found}) is not the scan's finding ${index} (${expected})`);
    const severity = issue.severity?.name;
    if (!SEVERITIES.includes(severity)) throw new ScanError(`finding ${found} has an unknown severity "${severity}"`);
    return {
      rule: result.ruleId,
      file: uri === 'file:///' ? '(project)' : uri.split(sep).join('/'),
      line: region.startLine,
      column: region.startColumn,
      level: result.level,
      severity,
      confidence: issue.confidence?.name ?? 'UNKNOWN',
      message: result.message?.text ?? '',
    };
  });
}

/** Judges the findings against the answers. */
function judge(findings, answers) {
  const gated = findings.filter((finding) => GATED.has(finding.severity));
  const answerOf = (finding) => answers.find((answer) => answer.rule === finding.rule && answer.file === finding.file);
  return {
    answered: gated.filter((finding) => answerOf(finding)).map((finding) => ({ finding, answer: answerOf(finding) })),
    unanswered: gated.filter((finding) => !answerOf(finding)),
    stale: answers.filter(
      (answer) => !gated.some((finding) => finding.rule === answer.rule && finding.file === answer.file),
    ),
  };
}

function where(finding) {
  return `${finding.rule} ${finding.file}:${finding.line}:${finding.column}`;
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const version = electronVersion(options.root);
  const answers = readAnswers(options.answers, options.root);
  const scanner = loadScanner();
  const work = mkdtempSync(join(tmpdir(), 'evroom-electron-scan-'));
  try {
    const stage = join(work, 'sources');
    const staged = stageSources(options.root, stage);
    const sarifPath = join(work, 'electronegativity.sarif');
    const outcome = await scanner.run({
      input: stage,
      output: sarifPath,
      isSarif: true,
      isRelative: true,
      customScan: [],
      excludeFromScan: NETWORK_CHECKS,
      electronVersionOverride: version,
      parserPlugins: [],
    });
    const sarif = await readSarif(sarifPath);
    const findings = findingsOf(sarif, outcome.issues);
    const unparsed = outcome.errors
      .filter((error) => !error.tolerable)
      .map((error) => `${relative(stage, error.file).split(sep).join('/')}: ${error.message}`);
    const verdict = judge(findings, answers);

    const counts = SEVERITIES.slice()
      .reverse()
      .map((severity) => `${severity} ${findings.filter((finding) => finding.severity === severity).length}`);
    console.log(
      `electronegativity ${scanner.version}: ${outcome.globalChecks + outcome.atomicChecks} checks over ${staged.files} files of ${staged.folders.join(', ')} (Electron ${version}; offline, the GitHub release check off)`,
    );
    console.log(
      `findings: ${counts.join(', ')}; answered ${verdict.answered.length}; network requests refused: ${scanner.refused.length}`,
    );
    for (const finding of findings.filter((item) => !GATED.has(item.severity)))
      console.log(`  ${finding.severity.padEnd(13)} ${where(finding)} (${finding.confidence}, not gated)`);
    for (const { finding, answer } of verdict.answered)
      console.log(
        `  ${finding.severity.padEnd(13)} ${where(finding)} (${finding.confidence}) answered: ${answer.reason}`,
      );

    if (options.sarif) {
      // The SARIF as written, each result carrying its severity, confidence and answer.
      for (const [index, result] of sarif.runs[0].results.entries()) {
        const finding = findings[index];
        const answer = answers.find(
          (item) => item.rule === finding.rule && item.file === finding.file && GATED.has(finding.severity),
        );
        result.properties = {
          severity: finding.severity,
          confidence: finding.confidence,
          ...(answer ? { answer: answer.reason } : {}),
        };
      }
      mkdirSync(dirname(options.sarif), { recursive: true });
      writeFileSync(options.sarif, `${JSON.stringify(sarif, null, 2)}\n`);
    }

    const problems = [
      ...verdict.unanswered.map(
        (finding) => `unanswered ${finding.severity} ${where(finding)} (${finding.confidence}): ${finding.message}`,
      ),
      ...verdict.stale.map(
        (answer) =>
          `stale answer: ${answer.rule} in ${answer.file} matches no finding above LOW; remove it from ${relative(options.root, options.answers)}`,
      ),
      ...unparsed.map((message) => `not analysed (the scanner could not parse it): ${message}`),
    ];
    return finish(
      problems,
      'no finding above LOW is unanswered',
      `answer a finding in ${relative(options.root, options.answers)} with rule, file and reason, or fix it`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

runScript('electron-scan', main);
