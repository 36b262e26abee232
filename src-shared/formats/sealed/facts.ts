/**
 * What a sealed document says about itself, for the ledger: nothing readable.
 *
 * Its id, instant and signer are inside the ciphertext; its `key_id` names the secret that
 * opens it, not a signer.
 */
import type { JsonNode } from '../../json/types';
import { NO_FACTS } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of a sealed document.
 *
 * @param _tree - The parsed document (nothing outside the ciphertext is a fact of the document).
 * @returns No id, no instant, no issuer.
 */
export function sealedFacts(_tree: JsonNode): DocumentFacts {
  return { ...NO_FACTS };
}
