/**
 * What a countersigner record says about itself, for the ledger.
 *
 * PROTOCOL section 5 gives a countersigner record no id and no issuing instant (its log has no
 * timestamps either), so it is found by its receipt_sha256; its issuer is the countersigner's
 * embedded key, named by its did:key.
 */
import type { JsonNode } from '../../json/types';
import { b64KeyId, documentFacts, factString } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of a countersigner record.
 *
 * @param tree - The parsed document, any shape.
 * @returns No id, no instant, and the did:key of `countersigner_public_key_b64`.
 */
export function countersignerFacts(tree: JsonNode): DocumentFacts {
  return documentFacts({ issuer_key_id: b64KeyId(factString(tree, 'countersigner_public_key_b64')) });
}
