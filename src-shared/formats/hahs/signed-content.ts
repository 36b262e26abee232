/**
 * What a HAHS signature covers: the canonical body text, through its SHA-256.
 */
import type { SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';
import { hahsCanonicalText } from './verify';

/**
 * The signed content of a HAHS receipt.
 *
 * @param input - The parsed document.
 * @returns The canonical body text (canonical_sha256 is its SHA-256, the signed message).
 */
export function hahsSignedContent(input: SignedContentInput): SignedBytes[] {
  if (input.tree.type !== 'object') return [];
  return [
    utf8SignedBytes(
      input.crypto,
      'canonical body',
      hahsCanonicalText(input.tree),
      'Ed25519 signature over the 32-byte SHA-256 of these bytes (canonical_sha256)',
    ),
  ];
}
