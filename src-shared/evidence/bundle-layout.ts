/**
 * Where things live inside an evidence bundle (PROTOCOL section 9).
 *
 * `manifest.json`, `manifest.sig`, `receipts/<receipt id>.json`, `anchors/<batch_id>.json`,
 * `keys/service-keys.json`, and a served tenant's log evidence `log/checkpoint.txt` and
 * `log/proofs.json` (docs/logs.md); the directories `receipts/`, `anchors/`, `keys/` and `log/`
 * may appear as directory entries. Anything else is an unexpected file: reported, never read as
 * evidence.
 */
import { MANIFEST_NAME, SIGNATURE_NAME } from './manifest';

/** The bundle's key file. */
export const KEYS_NAME = 'keys/service-keys.json';

/** A served tenant's signed log checkpoint (with its cosignatures). */
export const LOG_CHECKPOINT_NAME = 'log/checkpoint.txt';
/** A served tenant's leaves, boundaries and proofs (`evroom.log-evidence/1`). */
export const LOG_PROOFS_NAME = 'log/proofs.json';

/** What a path in a bundle is. */
export type BundlePathKind = 'manifest' | 'signature' | 'keys' | 'receipt' | 'anchor' | 'log' | 'directory' | 'other';

const LAYOUT_DIRECTORIES = new Set(['receipts/', 'anchors/', 'keys/', 'log/']);

/**
 * Classify a (checked) entry name.
 *
 * @param name - The entry name; directories end with `/`.
 * @returns What the bundle layout says it is.
 */
export function classifyBundlePath(name: string): BundlePathKind {
  if (typeof name !== 'string') throw new TypeError('classifyBundlePath expects a string');
  if (name === MANIFEST_NAME) return 'manifest';
  if (name === SIGNATURE_NAME) return 'signature';
  if (name === KEYS_NAME) return 'keys';
  if (name === LOG_CHECKPOINT_NAME || name === LOG_PROOFS_NAME) return 'log';
  if (LAYOUT_DIRECTORIES.has(name)) return 'directory';
  const match = /^(receipts|anchors)\/([^/]+)\.json$/.exec(name);
  if (match !== null) return match[1] === 'receipts' ? 'receipt' : 'anchor';
  return 'other';
}

/**
 * The stem of a receipts/ or anchors/ file: its name without the folder and `.json`.
 *
 * @param name - A receipt or anchor path.
 * @returns The stem, e.g. the receipt id.
 */
export function pathStem(name: string): string {
  const slash = name.indexOf('/');
  return name.slice(slash + 1, name.length - '.json'.length);
}

/** A document id usable as a file name everywhere: letters, digits, `.`, `_`, `-`. */
const SAFE_STEM = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * Choose an exported receipt's path: `receipts/<receipt id>.json` when the id is safe as a file
 * name on every system and not yet used in this bundle (compared case-insensitively, as the
 * import does), else `receipts/<receipt_sha256>.json`.
 *
 * @param receiptId - The document's own id, if any.
 * @param receiptSha256 - The receipt's identity.
 * @param used - Folded stems already used in this bundle; the chosen one is added.
 * @returns The path.
 */
export function receiptPath(receiptId: string | null, receiptSha256: string, used: Set<string>): string {
  let stem = receiptSha256;
  if (
    receiptId !== null &&
    SAFE_STEM.test(receiptId) &&
    !receiptId.endsWith('.') &&
    !used.has(receiptId.toLowerCase())
  ) {
    stem = receiptId;
  }
  used.add(stem.toLowerCase());
  return `receipts/${stem}.json`;
}
