/**
 * What a SiGR chain receipt says about itself, for the ledger.
 *
 * The receipt's id is its `run_id` and its instant `issued_at` (unsigned, shown as the document
 * states it). It names no key: the ML-DSA-65 key is inline and has no id, so the issuer key id
 * is null (the ledger finds the receipt by its receipt_sha256, and a pinned key matches it by
 * its bytes).
 */
import type { JsonNode } from '../../json/types';
import { documentFacts, factMember, factString, timestampFact } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of a SiGR chain receipt.
 *
 * @param tree - The parsed document, any shape.
 * @returns `envelope.run_id`, `envelope.issued_at`, and no issuer key id.
 */
export function sigrChainFacts(tree: JsonNode): DocumentFacts {
  const envelope = factMember(tree, 'envelope');
  return documentFacts({
    receipt_id: factString(envelope, 'run_id'),
    issued_at: timestampFact(factString(envelope, 'issued_at')),
  });
}
