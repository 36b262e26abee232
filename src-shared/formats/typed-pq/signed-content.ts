/**
 * What a typed-pq signature covers: the digest of the fragments' digests, shown as the
 * concatenated digests h_1 ‖ … ‖ h_n whose SHA-256 is the signed message.
 */
import { hexDecode, hexEncode } from '../../crypto';
import type { SignedContentInput } from '../../verify/format-module';
import type { SignedBytes } from '../../verify/signed-bytes';
import { fragmentDigest } from './verify';

/**
 * The signed content of a typed-pq envelope.
 *
 * @param input - The parsed document.
 * @returns The concatenated fragment digests (hex), or nothing without a fragments array.
 */
export function typedPqSignedContent(input: SignedContentInput): SignedBytes[] {
  const { crypto, value } = input;
  const fragments = value['fragments'];
  if (!Array.isArray(fragments)) return [];
  const digests = fragments.map((fragment) => hexEncode(fragmentDigest(fragment, crypto.sha256)));
  const text = digests.join('');
  return [
    {
      label: 'h_1 ‖ … ‖ h_n (SHA-256 of JCS of each fragment)',
      text,
      encoding: 'hex',
      sha256: hexEncode(crypto.sha256(hexDecode(text))),
      coverage: 'ML-DSA-65 signature over the 32 raw bytes of the SHA-256 of these bytes (the envelope digest)',
    },
  ];
}
