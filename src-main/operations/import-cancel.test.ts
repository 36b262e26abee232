import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPortableProvider, utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { getBundle, ledgerFileIn, ledgerStats, openLedger, type Ledger } from '../ledger';
import { BundleError } from '../evidence/errors';
import { hashFile } from '../evidence/hash-file';
import { ImportCancelledError, importBundle } from './import';
import { maxZipFileBytes, resolveZipLimits } from '../evidence/limits';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';

// Cancelling an import stops it at a batch boundary and keeps what was stored, like a crash;
// importing again finishes it. The stored counts are the import's own counts.
const crypto = createPortableProvider();
const signer = { seed: new Uint8Array(32).fill(5), keyId: 'did:svc:acme:bundle' };

function bundle(count: number): Buffer {
  const receipts = Array.from({ length: count }, (_, index) => ({
    stem: `r${index}`,
    bytes: utf8Encode(signClassical({ sequence: index, memo: 'cancel test' }, new Uint8Array(32).fill(7), crypto)),
  }));
  return zipBundle(
    bundleParts(receipts, { keyId: signer.keyId, keys: [keyEntryFor(signer.keyId, signer.seed, crypto)] }),
    signer,
    crypto,
  );
}

describe('import cancellation and stored counts', () => {
  let home: string;
  let ledger: Ledger;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'evroom-cancel-'));
    ledger = openLedger(ledgerFileIn(home));
  });

  afterEach(() => {
    ledger.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('stores the counts the import reports, the last batch included', async () => {
    const file = join(home, 'small.zip');
    writeFileSync(file, bundle(37));
    const result = await importBundle(ledger, file, { workers: 1, transactionSize: 10 });
    expect(result.counts.receiptsNew).toBe(37);
    const stored = getBundle(ledger.readable, result.bundle.id);
    expect(stored?.counts).toMatchObject({ receipts: 37, receiptsNew: 37, receiptsKnown: 0 });
  });

  it('stops when cancelled, keeps whole batches, and a re-run finishes the job', async () => {
    const file = join(home, 'large.zip');
    writeFileSync(file, bundle(1500));
    const controller = new AbortController();
    const cancelled = importBundle(ledger, file, {
      workers: 1,
      transactionSize: 100,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.phase === 'verifying' && event.receiptsVerified >= 200) controller.abort();
      },
    });
    await expect(cancelled).rejects.toSatisfy(
      (error: unknown) =>
        error instanceof ImportCancelledError || (error as { cause?: unknown }).cause instanceof ImportCancelledError,
    );
    const partial = ledgerStats(ledger.readable).receipts;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(1500);
    expect(partial % 100).toBe(0);
    const finished = await importBundle(ledger, file, { workers: 1, transactionSize: 100 });
    expect(finished.resumed).toBe(true);
    expect(ledgerStats(ledger.readable).receipts).toBe(1500);
  });
});

