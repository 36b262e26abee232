/**
 * Fixture builders for end-to-end tests: real signed evidence bundles made with the project's
 * own exporter, and hostile zips the exporter would never write.
 *
 * A signed bundle is built the way a user makes one: receipts signed by an issuer key are
 * verified and stored in a throwaway ledger (with the issuer's key recorded as advertised, so
 * the exporter ships it in keys/service-keys.json), then `exportBundle` writes the zip and signs
 * its manifest with the throwaway data directory's local signing key (a did:key). Importing the
 * zip elsewhere gives a valid manifest signature by an unpinned signer and receipts that verify
 * PASS with trust `unpinned` until the issuer's key is pinned.
 */
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { b64uEncode, utf8Encode } from '../src-shared/crypto';
import type { CryptoProvider } from '../src-shared/crypto';
import { issueProfileReceipt } from '../src-shared/formats/profile';
import type { KeyEntry, VerifyContext } from '../src-shared/verify/context';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { verifyReceiptBytes } from '../src-main/core/receipt-facts';
import { exportBundle } from '../src-main/evidence/export-bundle';
import { insertReceipts, ledgerFileIn, openLedger, type NewReceipt } from '../src-main/ledger';
import { createTrustStore } from '../src-main/trust';

/** The issuer key the fixture signs receipts with unless told otherwise (its seed is public: never pin it outside tests). */
export const FIXTURE_ISSUER_KEY_ID = 'did:svc:acme-receipts:k2026';
const FIXTURE_ISSUER_SEED = new Uint8Array(32).fill(0x5a);
/** Receipts stored per ledger transaction while building. */
const INSERT_BATCH = 1000;

/** Options of {@link buildSignedBundle}. */
export interface SignedBundleOptions {
  /** Where the zip is written (a file path ending in .zip). */
  out: string;
  /** Receipts that verify PASS (default 24). */
  receipts?: number;
  /** Receipts altered after signing, which verify MISMATCH and become findings (default 0). */
  tampered?: number;
  /** manifest.json's tenant_id (default `acme-corp`). */
  tenantId?: string;
  /** The issuer's key id (default {@link FIXTURE_ISSUER_KEY_ID}). */
  issuerKeyId?: string;
  /** The issuer's 32-byte Ed25519 seed (default a fixed test seed). */
  issuerSeed?: Uint8Array;
}

/** What {@link buildSignedBundle} wrote. */
export interface SignedBundle {
  file: string;
  /** The zip's bytes. */
  bytes: Buffer;
  /** hex SHA-256 of the zip. */
  sha256: string;
  /** Receipts in the bundle (PASS and tampered). */
  receipts: number;
  tampered: number;
  tenantId: string;
  issuer: { key_id: string; algorithm: 'Ed25519'; public_key: string };
  /** The did:key that signed manifest.json. */
  signerKeyId: string;
}

/** The node crypto provider signing with one cached private key (a KeyObject per signature is the slow part). */
function fastSigner(seed: Uint8Array): CryptoProvider {
  const base = createNodeCryptoProvider();
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seed)]);
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  return { ...base, ed25519Sign: (message) => new Uint8Array(sign(null, message, privateKey)) };
}

/**
 * Builds a real signed evidence bundle with the project's exporter.
 *
 * @param options - output path, how many receipts (and tampered ones), tenant, issuer key
 * @returns the zip and the keys involved
 * @throws RangeError for negative counts
 */
