/**
 * Linking a bundle's anchor records to its receipts on import.
 *
 * An entry of anchors/<batch_id>.json may name its receipt (`receipt_sha256`) or leave it null.
 * A null one is linked to the bundle's receipt whose receipt_sha256 (SHA-256 of its JCS form,
 * that is canonical_sha256 in hex) starts with the record's URN suffix, when exactly one receipt
 * of the bundle does; with none, or with two (a 64-bit prefix collision, or a forged record),
 * it stays unlinked. A receipt_sha256 given in the file is kept as it is.
 *
 * The bundle's receipt digests are kept as 32 bytes each (32 MB for a million receipts) and only
 * when the bundle has anchors files at all.
 */
import { parseAnchorUrn } from '../../src-shared/anchor/urn';
import type { NewAnchor } from '../ledger/index';

const DIGEST_BYTES = 32;
const CHUNK_DIGESTS = 4096;

/** The receipt_sha256 values of a bundle's receipts, kept compactly, in the order added. */
export class BundleReceiptDigests {
  private readonly chunks: Buffer[] = [];
  private count = 0;

  /** How many digests were added. */
  get size(): number {
    return this.count;
  }

  /**
   * Adds a receipt's receipt_sha256.
   *
   * @param receiptSha256 - 64 lowercase hex characters.
   * @throws RangeError when it is not.
   */
  add(receiptSha256: string): void {
    if (typeof receiptSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(receiptSha256))
      throw new RangeError('BundleReceiptDigests.add expects 64 lowercase hex characters');
    const slot = this.count % CHUNK_DIGESTS;
    if (slot === 0) this.chunks.push(Buffer.allocUnsafe(CHUNK_DIGESTS * DIGEST_BYTES));
    (this.chunks[this.chunks.length - 1] as Buffer).write(receiptSha256, slot * DIGEST_BYTES, DIGEST_BYTES, 'hex');
    this.count += 1;
  }

  /** Every digest as 64 lowercase hex characters. */
  *[Symbol.iterator](): IterableIterator<string> {
    for (let index = 0; index < this.count; index += 1) {
      const chunk = this.chunks[Math.floor(index / CHUNK_DIGESTS)] as Buffer;
      const offset = (index % CHUNK_DIGESTS) * DIGEST_BYTES;
      yield chunk.toString('hex', offset, offset + DIGEST_BYTES);
    }
  }
}

/**
 * Links anchor records without a receipt_sha256 to the one receipt their URN suffix names.
 *
 * @param anchors - The anchor records read from the bundle.
 * @param receipts - The receipt_sha256 of every receipt of the bundle (repeats are one receipt).
 * @returns The records in the same order; a record with a null receipt_sha256 gets the receipt's
 *   when exactly one receipt starts with its suffix, and is otherwise returned as it was.
 */
export function linkAnchorsToReceipts(anchors: readonly NewAnchor[], receipts: Iterable<string>): NewAnchor[] {
  const wanted = new Map<string, Set<string>>();
  for (const anchor of anchors) {
    if (anchor.receipt_sha256 !== null && anchor.receipt_sha256 !== undefined) continue;
    const suffix = parseAnchorUrn(anchor.svc_anchor)?.suffix;
    if (suffix !== undefined) wanted.set(suffix, new Set());
  }
  if (wanted.size === 0) return [...anchors];
  for (const receipt of receipts) wanted.get(receipt.slice(0, 16))?.add(receipt);
  return anchors.map((anchor) => {
    if (anchor.receipt_sha256 !== null && anchor.receipt_sha256 !== undefined) return anchor;
    const suffix = parseAnchorUrn(anchor.svc_anchor)?.suffix;
    const matches = suffix === undefined ? undefined : wanted.get(suffix);
    if (matches?.size !== 1) return anchor;
    const [receiptSha256] = matches;
    return { ...anchor, receipt_sha256: receiptSha256 as string };
  });
}
