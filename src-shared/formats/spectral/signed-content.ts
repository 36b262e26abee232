/**
 * What a Spectral signature covers: the payload bytes rebuilt as the producer's JavaScript makes
 * them.
 */
import type { SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';
import { spectralSignedBytes } from './serialize';

/**
 * The signed content of a Spectral receipt.
 *
 * @param input - The parsed document.
 * @returns The payload bytes, or nothing for an algorithm this verifier does not execute.
 */
export function spectralSignedContent(input: SignedContentInput): SignedBytes[] {
  const algo = input.value['signature_algo'];
  if (input.tree.type !== 'object' || (algo !== 'ed25519' && algo !== 'ed25519-canonical')) return [];
  return [
    utf8SignedBytes(
      input.crypto,
      algo === 'ed25519' ? 'payload (JSON.stringify, document order)' : 'payload (names sorted)',
      spectralSignedBytes(input.tree, algo).text,
      'Ed25519 signature over these bytes; signed_payload_sha256 is their SHA-256',
    ),
  ];
}
