import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import {
  checkAuditChain,
  findReceiptsByDocumentId,
  getBundle,
  getReceipt,
  ledgerStats,
  listAdvertisedKeys,
  listAuditEntries,
  listBundles,
  listReceipts,
  openLedger,
  type Ledger,
} from '../ledger/index';
import { createTrustStore } from '../trust/index';
import { BundleError } from '../evidence/errors';
import {
  ImportInterruptedError,
  importBundle,
  type FindingCode,
  type ImportOptions,
  type ImportResult,
} from './import';
import { standardReceiptFile } from './import-test-support';
import { logKeyEntry, makeLogEvidence, withKeyEntries } from '../../src-shared/evidence/log-test-support';
import {
  bundleParts,
  buildZip,
  keyEntryFor,
  zipBundle,
  type BundleParts,
  type RawZipEntry,
} from '../evidence/test-support';

const crypto = createNodeCryptoProvider();
const issuerSeed = new Uint8Array(32).fill(21);
const ISSUER = 'did:svc:acme:k1';
const signerSeed = new Uint8Array(32).fill(22);
const SIGNER = 'did:svc:acme:bundles';
const signer = { seed: signerSeed, keyId: SIGNER };
const BATCH = '2026-11-01T12:00Z';

function standardReceipt(index: number): { stem: string; bytes: Uint8Array } {
  return standardReceiptFile(index, issuerSeed, ISSUER, crypto);
}

const receipts = Array.from({ length: 12 }, (_, index) => standardReceipt(index));
const classical = utf8Encode(signClassical({ sequence: 1, amount: '2.50' }, issuerSeed, crypto));
const keys = [keyEntryFor(ISSUER, issuerSeed, crypto), keyEntryFor(SIGNER, signerSeed, crypto)];

function anchorsText(receiptSha: string | null): string {
  return JSON.stringify({
    batch_id: BATCH,
    anchors: [
      {
        receipt_sha256: receiptSha,
        record: { svc_anchor: `urn:svc:anchor:pending:${BATCH}:0123456789abcdef`, batch_id: BATCH, eta_seconds: 60 },
      },
      {
        receipt_sha256: null,
        record: {
          svc_anchor: `urn:svc:anchor:base:123:0x${'ab'.repeat(32)}:fedcba9876543210`,
          batch_id: BATCH,
          network: 'base',
          block_height: 123,
          tx_hash: `0x${'ab'.repeat(32)}`,
          merkle_root: `sha256:${'1'.repeat(64)}`,
          merkle_path: [],
          verified_at: '2026-11-01T12:05:00Z',
        },
      },
    ],
  });
}

function cleanParts(): BundleParts {
  const parts = bundleParts(receipts, { keyId: SIGNER, keys, anchors: { [BATCH]: anchorsText(null) } });
  parts.manifest.counts = { receipts: receipts.length + 1, anchors: 2 };
  // A classical receipt has no id of its own: any file name is fine for it.
  parts.files.set('receipts/classical-1.json', classical);
  return parts;
}

interface Snapshot {
  stats: unknown;
  audit: unknown;
  bundles: unknown;
}

function snapshot(ledger: Ledger): Snapshot {
  return {
    stats: ledgerStats(ledger.readable),
    audit: listAuditEntries(ledger.readable, { limit: 1000 }),
    bundles: listBundles(ledger.readable, { limit: 1000 }).rows,
  };
}

