/**
 * A context pack's zip (docs/anchoring.md, "Air-gapped verification"): written with the bundle
 * writer and read with the bundle reader, under the same hygiene rules and limits as any zip
 * this program opens. What the files mean is src-main/anchor/context-pack.ts's business.
 */
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseAnchorsFile, type AnchorsFile } from './anchors-file';
import { BundleError } from './errors';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from './limits';
import { openZipArchive } from './zip-reader';
import { createZipWriter } from './zip-writer';

/** The most files a pack holds: a manifest, its signature, the headers, the trust store, the log checkpoints and the anchors. */
const MAX_PACK_FILES = 10_005 + 16;
/** The names a pack may hold. */
const PACK_NAME =
  /^(?:manifest\.json|manifest\.sig\.json|headers\/\d{1,3}\.json|trust\/keys\.json|logs\/checkpoints\.json|anchors\/0x[0-9a-f]{64}\.json)$/;

/**
 * Writes a pack's files into a zip, whole or not at all: into a temporary file beside `out`,
 * renamed onto it at the end.
 *
 * @param out - The zip to write.
 * @param files - The files, in the order to write them.
 * @param options - `mtime` of the entries. An existing `out` is replaced (the caller decides).
 * @returns The zip's size in bytes.
 * @throws RangeError for a name a pack does not have; whatever the writer threw.
 */
export async function writeContextZip(
  out: string,
  files: readonly { name: string; bytes: Uint8Array }[],
  options: { mtime?: Date } = {},
): Promise<number> {
  const temporary = path.join(path.dirname(out), `.${path.basename(out)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    const writer = createZipWriter(temporary, options.mtime === undefined ? {} : { mtime: options.mtime });
    for (const file of files) {
      if (!PACK_NAME.test(file.name)) throw new RangeError(`writeContextZip: ${file.name} is not a pack file name`);
      writer.add(file.name, () => file.bytes);
    }
    const { bytes } = await writer.finish();
    renameSync(temporary, out);
    return bytes;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/**
 * Reads every file of a pack's zip, under the zip hygiene rules and limits.
 *
 * @param file - The zip.
 * @param limits - The limits (default: the import's).
 * @returns The files by name.
 * @throws BundleError for a zip the rules refuse, an entry name a pack does not have, or a
 *   folder entry.
 */
export async function readContextZip(
  file: string,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): Promise<Map<string, Uint8Array>> {
  const archive = await openZipArchive(file, { ...limits, maxEntries: Math.min(limits.maxEntries, MAX_PACK_FILES) });
  try {
    const files = new Map<string, Uint8Array>();
    for (const entry of archive.entries) {
      if (entry.directory || !PACK_NAME.test(entry.name))
        throw new BundleError(
          'zip_unreadable',
          `The context pack holds ${JSON.stringify(entry.name.slice(0, 120))}, which is not a file of a context pack.`,
        );
      files.set(entry.name, new Uint8Array(await archive.read(entry)));
    }
    return files;
  } finally {
    await archive.close();
  }
}

/** An evidence bundle's `anchors/<batch_id>.json` entry name. */
const BUNDLE_ANCHORS_NAME = /^anchors\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z)\.json$/;

/**
 * The anchor records of an evidence bundle (its `anchors/<batch_id>.json` files), for a context
 * pack's export. The bundle is opened under the zip rules and limits; nothing else is read.
 *
 * @param file - The bundle.
 * @param limits - The limits (default: the import's).
 * @returns Each batch's parsed anchors file.
 * @throws BundleError for a zip the rules refuse; AnchorsFileError for an anchors file the
 *   bundle rules refuse.
 */
export async function readBundleAnchors(file: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<AnchorsFile[]> {
  const archive = await openZipArchive(file, limits);
  try {
    const found: AnchorsFile[] = [];
    for (const entry of archive.entries) {
      const match = BUNDLE_ANCHORS_NAME.exec(entry.name);
      if (entry.directory || match === null) continue;
      found.push(parseAnchorsFile(new Uint8Array(await archive.read(entry)), match[1] as string));
    }
    return found;
  } finally {
    await archive.close();
  }
}
