/**
 * RFC 8785 JSON Canonicalization Scheme (JCS) and SKP ("sorted keys, preserved numbers").
 *
 * JCS: no whitespace; object members sorted by the UTF-16 code units of their names; numbers in
 * the ECMAScript Number-to-String form; strings with only the escapes RFC 8785 requires. SKP
 * (PROTOCOL section 0, used by classical receipts) is byte for byte the same except that each
 * number is written exactly as its lexeme appeared in the input.
 *
 * The output is a JavaScript string; hash or sign its UTF-8 encoding.
 */
import { JCS_FORM, SKP_FORM, canonicalSource } from './parsed-nodes';
import { pointerFromTokens } from './pointer';
import { MAX_JSON_DEPTH } from './types';
import type { JsonNode, JsonValue } from './types';
import { describeNonJson, isPlainObject } from './value-checks';

type Tokens = (string | number)[];
type Member = readonly [name: string, value: JsonNode];

/**
 * Canonicalize a plain JSON value (RFC 8785).
 *
 * @param value - A JSON value as {@link fromPlain} accepts it.
 * @returns The canonical JSON text.
 * @throws TypeError for non-JSON values (undefined, functions, symbols, bigints, NaN, Infinity,
 *   non-plain objects such as Date or Map, sparse array holes, symbol-keyed members) and for
 *   strings or member names holding a lone surrogate.
 * @throws RangeError if the value nests deeper than {@link MAX_JSON_DEPTH} (also stops cycles).
 * @example jcs({ b: [1e21, -0], a: '\u20ac' }) // '{"a":"€","b":[1e+21,0]}'
 */
export function jcs(value: JsonValue): string {
  return writeValue(value, [], 0);
}

/**
 * Canonicalize a tree (RFC 8785).
 *
 * Numbers are re-serialized from their `value`, not their lexeme, so `1.50` becomes `1.5`.
 *
 * @param node - A JSON tree.
 * @returns The canonical JSON text.
 * @throws TypeError for a malformed tree (unknown node type, non-finite number, a lone
 *   surrogate, repeated member names).
 * @throws RangeError if the tree nests deeper than {@link MAX_JSON_DEPTH}.
 */
export function jcsTree(node: JsonNode): string {
  if (typeof node !== 'object' || node === null) throw new TypeError('jcsTree expects a JSON tree node');
  return writeNode(node, false, [], 0);
}

/**
 * Serialize a tree as SKP: JCS, except every number is written as its original lexeme.
 *
 * So `{"b":1.50,"a":1E3}` becomes `{"a":1E3,"b":1.50}`. For a tree whose lexemes are already
 * canonical (as {@link fromPlain} makes them) the result equals {@link jcsTree}.
 *
 * @param node - A JSON tree, normally from the strict parser.
 * @returns The SKP text.
 * @throws TypeError for a malformed tree, including a lexeme that is not a finite JSON number.
 * @throws RangeError if the tree nests deeper than {@link MAX_JSON_DEPTH}.
 */
export function skp(node: JsonNode): string {
  if (typeof node !== 'object' || node === null) throw new TypeError('skp expects a JSON tree node');
  return writeNode(node, true, [], 0);
}

/**
 * Serialize a number as RFC 8785 requires: the ECMAScript Number-to-String form.
 *
 * `-0` is written `0`; integers up to 1e21 without exponent; otherwise the shortest
 * round-tripping digits with `e+`/`e-` exponents.
 *
 * @param value - A finite number.
 * @returns The canonical spelling, e.g. `1e+30`, `0.000001`, `9.999999999999997e-7`.
 * @throws TypeError if `value` is not a finite number.
 */
export function jcsNumber(value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new TypeError(`${describeNonJson(value)} is not a JSON number`);
  }
  // RFC 8785 section 3.2.2.3 adopts ECMAScript Number::toString verbatim; String() is that.
  return String(value);
}

/**
 * Serialize a string as RFC 8785 requires, quotes included.
 *
 * Only `\b \t \n \f \r \" \\` and `\u00xx` (lowercase hex) for other controls below U+0020 are
 * escaped; everything else, `/`, U+007F and U+2028 included, is written as itself.
 *
 * @param value - A string without lone surrogates.
 * @returns The quoted, escaped string.
 * @throws TypeError if `value` is not a string or holds a lone surrogate.
 */
export function jcsString(value: string): string {
  if (typeof value !== 'string') throw new TypeError('jcsString expects a string');
  return writeString(value, [], 0);
}

