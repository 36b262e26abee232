/**
 * A tampered bundle imported for real, then read as its page reads it: the verdict and counts
 * of each kind of finding, and each finding about a receipt file linked to the receipt stored
 * from it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { findReceiptsByDocumentId, openLedger, type Ledger } from '../ledger/index';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';
import { importBundle } from './import';
import { standardReceiptFile } from './import-test-support';
import { bundleDetail, bundleSummaries } from './ledger-views';

const crypto = createNodeCryptoProvider();
const issuerSeed = new Uint8Array(32).fill(31);
const ISSUER = 'did:svc:acme:k1';
const signerSeed = new Uint8Array(32).fill(32);
const SIGNER = 'did:svc:acme:bundles';
const keys = [keyEntryFor(ISSUER, issuerSeed, crypto), keyEntryFor(SIGNER, signerSeed, crypto)];
const receipts = Array.from({ length: 6 }, (_, index) => standardReceiptFile(index, issuerSeed, ISSUER, crypto));

describe('bundle detail: verdict and findings linked to their receipts', () => {
  let directory: string;
  let ledger: Ledger;

  async function importZip(name: string, bytes: Uint8Array): Promise<number> {
    const file = path.join(directory, name);
    fs.writeFileSync(file, bytes);
    return (await importBundle(ledger, file, { workers: 1 })).bundle.id;
  }

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-bundle-detail-'));
    ledger = openLedger(path.join(directory, 'ledger.sqlite'));
  });
  afterAll(() => {
    ledger.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('a clean bundle is intact, with no findings', async () => {
    const id = await importZip(
      'clean.zip',
      zipBundle(bundleParts(receipts, { keyId: SIGNER, keys }), { seed: signerSeed, keyId: SIGNER }, crypto),
    );
    const detail = bundleDetail({ ledger }, id)!;
    expect(detail.findings).toEqual([]);
    expect(detail.verdict).toMatchObject({ kind: 'intact', label: 'Intact', changed: 0, missing: 0, extra: 0 });
    expect(bundleSummaries({ ledger }, 10).find((bundle) => bundle.id === id)?.verdict.kind).toBe('intact');
  });

  it('a bundle altered after signing: counts by kind, and links from findings to stored receipts', async () => {
    const parts = bundleParts(receipts, { keyId: SIGNER, keys });
    const names = [...parts.files.keys()].filter((name) => name.startsWith('receipts/'));
    const [dropped, altered, tampered] = names;
    parts.omitted.add(dropped!);
    const listed = new Map(parts.files);
    // Changed after signing, still a receipt that verifies (spacing only): file_mismatch.
    parts.files.set(altered!, utf8Encode(`${Buffer.from(parts.files.get(altered!)!).toString('utf8')} `));
    // Listed with its own tampered hash: the manifest is fine, the receipt is not PASS.
    const broken = utf8Encode(
      Buffer.from(parts.files.get(tampered!)!).toString('utf8').replace('"gold"', '"platinum"'),
    );
    parts.files.set(tampered!, broken);
    listed.set(tampered!, broken);
    // In the zip, not in the manifest: file_extra, stored all the same.
    const extra = standardReceiptFile(40, issuerSeed, ISSUER, crypto);
    parts.unlisted.set(`receipts/${extra.stem}.json`, extra.bytes);
    const id = await importZip(
      'tampered.zip',
      zipBundle(parts, { seed: signerSeed, keyId: SIGNER }, crypto, { listed }),
    );

    const detail = bundleDetail({ ledger }, id)!;
    expect(detail.verdict).toMatchObject({
      kind: 'altered',
      headline: 'Altered after signing: 1 changed, 1 missing, 1 extra, 1 receipt not PASS',
    });
    const rowOf = (stem: string): number => {
      const rows = findReceiptsByDocumentId(ledger.readable, stem);
      return rows[rows.length - 1]!.id;
    };
    const stem = (name: string): string => name.slice('receipts/'.length, -'.json'.length);
    const byCode = (code: string) => detail.findings.filter((finding) => finding.code === code);
    expect(byCode('file_missing')).toEqual([expect.objectContaining({ path: dropped })]);
    expect(byCode('file_missing')[0]!.receiptRowId).toBeUndefined();
    expect(byCode('file_mismatch')).toEqual([
      expect.objectContaining({ path: altered, receiptRowId: rowOf(stem(altered!)) }),
    ]);
    expect(byCode('file_extra')).toEqual([expect.objectContaining({ receiptRowId: rowOf(extra.stem) })]);
    // The tampered receipt's own row (another hash than the one receipts[2] would have).
    const notPass = byCode('receipt_not_pass');
    expect(notPass).toEqual([expect.objectContaining({ path: tampered, receiptRowId: rowOf(stem(tampered!)) })]);
    expect(detail.findings.find((finding) => finding.path === 'manifest.sig')).toBeUndefined();
  });
});
