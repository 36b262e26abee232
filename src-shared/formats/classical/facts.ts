/**
 * What a classical receipt says about itself, for the ledger.
 *
 * Decision (docs/protocol.md, "Ledger facts"): a classical receipt has no id and no issuing
 * instant. PROTOCOL section 5 defines neither; `signed_payload` is the issuer's own free-form
 * object, and a member that happens to be called `id` or `receipt_id` in it means whatever that
 * issuer meant. The receipt is found by its receipt_sha256. Its issuer is the embedded key,
 * named by its did:key as the verifier names an unpinned embedded key.
 */
import type { JsonNode } from '../../json/types';
import { documentFacts, factString, hexKeyId } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The ledger facts of a classical receipt, from the tree alone (never its plain values).
 *
 * @param tree - The parsed document, any shape.
 * @returns No id, no instant, and the did:key of `public_key_hex` when it is a 32-byte key.
 */
export function classicalFacts(tree: JsonNode): DocumentFacts {
  return documentFacts({ issuer_key_id: hexKeyId(factString(tree, 'public_key_hex')) });
}
