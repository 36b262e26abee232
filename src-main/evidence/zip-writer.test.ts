import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { BundleError } from './errors';
import { resolveZipLimits } from './limits';
import { createZipWriter } from './zip-writer';
import { openZipArchive } from './zip-reader';

describe('createZipWriter', () => {
  let directory: string;
  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-zipwriter-'));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it('writes entries lazily, in order, as regular files our reader accepts', async () => {
    const file = path.join(directory, 'a.zip');
    const writer = createZipWriter(file, { mtime: new Date('2026-11-01T00:00:00Z') });
    const produced: string[] = [];
    for (let index = 0; index < 600; index += 1) {
      writer.add(`receipts/r${index}.json`, () => {
        produced.push(`r${index}`);
        return utf8Encode(`{"n":${index}}`);
      });
      if (index % 100 === 99) await writer.waitForRoom();
    }
    writer.add('manifest.json', async () => utf8Encode(`{"produced":${produced.length}}`));
    expect(await writer.finish()).toMatchObject({ entries: 601 });
    expect(produced).toEqual(Array.from({ length: 600 }, (_, index) => `r${index}`));
    const archive = await openZipArchive(file, resolveZipLimits());
    try {
      expect(archive.entries).toHaveLength(601);
      expect(archive.entries[10]?.name).toBe('receipts/r10.json');
      expect((await archive.read(archive.entries[10]!)).toString()).toBe('{"n":10}');
      // The manifest was produced after every receipt was written.
      expect((await archive.read(archive.entries[600]!)).toString()).toBe('{"produced":600}');
    } finally {
      await archive.close();
    }
  });

  it('refuses names the import would refuse, and duplicates', () => {
    const writer = createZipWriter(path.join(directory, 'b.zip'));
    const code = (name: string): string | undefined => {
      try {
        writer.add(name, () => new Uint8Array(0));
      } catch (error) {
        if (error instanceof BundleError) return error.code;
        throw error;
      }
      return undefined;
    };
    expect(code('../x.json')).toBe('zip_path_traversal');
    expect(code('/x.json')).toBe('zip_path_absolute');
    expect(code('dir/')).toBe('zip_path_invalid');
    expect(code('receipts/a.json')).toBeUndefined();
    expect(code('RECEIPTS/A.json')).toBe('zip_duplicate_name');
  });

  it('fails the zip when a producer fails', async () => {
    const writer = createZipWriter(path.join(directory, 'c.zip'));
    writer.add('a.json', () => {
      throw new Error('no bytes today');
    });
    await expect(writer.finish()).rejects.toThrow('no bytes today');
  });
});
