import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDocumentBytes, describeFsError, DocumentReadError, readDocumentFile } from './read-document';

// Real files in a folder of their own: each way a document file can be wrong has its own message.
describe('readDocumentFile', () => {
  let directory: string;
  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'read-document-'));
  });
  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  function file(name: string, content: string | Uint8Array): string {
    const path = join(directory, name);
    writeFileSync(path, content);
    return path;
  }

  it('reads a document exactly, and a JSON-looking file whatever follows (the verifier judges it)', () => {
    const text = '{"a":1}\n';
    expect(Buffer.from(readDocumentFile(file('ok.json', text))).toString('utf8')).toBe(text);
    const withNul = Uint8Array.of(0x20, 0x7b, 0x00, 0xff, 0x7d);
    expect([...readDocumentFile(file('nul.json', withNul))]).toEqual([...withNul]);
  });

  it('names the file and what is wrong with it', () => {
    const missing = join(directory, 'missing.json');
    expect(() => readDocumentFile(missing)).toThrow(new DocumentReadError(`${missing}: no such file`));
    expect(() => readDocumentFile(directory)).toThrow(
      new DocumentReadError(`${directory}: is a directory, not a file`),
    );
    const empty = file('empty.json', '');
    expect(() => readDocumentFile(empty)).toThrow(
      new DocumentReadError(`${empty}: is empty; expected a JSON document`),
    );
    const binary = file('binary.bin', Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x00));
    expect(() => readDocumentFile(binary)).toThrow(
      new DocumentReadError(`${binary}: is a binary file, not a JSON document`),
    );
    const below = join(file('plain.txt', 'x'), 'child.json');
    expect(() => readDocumentFile(below)).toThrow(
      new DocumentReadError(`${below}: a part of the path is not a directory`),
    );
    expect(() => readDocumentFile('')).toThrow(TypeError);
  });

  it('refuses a FIFO without waiting for a writer', () => {
    const fifo = join(directory, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(() => readDocumentFile(fifo)).toThrow(new DocumentReadError(`${fifo}: is not a regular file`));
  });

  it('checks bytes from elsewhere the same way, under the label given', () => {
    expect(() => checkDocumentBytes(new Uint8Array(0), 'standard input')).toThrow(
      'standard input: is empty; expected a JSON document',
    );
    expect(() => checkDocumentBytes(Uint8Array.of(0x61, 0x00), 'standard input')).toThrow(
      'standard input: is a binary file, not a JSON document',
    );
    expect(() => checkDocumentBytes(Uint8Array.of(0x61, 0x62), 'standard input')).not.toThrow();
    expect(describeFsError(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe('permission denied');
    expect(describeFsError('odd')).toBe('odd');
  });
});
