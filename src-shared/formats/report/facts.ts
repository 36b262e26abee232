/**
 * What an audit report says about itself, for the ledger, and what its signature covers.
 */
import type { JsonNode } from '../../json/types';
import { documentFacts, factMember, factString, timestampFact } from '../../verify/document-facts';
import type { DocumentFacts, SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';
import { ruleD1Payload } from '../../verify/signature';

/**
 * The ledger facts of a report: `report_id`, `generated_at` (TS) and the auditor's `signer.key_id`.
 *
 * @param tree - The parsed document, any shape.
 * @returns The facts.
 */
export function reportFacts(tree: JsonNode): DocumentFacts {
  return documentFacts({
    receipt_id: factString(tree, 'report_id'),
    issued_at: timestampFact(factString(tree, 'generated_at')),
    issuer_key_id: factString(factMember(tree, 'signer'), 'key_id'),
  });
}

/**
 * The signed content of a report: its Rule D1 payload P.
 *
 * @param input - The parsed document.
 * @returns P = JCS(report without payload_sha256 and sig_b64u).
 */
export function reportSignedContent(input: SignedContentInput): SignedBytes[] {
  return [
    utf8SignedBytes(
      input.crypto,
      'Rule D1 payload P',
      ruleD1Payload(input.value),
      'sig_b64u: Ed25519 over the SHA-256 of these bytes; payload_sha256 is that SHA-256',
    ),
  ];
}
