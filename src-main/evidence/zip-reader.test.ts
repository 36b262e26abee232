import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { BundleError, ImportCancelledError } from './errors';
import { DEFAULT_ZIP_LIMITS, maxZipFileBytes, resolveZipLimits } from './limits';
import { buildZip } from './test-support';
import { openRegularFile, openZipArchive } from './zip-reader';

describe('openZipArchive', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'evroom-zip-reader-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  function zipFile(count: number): string {
    const file = join(directory, `zip-${count}.zip`);
    writeFileSync(
      file,
      buildZip(
        Array.from({ length: count }, (_, index) => ({
          name: `receipts/r${index}.json`,
          data: utf8Encode(`{"n":${index}}`),
        })),
      ),
    );
    return file;
  }

  it('reads entries back, checked', async () => {
    const archive = await openZipArchive(zipFile(3), DEFAULT_ZIP_LIMITS);
    try {
      expect(archive.entries.map((entry) => entry.name)).toEqual([
        'receipts/r0.json',
        'receipts/r1.json',
        'receipts/r2.json',
      ]);
      expect((await archive.read(archive.entries[1]!)).toString('utf8')).toBe('{"n":1}');
    } finally {
      await archive.close();
    }
  });

  it('reads every entry back exactly across many 1 MiB blocks, in any order and at once (block buffers are reused)', async () => {
    // 14 stored entries of 700,001 random bytes: about 9.4 MiB, so blocks are evicted and their
    // buffers reused many times; entries straddle block boundaries.
    const contents = Array.from({ length: 14 }, () => randomBytes(700_001));
    const file = join(directory, 'large.zip');
    writeFileSync(
      file,
      buildZip(contents.map((data, index) => ({ name: `receipts/big${index}.json`, data, method: 0 }))),
    );
    const archive = await openZipArchive(file, DEFAULT_ZIP_LIMITS);
    try {
      const order = [...contents.keys(), ...[...contents.keys()].reverse(), 3, 11, 0, 13, 6, 2, 9];
      for (const index of order) {
        expect((await archive.read(archive.entries[index]!)).equals(contents[index]!), `entry ${index}`).toBe(true);
      }
      // Reads running concurrently share and evict blocks while others wait for theirs.
      const together = await Promise.all(order.map((index) => archive.read(archive.entries[index]!)));
      together.forEach((data, position) =>
        expect(data.equals(contents[order[position]!]!), `read ${position}`).toBe(true),
      );
    } finally {
      await archive.close();
    }
  });

  it.runIf(process.platform !== 'win32')('refuses a FIFO and a directory at once', async () => {
    const fifo = join(directory, 'pipe.zip');
    execFileSync('mkfifo', [fifo]);
    await expect(openZipArchive(fifo, DEFAULT_ZIP_LIMITS)).rejects.toMatchObject({
      code: 'zip_unreadable',
      message: expect.stringContaining('is not a regular file (it is a named pipe (FIFO))'),
    });
    await expect(openRegularFile(directory)).rejects.toMatchObject({
      code: 'zip_unreadable',
      message: expect.stringContaining('it is a directory'),
    });
  });

  it('refuses a file larger than any zip within the limits without reading it', async () => {
    const limits = resolveZipLimits({ maxEntries: 4, maxBytes: 4096 });
    const file = join(directory, 'big.zip');
    writeFileSync(file, '');
    truncateSync(file, maxZipFileBytes(limits) + 1);
    const error = await openZipArchive(file, limits).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(BundleError);
    expect(error).toMatchObject({ code: 'zip_file_too_large' });
  });

  it('stops reading the central directory when the signal fires', async () => {
    const file = zipFile(50);
    const controller = new AbortController();
    controller.abort();
    await expect(openZipArchive(file, DEFAULT_ZIP_LIMITS, { signal: controller.signal })).rejects.toBeInstanceOf(
      ImportCancelledError,
    );
  });
});
