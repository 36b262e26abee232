import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { BundleError } from './errors';
import { DEFAULT_ZIP_LIMITS, RATIO_FLOOR_BYTES, resolveZipLimits } from './limits';
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

  describe("what it writes passes the import's limits", () => {
    async function readBack(file: string): Promise<{ methods: Map<string, number>; contents: Map<string, string> }> {
      // The import's defaults: a zip refused here is one an export could not be imported from.
      const archive = await openZipArchive(file, resolveZipLimits());
      try {
        const methods = new Map(archive.entries.map((entry) => [entry.name, entry.compressionMethod]));
        const contents = new Map<string, string>();
        for (const entry of archive.entries) contents.set(entry.name, (await archive.read(entry)).toString('utf8'));
        return { methods, contents };
      } finally {
        await archive.close();
      }
    }

    it('stores an entry that deflate would shrink past the ratio limit, and deflates the rest', async () => {
      const file = path.join(directory, 'ratio-entry.zip');
      const writer = createZipWriter(file);
      const run = 'a'.repeat(1024 * 1024);
      writer.add('receipts/plain.json', () =>
        utf8Encode(JSON.stringify({ text: 'an ordinary receipt, '.repeat(400) + Math.PI })),
      );
      writer.add('receipts/run.json', () => utf8Encode(`{"memo":"${run}"}`));
      expect(await writer.finish()).toMatchObject({ entries: 2, stored: 1 });
      const { methods, contents } = await readBack(file);
      expect(methods.get('receipts/run.json')).toBe(0);
      expect(methods.get('receipts/plain.json')).toBe(8);
      expect(contents.get('receipts/run.json')).toBe(`{"memo":"${run}"}`);
    });

    it('keeps the whole archive within the ratio limit when every entry is small and very compressible', async () => {
      // Each entry is exempt from the per-entry ratio (at most RATIO_FLOOR_BYTES) but deflates
      // about 200:1; together they would pass the archive's limit of 100.
      const file = path.join(directory, 'ratio-archive.zip');
      const writer = createZipWriter(file);
      for (let index = 0; index < 300; index += 1)
        writer.add(`receipts/r${index}.json`, () => utf8Encode('b'.repeat(RATIO_FLOOR_BYTES)));
      const result = await writer.finish();
      expect(result.entries).toBe(300);
      expect(result.stored).toBeGreaterThan(0);
      expect(result.stored).toBeLessThan(300);
      const { contents } = await readBack(file);
      expect(contents.size).toBe(300);
      expect([...contents.values()].every((text) => text === 'b'.repeat(RATIO_FLOOR_BYTES))).toBe(true);
      const archive = await openZipArchive(file, resolveZipLimits());
      try {
        const compressed = archive.entries.reduce((sum, entry) => sum + entry.compressedSize, 0);
        expect(archive.totalBytes / compressed).toBeLessThanOrEqual(DEFAULT_ZIP_LIMITS.maxRatio);
      } finally {
        await archive.close();
      }
    });

    it('refuses an entry, a total or a count the import would refuse, writing no zip the import takes', async () => {
      const limits = { maxEntries: 3, maxEntryBytes: 1000, maxBytes: 1500 };
      const big = createZipWriter(path.join(directory, 'limit-entry.zip'), { limits });
      big.add('a.json', () => new Uint8Array(1001));
      await expect(big.finish()).rejects.toMatchObject({ code: 'zip_entry_too_large' });
      const total = createZipWriter(path.join(directory, 'limit-total.zip'), { limits });
      total.add('a.json', () => new Uint8Array(1000));
      total.add('b.json', () => new Uint8Array(1000));
      await expect(total.finish()).rejects.toMatchObject({ code: 'zip_too_large' });
      const many = createZipWriter(path.join(directory, 'limit-count.zip'), { limits });
      for (const name of ['a.json', 'b.json', 'c.json']) many.add(name, () => new Uint8Array(1));
      expect(() => many.add('d.json', () => new Uint8Array(1))).toThrow(
        expect.objectContaining({ code: 'zip_too_many_entries' }),
      );
      await many.finish();
    });
  });
});
