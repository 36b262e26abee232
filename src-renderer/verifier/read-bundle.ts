/**
 * The reference verifier's bundle reader: a zip read with jszip, its entries handed to the
 * shared bundle check (the import's rules, src-shared/evidence).
 */
import JSZip from 'jszip';
import {
  checkBundle,
  type BundleArchiveEntry,
  type BundleCheck,
  type CheckBundleOptions,
} from '../../src-shared/evidence/check-bundle';
import { printableName, type BundleErrorCode } from '../../src-shared/evidence/errors';
import type { VerifyContext } from '../../src-shared/verify/context';

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/**
 * The sizes the central directory declares for an entry. jszip keeps them in a field it does
 * not document (`_data`, a CompressedObject); read defensively, so a jszip without it only
 * loses the check before inflating, never the checks after.
 */
function declaredSizes(object: JSZip.JSZipObject): { declared?: { compressedSize: number; uncompressedSize: number } } {
  const data = (object as unknown as { _data?: { compressedSize?: unknown; uncompressedSize?: unknown } })._data;
  const compressedSize = data?.compressedSize;
  const uncompressedSize = data?.uncompressedSize;
  if (typeof compressedSize !== 'number' || typeof uncompressedSize !== 'number') return {};
  return { declared: { compressedSize, uncompressedSize } };
}

function refused(code: BundleErrorCode, message: string, entry?: string): BundleCheck {
  return {
    status: 'refused',
    refusal: entry === undefined ? { code, message } : { code, message, entry },
    counts: { files: 0, receipts: 0, byStatus: {}, byTrust: {}, advertisedKeys: 0 },
    findings: [],
    totalFindings: 0,
    findingCounts: {},
    receipts: [],
    log: null,
    notes: [],
  };
}

/**
 * Read a bundle zip with jszip and check it (src-shared/evidence/check-bundle.ts): the page's
 * whole bundle check, with no worker around it (so a test can run it beside the import).
 *
 * @param bytes - The zip file's bytes.
 * @param context - Crypto, the user's keys, secrets and the clock.
 * @param options - Limits and a progress listener.
 * @returns The check; a zip jszip cannot read, or a symbolic link, is refused with its reason.
 */
export async function checkBundleZip(
  bytes: Uint8Array,
  context: VerifyContext,
  options: CheckBundleOptions = {},
): Promise<BundleCheck> {
  let zip: JSZip;
  try {
    // createFolders false: only the directory entries really in the zip are listed.
    zip = await JSZip.loadAsync(bytes, { checkCRC32: true, createFolders: false });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/encrypt/i.test(message)) return refused('zip_encrypted', `The zip cannot be read: ${message}`);
    return refused(
      /end of central directory|signature/i.test(message) ? 'zip_unreadable' : 'zip_corrupt',
      `The zip cannot be read: ${message}`,
    );
  }
  const entries: BundleArchiveEntry[] = [];
  for (const object of Object.values(zip.files)) {
    // jszip resolves ".." in names and keeps the name as stored here: the rules judge that one.
    const stored = object.unsafeOriginalName ?? object.name;
    const mode = typeof object.unixPermissions === 'number' ? object.unixPermissions : 0;
    if ((mode & S_IFMT) === S_IFLNK) {
      // The import's refusal (src-main/evidence/zip-hygiene.ts), word for word.
      const shown = printableName(stored);
      return refused('zip_symlink', `Entry "${shown}" is a symbolic link.`, shown);
    }
    entries.push({
      name: stored,
      directory: object.dir,
      ...declaredSizes(object),
      read: () => object.async('uint8array'),
    });
  }
  return checkBundle(entries, context, options);
}
