/**
 * The bytes a Spectral signature covers, rebuilt from the parsed tree as the producer's
 * JavaScript makes them (srotzin/hive-receipt `lib/spectral.js`).
 *
 * - `ed25519`: `JSON.stringify(payload)`, where `payload` is the document as `JSON.parse` gives it
 *   without the four signature members. JavaScript objects list their members in insertion order
 *   except that array-index names (`"0"` to `"4294967294"` in canonical decimal) come first, in
 *   ascending numeric order; numbers are written as `JSON.stringify` writes the double the lexeme
 *   denotes (`1.50` → `1.5`, `1e2` → `100`), strings with its escapes.
 * - `ed25519-canonical`: the producer's `canonicalize`: names sorted by UTF-16 code unit, at every
 *   depth, then put into a JavaScript object, so array-index names still come first; a member
 *   named `__proto__` is assigned, which sets the object's prototype instead of adding a member,
 *   so it is left out of the signed bytes (reported by {@link SpectralBytes.unsigned}).
 */
import type { JsonNode, JsonObjectNode } from '../../json/types';
import { pointerAppend } from '../../json';

/** The two algorithms the producer writes. */
export type SpectralAlgorithm = 'ed25519' | 'ed25519-canonical';

/** The members the signature adds to the payload. */
export const SPECTRAL_SIGNATURE_MEMBERS: readonly string[] = Object.freeze([
  'signature',
  'public_key',
  'signed_payload_sha256',
  'signature_algo',
]);

/** Rebuilt signed bytes, and the members they leave out. */
export interface SpectralBytes {
  /** The signed text (sign its UTF-8). */
  text: string;
  /** JSON Pointers of members present in the document but absent from the signed bytes. */
  unsigned: string[];
}

/** The largest array index: names up to 2^32 - 2 are indices. */
const MAX_ARRAY_INDEX = 4294967294;

function isArrayIndex(name: string): boolean {
  return /^(?:0|[1-9][0-9]{0,9})$/.test(name) && Number(name) <= MAX_ARRAY_INDEX;
}

/**
 * Members in the order a JavaScript object enumerates them after insertion in `members` order.
 *
 * @param members - Members in insertion order.
 * @returns Array-index names first (ascending), then the rest in insertion order.
 */
export function javascriptMemberOrder<T extends readonly [string, unknown]>(members: readonly T[]): T[] {
  const indices = members.filter(([name]) => isArrayIndex(name)).sort((a, b) => Number(a[0]) - Number(b[0]));
  return [...indices, ...members.filter(([name]) => !isArrayIndex(name))];
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function write(node: JsonNode, canonical: boolean, path: string, unsigned: string[]): string {
  switch (node.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(node.value);
    case 'number':
      // The strict parser refuses lexemes beyond the doubles, so the value is finite.
      return JSON.stringify(node.value);
    case 'array':
      return `[${node.items.map((item, index) => write(item, canonical, pointerAppend(path, index), unsigned)).join(',')}]`;
    case 'object':
      return writeObject(node, canonical, path, unsigned);
  }
}

function writeObject(node: JsonObjectNode, canonical: boolean, path: string, unsigned: string[]): string {
  let members = node.members;
  if (canonical) {
    members = [...members].sort((a, b) => compareCodeUnits(a[0], b[0]));
    const kept = members.filter(([name]) => name !== '__proto__');
    if (kept.length !== members.length) unsigned.push(pointerAppend(path, '__proto__'));
    members = kept;
  }
  const parts = javascriptMemberOrder(members).map(
    ([name, value]) => `${JSON.stringify(name)}:${write(value, canonical, pointerAppend(path, name), unsigned)}`,
  );
  return `{${parts.join(',')}}`;
}

/**
 * The payload of a Spectral document: every member but the four signature members.
 *
 * @param node - The document's object node.
 * @returns The payload, members in document order.
 */
export function spectralPayload(node: JsonObjectNode): JsonObjectNode {
  return { type: 'object', members: node.members.filter(([name]) => !SPECTRAL_SIGNATURE_MEMBERS.includes(name)) };
}

/**
 * Rebuild the bytes a Spectral signature covers.
 *
 * @param node - The document's object node.
 * @param algorithm - The document's `signature_algo`.
 * @returns The signed text and the members it leaves out.
 */
export function spectralSignedBytes(node: JsonObjectNode, algorithm: SpectralAlgorithm): SpectralBytes {
  const unsigned: string[] = [];
  const text = write(spectralPayload(node), algorithm === 'ed25519-canonical', '', unsigned);
  return { text, unsigned };
}
