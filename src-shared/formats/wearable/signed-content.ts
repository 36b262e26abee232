/**
 * What a wearable receipt's two signatures cover: the device's observation message M and the
 * service's Rule D1 payload P.
 */
import { isJsonObject } from '../../verify/fields';
import type { SignedContentInput } from '../../verify/format-module';
import { utf8SignedBytes, type SignedBytes } from '../../verify/signed-bytes';
import { ruleD1Payload } from '../../verify/signature';
import { canonicalObservation } from './canonical';
import type { WearableObservation } from './fields';

/**
 * The signed contents of a wearable receipt.
 *
 * @param input - The parsed document.
 * @returns M (when there is a signed body) and P.
 */
export function wearableSignedContent(input: SignedContentInput): SignedBytes[] {
  const { crypto, value } = input;
  const body = value['signed_body'];
  const out: SignedBytes[] = [];
  if (isJsonObject(body)) {
    out.push(
      utf8SignedBytes(
        crypto,
        'Canonical observation message M',
        canonicalObservation(body as unknown as WearableObservation),
        'device_signature: Ed25519 over these bytes; observation_sha256 is their SHA-256',
      ),
    );
  }
  out.push(
    utf8SignedBytes(
      crypto,
      'Rule D1 payload P',
      ruleD1Payload(value),
      'sig_b64u: Ed25519 over the SHA-256 of these bytes; payload_sha256 is that SHA-256',
    ),
  );
  return out;
}
