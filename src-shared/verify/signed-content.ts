/**
 * The exact bytes each signature of a document covers, for auditors to see and recompute.
 *
 * The receipt detail view shows, for every signature, the canonical bytes it was made over and
 * their SHA-256. This is derived from the document alone with each format's own canonical-form
 * function (each format module's `signedContent`), so what is shown is what the verifier
 * checked. Malformed documents show nothing.
 */
import type { CryptoProvider } from '../crypto/provider';
import { parseJsonBytes, toPlain } from '../json';
import type { JsonNode, JsonValue } from '../json/types';
import { isJsonObject } from './fields';
import { catalogueModules } from './registry';
import type { SignedBytes } from './signed-bytes';

export type { SignedBytes } from './signed-bytes';

/**
 * The signed content of a document of a given format.
 *
 * @param format - The report's format (e.g. `classical`, `typed/proof.demand`).
 * @param raw - The document's bytes as received.
 * @param crypto - For the SHA-256 shown beside each content.
 * @returns One entry per signed content; empty when the format signs nothing readable (sealed)
 *   or the document does not have the shape its canonical form needs.
 */
export function signedContent(format: string, raw: Uint8Array, crypto: CryptoProvider): SignedBytes[] {
  let tree: JsonNode;
  let value: JsonValue;
  try {
    tree = parseJsonBytes(raw);
    value = toPlain(tree);
  } catch {
    return [];
  }
  if (!isJsonObject(value)) return [];
  const module = catalogueModules().find((candidate) => candidate.owns(format));
  if (module === undefined) return [];
  try {
    return module.signedContent({ format, tree, value, crypto });
  } catch {
    // A document too broken for its canonical form has no signed content to show.
    return [];
  }
}
