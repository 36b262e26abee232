/**
 * The reference verifier's worker: reads each file (a document, or a bundle with jszip) and
 * verifies it with the portable (@noble) provider, answering reports and progress.
 *
 * Everything happens here, off the page's thread, so the page stays responsive and can draw
 * the progress bar while a large bundle is checked.
 */
import { createPortableProvider } from '../../src-shared/crypto/portable-provider';
import type { BundleCheck } from '../../src-shared/evidence/check-bundle';
import { createVerifyContext, type VerifyContext } from '../../src-shared/verify/context';
import { verifyDocument } from '../../src-shared/verify/verify';
import { isBundleFile, type VerifierKeys, type VerifyJob, type WorkerAnswer } from './protocol';
import { checkBundleZip } from './read-bundle';

/** The worker's global scope, typed to the two calls used (the renderer's lib is the DOM's). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<VerifyJob>) => void) | null;
  postMessage(message: WorkerAnswer): void;
}

const scope = self as unknown as WorkerScope;
const crypto = createPortableProvider();
/** At most this many progress messages per bundle: each one re-renders the page. */
const PROGRESS_STEPS = 200;
async function verifyBundle(id: number, bytes: Uint8Array, context: VerifyContext): Promise<BundleCheck> {
  let last = -1;
  return checkBundleZip(bytes, context, {
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
