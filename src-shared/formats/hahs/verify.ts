/**
 * HAHS receipt verification (PROTOCOL section 14; producer srotzin/hive-py `src/hive/hahs.py`).
 *
 * Document: the body's members (`protocol: "hahs/1"`, `receipt_id`, `symbol`, `units`,
 * `amount_usd`, `recipient`, `issued_at`, `tier`, `issuer_verified`, optional `hahs_anchor`,
 * `settlement`, `footer`, and any other member the issuer put in the body) plus three members the
 * signature adds: `canonical_sha256`, `issuer_pubkey` and `signature`.
 *
 * Decisions (Rule D1 under other names):
 * - P is the body (every member but those three) in the producer's canonical text, Python's
 *   `json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`
 *   ({@link pythonJsonDumps} without `ensureAscii`: names sorted by code point, integer lexemes
 *   exact, other numbers as Python's float repr); `canonical_sha256` is b64u of SHA-256(UTF-8 of
 *   P): a different digest is MISMATCH.
 * - `signature` is `ed25519:` + b64u of an Ed25519 signature over the 32 raw digest bytes, by the
 *   key in `issuer_pubkey` (`ed25519:` + b64u of 32 bytes): a failing signature is INVALID. The
 *   key is embedded, so trust is `unpinned` unless a pinned entry holds the same bytes.
 * - Encodings are strict (unpadded, canonical b64u); another scheme prefix than `ed25519:` is
 *   UNSUPPORTED, naming it, as is a `protocol` other than `hahs/1`.
 * - `issuer_verified: true` is the issuer's own claim: a note says so; trust still comes only from
 *   pinned keys.
 * - `hahs_anchor` is a reference to a public-chain anchor (e.g. `base:#19284733`) that this
 *   verifier cannot resolve: check `anchor` is `unchecked` with the reference, and a note says so.
 */
