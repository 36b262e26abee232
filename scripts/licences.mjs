#!/usr/bin/env node
// Licences of the shipped dependencies (issue 15): every package of the production tree, its
// version and licence, written to docs/licences.md, and every licence checked against a
// permissive allow-list.
//
//   node scripts/licences.mjs [--check] [--root DIR]      (npm run licences)
//
// - The production tree is package-lock.json's packages without `dev: true`: what
//   `npm ci --omit=dev` installs, optional dependencies included (Electron, the anvil binary,
//   esbuild's per-platform binaries, whether or not this machine installed them).
// - A package's licence is its package.json `license` (or the old `licenses` list, read as a
//   choice: OR) when the package is installed here, the LICENSE file's text when that field is
//   missing, and the lockfile's `license` for a package this platform does not install. An
//   installed package whose version is not the lockfile's is an error (run npm ci).
// - Permissive: SPDX expressions over ALLOWED below (OR: one side suffices; AND: both must be),
//   plus the licences answered in security/licence-answers.json, each with the reason it was
//   accepted. An answer no shipped package uses fails as stale.
// - Writes docs/licences.md; with --check writes nothing and fails when the file is not what
//   it would write (scripts/licences.test.ts runs that, so the list stays current).
//
// Exit status: 0 all permissive (and, with --check, the file current); 1 a licence not
// permissive, a stale answer or (--check) a stale docs/licences.md; 2 bad input.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError, readAnswers as readAnswersFile, readJson, runScript, verdict } from './answers.mjs';

const REPOSITORY = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Permissive licences accepted without an answer (SPDX ids). CC-BY-4.0 is for data files. */
const ALLOWED = [
  'MIT',
  'ISC',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'Apache-2.0',
  '0BSD',
  'MIT-0',
  'BlueOak-1.0.0',
  'CC0-1.0',
  'Unlicense',
  'Python-2.0',
  'CC-BY-4.0',
];
/** How a LICENSE file's text names its licence, for packages whose package.json does not. */
const LICENSE_TEXTS = [
  ['MIT', /Permission is hereby granted, free of charge, to any person obtaining a copy/],
  [
    'ISC',
    /Permission to use, copy, modify, and\/or distribute this software for any\s+purpose with or without fee is hereby granted/,
  ],
  ['Apache-2.0', /Apache License,?\s+Version 2\.0/],
  ['BSD-3-Clause', /Redistribution and use in source and binary forms[\s\S]*Neither the name/],
  ['BSD-2-Clause', /Redistribution and use in source and binary forms/],
  [
    '0BSD',
    /Permission to use, copy, modify, and\/or distribute this software for any purpose with or without fee is hereby granted\.\s+THE SOFTWARE IS PROVIDED "AS IS"/,
  ],
];
const DOCUMENT = 'docs/licences.md';
const ANSWERS = 'security/licence-answers.json';

function parseArguments(argv) {
  const options = { check: false, root: REPOSITORY };
  for (let index = 0; index < argv.length; index += 1) {
    if (argv[index] === '--check') options.check = true;
    else if (argv[index] === '--root' && argv[index + 1] !== undefined) {
      options.root = resolve(argv[index + 1]);
      index += 1;
    } else throw new InputError(`unknown argument "${argv[index]}" (usage: licences.mjs [--check] [--root DIR])`);
  }
  return options;
}

/** The accepted extra licences: {"answers": [{licence, reason}]}, errors with a JSON Pointer. */
function readAnswers(root) {
  return readAnswersFile(join(root, ANSWERS), ANSWERS, {
    members: ['licence', 'reason'],
    check(answer, at, fail) {
      if (typeof answer.licence !== 'string' || !/^[A-Za-z0-9.+-]+$/.test(answer.licence))
        fail(`${at}/licence`, 'must be one SPDX licence id such as Zlib');
      if (ALLOWED.includes(answer.licence))
        fail(`${at}/licence`, `${answer.licence} is allowed already; remove the answer`);
      if (typeof answer.reason !== 'string' || answer.reason.trim().length < 20)
        fail(`${at}/reason`, 'must say in words why the licence is accepted (at least 20 characters)');
    },
    key: (answer) => answer.licence,
    duplicate: (answer) => `a second answer for ${answer.licence}`,
  });
}