// A bundle path that never ends (a FIFO, /dev/zero) or is huge must not hold the import: it is
// refused at once, and every loop that reads the file stops at the signal and at the size cap.
describe('import of files that are not bundles, and cancellation while reading', () => {
  let home: string;
  let ledger: Ledger;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'evroom-reading-'));
    ledger = openLedger(ledgerFileIn(home));
  });

  afterEach(() => {
    ledger.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** Run an import expected to fail; returns the error and how long it took. */
  async function failure(
    file: string,
    options: Parameters<typeof importBundle>[2] = {},
  ): Promise<{ error: unknown; ms: number }> {
    const before = ledgerStats(ledger.readable);
    const started = performance.now();
    const error = await importBundle(ledger, file, { workers: 1, ...options }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    const ms = performance.now() - started;
    // Refused or cancelled before pass 2: nothing written, not even a partial bundle row.
    expect(ledgerStats(ledger.readable)).toEqual(before);
    return { error, ms };
  }

  function sparseFile(name: string, bytes: number): string {
    const file = join(home, name);
    writeFileSync(file, '');
    truncateSync(file, bytes);
    return file;
  }

  it.runIf(process.platform !== 'win32')(
    'refuses a FIFO at once, without waiting for a writer',
    async () => {
      const fifo = join(home, 'bundle.zip');
      execFileSync('mkfifo', [fifo]);
      const { error, ms } = await failure(fifo);
      expect(error).toBeInstanceOf(BundleError);
      expect(error).toMatchObject({
        code: 'zip_unreadable',
        message: expect.stringMatching(/is not a regular file \(it is a named pipe/),
      });
      expect(ms).toBeLessThan(5000);
    },
    20_000,
  );

  it.runIf(process.platform === 'linux')(
    'refuses /dev/zero at once instead of hashing it for ever',
    async () => {
      const { error, ms } = await failure('/dev/zero');
      expect(error).toMatchObject({
        code: 'zip_unreadable',
        message: expect.stringMatching(/is not a regular file \(it is a character device/),
      });
      expect(ms).toBeLessThan(5000);
    },
    20_000,
  );

  it('refuses a file larger than any zip within the limits before hashing it', async () => {
    const limits = { maxEntries: 10, maxBytes: 1024 * 1024 };
    const file = sparseFile('huge.zip', 64 * 1024 ** 3);
    const { error, ms } = await failure(file, { limits });
    expect(error).toBeInstanceOf(BundleError);
    expect(error).toMatchObject({ code: 'zip_file_too_large' });
    expect((error as Error).message).toContain(String(maxZipFileBytes(resolveZipLimits(limits))));
    expect(ms).toBeLessThan(5000);
  }, 60_000);

  it('stops hashing a large file promptly when cancelled', async () => {
    // 32 GiB of zeros (sparse: no disk used) under limits that allow it: hashing all of it
    // takes tens of seconds; the abort comes from the first event of the hashing phase.
    const file = sparseFile('large.zip', 32 * 1024 ** 3);
    const controller = new AbortController();
    const phases: string[] = [];
    const { error, ms } = await failure(file, {
      limits: { maxBytes: 64 * 1024 ** 3 },
      signal: controller.signal,
      onProgress: (event) => {
        phases.push(event.phase);
        if (event.phase === 'hashing') controller.abort();
      },
    });
    expect(error).toBeInstanceOf(ImportCancelledError);
    expect(phases).toEqual(['hashing']);
    expect(ms).toBeLessThan(5000);
  }, 120_000);

  it('hashFile stops between chunks when the signal fires part-way', async () => {
    const file = sparseFile('part.zip', 64 * 1024 * 1024);
    const controller = new AbortController();
    const seen: number[] = [];
    const hashing = hashFile(file, {
      signal: controller.signal,
      onChunk: (hashed, size) => {
        seen.push(hashed);
        expect(size).toBe(64 * 1024 * 1024);
        // After the first chunk: the hashing has started and must stop at the next boundary.
        controller.abort();
      },
    });
    await expect(hashing).rejects.toBeInstanceOf(ImportCancelledError);
    expect(seen).toEqual([1024 * 1024]);
  });

  it('hashFile stops at the size cap when the file grows while it is read', async () => {
    const file = join(home, 'growing.zip');
    writeFileSync(file, Buffer.alloc(2 * 1024 * 1024, 1));
    let chunks = 0;
    const hashing = hashFile(file, {
      maxBytes: 8 * 1024 * 1024,
      onChunk: () => {
        chunks += 1;
        appendFileSync(file, Buffer.alloc(2 * 1024 * 1024, 2));
      },
    });
    await expect(hashing).rejects.toMatchObject({ code: 'zip_file_too_large' });
    // 8 MiB allowed, 1 MiB per chunk: the ninth chunk crosses the cap.
    expect(chunks).toBe(8);
  });

  it('hashFile hashes a regular file exactly', async () => {
    const file = join(home, 'small.bin');
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 7, 9);
    writeFileSync(file, bytes);
    expect(await hashFile(file)).toBe(createHash('sha256').update(bytes).digest('hex'));
    await expect(hashFile(join(home, 'missing.zip'))).rejects.toMatchObject({
      code: 'zip_unreadable',
      message: expect.stringContaining('no such file'),
    });
    await expect(hashFile(file, { maxBytes: 1024 })).rejects.toMatchObject({ code: 'zip_file_too_large' });
  });

  it('stops checking the entries when cancelled, before anything is written', async () => {
    const file = join(home, 'checking.zip');
    writeFileSync(file, bundle(40));
    const controller = new AbortController();
    const { error } = await failure(file, {
      signal: controller.signal,
      onProgress: (event) => {
        if (event.phase === 'checking') controller.abort();
      },
    });
    expect(error).toBeInstanceOf(ImportCancelledError);
  });
});
