import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPortableProvider, utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { getBundle, ledgerFileIn, ledgerStats, openLedger, type Ledger } from '../ledger';
import { ImportCancelledError, importBundle } from './import-bundle';
import { bundleParts, keyEntryFor, zipBundle } from './test-support';

// Cancelling an import stops it at a batch boundary and keeps what was stored, like a crash;
// importing again finishes it. The stored counts are the import's own counts.
const crypto = createPortableProvider();
const signer = { seed: new Uint8Array(32).fill(5), keyId: 'did:svc:acme:bundle' };

function bundle(count: number): Buffer {
  const receipts = Array.from({ length: count }, (_, index) => ({
    stem: `r${index}`,
    bytes: utf8Encode(signClassical({ sequence: index, memo: 'cancel test' }, new Uint8Array(32).fill(7), crypto)),
  }));
  return zipBundle(bundleParts(receipts, { keyId: signer.keyId, keys: [keyEntryFor(signer.keyId, signer.seed, crypto)] }), signer, crypto);
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
    await expect(cancelled).rejects.toSatisfy((error: unknown) => error instanceof ImportCancelledError || (error as { cause?: unknown }).cause instanceof ImportCancelledError);
    const partial = ledgerStats(ledger.readable).receipts;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(1500);
    expect(partial % 100).toBe(0);
    const finished = await importBundle(ledger, file, { workers: 1, transactionSize: 100 });
    expect(finished.resumed).toBe(true);
    expect(ledgerStats(ledger.readable).receipts).toBe(1500);
  });
});