describe('importBundle', () => {
  let directory: string;
  let ledger: Ledger;
  let counter = 0;

  function writeZip(bytes: Uint8Array): string {
    counter += 1;
    const file = path.join(directory, `bundle-${counter}.zip`);
    fs.writeFileSync(file, bytes);
    return file;
  }

  async function run(bytes: Uint8Array, options: ImportOptions = {}): Promise<ImportResult> {
    return importBundle(ledger, writeZip(bytes), { workers: 1, ...options });
  }

  async function refusal(bytes: Uint8Array, options: ImportOptions = {}): Promise<BundleError> {
    const before = snapshot(ledger);
    const error = await run(bytes, options).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(BundleError);
    // Refused means nothing written: same counts, same audit log, same bundles.
    expect(snapshot(ledger)).toEqual(before);
    return error as BundleError;
  }

  function codes(result: ImportResult): FindingCode[] {
    return result.findings.map((finding) => finding.code);
  }

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-import-'));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));
  beforeEach(() => {
    ledger = openLedger(path.join(directory, `ledger-${Date.now()}-${Math.random()}.sqlite`));
  });
  afterEach(() => ledger.close());

  describe('a clean bundle', () => {
    it('imports every receipt with its report, anchors and advertised keys, and records the import', async () => {
      const events: string[] = [];
      const result = await run(zipBundle(cleanParts(), signer, crypto), {
        onProgress: (event) => events.push(event.phase),
      });
      expect(result.clean).toBe(true);
      expect(result.findings).toEqual([]);
      expect(result.signature).toMatchObject({ status: 'valid', key_id: SIGNER, trust: { status: 'unpinned' } });
      expect(result.counts).toMatchObject({
        receipts: 13,
        receiptsNew: 13,
        receiptsKnown: 0,
        byStatus: { PASS: 13 },
        byTrust: { unpinned: 13 },
        anchors: 2,
        anchorsNew: 2,
        advertisedKeys: 2,
      });
      expect(result).toMatchObject({
        resumed: false,
        alreadyImported: false,
        bundle: { tenant_id: 'acme', status: 'complete' },
      });
      expect(events[0]).toBe('hashing');
      expect(events).toContain('checking');
      expect(events).toContain('verifying');
      expect(events.at(-1)).toBe('done');

      const stats = ledgerStats(ledger.readable);
      expect(stats).toMatchObject({ receipts: 13, bundles: 1, anchors: 2, keys: { advertised: 2, pinned: 0 } });
      expect(stats.byFormat).toEqual({ 'profile/standard': 12, classical: 1 });
      const bundle = getBundle(ledger.readable, result.bundle.id);
      expect(bundle).toMatchObject({
        status: 'complete',
        tenant_id: 'acme',
        file_name: expect.stringMatching(/\.zip$/),
      });
      expect(bundle?.signature).toMatchObject({ status: 'valid' });
      // Each receipt is stored with its exact bytes, report, document id and bundle source.
      const page = listReceipts(ledger.readable, {
        filters: { source: { kind: 'bundle', ref: String(result.bundle.id) } },
        limit: 100,
      });
      expect(page.rows).toHaveLength(13);
      const first = receipts[0]!;
      const stored = page.rows.find((row) => row.receipt_id === first.stem);
      const record = getReceipt(ledger.readable, stored!.id);
      expect(Buffer.from(record!.raw).equals(Buffer.from(first.bytes))).toBe(true);
      expect(record?.report).toMatchObject({ format: 'profile/standard', status: 'PASS' });
      expect(record?.issued_at).toBe(Date.UTC(2026, 10, 1, 12, 0, 0));
      expect(record?.sources).toEqual([expect.objectContaining({ kind: 'bundle', ref: String(result.bundle.id) })]);
      expect(listAdvertisedKeys(ledger.readable).map((key) => [key.key_id, key.source])).toEqual(
        [
          [SIGNER, `bundle:${result.bundle.id}`],
          [ISSUER, `bundle:${result.bundle.id}`],
        ].sort(),
      );
      const [last] = listAuditEntries(ledger.readable, { limit: 1 });
      expect(last).toMatchObject({
        action: 'import',
        subject: result.bundle.sha256,
        details: { receipts: 13, new: 13, findings: 0 },
      });
      expect(checkAuditChain(ledger.readable).ok).toBe(true);
    });

    it('reports the signer as trusted when the trust store pins it, and receipts of a pinned issuer as trusted', async () => {
      const trust = createTrustStore(ledger);
      trust.pin({ ...keyEntryFor(SIGNER, signerSeed, crypto), label: 'Acme bundles' });
      trust.pin(keyEntryFor(ISSUER, issuerSeed, crypto));
      const result = await run(zipBundle(cleanParts(), signer, crypto));
      expect(result.signature.trust).toMatchObject({ status: 'trusted', label: 'Acme bundles' });
      // The classical receipt embeds the issuer's key: a pinned entry with those bytes makes it trusted too.
      expect(result.counts.byTrust).toEqual({ trusted: 13 });
      expect(result.clean).toBe(true);
    });

    it('imports the same zip again without duplicating anything', async () => {
      const bytes = zipBundle(cleanParts(), signer, crypto);
      const file = writeZip(bytes);
      const first = await importBundle(ledger, file, { workers: 1 });
      const after = ledgerStats(ledger.readable);
      const again = await importBundle(ledger, file, { workers: 1 });
      expect(again).toMatchObject({ alreadyImported: true, resumed: false, clean: true });
      expect(again.bundle.id).toBe(first.bundle.id);
      expect(again.counts).toMatchObject({ receiptsNew: 0, receiptsKnown: 13, anchorsNew: 0 });
      const stats = ledgerStats(ledger.readable);
      expect({ ...stats, auditEntries: 0 }).toEqual({ ...after, auditEntries: 0 });
      expect(stats.auditEntries).toBe(after.auditEntries + 1);
      const record = getReceipt(ledger.readable, listReceipts(ledger.readable, { limit: 1 }).rows[0]!.id);
      expect(record?.sources).toHaveLength(1);
    });

    it('reports an import that stops part-way, and finishes it on the next run', async () => {
      const file = writeZip(zipBundle(cleanParts(), signer, crypto));
      const file_ = path.join(directory, `stopped-${Date.now()}.sqlite`);
      const stopping = openLedger(file_);
      // A real storage failure at a known batch boundary, whatever the timing: the ledger file
      // refuses a sixth receipt, so the first transaction (5 receipts) commits and the second
      // fails. (Closing the ledger from a progress event depended on the throttled events'
      // timing and sometimes let the import finish.)
      stopping.writable.exec(`CREATE TRIGGER stop_after_one_batch BEFORE INSERT ON receipts
        WHEN (SELECT count(*) FROM receipts) >= 5 BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END`);
      const error = await importBundle(stopping, file, { workers: 1, transactionSize: 5 }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(ImportInterruptedError);
      expect((error as Error).message).toMatch(/disk full \(test\)/);
      // Whole batches only: the first transaction's 5 receipts, the bundle recorded as partial.
      expect(ledgerStats(stopping.readable)).toMatchObject({ receipts: 5, bundles: 1 });
      stopping.writable.exec('DROP TRIGGER stop_after_one_batch');
      stopping.close();
      const reopened = openLedger(file_);
      try {
        expect(listBundles(reopened.readable).rows[0]?.status).toBe('partial');
        const finished = await importBundle(reopened, file, { workers: 1 });
        expect(finished).toMatchObject({
          resumed: true,
          clean: true,
          counts: { receipts: 13, receiptsNew: 8, receiptsKnown: 5 },
        });
        expect(ledgerStats(reopened.readable)).toMatchObject({ receipts: 13, bundles: 1 });
        expect(getBundle(reopened.readable, finished.bundle.id)?.status).toBe('complete');
      } finally {
        reopened.close();
      }
    });

    it('accepts directory entries and stored (uncompressed) entries', async () => {
      const parts = cleanParts();
      const bytes = zipBundle(parts, signer, crypto, {
        extra: [
          { name: 'receipts/', method: 0 },
          { name: 'keys/', method: 0 },
        ],
      });
      expect((await run(bytes)).clean).toBe(true);
    });
  });

  describe('hostile zips are refused with nothing written', () => {
    function withEntry(entry: RawZipEntry): Buffer {
      return zipBundle(cleanParts(), signer, crypto, { extra: [entry] });
    }

    it.each<[string, RawZipEntry, string]>([
      ['an absolute path', { name: '/etc/passwd', data: utf8Encode('x') }, 'zip_path_absolute'],
      ['a .. segment', { name: 'receipts/../../evil.json', data: utf8Encode('x') }, 'zip_path_traversal'],
      ['a backslash', { name: 'receipts\\evil.json', data: utf8Encode('x') }, 'zip_path_backslash'],
      ['a drive letter', { name: 'C:/evil.json', data: utf8Encode('x') }, 'zip_path_drive'],
      ['a NUL byte', { name: 'receipts/a\u0000.json', data: utf8Encode('x') }, 'zip_path_control'],
      [
        'a symlink',
        { name: 'receipts/link.json', data: utf8Encode('/etc/passwd'), externalAttributes: (0o120777 << 16) >>> 0 },
        'zip_symlink',
      ],
      ['a FIFO', { name: 'receipts/fifo', externalAttributes: (0o010644 << 16) >>> 0 }, 'zip_special_file'],
      ['a directory with content', { name: 'receipts/', data: utf8Encode('x') }, 'zip_directory_invalid'],
      ['a duplicate name', { name: 'manifest.json', data: utf8Encode('{}') }, 'zip_duplicate_name'],
      ['a case-folded duplicate', { name: 'MANIFEST.json', data: utf8Encode('{}') }, 'zip_duplicate_name'],
      ['a file used as a directory', { name: 'manifest.json/x.json', data: utf8Encode('{}') }, 'zip_path_conflict'],
      ['an encrypted entry', { name: 'receipts/secret.json', data: utf8Encode('x'), flags: 0x801 }, 'zip_encrypted'],
      [
        'an unknown compression method',
        { name: 'receipts/x.json', data: utf8Encode('x'), method: 14 },
        'zip_unsupported_compression',
      ],
      [
        'an unflagged non-ASCII name',
        { name: Buffer.from('receipts/é.json', 'utf8'), data: utf8Encode('x'), flags: 0 },
        'zip_path_invalid',
      ],
    ])('%s', async (_name, entry, code) => {
      const error = await refusal(withEntry(entry));
      expect(error.code).toBe(code);
      expect(error.entry).toBeDefined();
    });

    it('more entries than the limit', async () => {
      expect((await refusal(zipBundle(cleanParts(), signer, crypto), { limits: { maxEntries: 10 } })).code).toBe(
        'zip_too_many_entries',
      );
    });

    it('more bytes in total than the limit', async () => {
      expect((await refusal(zipBundle(cleanParts(), signer, crypto), { limits: { maxBytes: 5000 } })).code).toBe(
        'zip_too_large',
      );
    });

    it('an entry larger than the per-entry limit', async () => {
      const error = await refusal(withEntry({ name: 'receipts/big.json', data: new Uint8Array(70_000).fill(0x20) }), {
        limits: { maxEntryBytes: 65_536 },
      });
      expect(error).toMatchObject({ code: 'zip_entry_too_large', entry: 'receipts/big.json' });
    });

    it('an entry that inflates past the ratio (a small zip bomb)', async () => {
      const error = await refusal(
        withEntry({ name: 'receipts/bomb.json', data: new Uint8Array(2_000_000).fill(0x20) }),
      );
      expect(error).toMatchObject({ code: 'zip_ratio_exceeded', entry: 'receipts/bomb.json' });
    });

    it('an archive whose entries together inflate past the ratio', async () => {
      // 300 entries of 4 KiB spaces: each is under the per-entry floor, the total is not.
      const extra = Array.from({ length: 300 }, (_, index) => ({
        name: `filler/${index}.txt`,
        data: new Uint8Array(4096).fill(0x20),
      }));
      const error = await refusal(zipBundle(cleanParts(), signer, crypto, { extra }), { limits: { maxRatio: 20 } });
      expect(error.code).toBe('zip_ratio_exceeded');
    });

    it('a header that understates the inflated size (the limit holds against the real size)', async () => {
      const data = new Uint8Array(200_000).fill(0x41);
      const error = await refusal(withEntry({ name: 'receipts/liar.json', data, declaredSize: 100 }), {
        limits: { maxRatio: 10_000 },
      });
      expect(error).toMatchObject({ code: 'zip_size_mismatch', entry: 'receipts/liar.json' });
    });

    it('a header that overstates the size, and a wrong CRC-32', async () => {
      const data = utf8Encode('{"a":1}');
      expect((await refusal(withEntry({ name: 'receipts/long.json', data, declaredSize: 50 }))).code).toBe(
        'zip_size_mismatch',
      );
      expect((await refusal(withEntry({ name: 'receipts/crc.json', data, crc: 1234 }))).code).toBe('zip_crc_mismatch');
    });

    it('no manifest, a manifest that breaks the schema, another bundle format', async () => {
      const noManifest = buildZip(
        receipts.map((receipt) => ({ name: `receipts/${receipt.stem}.json`, data: receipt.bytes })),
      );
      expect((await refusal(noManifest)).code).toBe('manifest_missing');
      const invalid = await refusal(
        zipBundle(cleanParts(), signer, crypto, { manifestText: '{"bundle_format":"evroom.evidence/1","files":[]}' }),
      );
      expect(invalid).toMatchObject({ code: 'manifest_invalid', path: '/tenant_id' });
      const duplicate = await refusal(
        zipBundle(cleanParts(), signer, crypto, { manifestText: '{"tenant_id":"a","tenant_id":"b"}' }),
      );
      expect(duplicate).toMatchObject({ code: 'manifest_invalid', path: '/tenant_id' });
      const future = await refusal(
        zipBundle(cleanParts(), signer, crypto, { manifestText: '{"bundle_format":"evroom.evidence/9"}' }),
      );
      expect(future.code).toBe('manifest_unsupported_format');
    });

    it('a file that is not a zip, and a missing file', async () => {
      expect((await refusal(utf8Encode('{"not":"a zip"}'))).code).toBe('zip_unreadable');
      const before = snapshot(ledger);
      await expect(importBundle(ledger, path.join(directory, 'missing.zip'))).rejects.toMatchObject({
        code: 'zip_unreadable',
      });
      expect(snapshot(ledger)).toEqual(before);
    });
  });

  it('stores every receipt byte for byte across many batches and transactions (buffers reused between them)', async () => {
    // Six verification batches (256 each), more than one worker keeps in flight (4), and
    // transactions of 700 that end inside batches: the buffers receipts are gathered in are
    // reused while other receipts wait to be stored, which must never overwrite those.
    const many = Array.from({ length: 1500 }, (_, index) => standardReceipt(1000 + index));
    const parts = bundleParts(many, { keyId: SIGNER, keys });
    const result = await run(zipBundle(parts, signer, crypto), { transactionSize: 700 });
    expect(result.clean).toBe(true);
    expect(result.counts).toMatchObject({ receipts: 1500, receiptsNew: 1500, receiptsKnown: 0 });
    for (const receipt of many) {
      const [summary] = findReceiptsByDocumentId(ledger.readable, receipt.stem);
      const stored = getReceipt(ledger.readable, summary!.id);
      expect(stored?.receipt_id).toBe(receipt.stem);
      expect(Buffer.from(stored!.raw).equals(Buffer.from(receipt.bytes)), receipt.stem).toBe(true);
    }
  });

  describe('findings: imported, and reported', () => {
    it('missing, extra, mismatching and unexpected files; counts; receipts not PASS or misnamed; bad anchors', async () => {
      const parts = cleanParts();
      const [dropped, altered] = [...parts.files.keys()].filter((name) => name.startsWith('receipts/rcp_'));
      parts.omitted.add(dropped!);
      // A receipt whose bytes differ from the manifest (but still verify: different spacing).
      const listed = new Map(parts.files);
      parts.files.set(altered!, utf8Encode(`${Buffer.from(parts.files.get(altered!)!).toString('utf8')} `));
      // A tampered receipt listed with its own (tampered) hash: the manifest is fine, the receipt is not.
      const tampered = Buffer.from(receipts[5]!.bytes).toString('utf8').replace('"gold"', '"platinum"');
      const tamperedName = `receipts/${receipts[5]!.stem}.json`;
      parts.files.set(tamperedName, utf8Encode(tampered));
      listed.set(tamperedName, utf8Encode(tampered));
      // A receipt under another receipt's name.
      listed.set(`receipts/rcp_WRONGNAME.json`, receipts[6]!.bytes);
      parts.files.set(`receipts/rcp_WRONGNAME.json`, receipts[6]!.bytes);
      parts.unlisted.set('receipts/extra.json', receipts[7]!.bytes);
      parts.unlisted.set('notes.txt', utf8Encode('hello'));
      listed.set(`anchors/${BATCH}.json`, utf8Encode('{"batch_id":"2026-11-01T12:01Z","anchors":[]}'));
      parts.files.set(`anchors/${BATCH}.json`, utf8Encode('{"batch_id":"2026-11-01T12:01Z","anchors":[]}'));
      parts.manifest.counts = { receipts: 99, anchors: 2 };
      const result = await run(zipBundle(parts, signer, crypto, { listed }));

      expect(result.clean).toBe(false);
      const found = codes(result);
      for (const code of [
        'file_missing',
        'file_extra',
        'file_mismatch',
        'unexpected_file',
        'count_mismatch',
        'receipt_not_pass',
        'receipt_name_mismatch',
        'anchors_invalid',
      ] as const) {
        expect(found, code).toContain(code);
      }
      expect(result.findings.find((finding) => finding.code === 'file_missing')?.path).toBe(dropped);
      const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
      const alteredBytes = parts.files.get(altered!)!;
      const listedBytes = listed.get(altered!)!;
      expect(result.findings.find((finding) => finding.code === 'file_mismatch')).toEqual({
        code: 'file_mismatch',
        path: altered,
        message:
          `The file differs from the manifest: ${alteredBytes.length} bytes with SHA-256 ${sha(alteredBytes)}, ` +
          `the manifest says ${listedBytes.length} bytes with SHA-256 ${sha(listedBytes)}.`,
      });
      expect(
        result.findings
          .filter((finding) => finding.code === 'file_extra')
          .map((finding) => finding.path)
          .sort(),
      ).toEqual(['notes.txt', 'receipts/extra.json']);
      expect(result.findings.find((finding) => finding.code === 'receipt_not_pass')).toMatchObject({
        path: tamperedName,
        message: expect.stringMatching(/^MISMATCH|^INVALID/),
      });
      expect(result.findingCounts.count_mismatch).toBe(2);
      expect(result.totalFindings).toBe(result.findings.length);
      // Imported anyway: every receipt file that exists is read (12 listed and written, one
      // misnamed copy, one extra copy), each distinct receipt stored once.
      expect(result.counts).toMatchObject({ receipts: 14, receiptsNew: 12, receiptsKnown: 2 });
      expect(ledgerStats(ledger.readable).receipts).toBe(12);
      const bundle = getBundle(ledger.readable, result.bundle.id);
      expect(bundle?.status).toBe('complete');
      expect((bundle?.findings as unknown[]).length).toBe(result.totalFindings);
    });

    it.each<[string, (parts: BundleParts) => Buffer, FindingCode, string]>([
      [
        'no manifest.sig',
        (parts) => zipBundle(parts, signer, crypto, { signature: false }),
        'manifest_signature_missing',
        'missing',
      ],
      [
        'a malformed manifest.sig',
        (parts) => zipBundle(parts, signer, crypto, { signature: '{"key_id":"x"}' }),
        'manifest_signature_malformed',
        'malformed',
      ],
      [
        'a signature by another key',
        (parts) => zipBundle(parts, { seed: new Uint8Array(32).fill(99), keyId: SIGNER }, crypto),
        'manifest_signature_invalid',
        'invalid',
      ],
      [
        'a signer that no key is known for (and a broken key file)',
        (parts) => {
          parts.files.set('keys/service-keys.json', utf8Encode('{"keys":[{"key_id":"nope"}]}'));
          return zipBundle(parts, signer, crypto);
        },
        'manifest_signature_unavailable',
        'unavailable',
      ],
      [
        'a signature for another manifest',
        (parts) => {
          const signature = JSON.stringify({
            key_id: SIGNER,
            algorithm: 'Ed25519',
            manifest_sha256: 'a'.repeat(64),
            sig_b64u: 'A'.repeat(86),
          });
          return zipBundle(parts, signer, crypto, { signature });
        },
        'manifest_signature_mismatch',
        'mismatch',
      ],
    ])('%s', async (_name, build, code, status) => {
      const result = await run(build(cleanParts()));
      expect(result.signature.status).toBe(status);
      expect(codes(result)).toContain(code);
      expect(ledgerStats(ledger.readable).receipts).toBe(13);
      if (code === 'manifest_signature_unavailable') expect(codes(result)).toContain('keys_invalid');
    });

    it('a manifest signed by a key other than the one it names', async () => {
      const parts = cleanParts();
      parts.manifest.key_id = 'did:svc:acme:someone-else';
      const result = await run(zipBundle(parts, signer, crypto));
      expect(result.signature.status).toBe('valid');
      expect(codes(result)).toEqual(['manifest_key_mismatch']);
    });

    it('an unpinned signer is trust, not a finding', async () => {
      const result = await run(zipBundle(cleanParts(), signer, crypto));
      expect(result.signature.trust.status).toBe('unpinned');
      expect(result.totalFindings).toBe(0);
    });
  });

  describe('log evidence (issue 28)', () => {
    const logKey = { seed: new Uint8Array(32).fill(23), name: 'evroom.test/log' };

    /** The bundle of the period 12:00:02 to 12:00:06 of a log of the first eight receipts. */
    function logBundle(held: number[] = [2, 3, 4, 5]): Uint8Array {
      const fixture = makeLogEvidence({
        crypto,
        key: logKey,
        tenant: 'acme',
        log: receipts.slice(0, 8).map((receipt) => receipt.bytes),
        period: { since: '2026-11-01T12:00:02Z', until: '2026-11-01T12:00:06Z' },
        first: 2,
        last: 5,
        before: 1,
        after: 6,
      });
      const parts = bundleParts(
        held.map((index) => receipts[index] as { stem: string; bytes: Uint8Array }),
        { keyId: SIGNER, keys },
      );
      const keysText = new TextDecoder().decode(parts.files.get('keys/service-keys.json'));
      const entry = logKeyEntry(crypto, logKey, 'did:svc:acme:log');
      parts.files.set('keys/service-keys.json', utf8Encode(withKeyEntries(keysText, [entry])));
      parts.files.set('log/checkpoint.txt', utf8Encode(fixture.checkpoint));
      parts.files.set('log/proofs.json', utf8Encode(JSON.stringify(fixture.proofs)));
      return zipBundle(parts, signer, crypto);
    }

    it('stores the completeness with the bundle; the log files are not receipts', async () => {
      const result = await run(logBundle());
      expect(codes(result)).toEqual([]);
      expect(result.counts).toMatchObject({ files: 9, receipts: 4, receiptsNew: 4 });
      expect(result.log).toMatchObject({
        status: 'complete',
        signer: 'advertised',
        sentence: 'complete for 2026-11-01T12:00:02Z to 2026-11-01T12:00:06Z at size 8',
      });
      expect(getBundle(ledger.readable, result.bundle.id)?.log).toEqual(result.log);
      expect(listBundles(ledger.readable).rows[0]?.log).toEqual(result.log);
      expect(ledgerStats(ledger.readable).receipts).toBe(4);
    });

    it('stores an incomplete bundle’s missing indices, and null for a bundle without log files', async () => {
      const result = await run(logBundle([2, 3, 5]));
      expect(codes(result)).toEqual(['log_leaf_missing']);
      expect(getBundle(ledger.readable, result.bundle.id)?.log).toMatchObject({
        status: 'incomplete',
        missing: [4],
        sentence: 'incomplete: 1 leaf missing (index 4)',
      });
      const plain = await run(zipBundle(cleanParts(), signer, crypto));
      expect(plain.log).toBeNull();
      expect(getBundle(ledger.readable, plain.bundle.id)?.log).toBeNull();
    });

    it('says the log key is pinned when the trust store holds it', async () => {
      createTrustStore(ledger).pin({
        key_id: 'did:svc:acme:log',
        algorithm: 'Ed25519',
        public_key: crypto.ed25519PublicKey(logKey.seed),
      });
      const result = await run(logBundle());
      expect(result.log).toMatchObject({ status: 'complete', signer: 'pinned' });
    });
  });

  it('checks its arguments', async () => {
    await expect(importBundle({} as Ledger, 'x.zip')).rejects.toThrow(TypeError);
    await expect(importBundle(ledger, '')).rejects.toThrow(TypeError);
    await expect(importBundle(ledger, 'x.zip', { transactionSize: 0 })).rejects.toThrow(RangeError);
    await expect(importBundle(ledger, 'x.zip', { limits: { maxRatio: 0 } })).rejects.toThrow(RangeError);
  });
});