import { b64uDecode, b64uEncode, equalBytes, utf8Encode } from '../../crypto';
import { pythonJsonDumps } from '../../json/python-dumps';
import type { JsonNode, JsonObjectNode } from '../../json/types';
import { problem, quote } from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import type { Report, ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { checkEmbeddedEd25519 } from '../../verify/signature';

/** The protocol this verifier executes. */
export const HAHS_PROTOCOL = 'hahs/1';

/** The members the signature adds to the body. */
export const HAHS_SIGNATURE_MEMBERS = ['canonical_sha256', 'issuer_pubkey', 'signature'] as const;

/** The only key and signature scheme prefix the producer writes. */
const SCHEME = 'ed25519:';

/** Checks of a HAHS receipt without and with an anchor reference. */
export const HAHS_CHECKS: readonly string[] = Object.freeze(['protocol', 'schema', 'canonical_sha256', 'signature']);
const HAHS_ANCHORED_CHECKS: readonly string[] = Object.freeze([...HAHS_CHECKS, 'anchor']);

/** The note every anchored receipt's report carries. */
export const HAHS_ANCHOR_NOTE =
  'hahs_anchor names a public-chain anchor this verifier cannot resolve offline; it is shown as a reference, not verified.';

/** The note of a receipt that says `issuer_verified: true`. */
export const HAHS_ISSUER_VERIFIED_NOTE =
  'issuer_verified is the issuer’s own signed claim; only a pinned key makes the issuer trusted here.';

/**
 * Recognize a HAHS receipt: `protocol` is a string beginning `hahs/` (any version, so that another
 * version is reported as an unsupported HAHS receipt rather than an unknown document).
 *
 * @param node - Any parsed document.
 * @returns `hahs`, or undefined.
 */
export function detectHahs(node: JsonNode): 'hahs' | undefined {
  if (node.type !== 'object') return undefined;
  const protocol = node.members.find(([name]) => name === 'protocol')?.[1];
  return protocol?.type === 'string' && protocol.value.startsWith('hahs/') ? 'hahs' : undefined;
}

/**
 * The body a HAHS signature covers: the document without its three signature members.
 *
 * @param node - The document's object node.
 * @returns An object node of the remaining members, in document order.
 */
export function hahsBody(node: JsonObjectNode): JsonObjectNode {
  const excluded: readonly string[] = HAHS_SIGNATURE_MEMBERS;
  return { type: 'object', members: node.members.filter(([name]) => !excluded.includes(name)) };
}

/**
 * The canonical text P of a HAHS document's body.
 *
 * @param node - The document's object node.
 * @returns P; `canonical_sha256` is b64u(SHA-256(UTF-8 of P)).
 */
export function hahsCanonicalText(node: JsonObjectNode): string {
  return pythonJsonDumps(hahsBody(node), { ensureAscii: false });
}

/** A `scheme:b64u` member decoded, or the problem with it. */
type Decoded = { bytes: Uint8Array } | { unsupported: string } | { error: ReportError };

function decodeB64u(text: string, length: number): Uint8Array | undefined {
  if (text.length !== Math.ceil((length * 4) / 3)) return undefined;
  try {
    const bytes = b64uDecode(text);
    return bytes.length === length && b64uEncode(bytes) === text ? bytes : undefined;
  } catch {
    return undefined;
  }
}

function decodeSchemed(node: JsonNode | undefined, name: string, length: number, what: string): Decoded {
  const path = `/${name}`;
  if (node === undefined) return { error: problem('missing_property', path, `Required member "${name}" is missing.`) };
  if (node.type !== 'string') return { error: problem('invalid_type', path, `"${name}" must be a string.`) };
  const colon = node.value.indexOf(':');
  if (colon > 0 && !node.value.startsWith(SCHEME)) return { unsupported: node.value.slice(0, colon) };
  const bytes = node.value.startsWith(SCHEME) ? decodeB64u(node.value.slice(SCHEME.length), length) : undefined;
  if (bytes === undefined) {
    return {
      error: problem(
        'invalid_encoding',
        path,
        `"${name}" must be "ed25519:" followed by ${what} as unpadded base64url.`,
      ),
    };
  }
  return { bytes };
}

/**
 * Verify a HAHS receipt.
 *
 * @param input - The parsed document and context.
 * @returns The report; format `hahs`.
 */
export function verifyHahs(input: FormatInput): Report {
  const { tree, ctx } = input;
  const anchorNode = tree.type === 'object' ? tree.members.find(([name]) => name === 'hahs_anchor')?.[1] : undefined;
  const builder = new ReportBuilder('hahs', anchorNode === undefined ? HAHS_CHECKS : HAHS_ANCHORED_CHECKS);
  if (tree.type !== 'object') {
    builder.fail(
      'MALFORMED',
      'schema',
      'A HAHS receipt is a JSON object.',
      problem('invalid_type', '', 'Not an object.'),
    );
    return builder.build();
  }
  const member = (name: string): JsonNode | undefined => tree.members.find(([key]) => key === name)?.[1];
  const protocol = member('protocol');
  const protocolText = protocol?.type === 'string' ? protocol.value : '';
  if (protocolText !== HAHS_PROTOCOL) {
    builder.unsupported(
      'protocol',
      `HAHS protocol ${quote(protocolText)} is not one this verifier executes (only ${HAHS_PROTOCOL}).`,
      problem('unsupported_protocol', '/protocol', `Unsupported HAHS protocol ${quote(protocolText)}.`),
    );
    return builder.build();
  }
  builder.pass('protocol', `protocol is ${HAHS_PROTOCOL}.`);

  const errors: ReportError[] = [];
  const unsupported: string[] = [];
  const digestNode = member('canonical_sha256');
  let claimed: Uint8Array | undefined;
  if (digestNode === undefined) {
    errors.push(problem('missing_property', '/canonical_sha256', 'Required member "canonical_sha256" is missing.'));
  } else if (digestNode.type !== 'string' || (claimed = decodeB64u(digestNode.value, 32)) === undefined) {
    errors.push(
      problem('invalid_digest', '/canonical_sha256', '"canonical_sha256" must be 32 bytes as unpadded base64url.'),
    );
  }
  const key = decodeSchemed(member('issuer_pubkey'), 'issuer_pubkey', 32, 'a 32-byte Ed25519 public key');
  const signature = decodeSchemed(member('signature'), 'signature', 64, 'a 64-byte Ed25519 signature');
  for (const decoded of [key, signature]) {
    if ('error' in decoded) errors.push(decoded.error);
    if ('unsupported' in decoded) unsupported.push(decoded.unsupported);
  }
  if (anchorNode !== undefined && anchorNode.type !== 'string') {
    errors.push(problem('invalid_type', '/hahs_anchor', '"hahs_anchor" must be a string (an anchor reference).'));
  }
  if (errors.length > 0) {
    builder.fail('MALFORMED', 'schema', 'The receipt does not have the HAHS shape.', errors);
    return builder.build();
  }
  if (unsupported.length > 0) {
    builder.pass('schema', 'The receipt has the HAHS shape.');
    builder.unsupported(
      'signature',
      `The receipt uses the scheme ${quote(unsupported[0] ?? '')}, which this verifier does not execute (only ed25519).`,
      problem('unsupported_algorithm', '/signature', `Unsupported HAHS scheme ${quote(unsupported[0] ?? '')}.`),
    );
    return builder.build();
  }
  builder.pass('schema', 'The receipt has the HAHS shape.');
  if (!('bytes' in key) || !('bytes' in signature) || claimed === undefined) return builder.build();

  const digest = ctx.crypto.sha256(utf8Encode(hahsCanonicalText(tree)));
  if (equalBytes(digest, claimed)) {
    builder.pass(
      'canonical_sha256',
      'canonical_sha256 equals SHA-256 of the canonical body (sorted keys, compact, as the producer writes it).',
    );
  } else {
    builder.fail(
      'MISMATCH',
      'canonical_sha256',
      'canonical_sha256 differs from the recomputed digest: the receipt body was changed.',
      problem('digest_mismatch', '/canonical_sha256', `The body's SHA-256 is ${b64uEncode(digest)}.`),
    );
  }
  checkEmbeddedEd25519(builder, ctx, {
    publicKey: key.bytes,
    signature: signature.bytes,
    message: digest,
    over: 'the 32-byte digest',
    problemOver: 'the canonical body digest',
    keyName: 'the embedded issuer_pubkey',
  });
  const issuerVerified = member('issuer_verified');
  if (issuerVerified?.type === 'boolean' && issuerVerified.value) builder.note(HAHS_ISSUER_VERIFIED_NOTE);
  if (anchorNode?.type === 'string') {
    builder.unchecked(
      'anchor',
      `Anchor reference ${quote(anchorNode.value)} (hahs_anchor) was not resolved: this verifier cannot look up a public-chain anchor.`,
    );
    builder.note(HAHS_ANCHOR_NOTE);
  }
  return builder.build();
}
