#!/usr/bin/env node
// The dependency audit (issue 15): `npm audit --omit=dev --json` over package-lock.json, each
// advisory compared with the committed answers (security/audit-answers.json: advisory,
// package, and why it does not affect us or what was done).
//
//   node scripts/audit.mjs [--root DIR] [--registry URL]      (npm run audit:deps)
//
// - Fails (exit 1) on an advisory of a production dependency that no answer covers, and on an
//   answer that matches no advisory any more (stale), so the list cannot rot.
// - An advisory is named by its GitHub id (GHSA-xxxx-xxxx-xxxx, from its URL), or npm:<id>
//   when it has none; an answer covers that advisory in that package.
// - Fails clearly (exit 2, "nothing was checked") when the advisories cannot be fetched: the
//   registry refuses or cannot be reached, or npm's answer is not an audit report. It never
//   passes without a report.
// - --registry points npm at another registry (the test serves one on 127.0.0.1).
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError as AuditError, readAnswers as readAnswersFile, runScript, verdict } from './answers.mjs';

const REPOSITORY = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ANSWERS = 'security/audit-answers.json';
const SEVERITIES = ['critical', 'high', 'moderate', 'low', 'info'];
const NPM_TIMEOUT_MS = 180_000;

function parseArguments(argv) {
  const options = { root: REPOSITORY, registry: undefined };
  for (let index = 0; index < argv.length; index += 1) {
    const name = argv[index];
    const value = argv[index + 1];
    if ((name === '--root' || name === '--registry') && value !== undefined && !value.startsWith('--')) {
      if (name === '--root') options.root = resolve(value);
      else options.registry = value;
      index += 1;
    } else throw new AuditError(`unknown argument "${name}" (usage: audit.mjs [--root DIR] [--registry URL])`);
  }
  return options;
}

/** The answers: {"answers": [{advisory, package, reason}]}, errors with a JSON Pointer. */
function readAnswers(root) {
  return readAnswersFile(join(root, ANSWERS), ANSWERS, {
    members: ['advisory', 'package', 'reason'],
    check(answer, at, fail) {
      if (
        typeof answer.advisory !== 'string' ||
        !/^(GHSA-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}|npm:\d+)$/.test(answer.advisory)
      ) {
        fail(`${at}/advisory`, 'must be a GitHub advisory id such as GHSA-xxxx-xxxx-xxxx, or npm:<id>');
      }
      if (typeof answer.package !== 'string' || !/^(@[a-z0-9._~-]+\/)?[a-z0-9._~-]+$/.test(answer.package))
        fail(`${at}/package`, 'must be an npm package name');
      if (typeof answer.reason !== 'string' || answer.reason.trim().length < 20)
        fail(`${at}/reason`, 'must say in words why it does not affect us or what was done (at least 20 characters)');
    },
    key: (answer) => `${answer.advisory} ${answer.package}`,
    duplicate: (answer) => `a second answer for ${answer.advisory} in ${answer.package}`,
  });
}

/** Runs npm audit and returns its report, or throws AuditError saying why there is none. */
function runAudit(options) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = ['audit', '--omit=dev', '--json', ...(options.registry ? ['--registry', options.registry] : [])];
  const run = spawnSync(npm, args, {
    cwd: options.root,
    encoding: 'utf8',
    timeout: NPM_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  const command = `npm ${args.join(' ')}`;
  if (run.error)
    throw new AuditError(
      `${command} could not run (${run.error.code === 'ETIMEDOUT' ? `no answer in ${NPM_TIMEOUT_MS / 1000} s` : run.error.message}); nothing was checked`,
    );
  let report;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    const said =
      run.stderr
        .split('\n')
        .filter((line) => line.startsWith('npm error'))
        .join('; ') || `exit ${run.status}, no JSON`;
    throw new AuditError(`${command} gave no audit report (${said}); nothing was checked`);
  }
  if (
    report?.auditReportVersion !== 2 ||
    typeof report.vulnerabilities !== 'object' ||
    report.vulnerabilities === null
  ) {
    const why = report?.message ?? report?.error?.summary ?? report?.error?.code ?? 'not an audit report';
    throw new AuditError(`npm audit could not fetch the advisories: ${why}; nothing was checked`);
  }
  return report;
}

/** The advisories of a report, one per advisory and package. */
function advisoriesOf(report) {
  const found = new Map();
  for (const vulnerability of Object.values(report.vulnerabilities)) {
    for (const via of vulnerability.via ?? []) {
      // A string names another vulnerable package (a path to it); its advisory is listed there.
      if (typeof via !== 'object' || via === null) continue;
      const ghsa = /\/(GHSA-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4})\b/.exec(via.url ?? '')?.[1];
      const advisory = ghsa ?? `npm:${via.source}`;
      const item = {
        advisory,
        package: via.name,
        title: via.title ?? '',
        severity: via.severity ?? 'unknown',
        range: via.range ?? '',
        url: via.url ?? '',
      };
      found.set(`${advisory} ${via.name}`, item);
    }
  }
  return [...found.values()].sort(
    (a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || (a.package < b.package ? -1 : 1),
  );
}

function main() {
  const options = parseArguments(process.argv.slice(2));
  const answers = readAnswers(options.root);
  const report = runAudit(options);
  const advisories = advisoriesOf(report);
  const answerOf = (item) =>
    answers.find((answer) => answer.advisory === item.advisory && answer.package === item.package);
  const counts = SEVERITIES.map(
    (severity) => `${severity} ${advisories.filter((item) => item.severity === severity).length}`,
  );
  const production = report.metadata?.dependencies?.prod;
  console.log(
    `npm audit --omit=dev: ${advisories.length} advisories (${counts.join(', ')}); npm counted ${production ?? '?'} production dependencies`,
  );
  const describe = (item) => `${item.severity} ${item.advisory} ${item.package} ${item.range}: ${item.title}`;
  for (const item of advisories.filter(answerOf))
    console.log(`  ${describe(item)}; answered: ${answerOf(item).reason}`);
  const problems = [
    ...advisories.filter((item) => !answerOf(item)).map((item) => `unanswered ${describe(item)} (${item.url})`),
    ...answers
      .filter(
        (answer) => !advisories.some((item) => item.advisory === answer.advisory && item.package === answer.package),
      )
      .map(
        (answer) =>
          `stale answer: ${answer.advisory} in ${answer.package} is not reported any more; remove it from ${ANSWERS}`,
      ),
  ];
  return verdict(
    problems,
    'every advisory of a production dependency is answered',
    `upgrade the dependency, or answer the advisory in ${ANSWERS}`,
  );
}

runScript('audit', main);
