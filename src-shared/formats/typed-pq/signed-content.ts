/**
 * What a typed-pq signature covers: the payload preimage `H(base) || agg_root || policy_digest
 * [|| H(temporal)]` (hex), whose digest under the suite is the signed `payload_digest`, and the
 * base text itself. Fragment contents reach the signature only through `agg_root`.
 */
import { hexDecode, hexEncode, utf8Encode } from '../../crypto';
import { jcs } from '../../json';
import { isJsonObject, type JsonObject } from '../../verify/fields';
import type { SignedContentInput } from '../../verify/format-module';
import { type SignedBytes, utf8SignedBytes } from '../../verify/signed-bytes';
import { type TypedPqHashSuite, TYPED_PQ_HASH_SUITES, typedPqHash, typedPqSuiteName } from './verify';

const HEX = /^(?:[0-9a-f]{64}|[0-9a-f]{96})$/;

/**
 * The signed content of a typed-pq attestation.
 *
 * @param input - The parsed document.
 * @returns The base text and the payload preimage, or nothing for a shape it cannot read.
 */
export function typedPqSignedContent(input: SignedContentInput): SignedBytes[] {
  const { crypto, value } = input;
  const envelope: JsonObject = isJsonObject(value['envelope']) ? value['envelope'] : value;
  const suite = typedPqSuiteName(envelope) as TypedPqHashSuite;
  if (!TYPED_PQ_HASH_SUITES.includes(suite)) return [];
  const names = ['object', 'version', 'sig_scheme', 'public_key'] as const;
  if (names.some((name) => typeof envelope[name] !== 'string')) return [];
  const root = envelope['agg_root'];
  const policy = envelope['policy_digest'];
  if (typeof root !== 'string' || typeof policy !== 'string' || !HEX.test(policy) || (root !== '' && !HEX.test(root))) {
    return [];
  }
  const hash = typedPqHash(suite, crypto);
  const baseText = jcs(Object.fromEntries(names.map((name) => [name, envelope[name] as string])));
  const slots = [hexEncode(hash(utf8Encode(baseText))), root === '' ? '00'.repeat(hash.length) : root, policy];
  const temporal = envelope['temporal'];
  if (isJsonObject(temporal)) slots.push(hexEncode(hash(utf8Encode(jcs(temporal)))));
  const text = slots.join('');
  const suiteName = suite.toUpperCase();
  return [
    utf8SignedBytes(
      crypto,
      'base: JCS({object, version, sig_scheme, public_key})',
      baseText,
      `its ${suiteName} is the payload's first slot`,
    ),
    {
      label: `H(base) ‖ agg_root ‖ policy_digest${isJsonObject(temporal) ? ' ‖ H(temporal)' : ''}`,
      text,
      encoding: 'hex',
      sha256: hexEncode(crypto.sha256(hexDecode(text))),
      coverage: `ML-DSA-65 signature over the raw bytes of the ${suiteName} of these bytes (payload_digest)`,
    },
  ];
}
