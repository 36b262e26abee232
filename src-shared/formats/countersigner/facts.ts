/**
 * What a countersigner document says about itself, for the ledger.
 *
 * A countersigner entry has no id of its own (`seq` counts within one log), so it is found by
 * its receipt_sha256; its issuing instant is `signed_over.countersigner_time` (Unix seconds, a
 * float: kept to the millisecond, rounded down); its issuer is the countersigner's embedded key,
 * named by its did:key.
 */
import type { JsonNode } from '../../json/types';
import { b64KeyId, documentFacts, factMember, factString } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of a countersigner document.
 *
 * @param tree - The parsed document, any shape.
 * @returns No id, the countersigner's time, and the did:key of `countersigner_public_key_b64`.
 */
export function countersignerFacts(tree: JsonNode): DocumentFacts {
  const time = factMember(factMember(tree, 'signed_over'), 'countersigner_time');
  const issued = time?.type === 'number' && Number.isFinite(time.value) ? Math.floor(time.value * 1000) : undefined;
  return documentFacts({
    issued_at: issued,
    issuer_key_id: b64KeyId(factString(tree, 'countersigner_public_key_b64')),
  });
}
