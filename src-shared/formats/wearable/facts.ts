/**
 * What a wearable receipt says about itself, for the ledger.
 */
import type { JsonNode } from '../../json/types';
import { documentFacts, factMember, factString, unixSecondsFact } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of a wearable receipt: `receipt_id`, `ts` (Unix seconds of issuance) and the
 * service's `key_id`.
 *
 * @param tree - The parsed document, any shape.
 * @returns The facts.
 */
export function wearableFacts(tree: JsonNode): DocumentFacts {
  return documentFacts({
    receipt_id: factString(tree, 'receipt_id'),
    issued_at: unixSecondsFact(factMember(tree, 'ts')),
    issuer_key_id: factString(tree, 'key_id'),
  });
}
