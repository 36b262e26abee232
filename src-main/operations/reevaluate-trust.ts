/**
 * Re-judging stored receipts after the trust store changed.
 *
 * Reports are stored with the trust of the moment they were verified. When the user pins,
 * revokes or unpins a key, the receipts signed by it are verified again against the new trust
 * store so the ledger's trust column (which the views filter on) tells the truth. Receipts are
 * found through the indexed issuer column: by the key's id, and for documents that embed their
 * key, by the key's did:key (the name an unpinned embedded Ed25519 key is stored under).
 */
import { didKeyFromEd25519 } from '../../src-shared/crypto';
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
  let reverified = 0;
  let changed = 0;
  for (const issuer of issuers) {
    let after: string | undefined;
    do {
      const page = listReceipts(ledger.readable, {
        filters: { issuer },
        sort: { column: 'imported_at', direction: 'asc' },
        limit: BATCH,
        ...(after ? { after } : {}),
      });
      ledger.runInTransaction((database) => {
        for (const row of page.rows) {
          const stored = getReceipt(database, row.id);
          // A sealed document needs its secret, which is not stored: keep its report as it was.
          if (!stored || stored.format === 'sealed') continue;
          const report = verifyDocument(stored.raw, context);
          reverified += 1;
          if (
            report.status !== stored.status ||
            report.trust.status !== stored.trust ||
            JSON.stringify(report) !== JSON.stringify(stored.report)
          ) {
            updateReceiptReport(database, row.id, report);
            changed += 1;
          }
        }
      });
      after = page.nextCursor ?? undefined;
    } while (after !== undefined);
  }
  return { reverified, changed };
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
