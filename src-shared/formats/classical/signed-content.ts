/**
 * What a classical receipt's signature covers: SKP of its signed payload.
 */
import { skp } from '../../json';
import { objectMember } from '../../verify/fields';
import type { SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';

/**
 * The signed content of a classical receipt, read from the tree so numbers stay as written.
 *
 * @param input - The parsed document.
 * @returns SKP(signed_payload), or nothing when the receipt has no signed payload.
 */
export function classicalSignedContent(input: SignedContentInput): SignedBytes[] {
  const payload = objectMember(input.tree, 'signed_payload');
  return payload
    ? [
        utf8SignedBytes(
          input.crypto,
          'SKP(signed_payload)',
          skp(payload),
          'Ed25519 signature over these bytes (public_key_hex)',
        ),
      ]
    : [];
}
