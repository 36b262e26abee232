/**
 * What an svc-receipt-v1 envelope says about itself, for the ledger.
 */
import type { JsonNode } from '../../json/types';
import { documentFacts, factMember, factString, timestampFact } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/** A full ISO 8601 date and time with a zone: what the envelope's issued_at may be beyond a TS. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * The ledger facts of an envelope: `receipt_id`, `issued_at` and the service role's key id (the
 * service is the issuer that vouches for the envelope, as its trust is the service key's).
 *
 * @param tree - The parsed document, any shape.
 * @returns The facts.
 */
export function envelopeFacts(tree: JsonNode): DocumentFacts {
  const issuedAt = factString(tree, 'issued_at');
  // The envelope's issued_at is "ISO 8601" without our TS restriction; accept full dates only.
  const millis =
    timestampFact(issuedAt) ??
    (issuedAt !== undefined && ISO_INSTANT.test(issuedAt) ? Math.trunc(Date.parse(issuedAt)) : undefined);
  return documentFacts({
    receipt_id: factString(tree, 'receipt_id'),
    issued_at: millis,
    issuer_key_id: factString(factMember(factMember(tree, 'signatures'), 'service'), 'key_id'),
  });
}
