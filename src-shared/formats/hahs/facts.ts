/**
 * What a HAHS receipt says about itself, for the ledger: its `receipt_id`, `issued_at` and the
 * did:key of its embedded `issuer_pubkey`.
 */
import { b64uDecode, b64uEncode, didKeyFromEd25519 } from '../../crypto';
import type { JsonNode } from '../../json/types';
import { documentFacts, factString, timestampFact } from '../../verify/document-facts';
import type { DocumentFacts } from '../../verify/format-module';

/**
 * The did:key of an `ed25519:<b64u>` key, if it is one.
 *
 * @param text - The claimed key.
 * @returns The did:key, or undefined.
 */
export function schemedKeyId(text: string | undefined): string | undefined {
  if (text === undefined || !/^ed25519:[A-Za-z0-9_-]{43}$/.test(text)) return undefined;
  try {
    const bytes = b64uDecode(text.slice('ed25519:'.length));
    return bytes.length === 32 && b64uEncode(bytes) === text.slice(8) ? didKeyFromEd25519(bytes) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The ledger facts of a HAHS receipt.
 *
 * @param tree - The parsed document, any shape.
 * @returns Its id, issuing instant (a TS) and issuer key's did:key, where present.
 */
export function hahsFacts(tree: JsonNode): DocumentFacts {
  return documentFacts({
    receipt_id: factString(tree, 'receipt_id'),
    issued_at: timestampFact(factString(tree, 'issued_at')),
    issuer_key_id: schemedKeyId(factString(tree, 'issuer_pubkey')),
  });
}
