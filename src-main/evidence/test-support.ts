/**
 * Helpers for the evidence tests: a raw zip builder that can write anything (hostile names,
 * symlinks, lying sizes, encryption flags), and a bundle builder on top of it.
 *
 * Not used by the program itself. yazl refuses to write most hostile zips, which is why the
 * tests have their own minimal writer.
 */
import { createHash } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';
import { b64uEncode, utf8Encode } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto';
import type { KeyEntry } from '../../src-shared/verify/context';
import { serializeKeyFile } from '../../src-shared/verify/key-file';
import { BUNDLE_FORMAT, serializeManifest, serializeManifestSignature, signManifest, type Manifest } from './manifest';

/** One entry of a raw zip, every field overridable. */
export interface RawZipEntry {
  /** The name (a string is written as UTF-8). */
  name: string | Uint8Array;
  /** The content, uncompressed. */
  data?: Uint8Array;
  /** 0 stored, 8 deflate (default 8). */
  method?: number;
  /** General purpose flags (default: 0x800 UTF-8). */
  flags?: number;
  /** Default 0x0314: unix host, zip 2.0. */
  versionMadeBy?: number;
  /** Default: regular file 0644 (directories 0755 when the name ends with /). */
  externalAttributes?: number;
  /** Override the declared uncompressed size (central directory and local header). */
  declaredSize?: number;
  /** Override the CRC-32. */
  crc?: number;
  /** Extra fields of the central directory record. */
  extraFields?: { id: number; data: Uint8Array }[];
}

/**
 * Build a zip file from raw entries (for tests; ZIP64 end records past 65,534 entries, offsets
 * below 4 GiB only).
 *
 * @param entries - The entries, in order.
 * @returns The zip's bytes.
 */
export function buildZip(entries: readonly RawZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = typeof entry.name === 'string' ? Buffer.from(entry.name, 'utf8') : Buffer.from(entry.name);
    const data = Buffer.from(entry.data ?? new Uint8Array(0));
    const method = entry.method ?? 8;
    // A copy of exact size: zlib's result keeps a 16 KiB backing buffer per call.
    const stored = method === 8 ? Buffer.from(deflateRawSync(data)) : data;
    const flags = entry.flags ?? 0x800;
    const crc = entry.crc ?? crc32(data);
    const size = entry.declaredSize ?? data.length;
    const directory = name.at(-1) === 0x2f;
    const attributes = entry.externalAttributes ?? ((directory ? 0o040755 : 0o100644) << 16) >>> 0;
    const extra = Buffer.concat(
      (entry.extraFields ?? []).map((field) => {
        const head = Buffer.alloc(4);
        head.writeUInt16LE(field.id, 0);
        head.writeUInt16LE(field.data.length, 2);
        return Buffer.concat([head, Buffer.from(field.data)]);
      }),
    );
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x5b21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, stored);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(entry.versionMadeBy ?? 0x0314, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x5b21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt16LE(0, 32);
    central.writeUInt16LE(0, 34);
    central.writeUInt16LE(0, 36);
    central.writeUInt32LE(attributes, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name, extra);
    offset += local.length + name.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const tail: Buffer[] = [];
  const zip64 = entries.length >= 0xffff;
  if (zip64) {
    // ZIP64 end of central directory record and locator (APPNOTE 4.3.14, 4.3.15).
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(entries.length), 24);
    record.writeBigUInt64LE(BigInt(entries.length), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 8);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, ...tail, end]);
}

/** A bundle's files before they are zipped; tests change them to make findings. */
export interface BundleParts {
  manifest: Manifest;
  /** Files listed in the manifest and written, by path. */
  files: Map<string, Uint8Array>;
  /** Files written but not listed. */
  unlisted: Map<string, Uint8Array>;
  /** Files listed but not written. */
  omitted: Set<string>;
}

/** A signer of bundle manifests. */
export interface BundleSigner {
  seed: Uint8Array;
  keyId: string;
}

