import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src-shared/verify/report';
import { groupByKeys, tryLoadCorpus, type CorpusCase } from '../test-support/conformance-corpus';

// The conformance corpus made from the real producers (test-vectors/, issue 24) through the CLI
// as a user runs it: `evroom verify --json --keys K FILE...`, one process per key file and per
// expected outcome (the PASS cases, whose run must exit 0, and the others, whose run must exit
// 1), each report's status, trust and format as the case says.

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const { cases, error } = tryLoadCorpus();

let home: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'evroom-verify-corpus-'));
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  lines: (Report & { input: string })[];
  stderr: string;
}

function verify(group: readonly CorpusCase[], keys: string | undefined): Run {
  const args = ['verify', '--json', '--no-trust-store', ...(keys === undefined ? [] : ['--keys', keys])];
  const result = spawnSync(process.execPath, [BIN, ...args, ...group.map((entry) => entry.path)], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', EVROOM_HOME: join(home, 'home') },
    maxBuffer: 256 * 1024 * 1024,
  });
  const lines = result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Report & { input: string });
  return { code: result.status, lines, stderr: result.stderr };
}

/** The runs: per key file, the PASS cases together and the others together. */
const runs = groupByKeys(cases).flatMap((group) =>
  [true, false]
    .map((passing) => ({
      label: `${group.label}, ${passing ? 'PASS cases (exit 0)' : 'other cases (exit 1)'}`,
      keys: group.keys?.path,
      exit: passing ? 0 : 1,
      cases: group.cases.filter((entry) => (entry.status === 'PASS') === passing),
    }))
    .filter((run) => run.cases.length > 0),
);

describe('the conformance corpus through evroom verify', () => {
  it('is present and well-formed: at least one case, every cases.json read', () => {
    if (error !== undefined) throw error;
    expect(runs.reduce((total, run) => total + run.cases.length, 0)).toBe(cases.length);
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(runs.map((run) => [run.label, run] as const))('%s', (_label, run) => {
    const result = verify(run.cases, run.keys);
    expect(result.code, `exit code; stderr: ${result.stderr}`).toBe(run.exit);
    expect(result.lines.map((line) => line.input)).toEqual(run.cases.map((entry) => entry.path));
    run.cases.forEach((entry, index) => {
      const report = result.lines[index]!;
      const seen = `${entry.id} (${entry.note}) gave ${report.format} ${report.status}/${report.trust?.status} ${JSON.stringify(report.errors?.map((item) => item.code))}`;
      expect(report.format, seen).toBe(entry.format);
      expect(report.status, seen).toBe(entry.status);
      if (entry.trust !== undefined) expect(report.trust.status, seen).toBe(entry.trust);
      if (entry.error !== undefined)
        expect(
          report.errors.map((item) => item.code),
          seen,
        ).toContain(entry.error);
    });
  });
});
