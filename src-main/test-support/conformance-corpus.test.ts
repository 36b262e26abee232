import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorpusError, groupByKeys, loadCorpus } from './conformance-corpus';

// The corpus loader the door runners share: a manifest that is not exactly the agreed shape, a
// file it names that is not there, a document it does not name, or no case at all, is an error
// naming every problem, so no runner checks less than the corpus holds.

const PRODUCER = { repo: 'srotzin/hive-receipt', commit: 'a'.repeat(40), paths: ['src/sign.js'] };
const KEYS = '{"keys":[]}';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'evroom-corpus-loader-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function folder(name: string, manifest: unknown, files: Record<string, string> = {}): void {
  mkdirSync(join(root, name), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(root, name, file, '..'), { recursive: true });
    writeFileSync(join(root, name, file), text);
  }
  writeFileSync(join(root, name, 'cases.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
}

function validCase(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    file: 'valid.json',
    format: 'classical',
    status: 'PASS',
    trust: 'unpinned',
    keys: 'keys.json',
    producer_verdict: 'valid',
    note: 'a valid document',
    ...extra,
  };
}

function problems(): string[] {
  try {
    loadCorpus(root);
  } catch (error) {
    expect(error).toBeInstanceOf(CorpusError);
    return [...(error as CorpusError).problems];
  }
  throw new Error('loadCorpus accepted the corpus');
}

