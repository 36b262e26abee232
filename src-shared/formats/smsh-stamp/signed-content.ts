/**
 * What an SMSH-Stamp signature covers: JCS of the stamp without `sig`.
 */
import type { SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';
import { smshSignedText } from './verify';

/**
 * The signed content of an SMSH stamp.
 *
 * @param input - The parsed document.
 * @returns The JCS text the Ed25519 signature `sig` is made over.
 */
export function smshSignedContent(input: SignedContentInput): SignedBytes[] {
  return [
    utf8SignedBytes(
      input.crypto,
      'stamp without sig (JCS)',
      smshSignedText(input.value),
      'Ed25519 signature (sig) over these bytes',
    ),
  ];
}
