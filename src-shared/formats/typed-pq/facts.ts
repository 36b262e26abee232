/**
 * What a typed-pq envelope says about itself, for the ledger.
 *
 * PROTOCOL section 7 gives the envelope no id and no issuing instant, so it is found by its
 * receipt_sha256; its issuer is `envelope.key_id`.
 */
import type { JsonNode } from '../../json/types';
import { documentFacts, factMember, factString } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of a typed-pq envelope.
 *
 * @param tree - The parsed document, any shape.
 * @returns No id, no instant, and `envelope.key_id`.
 */
export function typedPqFacts(tree: JsonNode): DocumentFacts {
  return documentFacts({ issuer_key_id: factString(factMember(tree, 'envelope'), 'key_id') });
}
