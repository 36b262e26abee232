/**
 * What a countersignature covers: the signed_over_canonical text itself.
 */
import type { SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';

/**
 * The signed content of a countersigner record.
 *
 * @param input - The parsed document.
 * @returns signed_over_canonical, or nothing when it is not a string.
 */
export function countersignerSignedContent(input: SignedContentInput): SignedBytes[] {
  const canonical = input.value['signed_over_canonical'];
  return typeof canonical === 'string'
    ? [
        utf8SignedBytes(
          input.crypto,
          'signed_over_canonical',
          canonical,
          'Ed25519 countersignature over these bytes; signed_over is their BLAKE3',
        ),
      ]
    : [];
}
