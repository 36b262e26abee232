/**
 * Field checks shared by every format's schema validation.
 *
 * Each helper answers a plain fact (a decoded value, or undefined when the text is not in the
 * required encoding; a list of problems with JSON Pointer paths) so that verifiers, the key-file
 * parser and later formats speak about bad fields the same way.
 *
 * Encodings are checked strictly: a decoded value is accepted only when encoding it again gives
 * back the same text, so padding where none belongs, stray bits in the last character, uppercase
 * hex and whitespace are all refused whatever a decoder would tolerate.
 */
import { b64Decode, b64Encode, b64uDecode, lowerHexDecode } from '../crypto';
import { pointerAppend } from '../json';
import type { JsonNode, JsonObjectNode, JsonValue } from '../json/types';
import type { ReportError } from './report';

/** A JSON object as plain values. */
export type JsonObject = { [name: string]: JsonValue };

/**
 * Standard base64 characters then at most two `=`. Deliberately without a repeated group: a
 * pattern like `(?:[A-Za-z0-9+/]{4})*` backtracks through a stack that a few million characters
 * overflow (`Maximum call stack size exceeded`). Quads and padding are settled by the length
 * check and the round trip instead.
 */
const B64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The longest base64 or base64url text a field may hold: 16 MiB of characters, far beyond any key
 * or signature (an ML-DSA-65 signature is 4412). Longer text is refused before it is scanned.
 */
export const MAX_ENCODED_FIELD_LENGTH = 16 * 1024 * 1024;

/**
 * Whether a plain JSON value is an object (not an array, not null).
 *
 * @param value - A plain JSON value.
 * @returns True for an object.
 */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Make a report error.
 *
 * @param code - A stable machine code.
 * @param path - JSON Pointer to the value.
 * @param message - What is wrong, for people.
 * @returns The error.
 */
export function problem(code: string, path: string, message: string): ReportError {
  return { code, path, message };
}

/**
 * Check an object's member names against the required and optional ones.
 *
 * @param value - The object.
 * @param path - Its JSON Pointer.
 * @param required - Names that must be present.
 * @param optional - Names that may be present.
 * @returns `missing_property` and `unknown_property` problems (empty when the names fit).
 */
export function memberProblems(
  value: JsonObject,
  path: string,
  required: readonly string[],
  optional: readonly string[] = [],
): ReportError[] {
  return nameProblems(Object.keys(value), path, required, optional);
}

/** The problems of an object whose member names, in order, are `names`. */
function nameProblems(
  names: readonly string[],
  path: string,
  required: readonly string[],
  optional: readonly string[],
): ReportError[] {
  const problems: ReportError[] = [];
  for (const name of required) {
    if (!names.includes(name)) {
      problems.push(problem('missing_property', pointerAppend(path, name), `Required member "${name}" is missing.`));
    }
  }
  for (const name of names) {
    if (!required.includes(name) && !optional.includes(name)) {
      problems.push(problem('unknown_property', pointerAppend(path, name), `Unknown member ${quote(name)}.`));
    }
  }
  return problems;
}

/**
 * Decode lowercase hex, optionally of an exact byte length.
 *
 * @param text - The value to decode (anything; non-strings give undefined).
 * @param length - The required number of bytes, if any.
 * @returns The bytes, or undefined when the text is not lowercase hex of that length.
 */
export function decodeHexField(text: unknown, length?: number): Uint8Array | undefined {
  if (typeof text !== 'string' || (length !== undefined && text.length !== length * 2)) return undefined;
  return lowerHexDecode(text);
}

/**
 * Decode unpadded base64url, optionally of an exact byte length.
 *
 * @param text - The value to decode.
 * @param length - The required number of bytes, if any.
 * @returns The bytes, or undefined when the text is not canonical b64u of that length.
 */
export function decodeB64uField(text: unknown, length?: number): Uint8Array | undefined {
  if (typeof text !== 'string' || text.length % 4 === 1 || text.length > MAX_ENCODED_FIELD_LENGTH) return undefined;
  if (length !== undefined && text.length !== Math.ceil((length * 4) / 3)) return undefined;
  // b64uDecode is itself strict (alphabet, no padding or whitespace, zero trailing bits), so
  // what it accepts re-encodes to the same text; no round trip is needed.
  try {
    return b64uDecode(text);
  } catch {
    return undefined;
  }
}