describe('loadCorpus', () => {
  it('reads every folder, its cases, their bytes and key files', () => {
    folder(
      'classical',
      {
        format_dir: 'classical',
        producer: PRODUCER,
        cases: [
          validCase(),
          validCase({ file: 'sub/b.json', keys: undefined, error: 'signature_invalid', status: 'INVALID' }),
        ],
      },
      {
        'valid.json': '{"a":1}',
        'sub/b.json': '{"b":2}',
        'keys.json': KEYS,
      },
    );
    folder(
      'typed-pq',
      {
        format_dir: 'typed-pq',
        producer: PRODUCER,
        cases: [
          validCase({
            format: 'typed-pq',
            keys: undefined,
            facts: { receipt_id: null, issued_at: '2026-01-01T00:00:00Z' },
          }),
        ],
      },
      {
        'valid.json': '{"c":3}',
      },
    );
    const corpus = loadCorpus(root);
    expect(corpus.manifests.map((manifest) => manifest.formatDir)).toEqual(['classical', 'typed-pq']);
    expect(corpus.cases.map((entry) => entry.id)).toEqual([
      'classical/valid.json with keys.json',
      'classical/sub/b.json',
      'typed-pq/valid.json',
    ]);
    expect(new TextDecoder().decode(corpus.cases[0]!.bytes)).toBe('{"a":1}');
    expect(corpus.cases[0]!.keys?.text).toBe(KEYS);
    expect(corpus.cases[1]).toMatchObject({ status: 'INVALID', error: 'signature_invalid' });
    expect(corpus.cases[2]!.facts).toEqual({ receipt_id: null, issued_at: '2026-01-01T00:00:00Z' });
    expect(groupByKeys(corpus.cases).map((group) => [group.label, group.cases.length])).toEqual([
      ['classical with keys.json', 1],
      ['classical without keys', 1],
      ['typed-pq without keys', 1],
    ]);
  });

  it('refuses a missing folder and an empty corpus: a runner cannot pass on nothing', () => {
    expect(() => loadCorpus(join(root, 'absent'))).toThrow(/there is no such folder: the conformance corpus/);
    expect(problems()).toEqual(['no format folder with a cases.json']);
    mkdirSync(join(root, 'classical'));
    expect(problems()).toEqual(['classical/: no cases.json, and no README.md saying what the folder holds instead']);
    // A folder of other test data says so in its README, and is no format folder: still no case.
    writeFileSync(join(root, 'classical', 'README.md'), 'Key files for the key-file tests.');
    expect(problems()).toEqual(['no format folder with a cases.json']);
  });

  it('refuses unknown members, missing members, bad values and a folder name that disagrees', () => {
    folder(
      'classical',
      {
        format_dir: 'other',
        producer: { repo: 'not a repo', commit: 'ABC', paths: [] },
        cases: [
          validCase({ status: 'VALID', trust: 'sure', producer_verdict: 'ok', format: 'no-such-format', extra: 1 }),
          {
            file: 'valid.json',
            format: 'classical',
            status: 'PASS',
            producer_verdict: 'valid',
            note: 'two\nlines',
            error: 'Bad Code',
          },
        ],
        comment: 'x',
      },
      { 'valid.json': '{}', 'keys.json': KEYS },
    );
    const found = problems().join('\n');
    for (const expected of [
      'unknown member "comment"',
      '"format_dir" must be the folder\'s name "classical", got "other"',
      '/producer/repo: must be "owner/name"',
      '/producer/commit: must be 40 lowercase hex digits',
      '/producer/paths: must be a non-empty list',
      '/cases/0: unknown member "extra"',
      '/cases/0/format: not a report format the verifier knows: "no-such-format"',
      '/cases/0/status: must be one of',
      '/cases/0/trust: must be one of',
      '/cases/0/producer_verdict: must be one of valid, invalid, not-checked',
      '/cases/1/error: must be an error code',
      '/cases/1/note: must be one non-empty line',
    ])
      expect(found).toContain(expected);
  });

  it('refuses files that are not there or outside the folder, documents no case names, and cases listed twice', () => {
    folder(
      'classical',
      {
        format_dir: 'classical',
        producer: PRODUCER,
        cases: [
          validCase({ file: 'absent.json' }),
          validCase({ file: '../escape.json', keys: undefined }),
          validCase({ file: './valid.json', keys: undefined }),
          validCase({ keys: 'absent-keys.json' }),
          validCase({ keys: undefined }),
          validCase({ keys: undefined }),
        ],
      },
      { 'valid.json': '{}', 'forgotten.json': '{}', 'notes/README.md': 'not JSON, not a document' },
    );
    const found = problems().join('\n');
    expect(found).toContain('/cases/0/file: "absent.json" is not a file of the folder');
    expect(found).toContain('/cases/1/file: must be a plain relative path inside the folder');
    expect(found).toContain('/cases/2/file: must be a plain relative path inside the folder');
    expect(found).toContain('/cases/3/keys: "absent-keys.json" is not a file of the folder');
    expect(found).toContain('/cases/5: classical/valid.json is listed twice');
    expect(found).toContain('classical/forgotten.json: a JSON file that no case of cases.json names');
    expect(found).not.toContain('notes/README.md');
    // A case with problems still names its file, which is not reported again as unnamed.
    expect(found).not.toContain('classical/absent.json');
  });

  it('accepts a JSON file no case names when the README says what it is, and skips a documented data folder', () => {
    folder(
      'classical',
      { format_dir: 'classical', producer: PRODUCER, cases: [validCase({ keys: undefined })] },
      {
        'valid.json': '{}',
        'canonical-forms.json': '{}',
        'README.md': '`canonical-forms.json`: the producer canonical forms, for the format tests.',
      },
    );
    mkdirSync(join(root, 'key-files'));
    writeFileSync(join(root, 'key-files', 'README.md'), 'Key files as the producers publish them.');
    writeFileSync(join(root, 'key-files', 'pubkey.json'), '{}');
    const corpus = loadCorpus(root);
    expect(corpus.cases.map((entry) => entry.id)).toEqual(['classical/valid.json']);
    expect(corpus.skipped).toEqual(['key-files']);
  });

  it('refuses a manifest that is not strict JSON', () => {
    folder('classical', '{"format_dir":"classical","format_dir":"classical"}');
    expect(problems().join('\n')).toMatch(/^classical\/cases\.json: not strict JSON/);
  });
});
