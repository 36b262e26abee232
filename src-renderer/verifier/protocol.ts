/**
 * The messages between the reference verifier page and its verification worker.
 *
 * The page parses the key, trust and secret files itself (they are small, and their errors
 * belong beside their inputs); the worker reads documents and bundles and verifies them, so
 * a 10,000-receipt bundle never blocks the page.
 */
import type { BundleCheck } from '../../src-shared/evidence/check-bundle';
import type { KeyEntry, SecretEntry } from '../../src-shared/verify/context';
import type { Report } from '../../src-shared/verify/report';

/** What the page gives the worker with every job: the keys and secrets chosen for this page. */
export interface VerifierKeys {
  /** From a trust file: these alone can make trust `trusted`. */
  pinned: KeyEntry[];
  /** From a key file: they can make a signature check pass, never trusted. */
  advertised: KeyEntry[];
  secrets: SecretEntry[];
}

/** A job: files to verify, each a document or a bundle. */
export interface VerifyJob {
  type: 'verify';
  files: { id: number; file: File }[];
  keys: VerifierKeys;
}

/** What the worker answers. */
export type WorkerAnswer =
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'document'; id: number; report: Report }
  | { type: 'bundle'; id: number; result: BundleCheck }
  | { type: 'failed'; id: number; message: string };

/** Whether a file is read as an evidence bundle: a zip by name or by its first bytes. */
export function isBundleFile(name: string, head: Uint8Array): boolean {
  if (typeof name !== 'string' || !(head instanceof Uint8Array))
    throw new TypeError('isBundleFile expects a name and bytes');
  // "PK\x03\x04" (a local file header) or "PK\x05\x06" (an empty zip's end record).
  const zipMagic = head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05);
  return zipMagic || name.toLowerCase().endsWith('.zip');
}
