/**
 * What a sealed document signs: nothing readable. The AES-256-GCM tag authenticates the
 * ciphertext under a secret; the signatures are the plaintext document's, shown when it is
 * opened and verified on its own.
 */
import type { SignedContentInput } from '../../verify/format-module';
import type { SignedBytes } from '../../verify/signed-bytes';

/**
 * The signed content of a sealed document.
 *
 * @param _input - The parsed document.
 * @returns Nothing.
 */
export function sealedSignedContent(_input: SignedContentInput): SignedBytes[] {
  return [];
}