/** The licence named by a package.json: `license`, or the old `licenses` list (a choice). */
function manifestLicence(manifest) {
  const one = (value) => (typeof value === 'string' ? value : typeof value?.type === 'string' ? value.type : undefined);
  if (manifest.license !== undefined) return one(manifest.license);
  if (Array.isArray(manifest.licenses)) {
    const names = manifest.licenses.map(one);
    if (names.length > 0 && names.every(Boolean)) return names.length === 1 ? names[0] : `(${names.join(' OR ')})`;
  }
  return undefined;
}

/** The licence a package's LICENSE file states, when its text is one we recognise. */
function licenceFileLicence(folder) {
  const file = readdirSync(folder).find((name) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(name));
  if (!file) return undefined;
  const text = readFileSync(join(folder, file), 'utf8');
  return LICENSE_TEXTS.find(([, pattern]) => pattern.test(text))?.[0];
}

/** The production packages of the lockfile, one per name and version, with their licences. */
function shippedPackages(root) {
  const lock = readJson(join(root, 'package-lock.json'), 'package-lock.json');
  if (!lock || typeof lock.packages !== 'object' || lock.packages === null)
    throw new InputError('package-lock.json: /packages: missing (lockfileVersion 2 or later is needed)');
  const packages = new Map();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || entry.link === true) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (typeof entry.version !== 'string')
      throw new InputError(
        `package-lock.json: /packages/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/version: missing`,
      );
    const folder = join(root, path);
    let licence;
    let source;
    if (existsSync(join(folder, 'package.json'))) {
      const manifest = readJson(join(folder, 'package.json'), `${path}/package.json`);
      if (manifest.version !== entry.version) {
        throw new InputError(
          `${path} is ${manifest.version} here but ${entry.version} in package-lock.json: run npm ci`,
        );
      }
      licence = manifestLicence(manifest);
      source = 'package.json';
      if (licence === undefined) {
        licence = licenceFileLicence(folder);
        source = 'LICENSE file';
      }
    } else {
      licence = typeof entry.license === 'string' ? entry.license : undefined;
      source = 'package-lock.json';
    }
    const key = `${name}@${entry.version}`;
    if (!packages.has(key))
      packages.set(key, {
        name,
        version: entry.version,
        licence: licence ?? 'UNKNOWN',
        fromFile: source === 'LICENSE file' && licence !== undefined,
      });
  }
  return [...packages.values()].sort((a, b) =>
    a.name === b.name ? compareVersions(a.version, b.version) : a.name < b.name ? -1 : 1,
  );
}

function compareVersions(a, b) {
  const left = a.split(/[.+-]/).map(Number);
  const right = b.split(/[.+-]/).map(Number);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0 && !Number.isNaN(difference)) return difference;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Parses an SPDX expression (ids, `+`, WITH, AND, OR, parentheses; AND binds tighter) into
 * a tree, or undefined when it is not one.
 */
