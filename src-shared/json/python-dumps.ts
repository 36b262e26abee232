/**
 * Python's compact sorted JSON text: `json.dumps(json.loads(text), sort_keys=True,
 * separators=(",", ":"))`, rebuilt from a strict-parse tree.
 *
 * Producers of the ecosystem (PROTOCOL sections 5 and 14) sign this text, which is neither JCS
 * nor SKP:
 * - members sorted by the code points of their names (JCS sorts UTF-16 code units; the two
 *   differ for names with characters above U+FFFF against ones in U+E000-U+FFFF);
 * - numbers as Python reads and writes them: a lexeme without fraction or exponent is an integer
 *   of any size, written in its digits (`-0` becomes `0`); any other is the double nearest to
 *   it, written as Python's `repr` of that float (`1.5`, `100.0`, `1e-05`, `1e+16`, `-0.0`);
 * - with `ensureAscii` (Python's default; the countersigner's text) every character outside
 *   U+0020-U+007E is escaped as `\uXXXX` in lowercase hex (characters above U+FFFF as their
 *   surrogate pair); without it (`ensure_ascii=False`; HAHS's text) only quote, backslash and
 *   controls below U+0020 are; the short escapes are `\" \\ \n \r \t \b \f` and `/` is never
 *   escaped.
 */
import { MAX_JSON_DEPTH } from './types';
import type { JsonNode } from './types';

/** Options for {@link pythonJsonDumps}. */
export interface PythonDumpsOptions {
  /** Escape every non-ASCII character and U+007F (Python's default). Default true. */
  ensureAscii?: boolean;
}

/**
 * Python's `json.dumps(value, sort_keys=True, separators=(",", ":"))` of a parsed tree.
 *
 * @param node - A tree from the strict parser (number lexemes kept).
 * @param options - `ensureAscii` (default true).
 * @returns The text.
 * @throws TypeError for a malformed tree (a lexeme that is not a JSON number, a non-finite
 *   number, a lone surrogate).
 * @throws RangeError if the tree nests deeper than {@link MAX_JSON_DEPTH}.
 * @example pythonJsonDumps(parseJsonTree('{"b":1.50,"a":"é"}')) // '{"a":"\\u00e9","b":1.5}'
 */
export function pythonJsonDumps(node: JsonNode, options: PythonDumpsOptions = {}): string {
  return write(node, options.ensureAscii ?? true, 0);
}

function write(node: JsonNode, ascii: boolean, depth: number): string {
  switch (node.type) {
    case 'null':
      return 'null';
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'number':
      return pythonNumber(node.lexeme);
    case 'string':
      return pythonString(node.value, ascii);
    case 'array':
      if (depth >= MAX_JSON_DEPTH) throw new RangeError(`the value nests deeper than ${MAX_JSON_DEPTH} levels`);
      return `[${node.items.map((item) => write(item, ascii, depth + 1)).join(',')}]`;
    case 'object': {
      if (depth >= MAX_JSON_DEPTH) throw new RangeError(`the value nests deeper than ${MAX_JSON_DEPTH} levels`);
      const members = [...node.members].sort((a, b) => compareCodePoints(a[0], b[0]));
      return `{${members.map(([name, value]) => `${pythonString(name, ascii)}:${write(value, ascii, depth + 1)}`).join(',')}}`;
    }
    default:
      throw new TypeError('pythonJsonDumps expects a JSON tree node');
  }
}

const NUMBER_LEXEME = /^(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

/**
 * A JSON number lexeme as Python's json module reads and writes it.
 *
 * @param lexeme - The number exactly as written, e.g. `1.50`, `-0`, `1E3`.
 * @returns `1.5`, `0`, `1000.0`.
 * @throws TypeError if the lexeme is not a JSON number or names a non-finite double.
 */
export function pythonNumber(lexeme: string): string {
  const match = NUMBER_LEXEME.exec(lexeme);
  if (match === null) throw new TypeError(`${JSON.stringify(lexeme)} is not a JSON number`);
  const [, integer = '', fraction, exponent] = match;
  if (fraction === undefined && exponent === undefined) {
    // Python's int: any size, written in its digits; -0 is 0.
    return integer === '-0' ? '0' : integer;
  }
  const value = Number(lexeme);
  if (!Number.isFinite(value)) throw new TypeError(`${lexeme} is not a finite double (Python would write Infinity)`);
  return pythonFloatRepr(value);
}

/**
 * Python's `repr` of a float: the shortest digits that round-trip, written without exponent
 * when the decimal point falls between 4 places left of the first digit and 16 right of it, with
 * `.0` on integral values; otherwise `d[.ddd]e±XX` (two exponent digits at least).
 *
 * @param value - A finite number.
 * @returns E.g. `0.1`, `1795640000.0`, `1e-05`, `1e+16`, `-0.0`.
 * @throws TypeError if `value` is not finite.
 */
export function pythonFloatRepr(value: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new TypeError('pythonFloatRepr expects a finite number');
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const sign = value < 0 ? '-' : '';
  // Number::toString gives the same shortest round-tripping digits as Python's repr (both pick
  // the digits closest to the value among the shortest); only the layout differs.
  const shortest = String(Math.abs(value));
  const [mantissa = '', exponentText] = shortest.split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  let digits = whole + fraction;
  let point = whole.length + (exponentText === undefined ? 0 : Number(exponentText));
  const leading = /^0*/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(leading);
  point -= leading;
  digits = digits.replace(/0+$/, '');
  // value = 0.DIGITS × 10^point
  if (point <= -4 || point > 16) {
    const exponent = point - 1;
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const magnitude = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${body}e${exponent < 0 ? '-' : '+'}${magnitude}`;
  }
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** Characters Python's ensure_ascii writer escapes: outside ' '..'~', quote and backslash. */
const ASCII_SPECIAL = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/;
/** Characters the other writer escapes: controls, quote and backslash (and surrogates, to check). */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const PLAIN_SPECIAL = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * A string as Python's json module writes it, quotes included.
 *
 * @param value - A string without lone surrogates.
 * @param ensureAscii - Escape everything outside printable ASCII (Python's default).
 * @returns The quoted text.
 * @throws TypeError if the string holds a lone surrogate (Python could write it; JSON text
 *   cannot carry one through our strict parser, so it is refused).
 */
export function pythonString(value: string, ensureAscii = true): string {
  if (!(ensureAscii ? ASCII_SPECIAL : PLAIN_SPECIAL).test(value)) return `"${value}"`;
  let text = '"';
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = value.charCodeAt(index + 1);
      if (unit > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) {
        throw new TypeError('a string with a lone surrogate has no canonical form here');
      }
      text += ensureAscii ? `${hexEscape(unit)}${hexEscape(next)}` : value.slice(index, index + 2);
      index++;
      continue;
    }
    const character = value[index] ?? '';
    const short = SHORT_ESCAPES[character];
    if (short !== undefined) text += short;
    else if (unit < 0x20 || (ensureAscii && unit > 0x7e)) text += hexEscape(unit);
    else text += character;
  }
  return `${text}"`;
}

function hexEscape(unit: number): string {
  return `\\u${unit.toString(16).padStart(4, '0')}`;
}

/**
 * Compare two strings by code points (Python's `str` order), not UTF-16 code units.
 *
 * @param a - A string.
 * @param b - Another.
 * @returns Negative, zero or positive.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** Surrogates (U+10000 and up) rank after U+E000-U+FFFF; everything else keeps its order. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
