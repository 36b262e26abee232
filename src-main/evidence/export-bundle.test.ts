import { createHash, createPrivateKey, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';
import { issueProfileReceipt } from '../../src-shared/formats/profile';
import { parseKeyFile } from '../../src-shared/verify/key-file';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import {
  insertReceipts,
  ledgerStats,
  listAuditEntries,
  openLedger,
  type Ledger,
  type LedgerStats,
  type NewReceipt,
} from '../ledger/index';
import { ExportError, exportBundle, stopExportWorker } from './export-bundle';
import { importBundle } from '../operations/import';
import { parseManifest } from './manifest';
import { SigningKeyError, SIGNING_KEY_PATH } from './signing-key';
import { bundleParts, keyEntryFor, zipBundle } from './test-support';

const node = createNodeCryptoProvider();
const issuerSeed = new Uint8Array(32).fill(31);
const ISSUER = 'did:svc:acme:k2';
const signer = { seed: new Uint8Array(32).fill(32), keyId: 'did:svc:acme:bundles' };
const BATCH = '2026-11-02T08:30Z';

/** The node provider with one cached key pair (making a KeyObject per signature is the slow part). */
function fastSigner(seed: Uint8Array): CryptoProvider {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seed)]);
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  const publicKey = node.ed25519PublicKey(seed);
  return {
    ...node,
    ed25519Sign: (message) => new Uint8Array(sign(null, message, privateKey)),
    ed25519PublicKey: () => publicKey,
  };
}

/** The report verification gives a classical receipt signed by an unpinned key. */
const CLASSICAL_PASS = {
  report_version: '1' as const,
  format: 'classical' as const,
  status: 'PASS' as const,
  trust: { status: 'unpinned' as const },
  checks: [],
  errors: [],
  notes: [],
};

/** Ledger rows of real signed classical receipts, the given sequence numbers, with their report. */
function classicalRows(sequences: readonly number[], seed: Uint8Array, signer: CryptoProvider): NewReceipt[] {
  return sequences.map((sequence) => {
    const raw = utf8Encode(signClassical({ sequence }, seed, signer));
    return {
      receipt_sha256: createHash('sha256').update(raw).digest('hex'),
      raw,
      report: CLASSICAL_PASS,
      source: { kind: 'file' as const, ref: 'test' },
    };
  });
}

/** The numbers from `start`, `count` of them. */
function range(start: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => start + index);
}

function entryNames(file: string): Promise<{ count: number; names: string[] }> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const names: string[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        zip.readEntry();
      });
      zip.on('end', () => resolve({ count: zip.entryCount, names }));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

function readZipEntry(file: string, wanted: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== wanted) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => resolve(Buffer.concat(chunks)));
        });
      });
      zip.on('end', () => reject(new Error(`${wanted} not found`)));
      zip.readEntry();
    });
  });
}

function comparable(stats: LedgerStats): Omit<LedgerStats, 'auditEntries' | 'keys' | 'bundles'> {
  const { auditEntries: _audit, keys: _keys, bundles: _bundles, ...rest } = stats;
  return rest;
}

