/**
 * The canonical text of a HAHS body: what the producer's Python writes with
 * `json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
 *
 * It differs from RFC 8785 in two places, and the producer's bytes decide (docs/protocol.md,
 * section 12a): member names are sorted by Unicode code point (Python compares `str` so), not by
 * UTF-16 code unit; and numbers are written as Python writes the value `json.loads` gave: an
 * integer lexeme as its exact decimal digits (Python integers are unbounded, so
 * `1152921504606846977` stays itself), any other lexeme as Python's `repr` of the nearest double
 * (`1.50` gives `1.5`, `1e2` gives `100.0`, `1e16` gives `1e+16`). Strings are escaped exactly as
 * JCS escapes them (Python's ensure_ascii=False escapes the same set, with lowercase hex).
 */
import { jcsString } from '../../json';
import type { JsonNode } from '../../json/types';

/**
 * Serialize a tree as the producer's Python canonical text.
 *
 * @param node - A parsed tree (number lexemes kept).
 * @returns The canonical text; hash its UTF-8.
 * @throws TypeError for a tree with a lone surrogate (the strict parser refuses those).
 */
export function pythonCanonical(node: JsonNode): string {
  switch (node.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'string':
      return jcsString(node.value);
    case 'number':
      return pythonNumber(node.lexeme, node.value);
    case 'array':
      return `[${node.items.map(pythonCanonical).join(',')}]`;
    case 'object': {
      const members = [...node.members].sort((a, b) => compareCodePoints(a[0], b[0]));
      return `{${members.map(([name, value]) => `${jcsString(name)}:${pythonCanonical(value)}`).join(',')}}`;
    }
  }
}

/**
 * Compare two strings by Unicode code point, as Python compares `str`.
 *
 * @param a - A string.
 * @param b - Another string.
 * @returns Negative, zero or positive.
 */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const difference = (left[index]?.codePointAt(0) ?? 0) - (right[index]?.codePointAt(0) ?? 0);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/**
 * A number as Python's json module writes what `json.loads` read from `lexeme`.
 *
 * @param lexeme - The number as written in the document.
 * @param value - The nearest double.
 * @returns Exact integer digits for an integer lexeme, else `repr(float)`.
 */
export function pythonNumber(lexeme: string, value: number): string {
  if (/^-?(?:0|[1-9][0-9]*)$/.test(lexeme)) return BigInt(lexeme).toString();
  return pythonFloatRepr(value);
}

/**
 * Python's `repr` of a finite double: the shortest round-tripping digits, in fixed notation when
 * the decimal point falls between 10^-4 and 10^16, else `d.ddde±XX`; integral values keep `.0`.
 *
 * @param value - A finite double.
 * @returns E.g. `1.5`, `100.0`, `1e+16`, `1.5e-05`, `-0.0`.
 * @throws RangeError for a non-finite value.
 */
export function pythonFloatRepr(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError('Python writes no finite repr for a non-finite number');
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const [mantissa = '0', exponentText = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  const point = exponent + 1;
  if (point <= -4 || point > 16) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${digits[0] ?? '0'}${fraction}e${exponent < 0 ? '-' : '+'}${magnitude}`;
  }
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
