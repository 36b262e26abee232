/**
 * What a typed-pq attestation says about itself, for the ledger.
 *
 * The attestation has no id and no key id (its ML-DSA-65 key is inline): it is filed under its
 * `payload_digest` (the signed digest) and its `issued_at` (which it states but does not sign).
 * Its issuer key id stays empty: a pinned key is matched by its bytes when it is verified.
 */
import type { JsonNode } from '../../json/types';
import { documentFacts, factMember, factString, timestampFact } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of a typed-pq attestation (a sign answer, `{envelope, fragments}` or a bare
 * envelope).
 *
 * @param tree - The parsed document, any shape.
 * @returns `payload_digest` as the id, `issued_at`, no issuer key id.
 */
export function typedPqFacts(tree: JsonNode): DocumentFacts {
  const envelope = factMember(tree, 'envelope') ?? tree;
  const digest = factString(envelope, 'payload_digest');
  return documentFacts({
    receipt_id: digest !== undefined && /^(?:[0-9a-f]{64}|[0-9a-f]{96})$/.test(digest) ? digest : undefined,
    issued_at: timestampFact(factString(envelope, 'issued_at')),
  });
}