export async function buildSignedBundle(options: SignedBundleOptions): Promise<SignedBundle> {
  const receiptCount = options.receipts ?? 24;
  const tamperedCount = options.tampered ?? 0;
  if (
    !Number.isSafeInteger(receiptCount) ||
    receiptCount < 0 ||
    !Number.isSafeInteger(tamperedCount) ||
    tamperedCount < 0
  ) {
    throw new RangeError('buildSignedBundle: receipts and tampered must be non-negative integers');
  }
  const tenantId = options.tenantId ?? 'acme-corp';
  const issuerKeyId = options.issuerKeyId ?? FIXTURE_ISSUER_KEY_ID;
  const issuerSeed = options.issuerSeed ?? FIXTURE_ISSUER_SEED;
  const crypto = fastSigner(issuerSeed);
  const issuer: KeyEntry = {
    key_id: issuerKeyId,
    algorithm: 'Ed25519',
    public_key: crypto.ed25519PublicKey(issuerSeed),
  };

  const home = mkdtempSync(join(tmpdir(), 'evroom-fixture-'));
  const ledger = openLedger(ledgerFileIn(home));
  try {
    // Recorded as advertised: the exporter ships it, and it confers no trust anywhere.
    createTrustStore(ledger).recordAdvertised([issuer], 'fixture issuer');
    const context: VerifyContext = { crypto, pinned: [], advertised: [issuer], secrets: [], now: new Date() };
    const issuedFrom = Date.parse('2026-10-01T08:00:00Z');
    let batch: NewReceipt[] = [];
    const flush = (): void => {
      const items = batch;
      batch = [];
      if (items.length > 0) ledger.runInTransaction((database) => insertReceipts(database, items));
    };
    for (let index = 0; index < receiptCount + tamperedCount; index += 1) {
      const receipt = issueProfileReceipt(
        'standard',
        {
          agent_did: 'did:web:agent.example.com',
          content: {
            sha256: createHash('sha256').update(`fixture document ${index}`).digest('hex'),
            type: 'text/plain',
          },
          smsh: { sealed: false, declaration: 'none' },
          hktn_context: { reputation_tier: 'silver' },
        },
        issuerSeed,
        issuerKeyId,
        crypto,
        { now: new Date(issuedFrom + index * 60_000) },
      );
      let text = JSON.stringify(receipt);
      if (index >= receiptCount) {
        // Altered after signing: the content digest no longer matches what was signed.
        text = text.replace(
          /"sha256":"[0-9a-f]{64}"/,
          `"sha256":"${createHash('sha256').update(`altered ${index}`).digest('hex')}"`,
        );
      }
      const bytes = utf8Encode(text);
      const facts = verifyReceiptBytes(bytes, context);
      batch.push({
        receipt_sha256: facts.receipt_sha256,
        raw: bytes,
        report: facts.report,
        receipt_id: facts.receipt_id,
        issued_at: facts.issued_at,
        source: { kind: 'file', ref: `fixture-${index}.json` },
      });
      if (batch.length >= INSERT_BATCH) flush();
    }
    flush();
    const result = await exportBundle(ledger, { out: options.out, dataDirectory: home, tenantId, overwrite: true });
    const bytes = readFileSync(result.file);
    return {
      file: result.file,
      bytes,
      sha256: result.sha256,
      receipts: receiptCount + tamperedCount,
      tampered: tamperedCount,
      tenantId,
      issuer: { key_id: issuerKeyId, algorithm: 'Ed25519', public_key: b64uEncode(issuer.public_key) },
      signerKeyId: result.key_id,
    };
  } finally {
    ledger.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** One entry of {@link buildStoredZip}. */
export interface StoredZipEntry {
  /** The entry name exactly as written (any bytes a hostile zip may carry). */
  name: string;
  data: Uint8Array | string;
  /** Unix mode for the external attributes (default 0o100644, a regular file; 0o120777 is a symlink). */
  mode?: number;
}

/**
 * Writes a zip of stored (uncompressed) entries, byte by byte: no name checks at all, so it
 * can write what zip libraries refuse (`../evil.json`, absolute paths, symlinks).
 *
 * @param entries - the entries, in order
 * @returns the zip's bytes
 */
export function buildStoredZip(entries: readonly StoredZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = Buffer.from(typeof entry.data === 'string' ? utf8Encode(entry.data) : entry.data);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt32LE(0, 10); // time and date
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by unix, zip 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * A hostile bundle: a plausible manifest and one entry named `../evil.json`, which would land
 * outside the folder a naive extractor writes to. The import must refuse it with
 * `zip_path_traversal` before writing anything.
 */
export function buildTraversalZip(): Buffer {
  const evil = utf8Encode('{"pwned":true}');
  const manifest = JSON.stringify({
    bundle_format: 'evroom.evidence/1',
    tenant_id: 'mallory',
    generated_at: '2026-11-01T12:00:00Z',
    key_id: 'did:svc:mallory:k1',
    files: [
      { path: 'receipts/evil.json', sha256: createHash('sha256').update(evil).digest('hex'), bytes: evil.length },
    ],
    counts: { receipts: 1 },
  });
  return buildStoredZip([
    { name: 'manifest.json', data: manifest },
    { name: '../evil.json', data: evil },
  ]);
}
