import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The licence list of the shipped dependencies (scripts/licences.mjs): docs/licences.md is
// what the script writes now, every licence is permissive, and the check fails when not.
const script = fileURLToPath(new URL('./licences.mjs', import.meta.url));
const temporary = mkdtempSync(join(tmpdir(), 'evroom-licences-test-'));
const MIT_TEXT =
  'MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software...\n';

function licences(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

interface FixturePackage {
  version: string;
  /** The lockfile's license field. */
  lockLicense?: string;
  dev?: boolean;
  /** Installed: its package.json (the version is added) and other files; absent: not installed. */
  installed?: { manifest: Record<string, unknown>; files?: Record<string, string> };
}

/** A project: a lockfile over the given packages, those installed, and an answers file. */
function project(name: string, packages: Record<string, FixturePackage>, answers: unknown = { answers: [] }): string {
  const root = join(temporary, name);
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const entries: Record<string, unknown> = { '': { name, version: '1.0.0' } };
  for (const [path, item] of Object.entries(packages)) {
    entries[path] = {
      version: item.version,
      ...(item.lockLicense ? { license: item.lockLicense } : {}),
      ...(item.dev ? { dev: true } : {}),
    };
    if (item.installed) {
      write(`${path}/package.json`, JSON.stringify({ version: item.version, ...item.installed.manifest }));
      for (const [file, text] of Object.entries(item.installed.files ?? {})) write(`${path}/${file}`, text);
    }
  }
  write('package-lock.json', JSON.stringify({ name, lockfileVersion: 3, packages: entries }));
  write('security/licence-answers.json', JSON.stringify(answers));
  mkdirSync(join(root, 'docs'), { recursive: true });
  return root;
}

const permissiveSet: Record<string, FixturePackage> = {
  'node_modules/alpha': { version: '1.2.0', lockLicense: 'MIT', installed: { manifest: { license: 'MIT' } } },
  'node_modules/beta': { version: '2.0.0', installed: { manifest: {}, files: { LICENSE: MIT_TEXT } } },
  'node_modules/gamma': { version: '0.1.0', lockLicense: '(MIT OR GPL-3.0-or-later)' },
  'node_modules/alpha/node_modules/beta': {
    version: '1.0.0',
    installed: { manifest: { licenses: [{ type: 'MIT' }, { type: 'Apache-2.0' }] } },
  },
  'node_modules/tool': { version: '9.9.9', dev: true, lockLicense: 'GPL-3.0-only' },
};

describe('scripts/licences.mjs', () => {
  afterAll(() => rmSync(temporary, { recursive: true, force: true }));

  it('docs/licences.md is current and every shipped licence is permissive', () => {
    const result = licences('--check');
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      /^\d+ shipped packages, \d+ distinct licence expressions\nPASS: every shipped licence is permissive\n$/,
    );
    expect(result.status).toBe(0);
    const document = readFileSync(new URL('../docs/licences.md', import.meta.url), 'utf8');
    // The app's own production dependencies are listed, and no dev-only one is.
    for (const name of ['better-sqlite3', 'fastify', 'react', 'viem', 'jszip', 'electron'])
      expect(document).toMatch(new RegExp(`^\\| ${name} \\| \\d`, 'm'));
    for (const name of ['vitest', 'eslint', 'playwright-core', '@doyensec/electronegativity'])
      expect(document).not.toMatch(new RegExp(`^\\| ${name} \\|`, 'm'));
  });

  it('lists production packages from package.json, the LICENSE file or the lockfile, and passes them', () => {
    const root = project('permissive', permissiveSet);
    const result = licences('--root', root);
    expect(result.stdout).toBe(
      '4 shipped packages, 3 distinct licence expressions; wrote docs/licences.md\nPASS: every shipped licence is permissive\n',
    );
    expect(result.status).toBe(0);
    const document = readFileSync(join(root, 'docs/licences.md'), 'utf8');
    expect(document).toContain(
      '| alpha | 1.2.0 | MIT |\n| beta | 1.0.0 | (MIT OR Apache-2.0) |\n| beta | 2.0.0 | MIT (LICENSE file) |\n| gamma | 0.1.0 | (MIT OR GPL-3.0-or-later) |\n',
    );
    expect(document).not.toContain('tool');
    expect(licences('--root', root, '--check').status).toBe(0);
  });

  it('fails on a licence that is not permissive, naming the package', () => {
    const root = project('copyleft', {
      ...permissiveSet,
      'node_modules/strong': { version: '3.0.0', installed: { manifest: { license: 'GPL-3.0-only' } } },
      'node_modules/both': { version: '1.0.0', lockLicense: 'MIT AND LGPL-2.1-only' },
      'node_modules/nameless': { version: '1.0.0', installed: { manifest: {} } },
    });
    const result = licences('--root', root);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('FAIL: 3 problems\n');
    expect(result.stdout).toMatch(
      /^ {2}strong@3\.0\.0: licence "GPL-3\.0-only" is not permissive \(allowed: MIT, ISC, /m,
    );
    expect(result.stdout).toMatch(/^ {2}both@1\.0\.0: licence "MIT AND LGPL-2\.1-only" is not permissive/m);
    expect(result.stdout).toMatch(/^ {2}nameless@1\.0\.0: licence "UNKNOWN" is not permissive/m);
  });

  it('accepts a licence answered with a reason, and fails an answer nothing needs', () => {
    const reason = 'a permissive licence accepted for this fixture';
    const zlib = { ...permissiveSet, 'node_modules/inflate': { version: '1.0.0', lockLicense: '(MIT AND Zlib)' } };
    expect(licences('--root', project('zlib-unanswered', zlib)).status).toBe(1);
    const answered = licences('--root', project('zlib-answered', zlib, { answers: [{ licence: 'Zlib', reason }] }));
    expect(answered.status).toBe(0);
    const stale = licences('--root', project('zlib-stale', permissiveSet, { answers: [{ licence: 'Zlib', reason }] }));
    expect(stale.status).toBe(1);
    expect(stale.stdout).toContain(
      '  stale answer: no shipped package needs Zlib; remove it from security/licence-answers.json\n',
    );
  });

  it('--check fails when docs/licences.md is missing or not what the script writes', () => {
    const root = project('stale-document', permissiveSet);
    const missing = licences('--root', root, '--check');
    expect(missing.status).toBe(1);
    expect(missing.stdout).toContain('  docs/licences.md is missing: run npm run licences and commit it\n');
    expect(licences('--root', root).status).toBe(0);
    const file = join(root, 'docs/licences.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('| alpha | 1.2.0 | MIT |\n', ''));
    const edited = licences('--root', root, '--check');
    expect(edited.status).toBe(1);
    expect(edited.stdout).toContain('  docs/licences.md is out of date: run npm run licences and commit it\n');
  });

  it('refuses bad input clearly and writes nothing', () => {
    const mismatch = project('mismatch', {
      'node_modules/alpha': { version: '1.2.0', installed: { manifest: { license: 'MIT' } } },
    });
    writeFileSync(
      join(mismatch, 'node_modules/alpha/package.json'),
      JSON.stringify({ version: '1.3.0', license: 'MIT' }),
    );
    const result = licences('--root', mismatch);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'licences: node_modules/alpha is 1.3.0 here but 1.2.0 in package-lock.json: run npm ci\n',
    );

    const badAnswer = licences('--root', project('bad-answer', permissiveSet, { answers: [{ licence: 'Zlib' }] }));
    expect(badAnswer.status).toBe(2);
    expect(badAnswer.stderr).toBe(
      'licences: security/licence-answers.json: /answers/0/reason: must say in words why the licence is accepted (at least 20 characters)\n',
    );
    const allowed = licences(
      '--root',
      project('allowed-answer', permissiveSet, {
        answers: [{ licence: 'MIT', reason: 'answering what is allowed already' }],
      }),
    );
    expect(allowed.stderr).toBe(
      'licences: security/licence-answers.json: /answers/0/licence: MIT is allowed already; remove the answer\n',
    );
    const unknown = licences('--everything');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^licences: unknown argument "--everything"/);
  });
});