/**
 * Lay out a bundle: receipts, anchors files and a key file, listed in a manifest.
 *
 * @param receipts - Path stem and bytes of each receipt.
 * @param options - Tenant, key file entries, anchors files, generated_at.
 * @returns The parts, ready to change and zip.
 */
export function bundleParts(
  receipts: readonly { stem: string; bytes: Uint8Array }[],
  options: {
    tenant?: string;
    keys?: KeyEntry[];
    anchors?: Record<string, string>;
    keyId: string;
    generatedAt?: string;
  },
): BundleParts {
  const files = new Map<string, Uint8Array>();
  for (const receipt of receipts) files.set(`receipts/${receipt.stem}.json`, receipt.bytes);
  for (const [batch, text] of Object.entries(options.anchors ?? {}))
    files.set(`anchors/${batch}.json`, utf8Encode(text));
  if (options.keys !== undefined) files.set('keys/service-keys.json', utf8Encode(serializeKeyFile(options.keys)));
  const manifest: Manifest = {
    bundle_format: BUNDLE_FORMAT,
    tenant_id: options.tenant ?? 'acme',
    generated_at: options.generatedAt ?? '2026-11-01T12:00:00.000Z',
    key_id: options.keyId,
    files: [],
    counts: { receipts: receipts.length, anchors: 0 },
  };
  return { manifest, files, unlisted: new Map(), omitted: new Set() };
}

/**
 * Zip bundle parts: the manifest lists every file (with hashes of the bytes as given), then
 * `manifest.sig` is made with the signer (unless `signature: false`).
 *
 * @param parts - The parts.
 * @param signer - The manifest signer.
 * @param crypto - Crypto provider for signing.
 * @param options - `signature: false` leaves manifest.sig out; `manifestText` replaces the
 *   manifest bytes; `extra` adds raw entries.
 * @returns The zip's bytes.
 */
export function zipBundle(
  parts: BundleParts,
  signer: BundleSigner,
  crypto: CryptoProvider,
  options: {
    signature?: boolean | string;
    manifestText?: string;
    extra?: RawZipEntry[];
    listed?: Map<string, Uint8Array>;
  } = {},
): Buffer {
  const listedBytes = options.listed ?? parts.files;
  const manifest: Manifest = {
    ...parts.manifest,
    files: [...listedBytes].map(([path, bytes]) => ({
      path,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
    })),
  };
  const manifestBytes = utf8Encode(options.manifestText ?? serializeManifest(manifest));
  const entries: RawZipEntry[] = [];
  for (const [path, bytes] of parts.files) if (!parts.omitted.has(path)) entries.push({ name: path, data: bytes });
  for (const [path, bytes] of parts.unlisted) entries.push({ name: path, data: bytes });
  entries.push({ name: 'manifest.json', data: manifestBytes });
  if (typeof options.signature === 'string') {
    entries.push({ name: 'manifest.sig', data: utf8Encode(options.signature) });
  } else if (options.signature !== false) {
    const signature = signManifest(manifestBytes, signer.seed, signer.keyId, crypto);
    entries.push({ name: 'manifest.sig', data: utf8Encode(serializeManifestSignature(signature)) });
  }
  entries.push(...(options.extra ?? []));
  return buildZip(entries);
}

/**
 * A key entry for a seed.
 *
 * @param keyId - The id.
 * @param seed - The 32-byte seed.
 * @param crypto - For the public key.
 * @returns An Ed25519 key entry.
 */
export function keyEntryFor(keyId: string, seed: Uint8Array, crypto: CryptoProvider): KeyEntry {
  return { key_id: keyId, algorithm: 'Ed25519', public_key: crypto.ed25519PublicKey(seed) };
}

/** The b64u public key of a seed (for CLI arguments). */
export function publicKeyB64u(seed: Uint8Array, crypto: CryptoProvider): string {
  return b64uEncode(crypto.ed25519PublicKey(seed));
}
