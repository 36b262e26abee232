/**
 * Conversion between the lossless tree and plain JavaScript values.
 */
import { pointerFromTokens } from './pointer';
import { MAX_JSON_DEPTH } from './types';
import type { JsonNode, JsonValue } from './types';
import { describeNonJson, findLoneSurrogate, isPlainObject } from './value-checks';

type PlainObject = { [name: string]: JsonValue };

/**
 * Turn a tree into plain values, as `JSON.parse` would return them.
 *
 * Objects are ordinary objects (prototype `Object.prototype`), members in tree order. A member
 * named `__proto__` becomes an own data property, as with `JSON.parse`, never the prototype: an
 * assignment would otherwise let a document swap the prototype of the object it parses into.
 *
 * @param node - A tree, normally from the strict parser.
 * @returns The plain value; numbers are their `value` (the lexeme is lost).
 * @throws TypeError if `node` is not a tree node or an object node repeats a member name.
 * @throws RangeError if the tree nests deeper than {@link MAX_JSON_DEPTH}.
 */
export function toPlain(node: JsonNode): JsonValue {
  if (typeof node !== 'object' || node === null) throw new TypeError('toPlain expects a JSON tree node');
  return plainOf(node, [], 0);
}

function plainOf(node: JsonNode, tokens: (string | number)[], depth: number): JsonValue {
  switch (node.type) {
    case 'null':
      return null;
    case 'boolean':
    case 'string':
    case 'number':
      return node.value;
    case 'array': {
      checkDepth(tokens, depth);
      const items = node.items;
      const result: JsonValue[] = [];
      let index = 0;
      for (const item of items) {
        tokens[depth] = index++;
        result.push(plainOf(item, tokens, depth + 1));
      }
      return result;
    }
    case 'object': {
      checkDepth(tokens, depth);
      const result: PlainObject = {};
      for (const [name, value] of node.members) {
        tokens[depth] = name;
        if (Object.hasOwn(result, name)) {
          throw new TypeError(`duplicate member name at ${pointerFromTokens(tokens.slice(0, depth + 1))}`);
        }
        const plain = plainOf(value, tokens, depth + 1);
        if (name === '__proto__') {
          Object.defineProperty(result, name, { value: plain, writable: true, enumerable: true, configurable: true });
        } else {
          result[name] = plain;
        }
      }
      return result;
    }
    default:
      throw new TypeError(`not a JSON tree node at ${pointerText(tokens, depth)}`);
  }
}

/**
 * Turn plain values into a tree.
 *
 * Each number's lexeme is its ECMAScript serialization (`String(n)`, as JCS writes it) and its
 * value is what that lexeme parses to, so `-0` becomes lexeme `0` with value `0`. Objects keep
 * their own enumerable key order.
 *
 * @param value - A JSON value: null, a boolean, a finite number, a string without lone
 *   surrogates, an array, or a plain object (see {@link isPlainObject}).
 * @returns The tree.
 * @throws TypeError for anything else (undefined, functions, symbols, bigints, NaN, Infinity,
 *   Dates, Maps, class instances, sparse array holes, symbol-keyed members, lone surrogates),
 *   naming where it was found.
 * @throws RangeError if the value nests deeper than {@link MAX_JSON_DEPTH} (this also stops
 *   cyclic values).
 */
export function fromPlain(value: JsonValue): JsonNode {
  return nodeOf(value, [], 0);
}

function nodeOf(value: unknown, tokens: (string | number)[], depth: number): JsonNode {
  switch (typeof value) {
    case 'string':
      if (findLoneSurrogate(value) >= 0)
        throw new TypeError(`a string with a lone surrogate at ${pointerText(tokens, depth)}`);
      return { type: 'string', value };
    case 'number': {
      if (!Number.isFinite(value)) throw nonJson(value, tokens, depth);
      const lexeme = String(value);
      return { type: 'number', lexeme, value: Number(lexeme) };
    }
    case 'boolean':
      return { type: 'boolean', value };
    case 'object': {
      if (value === null) return { type: 'null' };
      if (Array.isArray(value)) {
        checkDepth(tokens, depth);
        const items: JsonNode[] = [];
        for (let index = 0; index < value.length; index++) {
          tokens[depth] = index;
          items.push(nodeOf(value[index], tokens, depth + 1));
        }
        return { type: 'array', items };
      }
      if (!isPlainObject(value)) throw nonJson(value, tokens, depth);
      if (Object.getOwnPropertySymbols(value).length > 0) {
        throw new TypeError(`an object with symbol-keyed members at ${pointerText(tokens, depth)} is not a JSON value`);
      }
      checkDepth(tokens, depth);
      const members: [string, JsonNode][] = [];
      for (const name of Object.keys(value)) {
        tokens[depth] = name;
        if (findLoneSurrogate(name) >= 0) {
          throw new TypeError(`a member name with a lone surrogate at ${pointerText(tokens, depth + 1)}`);
        }
        members.push([name, nodeOf(value[name], tokens, depth + 1)]);
      }
      return { type: 'object', members };
    }
    default:
      throw nonJson(value, tokens, depth);
  }
}

function pointerText(tokens: (string | number)[], depth: number): string {
  const pointer = pointerFromTokens(tokens.slice(0, depth));
  return pointer === '' ? 'the root' : pointer;
}

function nonJson(value: unknown, tokens: (string | number)[], depth: number): TypeError {
  return new TypeError(`${describeNonJson(value)} at ${pointerText(tokens, depth)} is not a JSON value`);
}

function checkDepth(tokens: (string | number)[], depth: number): void {
  if (depth >= MAX_JSON_DEPTH) {
    throw new RangeError(
      `arrays and objects nest deeper than ${MAX_JSON_DEPTH} (or form a cycle) at ${pointerText(tokens, depth)}`,
    );
  }
}
