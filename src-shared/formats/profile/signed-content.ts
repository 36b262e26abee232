/**
 * What a profile receipt's signature covers: JCS of the receipt without receipt.sig_b64u.
 */
import type { SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';
import { profileSigningText } from './verify';

/**
 * The signed content of a profile (or legacy proof_tier) receipt.
 *
 * @param input - The parsed document.
 * @returns JCS(receipt without receipt.sig_b64u).
 */
export function profileSignedContent(input: SignedContentInput): SignedBytes[] {
  return [
    utf8SignedBytes(
      input.crypto,
      'JCS(receipt without receipt.sig_b64u)',
      profileSigningText(input.value),
      'receipt.sig_b64u: Ed25519 over the SHA-256 of these bytes',
    ),
  ];
}
