/**
 * Checks shared by the serializers and `fromPlain` on values that did not come from the parser.
 */

/**
 * Find the first lone surrogate in a string.
 *
 * A lone surrogate cannot be written as UTF-8, so a string holding one has no canonical form
 * and no place in a signed document.
 *
 * @param text - The string to scan.
 * @returns The UTF-16 index of the first unpaired surrogate, or -1 if the string is well formed.
 */
export function findLoneSurrogate(text: string): number {
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0xd800 || code > 0xdfff) continue;
    if (code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        index++;
        continue;
      }
    }
    return index;
  }
  return -1;
}

/**
 * Whether a value is a plain object: made by `{}`, `Object.create(null)` or `JSON.parse`.
 *
 * An object whose prototype is some realm's `Object.prototype` (its own prototype is null)
 * counts, so values from another realm (an iframe, a vm context) are accepted; class instances,
 * Dates, Maps and the like are not.
 *
 * @param value - Any value.
 * @returns True for plain objects.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}

/**
 * Name a value that is not JSON, for a TypeError message.
 *
 * @param value - The offending value.
 * @returns E.g. `undefined`, `a function`, `a bigint`, `the number NaN`, `a Date object`.
 */
export function describeNonJson(value: unknown): string {
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    case 'bigint':
      return 'a bigint';
    case 'number':
      return `the number ${String(value)}`;
    case 'object': {
      if (value === null) return 'null';
      const prototype: unknown = Object.getPrototypeOf(value);
      const constructor: unknown =
        typeof prototype === 'object' && prototype !== null
          ? (prototype as { constructor?: unknown }).constructor
          : undefined;
      const name = typeof constructor === 'function' && constructor.name !== '' ? constructor.name : 'non-plain';
      return `a ${name} object`;
    }
    default:
      return `a ${typeof value}`;
  }
}
