/**
 * Classical receipt verification (PROTOCOL section 5, spec 2.5).
 *
 * Document: `{signed_payload, signature, public_key_hex, alg?, raw_payload?, sequence?}`. The
 * signed message is SKP(signed_payload) as UTF-8: JCS with every number written as it was
 * spelled, so `1.50` is signed as `1.50`.
 *
 * Decisions:
 * - The member set is closed: any other top-level member is MALFORMED (`unknown_property`),
 *   because an unsigned extra field beside a signed payload could mislead a reader.
 * - `signature` is 128 and `public_key_hex` 64 lowercase hex characters (PROTOCOL's hex is
 *   lowercase); an absent or empty public key is MALFORMED by schema, there is no other key to
 *   fall back to.
 * - `alg` is compared exactly: absent or `"Ed25519"` is supported, any other string (including
 *   `"ed25519"`) is UNSUPPORTED and the signature is not executed.
 * - `raw_payload` is compared as a string with the SKP text (so byte for byte as UTF-8).
 * - Top-level `sequence` must equal `signed_payload.sequence` exactly as SKP writes them: the
 *   same JSON type and, for numbers, the same spelling (`1` and `1.0` disagree). Spelling is
 *   significant in SKP, and comparing by value would make 2^53 and 2^53 + 1 agree. A top-level
 *   sequence without one in the payload is MISMATCH; without a top-level sequence the check is
 *   `unchecked`, as is `raw_payload` when absent.
 * - Trust is that of the embedded key: trusted only when a pinned entry holds the same bytes.
 */