/**
 * Characters that need a closer look: controls, quote, backslash and any surrogate half. One
 * native regex test per string is much faster than a JavaScript loop over its characters, and
 * most strings (ids, hashes, signatures, timestamps) contain none of them.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const SPECIAL_CHARACTER = /[\u0000-\u001f"\\\ud800-\udfff]/;

function writeString(value: string, tokens: Tokens, depth: number): string {
  if (!SPECIAL_CHARACTER.test(value)) return `"${value}"`;
  const length = value.length;
  for (let index = 0; index < length; index++) {
    const code = value.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdfff) {
      if (code <= 0xdbff) {
        const next = value.charCodeAt(index + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          index++;
          continue;
        }
      }
      throw new TypeError(`a string with a lone surrogate at ${pointerText(tokens, depth)} has no canonical form`);
    }
  }
  // With lone surrogates excluded, JSON.stringify's QuoteJSONString (ES2019+) escapes exactly
  // the set RFC 8785 section 3.2.2.2 prescribes, with lowercase hex, and is native speed.
  return JSON.stringify(value);
}

function writeValue(value: unknown, tokens: Tokens, depth: number): string {
  switch (typeof value) {
    case 'string':
      return writeString(value, tokens, depth);
    case 'number':
      if (!Number.isFinite(value)) throw nonJson(value, tokens, depth);
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        checkDepth(tokens, depth);
        let text = '[';
        for (let index = 0; index < value.length; index++) {
          tokens[depth] = index;
          if (index > 0) text += ',';
          text += writeValue(value[index], tokens, depth + 1);
        }
        return `${text}]`;
      }
      if (!isPlainObject(value)) throw nonJson(value, tokens, depth);
      if (Object.getOwnPropertySymbols(value).length > 0) {
        throw new TypeError(`an object with symbol-keyed members at ${pointerText(tokens, depth)} is not a JSON value`);
      }
      checkDepth(tokens, depth);
      const names = sortNames(Object.keys(value));
      let text = '{';
      let separator = '';
      for (const name of names) {
        tokens[depth] = name;
        text += separator;
        separator = ',';
        text += writeString(name, tokens, depth + 1);
        text += ':';
        text += writeValue(value[name], tokens, depth + 1);
      }
      return `${text}}`;
    }
    default:
      throw nonJson(value, tokens, depth);
  }
}

/**
 * The members sorted by name in UTF-16 code unit order (RFC 8785 section 3.2.3).
 *
 * Relational comparison of JavaScript strings is by UTF-16 code units. Objects in receipts
 * have a handful of members, where an insertion sort beats `Array.prototype.sort` with a
 * comparator callback several times over; large objects use the built-in sort.
 */
function sortMembers(members: readonly Member[]): Member[] {
  if (members.length > INSERTION_SORT_LIMIT) return members.slice().sort(compareMembers);
  const sorted: Member[] = [];
  for (const member of members) {
    const name = member[0];
    let slot = sorted.length;
    sorted.push(member);
    for (; slot > 0; slot--) {
      const previous = sorted[slot - 1];
      if (previous === undefined || !isAfter(previous[0], name)) break;
      sorted[slot] = previous;
    }
    sorted[slot] = member;
  }
  return sorted;
}

/**
 * Names sorted in UTF-16 code unit order, in place.
 *
 * The default `sort()` compares UTF-16 code units, which is the order RFC 8785 requires; for
 * the few names of a typical object an insertion sort is quicker.
 */
function sortNames(names: string[]): string[] {
  if (names.length > INSERTION_SORT_LIMIT) return names.sort();
  for (let index = 1; index < names.length; index++) {
    const name = names[index];
    if (name === undefined) continue;
    let slot = index;
    for (; slot > 0; slot--) {
      const previous = names[slot - 1];
      if (previous === undefined || !isAfter(previous, name)) break;
      names[slot] = previous;
    }
    names[slot] = name;
  }
  return names;
}

/** Whether name `a` sorts after name `b` in UTF-16 code unit order. */
function isAfter(a: string, b: string): boolean {
  // Most names differ in their first code unit; deciding on it skips the generic comparison.
  // An empty name gives NaN here, which fails both tests and falls through.
  const first = a.charCodeAt(0) - b.charCodeAt(0);
  if (first > 0) return true;
  if (first < 0) return false;
  return a > b;
}

/** Above this many members the built-in sort is used; below it insertion sort is faster. */
const INSERTION_SORT_LIMIT = 32;

function compareMembers(left: Member, right: Member): number {
  const a = left[0];
  const b = right[0];
  return a < b ? -1 : a > b ? 1 : 0;
}

