/**
 * What a Spectral receipt says about itself, for the ledger: `receipt_id` (or `id`), `issued_at`
 * (or `generated_at`) when it is a TS, and the did:key of its embedded public key.
 */
import { didKeyFromEd25519 } from '../../crypto';
import type { JsonNode } from '../../json/types';
import { documentFacts, factString, timestampFact } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';
import { spectralPublicKey } from './verify';

/**
 * The ledger facts of a Spectral receipt.
 *
 * @param tree - The parsed document, any shape.
 * @returns Its id, issuing instant and issuer key's did:key, where present.
 */
export function spectralFacts(tree: JsonNode): DocumentFacts {
  const key = factString(tree, 'public_key');
  const raw = key === undefined ? undefined : spectralPublicKey(key);
  return documentFacts({
    receipt_id: factString(tree, 'receipt_id') ?? factString(tree, 'id'),
    issued_at: timestampFact(factString(tree, 'issued_at') ?? factString(tree, 'generated_at')),
    issuer_key_id: raw === undefined ? undefined : didKeyFromEd25519(raw),
  });
}
