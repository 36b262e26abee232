/**
 * Re-judging stored receipts after the trust store changed.
 *
 * Reports are stored with the trust of the moment they were verified. When the user pins,
 * revokes or unpins a key, the receipts signed by it are verified again against the new trust
 * store so the ledger's trust column (which the views filter on) tells the truth. Receipts are
 * found through the indexed issuer column: by the key's id, and for documents that embed their
 * key, by the key's did:key (the name an unpinned embedded Ed25519 key is stored under). Documents
 * that embed an ML-DSA-65 key and name no key id (typed-pq, sigr-chain-pq) are found by format and
 * by the key's bytes in their text.
 */
import { b64Encode, didKeyFromEd25519 } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import type { VerifyContext } from '../../src-shared/verify/context';
import { verifyDocument } from '../../src-shared/verify/verify';
import { listReceipts, getReceipt, updateReceiptReport, type Ledger } from '../ledger';
import type { TrustStore } from '../trust';

/** Receipts re-verified per transaction. */
const BATCH = 500;

/**
 * Verify again every stored receipt whose issuer is one of the given keys.
 *
 * @param key - the key that changed: its id, and its public key bytes when known
 * @returns how many receipts were re-verified and how many changed status or trust
 */
export function reevaluateTrust(
  ledger: Ledger,
  trust: TrustStore,
  crypto: CryptoProvider,
  key: { key_id: string; algorithm?: string; public_key?: Uint8Array },
): { reverified: number; changed: number } {
  const issuers = new Set([key.key_id]);
  if (key.public_key && key.algorithm === 'Ed25519' && key.public_key.length === 32)
    issuers.add(didKeyFromEd25519(key.public_key));
  const context: VerifyContext = {
    crypto,
    pinned: trust.pinnedEntries(),
    advertised: advertisedEntries(trust),
    secrets: [],
    now: new Date(),
  };
  const counts = { reverified: 0, changed: 0 };
  for (const issuer of issuers) reverifyWhere(ledger, context, { issuer }, () => true, counts);
  // Documents that carry an ML-DSA-65 key inline and name no key id have no issuer to look up:
  // those holding this key's bytes (as the standard base64 they are written in) are found by
  // format and re-judged too.
  if (key.public_key && key.algorithm === 'ML-DSA-65') {
    const written = Buffer.from(b64Encode(key.public_key), 'latin1');
    for (const format of INLINE_PQ_KEY_FORMATS)
      reverifyWhere(ledger, context, { format }, (raw) => containsBytes(raw, written), counts);
  }
  return counts;
}

/** Formats whose documents embed their ML-DSA-65 key in standard base64 and name no key id. */
const INLINE_PQ_KEY_FORMATS = ['typed-pq', 'sigr-chain-pq'] as const;

/** Verify again the stored receipts a filter lists whose raw bytes pass `select`. */
function reverifyWhere(
  ledger: Ledger,
  context: VerifyContext,
  filters: { issuer?: string; format?: string },
  select: (raw: Uint8Array) => boolean,
  counts: { reverified: number; changed: number },
): void {
  let after: string | undefined;
  do {
    const page = listReceipts(ledger.readable, {
      filters,
      sort: { column: 'imported_at', direction: 'asc' },
      limit: BATCH,
      ...(after ? { after } : {}),
    });
    ledger.runInTransaction((database) => {
      for (const row of page.rows) {
        const stored = getReceipt(database, row.id);
        // A sealed document needs its secret, which is not stored: keep its report as it was.
        if (!stored || stored.format === 'sealed' || !select(stored.raw)) continue;
        const report = verifyDocument(stored.raw, context);
        counts.reverified += 1;
        if (
          report.status !== stored.status ||
          report.trust.status !== stored.trust ||
          JSON.stringify(report) !== JSON.stringify(stored.report)
        ) {
          updateReceiptReport(database, row.id, report);
          counts.changed += 1;
        }
      }
    });
    after = page.nextCursor ?? undefined;
  } while (after !== undefined);
}

/** Whether `needle` occurs in `haystack`. */
function containsBytes(haystack: Uint8Array, needle: Buffer): boolean {
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).includes(needle);
}

/** Advertised keys as verifier entries: they can verify signatures, never confer trust. */
export function advertisedEntries(trust: TrustStore): VerifyContext['advertised'] {
  return trust.listAdvertised().map((key) => ({
    key_id: key.key_id,
    algorithm: key.algorithm,
    public_key: key.public_key,
    ...(key.not_before ? { not_before: key.not_before } : {}),
    ...(key.not_after ? { not_after: key.not_after } : {}),
  }));
}