function writeNode(node: JsonNode, preserveNumbers: boolean, tokens: Tokens, depth: number): string {
  switch (node.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return node.value === true ? 'true' : 'false';
    case 'string':
      if (typeof node.value !== 'string') throw badNode(tokens, depth);
      return writeString(node.value, tokens, depth);
    case 'number':
      if (preserveNumbers) {
        if (!isFiniteNumberLexeme(node.lexeme)) {
          throw new TypeError(`the lexeme at ${pointerText(tokens, depth)} is not a finite JSON number`);
        }
        return node.lexeme;
      }
      if (typeof node.value !== 'number' || !Number.isFinite(node.value)) throw nonJson(node.value, tokens, depth);
      return String(node.value);
    case 'array': {
      const source = canonicalSource(node, preserveNumbers ? SKP_FORM : JCS_FORM);
      if (source !== undefined) return source;
      checkDepth(tokens, depth);
      const items = node.items;
      let text = '[';
      let index = 0;
      for (const item of items) {
        tokens[depth] = index;
        if (index++ > 0) text += ',';
        text += writeNode(item, preserveNumbers, tokens, depth + 1);
      }
      return `${text}]`;
    }
    case 'object': {
      // Parsed text that is already canonical is its own serialization (parsed-nodes.ts).
      const source = canonicalSource(node, preserveNumbers ? SKP_FORM : JCS_FORM);
      if (source !== undefined) return source;
      checkDepth(tokens, depth);
      const members = sortMembers(node.members);
      let text = '{';
      let previous: string | undefined;
      for (const member of members) {
        const name = member[0];
        tokens[depth] = name;
        if (previous !== undefined) {
          // Sorted, so any repeat sits next to its twin; a repeated name would make the output
          // mean different things to different readers.
          if (previous === name) throw new TypeError(`duplicate member name at ${pointerText(tokens, depth + 1)}`);
          text += ',';
        }
        previous = name;
        text += writeString(name, tokens, depth + 1);
        text += ':';
        text += writeNode(member[1], preserveNumbers, tokens, depth + 1);
      }
      return `${text}}`;
    }
    default:
      throw badNode(tokens, depth);
  }
}

/**
 * Whether `lexeme` is a number as RFC 8259 spells it and its value is finite.
 *
 * SKP writes lexemes verbatim, so a hand-built tree must not smuggle other text through them.
 */
function isFiniteNumberLexeme(lexeme: unknown): boolean {
  if (typeof lexeme !== 'string') return false;
  let position = 0;
  let code = lexeme.charCodeAt(0);
  if (code === 0x2d) code = lexeme.charCodeAt(++position);
  if (code === 0x30) {
    code = lexeme.charCodeAt(++position);
  } else if (code >= 0x31 && code <= 0x39) {
    do code = lexeme.charCodeAt(++position);
    while (code >= 0x30 && code <= 0x39);
  } else {
    return false;
  }
  if (code === 0x2e) {
    code = lexeme.charCodeAt(++position);
    if (!(code >= 0x30 && code <= 0x39)) return false;
    do code = lexeme.charCodeAt(++position);
    while (code >= 0x30 && code <= 0x39);
  }
  let exponent = false;
  if (code === 0x65 || code === 0x45) {
    exponent = true;
    code = lexeme.charCodeAt(++position);
    if (code === 0x2b || code === 0x2d) code = lexeme.charCodeAt(++position);
    if (!(code >= 0x30 && code <= 0x39)) return false;
    do code = lexeme.charCodeAt(++position);
    while (code >= 0x30 && code <= 0x39);
  }
  if (position !== lexeme.length) return false;
  // Without an exponent, fewer than 309 integer digits stay below the largest double.
  return (!exponent && position < 300) || Number.isFinite(Number(lexeme));
}

function pointerText(tokens: Tokens, depth: number): string {
  const pointer = pointerFromTokens(tokens.slice(0, depth));
  return pointer === '' ? 'the root' : pointer;
}

function nonJson(value: unknown, tokens: Tokens, depth: number): TypeError {
  return new TypeError(`${describeNonJson(value)} at ${pointerText(tokens, depth)} is not a JSON value`);
}

function badNode(tokens: Tokens, depth: number): TypeError {
  return new TypeError(`not a JSON tree node at ${pointerText(tokens, depth)}`);
}

function checkDepth(tokens: Tokens, depth: number): void {
  if (depth >= MAX_JSON_DEPTH) {
    throw new RangeError(
      `arrays and objects nest deeper than ${MAX_JSON_DEPTH} (or form a cycle) at ${pointerText(tokens, depth)}`,
    );
  }
}
