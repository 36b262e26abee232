/**
 * What a typed contract says about itself, for the ledger.
 */
import type { JsonNode } from '../../json/types';
import { documentFacts, factString, timestampFact } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of a typed contract: `contract_id`, `issued_at` (TS) and `key_id`.
 *
 * @param tree - The parsed document, any shape.
 * @returns The facts.
 */
export function typedFacts(tree: JsonNode): DocumentFacts {
  return documentFacts({
    receipt_id: factString(tree, 'contract_id'),
    issued_at: timestampFact(factString(tree, 'issued_at')),
    issuer_key_id: factString(tree, 'key_id'),
  });
}