import { skp, toPlain } from '../../json';
import type { JsonNode, JsonObjectNode } from '../../json/types';
import { utf8Encode } from '../../crypto';
import {
  decodeHexField,
  describeType,
  memberNode,
  memberNodeProblems,
  objectMember,
  problem,
  quote,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { describeKey, findEmbeddedKey } from '../../verify/keys';
import type { Report, ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';

/** The checks of a classical report, in report order. */
export const CLASSICAL_CHECKS = Object.freeze(['schema', 'alg', 'raw_payload', 'sequence', 'signature'] as const);

const REQUIRED = ['signed_payload', 'signature', 'public_key_hex'];
const OPTIONAL = ['alg', 'raw_payload', 'sequence'];

/**
 * Recognize a classical receipt: an object with `signed_payload` and `signature`.
 *
 * `public_key_hex` is not required for recognition, so a receipt that lost its key is reported
 * as a MALFORMED classical receipt rather than an unknown document.
 *
 * @param node - Any parsed document.
 * @returns `classical` or undefined.
 */
export function detectClassical(node: JsonNode): 'classical' | undefined {
  return objectMember(node, 'signed_payload') !== undefined && objectMember(node, 'signature') !== undefined
    ? 'classical'
    : undefined;
}

/**
 * Verify a classical receipt.
 *
 * @param input - The parsed document and context (see FormatInput).
 * @returns The report; format `classical`.
 */
export function verifyClassical(input: FormatInput): Report {
  const builder = new ReportBuilder('classical', CLASSICAL_CHECKS);
  // Read from the tree alone: the plain value is never made for a classical receipt.
  const { tree, ctx } = input;
  if (tree.type !== 'object') {
    builder.fail(
      'MALFORMED',
      'schema',
      'A classical receipt is a JSON object.',
      problem('invalid_type', '', `Expected an object, got ${describeNodeType(tree)}.`),
    );
    return builder.build();
  }

  const members = readMembers(tree);
  const problems = members.problems;
  const payloadNode = members.signed_payload;
  if (payloadNode !== undefined && payloadNode.type !== 'object') {
    problems.push(
      problem(
        'invalid_type',
        '/signed_payload',
        `"signed_payload" must be an object, got ${describeNodeType(payloadNode)}.`,
      ),
    );
  }
  const signatureNode = members.signature;
  const signature = decodeHexField(stringOf(signatureNode), 64);
  if (signatureNode !== undefined && signature === undefined) {
    problems.push(
      problem(
        'invalid_signature_encoding',
        '/signature',
        '"signature" must be 64 bytes as 128 lowercase hex characters.',
      ),
    );
  }
  const publicKeyNode = members.public_key_hex;
  const publicKey = decodeHexField(stringOf(publicKeyNode), 32);
  if (publicKeyNode !== undefined && publicKey === undefined) {
    problems.push(
      problem(
        'invalid_public_key',
        '/public_key_hex',
        '"public_key_hex" must be 32 bytes as 64 lowercase hex characters.',
      ),
    );
  }
  const algNode = members.alg;
  const rawPayloadNode = members.raw_payload;
  for (const [name, node] of [
    ['alg', algNode],
    ['raw_payload', rawPayloadNode],
  ] as const) {
    if (node !== undefined && node.type !== 'string') {
      problems.push(problem('invalid_type', `/${name}`, `"${name}" must be a string, got ${describeNodeType(node)}.`));
    }
  }
  if (problems.length > 0 || payloadNode?.type !== 'object' || signature === undefined || publicKey === undefined) {
    builder.fail('MALFORMED', 'schema', 'The document does not fit the classical receipt schema.', problems);
    return builder.build();
  }
  builder.pass('schema', 'signed_payload, signature and public_key_hex are present and well-formed.');

  const message = skp(payloadNode);
  const alg = stringOf(algNode);
  const supported = alg === undefined || alg === 'Ed25519';
  if (alg === undefined) builder.pass('alg', 'No alg member; Ed25519 is the classical default.');
  else if (supported) builder.pass('alg', 'alg is Ed25519.');
  else {
    builder.unsupported(
      'alg',
      `alg ${quote(alg)} is not supported; only Ed25519 is.`,
      problem(
        'unsupported_algorithm',
        '/alg',
        `Unsupported alg ${quote(alg)}; classical receipts are verified with Ed25519 only.`,
      ),
    );
  }

  checkRawPayload(builder, stringOf(rawPayloadNode), message);
  checkSequence(builder, members.sequence, payloadNode);

  if (!supported) {
    builder.unsupported('signature', 'Not executed: the receipt names an algorithm we do not verify.');
    return builder.build();
  }
  const key = findEmbeddedKey(publicKey, 'Ed25519', ctx);
  builder.setTrust(key.trust);
  if (ctx.crypto.ed25519Verify(signature, utf8Encode(message), publicKey)) {
    builder.passSigned(
      'signature',
      (outcome) => `Ed25519 signature over SKP(signed_payload) verifies under ${describeKey(key, outcome)}.`,
    );
  } else {
    builder.fail(
      'INVALID',
      'signature',
      `The Ed25519 signature does not verify over SKP(signed_payload) under ${describeKey(key, 'not_signed')}.`,
      problem('signature_invalid', '/signature', 'The signature does not verify over the signed payload.'),
    );
  }
  return builder.build();
}

/** The members a classical receipt may have, found in one pass, and the schema problems of its member names. */
interface ClassicalMembers {
  signed_payload?: JsonNode;
  signature?: JsonNode;
  public_key_hex?: JsonNode;
  alg?: JsonNode;
  raw_payload?: JsonNode;
  sequence?: JsonNode;
  /** What memberNodeProblems(tree, '', REQUIRED, OPTIONAL) answers, in the same order. */
  problems: ReportError[];
}

function readMembers(tree: JsonObjectNode): ClassicalMembers {
  const found: ClassicalMembers = { problems: [] };
  let unknown = false;
  for (const [name, node] of tree.members) {
    switch (name) {
      case 'signed_payload':
      case 'signature':
      case 'public_key_hex':
      case 'alg':
      case 'raw_payload':
      case 'sequence':
        found[name] = node;
        break;
      default:
        unknown = true;
    }
  }
  const complete =
    found.signed_payload !== undefined && found.signature !== undefined && found.public_key_hex !== undefined;
  if (unknown || !complete) found.problems = memberNodeProblems(tree, '', REQUIRED, OPTIONAL);
  return found;
}

/** A string node's value; undefined for anything else (the schema check reports the type). */
function stringOf(node: JsonNode | undefined): string | undefined {
  return node?.type === 'string' ? node.value : undefined;
}

/** {@link describeType} of a node, for messages; converts only the node described. */
function describeNodeType(node: JsonNode): string {
  return describeType(node.type === 'object' ? {} : node.type === 'array' ? [] : toPlain(node));
}

function checkRawPayload(builder: ReportBuilder, rawPayload: string | undefined, message: string): void {
  if (rawPayload === undefined) {
    builder.unchecked('raw_payload', 'The receipt carries no raw_payload to compare.');
  } else if (rawPayload === message) {
    builder.pass('raw_payload', 'raw_payload equals SKP(signed_payload) exactly.');
  } else {
    builder.fail(
      'MISMATCH',
      'raw_payload',
      'raw_payload differs from SKP(signed_payload).',
      problem(
        'raw_payload_mismatch',
        '/raw_payload',
        `raw_payload differs from the canonical signed payload ${firstDifference(rawPayload, message)}.`,
      ),
    );
  }
}

function checkSequence(builder: ReportBuilder, outer: JsonNode | undefined, payload: JsonObjectNode): void {
  if (outer === undefined) {
    builder.unchecked('sequence', 'The receipt carries no top-level sequence to compare.');
    return;
  }
  const inner = memberNode(payload, 'sequence');
  let error: ReportError | undefined;
  if (inner === undefined) {
    error = problem('sequence_mismatch', '/sequence', 'A top-level sequence is present but signed_payload has none.');
  } else if (skp(outer) !== skp(inner)) {
    const message = `Top-level sequence ${describeNode(outer)} differs from signed_payload.sequence ${describeNode(inner)}.`;
    error = problem('sequence_mismatch', '/sequence', message);
  }
  if (error === undefined) builder.pass('sequence', 'Top-level sequence equals signed_payload.sequence.');
  else builder.fail('MISMATCH', 'sequence', error.message, error);
}

function describeNode(node: JsonNode): string {
  const text = skp(node);
  return `${text.length > 40 ? `${text.slice(0, 40)}…` : text} (${describeNodeType(node)})`;
}

function firstDifference(actual: string, expected: string): string {
  let index = 0;
  while (index < actual.length && index < expected.length && actual[index] === expected[index]) index++;
  return `(first difference at character ${index})`;
}