describe('exportBundle', () => {
  let directory: string;
  let source: Ledger;
  let home: string;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-export-'));
    home = path.join(directory, 'home-a');
    fs.mkdirSync(home, { mode: 0o700 });
    source = openLedger(path.join(home, 'ledger.sqlite'));
    const receipts = Array.from({ length: 8 }, (_, index) => {
      const receipt = issueProfileReceipt(
        'standard',
        {
          agent_did: 'did:web:agent.example.com',
          content: { sha256: createHash('sha256').update(`export ${index}`).digest('hex'), type: 'text/plain' },
          smsh: { sealed: false, declaration: 'none' },
          hktn_context: { reputation_tier: 'silver' },
        },
        issuerSeed,
        ISSUER,
        node,
      );
      return { stem: (receipt.receipt as { id: string }).id, bytes: utf8Encode(JSON.stringify(receipt)) };
    });
    const classical = utf8Encode(signClassical({ sequence: 7, memo: 'tea' }, issuerSeed, node));
    const parts = bundleParts(receipts, {
      keyId: signer.keyId,
      keys: [keyEntryFor(ISSUER, issuerSeed, node), keyEntryFor(signer.keyId, signer.seed, node)],
      anchors: {
        [BATCH]: JSON.stringify({
          batch_id: BATCH,
          anchors: [
            {
              receipt_sha256: null,
              record: {
                svc_anchor: `urn:svc:anchor:pending:${BATCH}:00112233aabbccdd`,
                batch_id: BATCH,
                eta_seconds: 30,
              },
            },
          ],
        }),
      },
    });
    parts.files.set('receipts/classical.json', classical);
    parts.manifest.counts = { receipts: 9, anchors: 1 };
    const file = path.join(directory, 'source.zip');
    fs.writeFileSync(file, zipBundle(parts, signer, node));
    const imported = await importBundle(source, file, { workers: 1 });
    expect(imported.clean).toBe(true);
  });

  afterAll(() => {
    source.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('writes a signed bundle that imports back with zero findings on another machine', async () => {
    const out = path.join(directory, 'all.zip');
    const phases: string[] = [];
    const result = await exportBundle(source, {
      out,
      dataDirectory: home,
      tenantId: 'acme',
      onProgress: (event) => phases.push(event.phase),
    });
    expect(result).toMatchObject({ receipts: 9, keys: 2, keyCreated: true, tenant_id: 'acme', file: out });
    expect(result.key_id).toMatch(/^did:key:z6Mk/);
    expect(phases.at(-1)).toBe('done');
    expect(result.sha256).toBe(createHash('sha256').update(fs.readFileSync(out)).digest('hex'));

    // The layout: receipts by id (the classical one by its SHA-256), keys, manifest, signature.
    const { names } = await entryNames(out);
    expect(names.slice(-3)).toEqual(['keys/service-keys.json', 'manifest.json', 'manifest.sig']);
    expect(names.filter((name) => name.startsWith('receipts/'))).toHaveLength(9);
    expect(names.some((name) => /^receipts\/[0-9a-f]{64}\.json$/.test(name))).toBe(true);
    expect(names).toContain(`anchors/${BATCH}.json`);
    const keys = parseKeyFile((await readZipEntry(out, 'keys/service-keys.json')).toString('utf8'), {
      advertised: true,
    });
    expect(keys.map((key) => key.key_id).sort()).toEqual([ISSUER, result.key_id].sort());

    // The local key: a private file in a private folder, listed in the bundle's keys/.
    const keyFile = path.join(home, SIGNING_KEY_PATH);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(keyFile)).mode & 0o777).toBe(0o700);
    expect(listAuditEntries(source.readable, { limit: 1 })[0]).toMatchObject({
      action: 'export',
      subject: out,
      details: { receipts: 9, sha256: result.sha256 },
    });
    expect(JSON.stringify(listAuditEntries(source.readable, { limit: 1 }))).not.toContain(
      (JSON.parse(fs.readFileSync(keyFile, 'utf8')) as { seed: string }).seed,
    );

    // Another machine: a fresh ledger, nothing pinned.
    const elsewhere = openLedger(path.join(directory, 'elsewhere.sqlite'));
    try {
      const back = await importBundle(elsewhere, out, { workers: 1 });
      expect(back.findings).toEqual([]);
      expect(back.clean).toBe(true);
      expect(back.signature).toMatchObject({ status: 'valid', key_id: result.key_id, trust: { status: 'unpinned' } });
      expect(comparable(ledgerStats(elsewhere.readable))).toEqual(comparable(ledgerStats(source.readable)));
    } finally {
      elsewhere.close();
    }
  });

  it('exports a filtered selection, reusing the same key', async () => {
    const first = await exportBundle(source, { out: path.join(directory, 'one.zip'), dataDirectory: home });
    const out = path.join(directory, 'classical.zip');
    const result = await exportBundle(source, { out, dataDirectory: home, filters: { format: 'classical' } });
    expect(result).toMatchObject({ receipts: 1, keyCreated: false, key_id: first.key_id, anchors: 0 });
    const { names } = await entryNames(out);
    const parsed = parseManifest(await readZipEntry(out, 'manifest.json'));
    expect(parsed).toMatchObject({ tenant_id: 'local', key_id: first.key_id, counts: { receipts: 1, anchors: 0 } });
    expect(parsed.files.map((file) => file.path).sort()).toEqual(
      names.filter((name) => !name.startsWith('manifest.')).sort(),
    );
    // Only the signing key: a classical receipt carries its own key.
    const keys = parseKeyFile((await readZipEntry(out, 'keys/service-keys.json')).toString('utf8'), {
      advertised: true,
    });
    expect(keys.map((key) => key.key_id)).toEqual([first.key_id]);
  });

  it('refuses to overwrite unless asked, and writes nothing when it refuses', async () => {
    const out = path.join(directory, 'exists.zip');
    fs.writeFileSync(out, 'keep me');
    await expect(exportBundle(source, { out, dataDirectory: home })).rejects.toMatchObject({ code: 'out_exists' });
    expect(fs.readFileSync(out, 'utf8')).toBe('keep me');
    await expect(exportBundle(source, { out, dataDirectory: home })).rejects.toBeInstanceOf(ExportError);
    const result = await exportBundle(source, { out, dataDirectory: home, overwrite: true });
    expect(result.receipts).toBe(9);
    expect(fs.readdirSync(directory).filter((name) => name.endsWith('.partial'))).toEqual([]);
    await expect(
      exportBundle(source, {
        out: path.join(directory, 'x.zip'),
        dataDirectory: home,
        filters: { status: 'NOPE' as never },
      }),
    ).rejects.toThrow(RangeError);
    expect(fs.existsSync(path.join(directory, 'x.zip'))).toBe(false);
  });

  it('refuses a damaged signing key file and leaves it as it is', async () => {
    const other = path.join(directory, 'home-b');
    fs.mkdirSync(path.join(other, 'keys'), { recursive: true });
    const keyFile = path.join(other, SIGNING_KEY_PATH);
    fs.writeFileSync(keyFile, '{"key_id":"did:key:z6Mk","algorithm":"Ed25519"}');
    await expect(
      exportBundle(source, { out: path.join(directory, 'y.zip'), dataDirectory: other }),
    ).rejects.toBeInstanceOf(SigningKeyError);
    expect(fs.readFileSync(keyFile, 'utf8')).toBe('{"key_id":"did:key:z6Mk","algorithm":"Ed25519"}');
    expect(fs.existsSync(path.join(directory, 'y.zip'))).toBe(false);
  });

  it('writes a highly compressible receipt so that the import takes it with its default limits', async () => {
    // A receipt with a 1 MB run of one character deflates about 1000:1, past the import's
    // default ratio limit of 100: the export must store it rather than deflate it.
    const seed = new Uint8Array(32).fill(34);
    const packedHome = path.join(directory, 'home-packed');
    fs.mkdirSync(packedHome);
    const origin = openLedger(path.join(packedHome, 'ledger.sqlite'));
    const target = openLedger(path.join(directory, 'packed-target.sqlite'));
    try {
      const report = CLASSICAL_PASS;
      const raw = utf8Encode(signClassical({ sequence: 1, memo: 'z'.repeat(1024 * 1024) }, seed, node));
      const small = utf8Encode(signClassical({ sequence: 2, memo: 'tea' }, seed, node));
      origin.runInTransaction((database) =>
        insertReceipts(
          database,
          [raw, small].map((bytes) => ({
            receipt_sha256: createHash('sha256').update(bytes).digest('hex'),
            raw: bytes,
            report,
            source: { kind: 'file' as const, ref: 'test' },
          })),
        ),
      );
      const out = path.join(directory, 'packed.zip');
      expect((await exportBundle(origin, { out, dataDirectory: packedHome })).receipts).toBe(2);
      const back = await importBundle(target, out, { workers: 1 });
      expect(back.findings).toEqual([]);
      expect(back.clean).toBe(true);
      expect(back.counts).toMatchObject({ receipts: 2, receiptsNew: 2, byStatus: { PASS: 2 } });
    } finally {
      origin.close();
      target.close();
    }
  });

  it('writes the same bundle on the export worker, reports progress, and refuses the same way', async () => {
    const now = new Date('2026-11-20T10:00:00.000Z');
    const signingKey = {
      key_id: 'did:svc:acme:evidence',
      seed: new Uint8Array(32).fill(36),
      public_key: node.ed25519PublicKey(new Uint8Array(32).fill(36)),
    };
    const here = await exportBundle(source, {
      out: path.join(directory, 'here.zip'),
      dataDirectory: home,
      tenantId: 'acme',
      now,
      signingKey,
    });
    const phases: string[] = [];
    const there = await exportBundle(source, {
      out: path.join(directory, 'there.zip'),
      dataDirectory: home,
      tenantId: 'acme',
      now,
      signingKey,
      worker: true,
      onProgress: (event) => phases.push(event.phase),
    });
    // Byte for byte the bundle the calling thread writes; the audit row is the caller's.
    expect(there.sha256).toBe(here.sha256);
    expect({ ...there, file: '' }).toEqual({ ...here, file: '' });
    expect(phases[0]).toBe('writing');
    expect(phases.at(-1)).toBe('done');
    expect(listAuditEntries(source.readable, { limit: 1 })[0]).toMatchObject({
      action: 'export',
      subject: there.file,
      details: { sha256: there.sha256 },
    });
    // The worker wipes its copy of the seed, never the caller's.
    expect(signingKey.seed).toEqual(new Uint8Array(32).fill(36));
    // Refusals come back as the classes and codes the calling thread throws, and write nothing.
    await expect(exportBundle(source, { out: there.file, dataDirectory: home, worker: true })).rejects.toMatchObject({
      name: 'ExportError',
      code: 'out_exists',
    });
    await expect(
      exportBundle(source, {
        out: path.join(directory, 'z.zip'),
        dataDirectory: home,
        worker: true,
        filters: { status: 'NOPE' as never },
      }),
    ).rejects.toThrow(RangeError);
    const damaged = path.join(directory, 'home-damaged');
    fs.mkdirSync(path.join(damaged, 'keys'), { recursive: true });
    fs.writeFileSync(path.join(damaged, SIGNING_KEY_PATH), '{"key_id":"did:key:z6Mk","algorithm":"Ed25519"}');
    await expect(
      exportBundle(source, { out: path.join(directory, 'z.zip'), dataDirectory: damaged, worker: true }),
    ).rejects.toBeInstanceOf(SigningKeyError);
    // Options that cannot cross to the worker are refused, and the next export still runs.
    await expect(
      exportBundle(source, {
        out: path.join(directory, 'z.zip'),
        dataDirectory: home,
        worker: true,
        filters: { text: (() => 'x') as never },
      }),
    ).rejects.toThrow();
    expect(fs.existsSync(path.join(directory, 'z.zip'))).toBe(false);
    expect(fs.readdirSync(directory).filter((name) => name.endsWith('.partial'))).toEqual([]);
    // It is written by another thread: the zip appears while this one is kept busy.
    const blocked = path.join(directory, 'blocked.zip');
    const pending = exportBundle(source, {
      out: blocked,
      dataDirectory: home,
      tenantId: 'acme',
      now,
      signingKey,
      worker: true,
    });
    const deadline = Date.now() + 30_000;
    while (!fs.existsSync(blocked) && Date.now() < deadline) {
      // Nothing on this thread can move the export while this loop runs.
    }
    expect(fs.existsSync(blocked)).toBe(true);
    expect((await pending).sha256).toBe(here.sha256);
    // Exports asked together share the one worker and each gets its own bundle.
    const together = await Promise.all(
      ['t1.zip', 't2.zip', 't3.zip'].map((name) =>
        exportBundle(source, {
          out: path.join(directory, name),
          dataDirectory: home,
          tenantId: 'acme',
          now,
          signingKey,
          worker: true,
        }),
      ),
    );
    expect(new Set(together.map((result) => result.sha256))).toEqual(new Set([here.sha256]));
  }, 60_000);

  it('writes the bundle on the calling thread when the export worker stops mid-way', async () => {
    const seed = new Uint8Array(32).fill(37);
    const fast = fastSigner(seed);
    const stopHome = path.join(directory, 'home-stop');
    fs.mkdirSync(stopHome);
    const origin = openLedger(path.join(stopHome, 'ledger.sqlite'));
    try {
      origin.runInTransaction((database) => insertReceipts(database, classicalRows(range(0, 3_000), seed, fast)));
      const now = new Date('2026-11-20T10:00:00.000Z');
      const inline = await exportBundle(origin, {
        out: path.join(stopHome, 'inline.zip'),
        dataDirectory: stopHome,
        now,
      });
      const failures: Error[] = [];
      let stopping: Promise<void> | undefined;
      const result = await exportBundle(origin, {
        out: path.join(stopHome, 'stopped.zip'),
        dataDirectory: stopHome,
        now,
        worker: true,
        onWorkerError: (error) => failures.push(error),
        // The worker's first event: it has begun writing, and is stopped there.
        onProgress: (event) => {
          if (event.phase === 'writing' && stopping === undefined) stopping = stopExportWorker();
        },
      });
      await stopping;
      expect(failures).toHaveLength(1);
      expect(failures[0]?.message).toMatch(/^The export worker stopped/);
      expect(result).toMatchObject({ receipts: 3_000, sha256: inline.sha256 });
      // A later export starts another worker.
      const again = await exportBundle(origin, {
        out: path.join(stopHome, 'again.zip'),
        dataDirectory: stopHome,
        now,
        worker: true,
        onWorkerError: (error) => failures.push(error),
      });
      expect(again.sha256).toBe(inline.sha256);
      expect(failures).toHaveLength(1);
    } finally {
      origin.close();
    }
  }, 60_000);

  it('exports the ledger as it was when the export began, while receipts keep arriving', async () => {
    // The service exports a tenant's evidence while it issues more: an export that paged the
    // live ledger would take in what arrives meanwhile (and under steady issuance never end).
    const seed = new Uint8Array(32).fill(35);
    const fast = fastSigner(seed);
    const liveHome = path.join(directory, 'home-live');
    fs.mkdirSync(liveHome);
    const origin = openLedger(path.join(liveHome, 'ledger.sqlite'));
    try {
      let sequence = 0;
      const add = (count: number): void => {
        origin.runInTransaction((database) =>
          insertReceipts(database, classicalRows(range(sequence + 1, count), seed, fast)),
        );
        sequence += count;
      };
      // More than one page of the export's paging (500), so new rows land past pages it reads.
      add(1_200);
      let added = 0;
      const totals: number[] = [];
      const out = path.join(directory, 'live.zip');
      const exported = await exportBundle(origin, {
        out,
        dataDirectory: liveHome,
        onProgress: (event) => {
          totals.push(event.receiptsTotal);
          // At the start of writing and at every progress event after it: more receipts committed.
          if (event.phase === 'writing' && added < 5) {
            add(300);
            added += 1;
          }
        },
      });
      expect(added).toBeGreaterThan(0);
      expect(ledgerStats(origin.readable).receipts).toBe(1_200 + 300 * added);
      expect(exported.receipts).toBe(1_200);
      expect(new Set(totals)).toEqual(new Set([1_200]));
      const manifest = parseManifest(await readZipEntry(out, 'manifest.json'));
      expect(manifest.counts.receipts).toBe(1_200);
      expect((await entryNames(out)).names.filter((name) => name.startsWith('receipts/'))).toHaveLength(1_200);
      // The export's snapshot is closed: a checkpoint can take the whole WAL back into the file.
      expect(origin.writable.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
    } finally {
      origin.close();
    }
  });

  it('round-trips more than 65,535 receipts whole (ZIP64)', async () => {
    const count = 70_000;
    const seed = new Uint8Array(32).fill(33);
    const fast = fastSigner(seed);
    const bigHome = path.join(directory, 'home-big');
    fs.mkdirSync(bigHome);
    const origin = openLedger(path.join(bigHome, 'ledger.sqlite'));
    const target = openLedger(path.join(directory, 'big-target.sqlite'));
    try {
      // The source ledger is filled directly (the import is tested elsewhere): real signed
      // receipts, each with the report verification gives a classical receipt.
      for (let start = 0; start < count; start += 10_000) {
        const batch = classicalRows(range(start, Math.min(10_000, count - start)), seed, fast);
        origin.runInTransaction((database) => insertReceipts(database, batch));
      }
      expect(ledgerStats(origin.readable).receipts).toBe(count);
      const out = path.join(directory, 'big-export.zip');
      const exported = await exportBundle(origin, { out, dataDirectory: bigHome });
      expect(exported.receipts).toBe(count);
      const { count: entries, names } = await entryNames(out);
      expect(entries).toBe(count + 3);
      expect(new Set(names).size).toBe(count + 3);
      const back = await importBundle(target, out);
      expect(back.totalFindings).toBe(0);
      expect(back.counts).toMatchObject({ receipts: count, receiptsNew: count });
      expect(comparable(ledgerStats(target.readable))).toEqual(comparable(ledgerStats(origin.readable)));
      expect(ledgerStats(target.readable).receipts).toBe(count);
    } finally {
      origin.close();
      target.close();
    }
  }, 600_000);
});
