/**
 * Spectral receipt verification (PROTOCOL section 14; producer srotzin/hive-receipt
 * `lib/spectral.js`).
 *
 * Document: the payload's members plus `signature` (standard base64 of a 64-byte Ed25519
 * signature), `public_key` (standard base64 of the 44-byte SPKI DER of an Ed25519 key),
 * `signed_payload_sha256` (hex SHA-256 of the signed bytes) and `signature_algo`.
 *
 * Decisions:
 * - The signed bytes are rebuilt from the parsed tree as the producer's JavaScript makes them
 *   (serialize.ts): `ed25519` in the document's member order, `ed25519-canonical` with names
 *   sorted. A digest that differs is MISMATCH; a signature that fails over matching bytes is
 *   INVALID.
 * - A member the producer's canonical form leaves out (`__proto__`) is not covered by the
 *   signature: the check `coverage` is `unavailable` with its path, and the status INDETERMINATE
 *   (never PASS), whatever the signature says about the rest.
 * - Another `signature_algo` is UNSUPPORTED, naming it. Encodings are strict: padded standard
 *   base64, lowercase hex, and the Ed25519 SPKI prefix `302a300506032b6570032100`.
 * - The key is embedded: trust `unpinned` unless a pinned entry holds the same 32 bytes.
 */