/**
 * Decode standard padded base64, optionally of an exact byte length.
 *
 * @param text - The value to decode.
 * @param length - The required number of bytes, if any.
 * @returns The bytes, or undefined when the text is not canonical b64 of that length.
 */
export function decodeB64Field(text: unknown, length?: number): Uint8Array | undefined {
  if (typeof text !== 'string' || text.length % 4 !== 0 || text.length > MAX_ENCODED_FIELD_LENGTH) return undefined;
  // Exact lengths are settled before any scan: the text of n bytes is 4 * ceil(n / 3) characters.
  if (length !== undefined && text.length !== 4 * Math.ceil(length / 3)) return undefined;
  if (!B64_PATTERN.test(text)) return undefined;
  const bytes = roundTrip(text, b64Decode, b64Encode);
  if (bytes === undefined || (length !== undefined && bytes.length !== length)) return undefined;
  return bytes;
}

/**
 * Whether a number node is a non-negative integer spelled plainly (no sign, fraction or
 * exponent) and no larger than 2^53 - 1.
 *
 * @param node - A JSON node.
 * @returns True for e.g. `0` or `42`; false for `-1`, `1.0`, `1e3` or a non-number.
 */
export function isPlainNonNegativeInteger(node: JsonNode | undefined): boolean {
  return (
    node !== undefined &&
    node.type === 'number' &&
    /^(?:0|[1-9][0-9]{0,15})$/.test(node.lexeme) &&
    Number.isSafeInteger(node.value)
  );
}

/**
 * The value node of an object member.
 *
 * @param node - An object node.
 * @param name - The member name.
 * @returns The member's value node, or undefined.
 */
export function memberNode(node: JsonObjectNode, name: string): JsonNode | undefined {
  for (const member of node.members) if (member[0] === name) return member[1];
  return undefined;
}

/**
 * The value node of a member, when `node` is an object that has it (format detection reads the
 * tree with this, without turning the document into plain values).
 *
 * @param node - Any JSON node, or undefined.
 * @param name - The member name.
 * @returns The member's value node, or undefined when `node` is not an object or lacks it.
 */
export function objectMember(node: JsonNode | undefined, name: string): JsonNode | undefined {
  return node?.type === 'object' ? memberNode(node, name) : undefined;
}

/**
 * A member's string value.
 *
 * @param node - Any JSON node, or undefined.
 * @param name - The member name.
 * @returns The string, or undefined when `node` is not an object, lacks the member, or the
 *   member is not a string.
 */
export function memberString(node: JsonNode | undefined, name: string): string | undefined {
  const member = objectMember(node, name);
  return member?.type === 'string' ? member.value : undefined;
}

/**
 * Check an object node's member names against the required and optional ones.
 *
 * The tree form of {@link memberProblems}: the same problems, in the same order.
 *
 * @param node - The object node.
 * @param path - Its JSON Pointer.
 * @param required - Names that must be present.
 * @param optional - Names that may be present.
 * @returns `missing_property` and `unknown_property` problems (empty when the names fit).
 */
export function memberNodeProblems(
  node: JsonObjectNode,
  path: string,
  required: readonly string[],
  optional: readonly string[] = [],
): ReportError[] {
  return nameProblems(
    node.members.map(([name]) => name),
    path,
    required,
    optional,
  );
}

/**
 * A short description of a JSON value's type for error messages.
 *
 * @param value - A plain JSON value.
 * @returns `null`, `an array`, `an object`, `a string`, `a number` or `a boolean`.
 */
export function describeType(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/**
 * Quote untrusted text for a message: JSON-escaped and cut to 64 characters.
 *
 * @param text - The text.
 * @returns The quoted text.
 */
export function quote(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

function roundTrip(
  text: string,
  decode: (text: string) => Uint8Array,
  encode: (bytes: Uint8Array) => string,
): Uint8Array | undefined {
  try {
    const bytes = decode(text);
    return encode(bytes) === text ? bytes : undefined;
  } catch {
    return undefined;
  }
}
