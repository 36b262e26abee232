/**
 * What a countersignature covers: signed_over_canonical as given, or, when a verify request
 * leaves it out, the canonical text of signed_over rebuilt by the producer's rules.
 */
import { memberNode } from '../../verify/fields';
import type { SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';
import { rebuildSignedOverCanonical } from './verify';

/**
 * The signed content of a countersigner document.
 *
 * @param input - The parsed document.
 * @returns The signed text, or nothing when there is none to show.
 */
export function countersignerSignedContent(input: SignedContentInput): SignedBytes[] {
  const canonical = input.value['signed_over_canonical'];
  if (typeof canonical === 'string') {
    return [
      utf8SignedBytes(
        input.crypto,
        'signed_over_canonical',
        canonical,
        'Ed25519 countersignature over these bytes; they must be the canonical text of signed_over',
      ),
    ];
  }
  const signedOver = input.tree.type === 'object' ? memberNode(input.tree, 'signed_over') : undefined;
  if (signedOver?.type !== 'object') return [];
  return [
    utf8SignedBytes(
      input.crypto,
      'canonical text of signed_over',
      rebuildSignedOverCanonical(signedOver),
      'Ed25519 countersignature over these bytes, rebuilt from signed_over (Python sorted keys, compact, ASCII escapes)',
    ),
  ];
}