import { b64Decode, b64Encode, equalBytes, hexEncode, utf8Encode } from '../../crypto';
import type { JsonNode, JsonObjectNode } from '../../json/types';
import { problem, quote } from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import type { Report, ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { checkEmbeddedEd25519 } from '../../verify/signature';
import { spectralSignedBytes, type SpectralAlgorithm } from './serialize';

/** The algorithms this verifier executes. */
export const SPECTRAL_ALGORITHMS: readonly SpectralAlgorithm[] = Object.freeze(['ed25519', 'ed25519-canonical']);

/** The checks of a Spectral receipt. */
export const SPECTRAL_CHECKS: readonly string[] = Object.freeze([
  'algorithm',
  'schema',
  'signed_payload_sha256',
  'signature',
  'coverage',
]);

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the raw key follows. */
const ED25519_SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

function member(node: JsonObjectNode, name: string): JsonNode | undefined {
  return node.members.find(([key]) => key === name)?.[1];
}

/**
 * Recognize a Spectral receipt: a string `signature_algo` beside `signature`, `public_key` and
 * `signed_payload_sha256` (any algorithm, so that another one is reported as unsupported).
 *
 * @param node - Any parsed document.
 * @returns `spectral`, or undefined.
 */
export function detectSpectral(node: JsonNode): 'spectral' | undefined {
  if (node.type !== 'object') return undefined;
  return member(node, 'signature_algo')?.type === 'string' &&
    member(node, 'signature') !== undefined &&
    member(node, 'public_key') !== undefined &&
    member(node, 'signed_payload_sha256') !== undefined
    ? 'spectral'
    : undefined;
}

/**
 * The raw Ed25519 key of a base64 SPKI DER, if it is one.
 *
 * @param text - The claimed key.
 * @returns The 32 key bytes, or undefined.
 */
export function spectralPublicKey(text: string): Uint8Array | undefined {
  if (text.length !== 60) return undefined;
  let der: Uint8Array;
  try {
    der = b64Decode(text);
  } catch {
    return undefined;
  }
  if (der.length !== 44 || b64Encode(der) !== text) return undefined;
  return equalBytes(der.subarray(0, 12), ED25519_SPKI_PREFIX) ? der.slice(12) : undefined;
}

function decodeSignature(text: string): Uint8Array | undefined {
  if (text.length !== 88) return undefined;
  try {
    const bytes = b64Decode(text);
    return bytes.length === 64 && b64Encode(bytes) === text ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verify a Spectral receipt.
 *
 * @param input - The parsed document and context.
 * @returns The report; format `spectral`, trust of the embedded key.
 */
export function verifySpectral(input: FormatInput): Report {
  const { tree, ctx } = input;
  const builder = new ReportBuilder('spectral', SPECTRAL_CHECKS);
  if (tree.type !== 'object') {
    builder.fail(
      'MALFORMED',
      'schema',
      'A Spectral receipt is a JSON object.',
      problem('invalid_type', '', 'Not an object.'),
    );
    return builder.build();
  }
  const algoNode = member(tree, 'signature_algo');
  const algo = algoNode?.type === 'string' ? algoNode.value : '';
  if (algo !== 'ed25519' && algo !== 'ed25519-canonical') {
    builder.unsupported(
      'algorithm',
      `Spectral signature_algo ${quote(algo)} is not one this verifier executes (ed25519, ed25519-canonical).`,
      problem('unsupported_algorithm', '/signature_algo', `Unsupported Spectral signature_algo ${quote(algo)}.`),
    );
    return builder.build();
  }
  builder.pass('algorithm', `signature_algo is ${algo}.`);

  const errors: ReportError[] = [];
  const signatureNode = member(tree, 'signature');
  const keyNode = member(tree, 'public_key');
  const digestNode = member(tree, 'signed_payload_sha256');
  const signature = signatureNode?.type === 'string' ? decodeSignature(signatureNode.value) : undefined;
  if (signature === undefined) {
    errors.push(problem('invalid_signature_encoding', '/signature', '"signature" must be 64 bytes as padded base64.'));
  }
  const publicKey = keyNode?.type === 'string' ? spectralPublicKey(keyNode.value) : undefined;
  if (publicKey === undefined) {
    errors.push(
      problem(
        'invalid_public_key',
        '/public_key',
        '"public_key" must be the SPKI DER of an Ed25519 key as padded base64.',
      ),
    );
  }
  const claimed =
    digestNode?.type === 'string' && /^[0-9a-f]{64}$/.test(digestNode.value) ? digestNode.value : undefined;
  if (claimed === undefined) {
    errors.push(
      problem(
        'invalid_digest',
        '/signed_payload_sha256',
        '"signed_payload_sha256" must be 64 lowercase hex characters.',
      ),
    );
  }
  if (errors.length > 0 || signature === undefined || publicKey === undefined || claimed === undefined) {
    builder.fail('MALFORMED', 'schema', 'The receipt does not have the Spectral shape.', errors);
    return builder.build();
  }
  builder.pass('schema', 'The receipt has the Spectral shape.');

  const signed = spectralSignedBytes(tree, algo);
  const bytes = utf8Encode(signed.text);
  const digest = hexEncode(ctx.crypto.sha256(bytes));
  const form =
    algo === 'ed25519'
      ? 'the payload as JSON.stringify writes it after JSON.parse (document order, array-index names first)'
      : 'the payload with its names sorted at every depth';
  if (digest === claimed) {
    builder.pass('signed_payload_sha256', `signed_payload_sha256 equals SHA-256 of ${form}.`);
  } else {
    builder.fail(
      'MISMATCH',
      'signed_payload_sha256',
      `signed_payload_sha256 differs from SHA-256 of ${form}: the payload was changed.`,
      problem('digest_mismatch', '/signed_payload_sha256', `The payload's SHA-256 is ${digest}.`),
    );
  }
  checkEmbeddedEd25519(builder, ctx, {
    publicKey,
    signature,
    message: bytes,
    over: 'the payload bytes',
    problemOver: 'the payload bytes',
    keyName: 'the embedded public_key',
  });
  if (signed.unsigned.length === 0) {
    builder.pass('coverage', 'Every payload member is in the signed bytes.');
  } else {
    builder.unavailable(
      'coverage',
      `The signed bytes leave out ${signed.unsigned.join(', ')}: the producer's canonical form drops a member named __proto__, so its content is not signed.`,
      signed.unsigned.map((path) =>
        problem('unsigned_member', path, 'This member is not covered by the ed25519-canonical signature.'),
      ),
    );
  }
  return builder.build();
}
