/**
 * Pass 1 of the import (import.ts): every file of the zip read and checked against the rules
 * and the manifest, the findings of the files and of manifest.sig made (the shared rules of
 * src-shared/evidence/bundle-findings.ts), and nothing written. The verification workers inflate,
 * check and hash the entries; this thread reads the zip and keeps pass 1's columns for pass 2.
 */
import type { ImportPhase } from '../../src-shared/api/contract';
import { hash as hashOnce } from 'node:crypto';
import {
  addDirectoryFindings,
  addFileFindings,
  addSignatureFindings,
  countListedReceipts,
  readAdvertisedKeys,
  type FindingList,
} from '../../src-shared/evidence/bundle-findings';
import { LogEvidenceCheck } from '../../src-shared/evidence/log-evidence';
import type { KeyEntry, VerifyContext } from '../../src-shared/verify/context';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import type { VerifyPool } from '../core/worker-pool';
import {
  classifyBundlePath,
  LOG_CHECKPOINT_NAME,
  LOG_PROOFS_NAME,
  type BundlePathKind,
} from '../evidence/bundle-layout';
import { BundleError, throwIfCancelled } from '../evidence/errors';
import { checkManifestSignature, MANIFEST_NAME, type Manifest, type SignatureCheck } from '../evidence/manifest';
import { DIGEST_BYTES, listedDigestHex, parseManifestCompact, type CompactFileList } from '../evidence/manifest-lean';
import type { ProgressReporter } from '../evidence/progress';
import type { ZipArchive, ZipEntry } from '../evidence/zip-reader';
import { entryFailure, StoredBatch } from './import-batches';

/** The kinds of {@link BundlePathKind}, numbered for {@link ScannedFiles.kinds}. */
export const KINDS: readonly BundlePathKind[] = [
  'manifest',
  'signature',
  'keys',
  'receipt',
  'anchor',
  'log',
  'directory',
  'other',
];
export const RECEIPT_KIND = KINDS.indexOf('receipt');
export const ANCHOR_KIND = KINDS.indexOf('anchor');

/**
 * The zip's files as pass 1 read them, in columns rather than an object per file (a bundle of
 * 100,000 receipts would otherwise keep 100,000 objects and hex strings to the end of pass 2).
 */
export interface ScannedFiles {
  /** The file entries (no directories), in central directory order. */
  entries: readonly ZipEntry[];
  /** Entry `i`'s place in the bundle, as an index of {@link KINDS}. */
  kinds: Uint8Array;
  /** Entry `i`'s SHA-256 as pass 1 read it: `digests[32 * i .. 32 * i + 32)`. */
  digests: Uint8Array;
}

/** Whether `a` at `aOffset` and `b` at `bOffset` hold the same 32-byte digest. */
export function sameDigest(a: Uint8Array, aOffset: number, b: Uint8Array, bOffset: number): boolean {
  for (let index = 0; index < DIGEST_BYTES; index += 1) if (a[aOffset + index] !== b[bOffset + index]) return false;
  return true;
}

function digestHex(digests: Uint8Array, index: number): string {
  return Buffer.from(digests.buffer, digests.byteOffset + index * DIGEST_BYTES, DIGEST_BYTES).toString('hex');
}

/** What pass 1 learnt: everything pass 2 needs, and nothing it does not (see checkBundle). */
export interface CheckedBundle {
  /** The manifest without its file list (the list is only needed by pass 1). */
  manifest: Omit<Manifest, 'files'> & { listedReceipts: number };
  /** manifest.json as text, for the bundle row; handed over once, then released. */
  takeManifestJson(): string;
  signature: SignatureCheck;
  advertised: KeyEntry[];
  /** The bundle's log evidence, read with the keys: pass 2 hands it each receipt, then finishes it. */
  log: LogEvidenceCheck;
  scanned: ScannedFiles;
  fileCount: number;
  fields: { filesRead: number; filesTotal: number; receiptsVerified: number; receiptsTotal: number };
}

