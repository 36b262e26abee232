/**
 * What every role of an svc-receipt-v1 envelope signs: JCS of the envelope without signatures.
 */
import { jcs } from '../../json';
import type { SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';
import { withoutSignatures } from './verify';

/**
 * The signed content of an envelope.
 *
 * @param input - The parsed document.
 * @returns JCS(envelope without signatures).
 */
export function envelopeSignedContent(input: SignedContentInput): SignedBytes[] {
  return [
    utf8SignedBytes(
      input.crypto,
      'JCS(envelope without signatures)',
      jcs(withoutSignatures(input.value)),
      'each role: Ed25519 over the SHA-256 of these bytes',
    ),
  ];
}
