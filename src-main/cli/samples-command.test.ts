import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeyFile, parseSecretsFile } from '../../src-shared/verify/key-file';
import { SIGN_FORMATS } from './commands/sign';

// `evroom samples` as a user runs it, then `evroom verify` over every sample in one process.
const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));

interface IndexEntry {
  file: string;
  format: string;
  expected_status: string;
  expected_trust: string;
  note: string;
}

interface Line {
  input: string;
  format: string;
  status: string;
  trust: { status: string };
}

function evroom(args: string[], cwd?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function listFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else found.push(relative(root, path).split(sep).join('/'));
    }
  };
  walk(root);
  return found.sort();
}

function lines(stdout: string): Line[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
}

describe('evroom samples', () => {
  let dir: string;
  let first: string;
  let second: string;
  let index: IndexEntry[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evroom-samples-'));
    first = join(dir, 'first');
    second = join(dir, 'second');
    const result = evroom(['samples', '--out', first]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    index = JSON.parse(readFileSync(join(first, 'index.json'), 'utf8')) as IndexEntry[];
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists every written document in index.json, with a valid, tampered, forged and malformed one per format', () => {
    const files = listFiles(first);
    expect(files.filter((file) => file.includes('/'))).toEqual(index.map((entry) => entry.file).sort());
    expect(files.filter((file) => !file.includes('/'))).toEqual([
      'README.md',
      'index.json',
      'keys.json',
      'secrets.json',
    ]);
    const folders = [...new Set(index.map((entry) => entry.file.split('/')[0]))];
    // A folder per issuer, and one per format only other producers make (they have no issuer).
    expect(folders.sort()).toEqual([...SIGN_FORMATS, 'hahs', 'smsh-stamp', 'spectral'].sort());
    for (const folder of folders) {
      for (const kind of ['valid', 'tampered', 'forged', 'malformed']) {
        expect(
          index.some((entry) => entry.file === `${folder}/${kind}.json`),
          `${folder}/${kind}`,
        ).toBe(true);
      }
    }
    const statuses = new Set(index.map((entry) => entry.expected_status));
    expect([...statuses].sort()).toEqual([
      'AUTH_FAILED',
      'INDETERMINATE',
      'INVALID',
      'MALFORMED',
      'MISMATCH',
      'PASS',
      'UNSUPPORTED',
    ]);
    for (const name of ['valid', 'outcome-partial', 'outcome-inconsistent']) {
      expect(index.find((entry) => entry.file === `wearable/${name}.json`)?.expected_status).toBe('PASS');
    }
    expect(index.find((entry) => entry.file === 'sealed/wrong-key.json')?.expected_status).toBe('AUTH_FAILED');
    for (const entry of index) expect(entry.note.length, entry.file).toBeGreaterThan(10);
    const readme = readFileSync(join(first, 'README.md'), 'utf8');
    for (const entry of index)
      expect(readme).toContain(
        `| \`${entry.file}\` | ${entry.format} | ${entry.expected_status} | ${entry.expected_trust} |`,
      );
    expect(parseKeyFile(readFileSync(join(first, 'keys.json'), 'utf8')).length).toBeGreaterThan(10);
    expect(parseSecretsFile(readFileSync(join(first, 'secrets.json'), 'utf8'))).toHaveLength(1);
  });

  it('every sample verifies with the status, format and trust index.json states', () => {
    const inputs = index.map((entry) => entry.file);
    const advertised = evroom(
      ['verify', '--json', '--keys', 'keys.json', '--secret', 'secrets.json', ...inputs],
      first,
    );
    expect(advertised.stderr).toBe('');
    expect(advertised.code).toBe(1);
    const reported = lines(advertised.stdout);
    expect(reported.map((line) => [line.input, line.format, line.status])).toEqual(
      index.map((entry) => [entry.file, entry.format, entry.expected_status]),
    );
    // Keys that came with the input never make trust trusted.
    expect(reported.every((line) => line.trust.status !== 'trusted')).toBe(true);
    const pinned = evroom(['verify', '--json', '--trust', 'keys.json', '--secret', 'secrets.json', ...inputs], first);
    expect(lines(pinned.stdout).map((line) => [line.input, line.status, line.trust.status])).toEqual(
      index.map((entry) => [entry.file, entry.expected_status, entry.expected_trust]),
    );
  });

  it('writes byte-identical files on every run, ML-DSA-65 signatures included', () => {
    expect(evroom(['samples', '--out', second]).code).toBe(0);
    const files = listFiles(first);
    expect(listFiles(second)).toEqual(files);
    const different = files.filter((file) => !readFileSync(join(first, file)).equals(readFileSync(join(second, file))));
    expect(different).toEqual([]);
  });

  it('replaces existing files only with --force', () => {
    const valid = join(second, 'classical', 'valid.json');
    writeFileSync(valid, 'changed\n');
    const refused = evroom(['samples', '--out', second]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^evroom: samples: .*already exist; pass --force to replace them\n$/);
    expect(readFileSync(valid, 'utf8')).toBe('changed\n');
    const forced = evroom(['samples', '--out', second, '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(valid)).toEqual(readFileSync(join(first, 'classical', 'valid.json')));
    const help = evroom(['samples', '--help']);
    expect(help.stdout).toContain(
      'evroom verify --trust samples/keys.json --secret samples/secrets.json samples/*/*.json',
    );
  });
});