function parseExpression(text) {
  const tokens = text.match(/\(|\)|[^\s()]+/g) ?? [];
  let position = 0;
  const peek = () => tokens[position];
  const primary = () => {
    const token = tokens[position++];
    if (token === '(') {
      const inner = or();
      if (tokens[position++] !== ')') throw new Error('unbalanced');
      return inner;
    }
    if (token === undefined || token === ')' || /^(AND|OR|WITH)$/.test(token)) throw new Error('an id expected');
    if (peek() === 'WITH') {
      position += 1;
      const exception = tokens[position++];
      if (exception === undefined) throw new Error('an exception expected');
      return { id: `${token} WITH ${exception}` };
    }
    return { id: token };
  };
  const and = () => {
    let left = primary();
    while (peek() === 'AND') {
      position += 1;
      left = { and: [left, primary()] };
    }
    return left;
  };
  const or = () => {
    let left = and();
    while (peek() === 'OR') {
      position += 1;
      left = { or: [left, and()] };
    }
    return left;
  };
  try {
    const tree = or();
    return position === tokens.length ? tree : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an expression tree is permissive, given the accepted ids; records the ids it relied on. */
function permissive(tree, accepted, used) {
  if (tree.id !== undefined) {
    const ok = accepted.has(tree.id);
    if (ok) used.add(tree.id);
    return ok;
  }
  if (tree.and) return tree.and.map((part) => permissive(part, accepted, used)).every(Boolean);
  return tree.or.map((part) => permissive(part, accepted, used)).some(Boolean);
}

/** docs/licences.md's text. */
function render(packages, answers) {
  const counts = new Map();
  for (const item of packages) counts.set(item.licence, (counts.get(item.licence) ?? 0) + 1);
  const summary = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const cell = (text) => text.replaceAll('|', '\\|');
  return [
    '# Licences of the shipped dependencies',
    '',
    'Written by `npm run licences` (scripts/licences.mjs) from package-lock.json: every package of',
    'the production tree (what `npm ci --omit=dev` installs, optional dependencies included), one',
    'row per name and version. Do not edit by hand; `scripts/licences.test.ts` fails when this file',
    'is not what the script writes. Every licence is permissive: from the allow-list',
    `(${ALLOWED.join(', ')}) or answered in ${ANSWERS}.`,
    '',
    `${packages.length} packages. Licences: ${summary.map(([licence, count]) => `${licence} ${count}`).join(', ')}.`,
    '',
    ...(answers.length > 0
      ? ['Accepted beyond the allow-list:', '', ...answers.map((answer) => `- ${answer.licence}: ${answer.reason}`), '']
      : []),
    '| package | version | licence |',
    '| --- | --- | --- |',
    ...packages.map(
      (item) =>
        `| ${cell(item.name)} | ${cell(item.version)} | ${cell(item.licence)}${item.fromFile ? ' (LICENSE file)' : ''} |`,
    ),
    '',
  ].join('\n');
}

function main() {
  const options = parseArguments(process.argv.slice(2));
  const answers = readAnswers(options.root);
  const packages = shippedPackages(options.root);
  const accepted = new Set([...ALLOWED, ...answers.map((answer) => answer.licence)]);
  const used = new Set();
  const problems = [];
  for (const item of packages) {
    const tree = parseExpression(item.licence);
    if (tree === undefined)
      problems.push(`${item.name}@${item.version}: licence "${item.licence}" is not an SPDX expression`);
    else if (!permissive(tree, accepted, used))
      problems.push(
        `${item.name}@${item.version}: licence "${item.licence}" is not permissive (allowed: ${[...accepted].join(', ')})`,
      );
  }
  for (const answer of answers)
    if (!used.has(answer.licence))
      problems.push(`stale answer: no shipped package needs ${answer.licence}; remove it from ${ANSWERS}`);

  const text = render(packages, answers);
  const target = join(options.root, DOCUMENT);
  if (options.check) {
    const current = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    if (current !== text)
      problems.push(
        `${DOCUMENT} is ${current === undefined ? 'missing' : 'out of date'}: run npm run licences and commit it`,
      );
  } else {
    writeFileSync(target, text);
  }
  const counts = new Set(packages.map((item) => item.licence)).size;
  console.log(
    `${packages.length} shipped packages, ${counts} distinct licence expressions${options.check ? '' : `; wrote ${relative(options.root, target)}`}`,
  );
  return verdict(problems, 'every shipped licence is permissive');
}

runScript('licences', main);
