import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The dependency audit (scripts/audit.mjs): real `npm audit` against a registry served on
// 127.0.0.1, which answers npm's bulk advisory request as the public registry does (or refuses
// it, as this workplace's registry does). The real registry is not asked here: its answer
// changes over time; `npm run audit:deps` and .ci/run ask it.
const script = fileURLToPath(new URL('./audit.mjs', import.meta.url));
const temporary = mkdtempSync(join(tmpdir(), 'evroom-audit-test-'));
const ADVISORY = {
  id: 1001,
  url: 'https://github.com/advisories/GHSA-abcd-efgh-2345',
  title: 'Prototype pollution in fixture-lib',
  severity: 'high',
  vulnerable_versions: '<1.2.0',
  cwe: ['CWE-1321'],
  cvss: { score: 7.5, vectorString: null },
};
const DEV_ADVISORY = {
  ...ADVISORY,
  id: 1002,
  url: 'https://github.com/advisories/GHSA-wxyz-wxyz-6789',
  title: 'only in a dev tool',
  vulnerable_versions: '<3.0.0',
};

let server: Server;
let registry = '';
/** What the next bulk request gets: the advisories, or a status with no body. */
let answer: Record<string, unknown> | number = {};
/** The package names npm asked about. */
let asked: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/-/npm/v1/security/advisories/bulk') {
        const body = Buffer.concat(chunks);
        const json = JSON.parse(
          (request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8'),
        ) as Record<string, string[]>;
        asked.push(...Object.keys(json));
        if (typeof answer === 'number') {
          response.writeHead(answer).end();
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        return;
      }
      // Packuments (npm looks for fixes): none here.
      response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.close();
  await once(server, 'close');
  rmSync(temporary, { recursive: true, force: true });
});

/** A project with one production and one dev dependency, and the given answers. */
function project(name: string, answers: unknown): string {
  const root = join(temporary, name);
  mkdirSync(join(root, 'security'), { recursive: true });
  const manifest = {
    name,
    version: '1.0.0',
    dependencies: { 'fixture-lib': '1.0.0' },
    devDependencies: { 'fixture-dev': '2.0.0' },
  };
  writeFileSync(join(root, 'package.json'), JSON.stringify(manifest));
  const lock = {
    name,
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': manifest,
      'node_modules/fixture-lib': { version: '1.0.0', license: 'MIT' },
      'node_modules/fixture-dev': { version: '2.0.0', dev: true, license: 'MIT' },
    },
  };
  writeFileSync(join(root, 'package-lock.json'), JSON.stringify(lock));
  writeFileSync(
    join(root, 'security/audit-answers.json'),
    typeof answers === 'string' ? answers : JSON.stringify(answers),
  );
  return root;
}

async function audit(root: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  asked = [];
  // The child must run while this process serves the registry: spawn, not spawnSync.
  const child = spawn(process.execPath, [script, '--root', root, '--registry', registry], {
    env: {
      ...process.env,
      npm_config_cache: join(temporary, 'npm-cache'),
      npm_config_fetch_retries: '0',
      npm_config_update_notifier: 'false',
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}

const REASON = 'fixture-lib is only given our own constant objects, never parsed input';

describe('scripts/audit.mjs', () => {
  it('fails on an advisory of a production dependency that no answer covers, and asks nothing about dev dependencies', async () => {
    answer = { 'fixture-lib': [ADVISORY], 'fixture-dev': [DEV_ADVISORY] };
    const result = await audit(project('unanswered', { answers: [] }));
    expect(asked).toEqual(['fixture-lib']);
    expect(result.stdout).toMatch(
      /^npm audit --omit=dev: 1 advisories \(critical 0, high 1, moderate 0, low 0, info 0\); npm counted \d+ production dependencies\n/,
    );
    expect(result.stdout).toContain(
      'FAIL: 1 problem (upgrade the dependency, or answer the advisory in security/audit-answers.json)\n',
    );
    expect(result.stdout).toContain(
      '  unanswered high GHSA-abcd-efgh-2345 fixture-lib <1.2.0: Prototype pollution in fixture-lib (https://github.com/advisories/GHSA-abcd-efgh-2345)\n',
    );
    expect(result.status).toBe(1);
  });

  it('passes when each advisory is answered, and says so with the reason', async () => {
    answer = { 'fixture-lib': [ADVISORY] };
    const result = await audit(
      project('answered', { answers: [{ advisory: 'GHSA-abcd-efgh-2345', package: 'fixture-lib', reason: REASON }] }),
    );
    expect(result.stdout).toContain(
      `  high GHSA-abcd-efgh-2345 fixture-lib <1.2.0: Prototype pollution in fixture-lib; answered: ${REASON}\n`,
    );
    expect(result.stdout).toMatch(/PASS: every advisory of a production dependency is answered\n$/);
    expect(result.status).toBe(0);
  });

  it('fails on an answer to an advisory that is no longer reported (stale)', async () => {
    answer = {};
    const result = await audit(
      project('stale', { answers: [{ advisory: 'GHSA-abcd-efgh-2345', package: 'fixture-lib', reason: REASON }] }),
    );
    expect(result.stdout).toMatch(/^npm audit --omit=dev: 0 advisories/);
    expect(result.stdout).toContain(
      '  stale answer: GHSA-abcd-efgh-2345 in fixture-lib is not reported any more; remove it from security/audit-answers.json\n',
    );
    expect(result.status).toBe(1);
  });

  it('fails clearly, never passes, when the registry refuses the audit', async () => {
    answer = 405;
    const result = await audit(project('refused', { answers: [] }));
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `audit: npm audit could not fetch the advisories: 405 Method Not Allowed - POST ${registry}-/npm/v1/security/advisories/bulk; nothing was checked\n`,
    );
  });

  it('refuses a bad answers file with the JSON Pointer of the fault before asking the registry', async () => {
    answer = { 'fixture-lib': [ADVISORY] };
    const cases: [unknown, string][] = [
      ['[', 'security/audit-answers.json: not JSON'],
      [
        { answers: [{ advisory: 'CVE-2024-1', package: 'fixture-lib', reason: REASON }] },
        'security/audit-answers.json: /answers/0/advisory: must be a GitHub advisory id',
      ],
      [
        { answers: [{ advisory: 'GHSA-abcd-efgh-2345', package: 'fixture-lib', reason: 'ok' }] },
        'security/audit-answers.json: /answers/0/reason: must say in words',
      ],
      [
        { answers: [{ advisory: 'GHSA-abcd-efgh-2345', package: 'Fixture Lib', reason: REASON }] },
        'security/audit-answers.json: /answers/0/package: must be an npm package name',
      ],
    ];
    for (const [index, [answers, message]] of cases.entries()) {
      const result = await audit(project(`bad-${index}`, answers));
      expect(result.status, message).toBe(2);
      expect(result.stderr.startsWith(`audit: ${message}`), result.stderr).toBe(true);
      expect(asked).toEqual([]);
    }
  });
});
