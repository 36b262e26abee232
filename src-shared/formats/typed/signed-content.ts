/**
 * What a typed contract's signature covers: its Rule D1 payload P.
 */
import type { SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';
import { ruleD1Payload } from '../../verify/signature';

/**
 * The signed content of a typed contract.
 *
 * @param input - The parsed document.
 * @returns P = JCS(contract without payload_sha256 and sig_b64u).
 */
export function typedSignedContent(input: SignedContentInput): SignedBytes[] {
  return [
    utf8SignedBytes(
      input.crypto,
      'Rule D1 payload P',
      ruleD1Payload(input.value),
      'sig_b64u: Ed25519 over the SHA-256 of these bytes; payload_sha256 is that SHA-256',
    ),
  ];
}
