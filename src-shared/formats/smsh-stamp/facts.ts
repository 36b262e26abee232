/**
 * What an SMSH stamp says about itself, for the ledger: no id of its own, `stamped_at` as its
 * issuing instant (when it is a TS) and `kid` as its issuer key id.
 */
import type { JsonNode } from '../../json/types';
import { documentFacts, factString, timestampFact } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of an SMSH stamp.
 *
 * @param tree - The parsed document, any shape.
 * @returns No id, the stamping instant and the kid, where present.
 */
export function smshFacts(tree: JsonNode): DocumentFacts {
  return documentFacts({
    issued_at: timestampFact(factString(tree, 'stamped_at')),
    issuer_key_id: factString(tree, 'kid'),
  });
}
