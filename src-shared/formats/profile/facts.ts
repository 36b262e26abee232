/**
 * What a profile receipt says about itself, for the ledger.
 */
import type { JsonNode } from '../../json/types';
import { documentFacts, factMember, factString, timestampFact, unixSecondsFact } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of a profile receipt: `receipt.id`; nano's `i` (Unix seconds) or the other
 * profiles' `issued_at` (TS); and `receipt.k` (nano) or `receipt.key_id`.
 *
 * @param tree - The parsed document, any shape.
 * @returns The facts.
 */
export function profileFacts(tree: JsonNode): DocumentFacts {
  const receipt = factMember(tree, 'receipt');
  const issuedAt = factString(tree, 'issued_at');
  return documentFacts({
    receipt_id: factString(receipt, 'id'),
    issued_at: issuedAt === undefined ? unixSecondsFact(factMember(tree, 'i')) : (timestampFact(issuedAt) ?? null),
    issuer_key_id: factString(receipt, 'key_id') ?? factString(receipt, 'k'),
  });
}