export interface CheckOptions {
  findings: FindingList;
  signal: AbortSignal | undefined;
  progress: ProgressReporter<ImportPhase>;
  pinned: KeyEntry[];
  now: Date;
  /** Called once the advertised keys are known, to start the verification workers (pass 1 uses them too). */
  startPool(pinned: KeyEntry[], advertised: KeyEntry[]): VerifyPool;
}

/**
 * Pass 1: every file read and checked; nothing written.
 *
 * A function of its own so that what only this pass needs (the manifest's file list and bytes,
 * the name index) is garbage once it returns. The manifest is read in compact form
 * (manifest-lean.ts: same rules and errors as the strict parse, without its parse tree, which
 * for 100,000 receipts made about 110 MB of garbage at the memory peak), and what pass 2 keeps
 * per file is a kind byte and 32 digest bytes. No file's bytes are kept for pass 2,
 * which reads each receipt again: keeping the first 32 MiB saved no measurable time on a
 * 100,000-receipt import and cost about 50 MB of peak memory.
 */
export async function checkBundle(archive: ZipArchive, options: CheckOptions): Promise<CheckedBundle> {
  const { findings, progress, now } = options;
  const files = archive.entries.filter((entry) => !entry.directory);
  const fields = { filesRead: 0, filesTotal: files.length, receiptsVerified: 0, receiptsTotal: 0 };
  progress.update('checking', 0, files.length, fields);

  // manifest.json first: without it (or with a bad one) nothing else is worth reading.
  const kinds = new Uint8Array(files.length);
  let manifestEntry: ZipEntry | undefined;
  let signatureEntry: ZipEntry | undefined;
  let keysEntry: ZipEntry | undefined;
  let checkpointEntry: ZipEntry | undefined;
  let proofsEntry: ZipEntry | undefined;
  files.forEach((entry, index) => {
    const kind = classifyBundlePath(entry.name);
    kinds[index] = KINDS.indexOf(kind);
    if (kind === 'manifest') manifestEntry = entry;
    else if (kind === 'signature') signatureEntry = entry;
    else if (kind === 'keys') keysEntry = entry;
    else if (entry.name === LOG_CHECKPOINT_NAME) checkpointEntry = entry;
    else if (entry.name === LOG_PROOFS_NAME) proofsEntry = entry;
  });
  if (manifestEntry === undefined) {
    throw new BundleError('manifest_missing', 'The bundle has no manifest.json at its top level.', {
      entry: MANIFEST_NAME,
    });
  }
  const manifestBytes = await archive.read(manifestEntry);
  const { header: manifest, files: listed } = parseManifestCompact(manifestBytes);
  const signatureBytes = signatureEntry === undefined ? undefined : await archive.read(signatureEntry);
  const keysBytes = keysEntry === undefined ? undefined : await archive.read(keysEntry);
  // The log files with the keys: pass 2 checks each receipt against them as it stores it.
  const checkpointBytes = checkpointEntry === undefined ? undefined : await archive.read(checkpointEntry);
  const proofsBytes = proofsEntry === undefined ? undefined : await archive.read(proofsEntry);

  const keysInvalidBefore = findings.counts.keys_invalid ?? 0;
  const advertised = readAdvertisedKeys(keysBytes, [{ name: 'the trust store', entries: options.pinned }], findings);
  const context: VerifyContext = {
    crypto: createNodeCryptoProvider(),
    pinned: options.pinned,
    advertised,
    secrets: [],
    now,
  };
  const pool = options.startPool(options.pinned, advertised);
  const log = new LogEvidenceCheck(context.crypto, {
    checkpoint: checkpointBytes,
    proofs: proofsBytes,
    pinned: options.pinned,
    // An unusable keys file advertises no log key either.
    keysFile: (findings.counts.keys_invalid ?? 0) === keysInvalidBefore ? keysBytes : undefined,
    tenantId: manifest.tenant_id,
  });

  const scanned: ScannedFiles = { entries: files, kinds, digests: new Uint8Array(files.length * DIGEST_BYTES) };
  const known = new Map<ZipEntry, Uint8Array>([[manifestEntry, manifestBytes]]);
  if (signatureEntry !== undefined && signatureBytes !== undefined) known.set(signatureEntry, signatureBytes);
  if (keysEntry !== undefined && keysBytes !== undefined) known.set(keysEntry, keysBytes);
  if (checkpointEntry !== undefined && checkpointBytes !== undefined) known.set(checkpointEntry, checkpointBytes);
  if (proofsEntry !== undefined && proofsBytes !== undefined) known.set(proofsEntry, proofsBytes);
  // Every other file goes to the workers as stored: they inflate, check and hash it. Answers are
  // taken in order, so the first entry that breaks a rule is the one reported, as when read here.
  const inFlight: Promise<void>[] = [];
  const maxInFlight = pool.size * 4;
  let batch = new StoredBatch();
  const dispatch = (): void => {
    const sent = batch;
    batch = new StoredBatch();
    const answer = pool.entries(sent.toBatch(archive.maxEntryBytes, false));
    const previous = inFlight[inFlight.length - 1] ?? Promise.resolve();
    const taken = Promise.all([answer, previous]).then(([result]) => {
      throwIfCancelled(options.signal);
      if (result.failure !== undefined) throw entryFailure(result.failure);
      const digests = result.digests as Uint8Array;
      sent.indexes.forEach((index, item) => {
        scanned.digests.set(digests.subarray(item * DIGEST_BYTES, (item + 1) * DIGEST_BYTES), index * DIGEST_BYTES);
      });
      fields.filesRead += sent.length;
      progress.update('checking', fields.filesRead, fields.filesTotal, fields);
    });
    // Awaited below; this only keeps a failure after an earlier one from going unhandled.
    taken.catch(() => undefined);
    inFlight.push(taken);
  };
  for (const [index, entry] of files.entries()) {
    throwIfCancelled(options.signal);
    const data = known.get(entry);
    if (data !== undefined) {
      scanned.digests.set(hashOnce('sha256', data, 'buffer'), index * DIGEST_BYTES);
      fields.filesRead += 1;
      progress.update('checking', fields.filesRead, fields.filesTotal, fields);
      continue;
    }
    batch.add(index, entry, await archive.readStored(entry));
    if (batch.full()) dispatch();
    while (inFlight.length >= maxInFlight) await inFlight.shift();
  }
  if (batch.length > 0) dispatch();
  while (inFlight.length > 0) await inFlight.shift();
  throwIfCancelled(options.signal);
  addDirectoryFindings(archive.entries, findings);
  checkFiles(listed, scanned, findings);
  const signature = checkManifestSignature(manifestBytes, signatureBytes, context);
  addSignatureFindings(signature, manifest.key_id, findings);

  let manifestJson: string | undefined = Buffer.from(manifestBytes).toString('utf8');
  return {
    manifest: {
      ...manifest,
      listedReceipts: countListedReceipts(listed.paths),
    },
    takeManifestJson: () => {
      if (manifestJson === undefined) throw new Error('importBundle: the manifest text was already handed over');
      const text = manifestJson;
      manifestJson = undefined;
      return text;
    },
    signature,
    advertised,
    log,
    scanned,
    fileCount: files.length,
    fields,
  };
}

/** Compare the zip's files with the manifest's list (the shared rules), over pass 1's columns. */
function checkFiles(listed: CompactFileList, scanned: ScannedFiles, findings: FindingList): void {
  const { entries, kinds, digests } = scanned;
  addFileFindings(
    {
      count: listed.count,
      path: (item) => listed.paths[item] as string,
      bytes: (item) => listed.sizes[item] as number,
      sha256: (item) => listedDigestHex(listed, item),
    },
    {
      count: entries.length,
      name: (index) => (entries[index] as ZipEntry).name,
      kind: (index) => KINDS[kinds[index] as number] as BundlePathKind,
      bytes: (index) => (entries[index] as ZipEntry).uncompressedSize,
      sha256: (index) => digestHex(digests, index),
    },
    (item, index) => sameDigest(digests, index * DIGEST_BYTES, listed.digests, item * DIGEST_BYTES),
    findings,
  );
}
