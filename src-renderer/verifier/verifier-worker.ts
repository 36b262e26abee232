/**
 * The reference verifier's worker: reads each file (a document, or a bundle with jszip) and
 * verifies it with the portable (@noble) provider, answering reports and progress.
 *
 * Everything happens here, off the page's thread, so the page stays responsive and can draw
 * the progress bar while a large bundle is checked.
 */
import JSZip from 'jszip';
import { createPortableProvider } from '../../src-shared/crypto/portable-provider';
import { checkBundle, type BundleArchiveEntry, type BundleCheck } from '../../src-shared/evidence/check-bundle';
import type { BundleErrorCode } from '../../src-shared/evidence/errors';
import { createVerifyContext, type VerifyContext } from '../../src-shared/verify/context';
import { verifyDocument } from '../../src-shared/verify/verify';
import { isBundleFile, type VerifierKeys, type VerifyJob, type WorkerAnswer } from './protocol';

/** The worker's global scope, typed to the two calls used (the renderer's lib is the DOM's). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<VerifyJob>) => void) | null;
  postMessage(message: WorkerAnswer): void;
}

const scope = self as unknown as WorkerScope;
const crypto = createPortableProvider();
/** At most this many progress messages per bundle: each one re-renders the page. */
const PROGRESS_STEPS = 200;
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

function refused(code: BundleErrorCode, message: string): BundleCheck {
  return {
    status: 'refused',
    refusal: { code, message },
    counts: { files: 0, receipts: 0, byStatus: {}, byTrust: {}, advertisedKeys: 0 },
    findings: [],
    totalFindings: 0,
    receipts: [],
    notes: [],
  };
}

/** Reads a zip with jszip and checks it; a zip jszip cannot read is refused with its reason. */
async function verifyBundle(id: number, bytes: Uint8Array, context: VerifyContext): Promise<BundleCheck> {
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
    if ((mode & S_IFMT) === S_IFLNK) return refused('zip_symlink', `Entry "${stored}" is a symbolic link.`);
    entries.push({
      name: stored,
      directory: object.dir,
      ...declaredSizes(object),
      read: () => object.async('uint8array'),
    });
  }
  let last = -1;
  return checkBundle(entries, context, {
    onProgress: ({ done, total }) => {
      const step = Math.floor((done * PROGRESS_STEPS) / Math.max(total, 1));
      if (step === last && done !== total) return;
      last = step;
      scope.postMessage({ type: 'progress', id, done, total });
    },
  });
}

async function run(job: VerifyJob): Promise<void> {
  const keys: VerifierKeys = job.keys;
  const context = createVerifyContext(crypto, {
    pinned: keys.pinned,
    advertised: keys.advertised,
    secrets: keys.secrets,
  });
  for (const { id, file } of job.files) {
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      if (isBundleFile(file.name, bytes.subarray(0, 4))) {
        scope.postMessage({ type: 'bundle', id, result: await verifyBundle(id, bytes, context) });
      } else {
        scope.postMessage({ type: 'document', id, report: verifyDocument(bytes, context) });
      }
    } catch (error) {
      scope.postMessage({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
    }
  }
}

// Jobs run one after the other, in the order the page sent them.
let queue = Promise.resolve();
scope.onmessage = (event) => {
  queue = queue.then(() => run(event.data));
};
