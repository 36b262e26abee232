import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The Electron scan gate (scripts/electron-scan.mjs): real electronegativity over real files.
// The repository's own sources pass; a window with Node integration or without context
// isolation fails; answers are needed, used, and go stale.
const script = fileURLToPath(new URL('./electron-scan.mjs', import.meta.url));
const temporary = mkdtempSync(join(tmpdir(), 'evroom-electron-scan-test-'));
/** webPreferences members of a safe and of an unsafe window, and a strict renderer CSP. */
const SAFE = "contextIsolation: true, sandbox: true, nodeIntegration: false, disableBlinkFeatures: 'Auxclick'";
const UNSAFE = "contextIsolation: false, nodeIntegration: true, disableBlinkFeatures: 'Auxclick'";
const CSP = "default-src 'none'; script-src 'self'";

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function scan(...args: string[]): Run {
  const run = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A small project: package.json pinning Electron, the given files, and an answers file. */
function project(name: string, files: Record<string, string>, answers: unknown = { answers: [] }): string {
  const root = join(temporary, name);
  const all: Record<string, string> = {
    'package.json': JSON.stringify({ name, optionalDependencies: { electron: '39.8.10' } }),
    'security/electronegativity-answers.json': typeof answers === 'string' ? answers : JSON.stringify(answers),
    'src-renderer/index.html': `<!doctype html>\n<html><head><meta http-equiv="Content-Security-Policy" content="${CSP}"></head><body></body></html>\n`,
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A main process like ours, with the given webPreferences members. */
function mainWith(preferences: string): string {
  return [
    "import { app, BrowserWindow, session } from 'electron';",
    'app.whenReady().then(() => {',
    '  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));',
    `  const window = new BrowserWindow({ width: 800, height: 600, webPreferences: { ${preferences} } });`,
    "  window.webContents.on('will-navigate', (event) => event.preventDefault());",
    "  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));",
    "  void window.loadURL('app://evroom/index.html');",
    '});',
    '',
  ].join('\n');
}

describe('scripts/electron-scan.mjs', () => {
  afterAll(() => rmSync(temporary, { recursive: true, force: true }));

  it('passes on the repository, having read the main window and its webPreferences', () => {
    const sarif = join(temporary, 'repository.sarif');
    const result = scan('--sarif', sarif);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      /^electronegativity 1\.10\.3: \d+ checks over \d+ files of src-main, src-shared, src-renderer \(Electron \d+\.\d+\.\d+;/,
    );
    expect(result.stdout).toMatch(/findings: HIGH 0, MEDIUM \d+, LOW \d+, INFORMATIONAL \d+/);
    // The preload finding is raised on main.ts's webPreferences literal: the scanner saw it.
    expect(result.stdout).toMatch(/MEDIUM +PRELOAD_JS_CHECK src-main\/app\/main\.ts:\d+:\d+ \(FIRM\) answered: /);
    expect(result.stdout).toMatch(/\nPASS: no finding above LOW is unanswered\n$/);
    expect(result.status).toBe(0);
    const written = JSON.parse(readFileSync(sarif, 'utf8')) as {
      runs: { results: { ruleId: string; properties: { severity: string; answer?: string } }[] }[];
    };
    const preload = written.runs[0]!.results.find((result) => result.ruleId === 'PRELOAD_JS_CHECK');
    expect(preload?.properties.severity).toBe('MEDIUM');
    expect(preload?.properties.answer).toMatch(/exposes exactly one function/);
  });

  it('fails on a window with Node integration and without context isolation, naming each finding above LOW', () => {
    const root = project('unsafe', { 'src-main/app/main.ts': mainWith(UNSAFE) });
    const result = scan('--root', root);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/findings: HIGH 1, MEDIUM 1, LOW 1, INFORMATIONAL 1;/);
    expect(result.stdout).toMatch(/^FAIL: 2 problems/m);
    expect(result.stdout).toMatch(
      /^ {2}unanswered HIGH CONTEXT_ISOLATION_JS_CHECK src-main\/app\/main\.ts:4:\d+ \(FIRM\): /m,
    );
    // Without a sandbox setting Electronegativity wants one (MEDIUM) and rates nodeIntegration
    // itself INFORMATIONAL (Electron 20+ sandboxes by default); the window fails either way.
    expect(result.stdout).toMatch(/^ {2}unanswered MEDIUM SANDBOX_JS_CHECK src-main\/app\/main\.ts:4:\d+ \(FIRM\): /m);
    expect(result.stdout).toMatch(
      /^ {2}INFORMATIONAL NODE_INTEGRATION_JS_CHECK src-main\/app\/main\.ts:4:\d+ \(FIRM, not gated\)$/m,
    );
  });

  it('passes the same window made safe, and a finding answered for its rule and file', () => {
    const safe = project('safe', { 'src-main/app/main.ts': mainWith(SAFE) });
    const clean = scan('--root', safe);
    expect(clean.stdout).toMatch(/findings: HIGH 0, MEDIUM 0, LOW 1, INFORMATIONAL 0;/);
    expect(clean.stdout).toMatch(/PASS: no finding above LOW is unanswered\n$/);
    expect(clean.status).toBe(0);

    const reason = 'a fixture: this window loads only our own page in the test';
    const answered = project(
      'answered',
      { 'src-main/app/main.ts': mainWith(UNSAFE) },
      {
        answers: [
          { rule: 'CONTEXT_ISOLATION_JS_CHECK', file: 'src-main/app/main.ts', reason },
          { rule: 'SANDBOX_JS_CHECK', file: 'src-main/app/main.ts', reason },
        ],
      },
    );
    const result = scan('--root', answered);
    expect(result.stdout).toMatch(
      /HIGH +CONTEXT_ISOLATION_JS_CHECK src-main\/app\/main\.ts:4:\d+ \(FIRM\) answered: a fixture/,
    );
    expect(result.stdout).toMatch(
      /MEDIUM +SANDBOX_JS_CHECK src-main\/app\/main\.ts:4:\d+ \(FIRM\) answered: a fixture/,
    );
    expect(result.status).toBe(0);
  });

  it('fails on an answer that matches no finding above LOW (stale)', () => {
    const root = project(
      'stale',
      { 'src-main/app/main.ts': mainWith(SAFE) },
      {
        answers: [
          {
            rule: 'CONTEXT_ISOLATION_JS_CHECK',
            file: 'src-main/app/main.ts',
            reason: 'was answered before the window was fixed',
          },
        ],
      },
    );
    const result = scan('--root', root);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(
      /^ {2}stale answer: CONTEXT_ISOLATION_JS_CHECK in src-main\/app\/main\.ts matches no finding above LOW; remove it from security\/electronegativity-answers\.json$/m,
    );
  });

  it('refuses a bad answers file with the JSON Pointer of the fault, and scans nothing', () => {
    const cases: [unknown, string][] = [
      ['{"answers": [', 'security/electronegativity-answers.json: not JSON'],
      [{ answers: {} }, 'security/electronegativity-answers.json: /answers: must be an array'],
      [
        { answers: [{ rule: 'NODE_INTEGRATION_JS_CHECK', file: 'src-main/app/main.ts' }] },
        'security/electronegativity-answers.json: /answers/0/reason: must be a string',
      ],
      [
        { answers: [{ rule: 'NODE_INTEGRATION_JS_CHECK', file: 'src-main/app/main.ts', reason: 'fine' }] },
        'security/electronegativity-answers.json: /answers/0/reason: must say in words why',
      ],
      [
        {
          answers: [{ rule: 'nodeIntegration', file: 'src-main/app/main.ts', reason: 'a reason long enough to count' }],
        },
        'security/electronegativity-answers.json: /answers/0/rule: must be an electronegativity check id',
      ],
      [
        {
          answers: [{ rule: 'NODE_INTEGRATION_JS_CHECK', file: '../main.ts', reason: 'a reason long enough to count' }],
        },
        'security/electronegativity-answers.json: /answers/0/file: must be a path relative',
      ],
      [
        {
          answers: [
            { rule: 'NODE_INTEGRATION_JS_CHECK', file: 'main.ts', reason: 'a reason long enough to count', line: 3 },
          ],
        },
        'security/electronegativity-answers.json: /answers/0/line: unknown member',
      ],
    ];
    for (const [index, [answers, message]] of cases.entries()) {
      const root = project(`bad-${index}`, { 'src-main/app/main.ts': mainWith(UNSAFE) }, answers);
      const result = scan('--root', root);
      expect(result.status, message).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`electron-scan: ${message}`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('refuses a project without a pinned Electron version, and an unknown argument', () => {
    const root = project('no-electron', {
      'src-main/app/main.ts': mainWith(SAFE),
      'package.json': '{"name": "no-electron"}',
    });
    const result = scan('--root', root);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^electron-scan: .*package\.json pins no electron version\n$/);
    const unknown = scan('--fast');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^electron-scan: unknown argument "--fast"/);
  });
});
