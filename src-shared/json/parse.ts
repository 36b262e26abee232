/**
 * The strict JSON parser (RFC 8259, PROTOCOL section 0).
 *
 * Hand-written over `charCodeAt` because it sits on the hot path of verifying many receipts: no
 * per-character regular expressions (one native test per string screens for escapes), and
 * substrings are sliced only for values that are kept (strings without escapes are one slice;
 * number lexemes are one slice). Anything RFC 8259 does not allow is rejected, and so are the
 * things PROTOCOL section 0 adds: duplicate member names, lone surrogates, a BOM, numbers
 * outside the double range and nesting deeper than {@link MAX_JSON_DEPTH}.
 *
 * Error locations: `path` is the JSON Pointer of the value being read (an array's index or an
 * object's member name is part of the path from the moment the parser starts reading that item;
 * a problem between items, such as a missing comma, points at the container). `offset` is the
 * UTF-16 code unit offset of the offending character in the text.
 */
import { describeCharacter } from './errors';
import { toPlain } from './plain';
import { pointerFromTokens } from './pointer';
import { JsonParseError, MAX_JSON_DEPTH } from './types';
import type { JsonErrorCode, JsonNode, JsonValue } from './types';
import { JCS_FORM, NOT_CANONICAL, ParsedArrayNode, ParsedObjectNode, SKP_FORM, type SourceForm } from './parsed-nodes';
import { findInvalidUtf8 } from './utf8-validate';

interface ParseState {
  readonly text: string;
  readonly length: number;
  position: number;
  depth: number;
  /** Member names and array indexes from the root to the value being read. */
  readonly tokens: (string | number)[];
  /** How many entries of `tokens` are live; the rest are stale and ignored. */
  tokenCount: number;
  /**
   * Counts everything read so far that keeps text from being SKP as written: whitespace inside
   * a value, an escaped string, a member sorting before its predecessor. A container whose
   * reading left this unchanged is canonical source (see parsed-nodes.ts).
   */
  irregular: number;
  /** Counts numbers spelled otherwise than JCS would write them (SKP keeps any spelling). */
  nonJcsNumbers: number;
}

// Literal nodes carry no position or identity, so every occurrence can share one frozen object.
const NULL_NODE: JsonNode = Object.freeze({ type: 'null' });
const TRUE_NODE: JsonNode = Object.freeze({ type: 'boolean', value: true });
const FALSE_NODE: JsonNode = Object.freeze({ type: 'boolean', value: false });

/** What sends a string off the fast path: backslash, control characters, surrogate halves. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const STRING_SPECIAL = /[\u0000-\u001f\\\ud800-\udfff]/;

/**
 * Above this many members, duplicate detection switches from a linear scan to a Set. Building a
 * Set means hashing every freshly sliced name, which costs more than comparing a few dozen
 * names directly (most comparisons stop at the length or the first character).
 */
const LINEAR_DUPLICATE_SCAN_LIMIT = 32;

/** Strings up to this many characters are screened by a loop, longer ones by {@link STRING_SPECIAL}. */
const SHORT_STRING = 16;

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parse JSON text strictly into a lossless tree.
 *
 * @param text - The JSON text.
 * @returns The tree: numbers keep their lexeme, object members keep their order.
 * @throws TypeError if `text` is not a string.
 * @throws JsonParseError for any malformed input, with a specific code, a JSON Pointer path
 *   and a character offset.
 * @example parseJsonTree('{"a":1.50}') // { type: 'object', members: [['a', { type: 'number', lexeme: '1.50', value: 1.5 }]] }
 */
export function parseJsonTree(text: string): JsonNode {
  if (typeof text !== 'string') throw new TypeError('parseJsonTree expects a string');
  if (text.charCodeAt(0) === 0xfeff) {
    throw new JsonParseError(
      'bom',
      'the input starts with a byte order mark (U+FEFF), which strict JSON does not allow',
      '',
      0,
    );
  }
  const state: ParseState = {
    text,
    length: text.length,
    position: 0,
    depth: 0,
    tokens: [],
    tokenCount: 0,
    irregular: 0,
    nonJcsNumbers: 0,
  };
  skipWhitespace(state);
  if (state.position >= state.length) {
    const message = text.length === 0 ? 'the input is empty' : 'the input contains only whitespace';
    throw new JsonParseError('empty_input', message, '', state.position);
  }
  const root = readValue(state);
  skipWhitespace(state);
  if (state.position < state.length) {
    const position = state.position;
    if (isCommentStart(text, position)) fail(state, 'comment', 'comments are not allowed in JSON', position);
    fail(
      state,
      'trailing_content',
      `unexpected ${describeCharacter(text.charCodeAt(position))} after the JSON value`,
      position,
    );
  }
  return root;
}

/**
 * Decode UTF-8 bytes and parse them strictly.
 *
 * Decoding is fatal: any ill-formed UTF-8 fails with `invalid_utf8` (its `offset` is then a
 * byte offset), and a UTF-8 BOM (EF BB BF) fails with `bom`. Other errors carry character
 * offsets into the decoded text, as {@link parseJsonTree} does.
 *
 * @param bytes - The JSON document as UTF-8.
 * @returns The lossless tree.
 * @throws TypeError if `bytes` is not a Uint8Array.
 * @throws JsonParseError for ill-formed UTF-8 or malformed JSON.
 */
export function parseJsonBytes(bytes: Uint8Array): JsonNode {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('parseJsonBytes expects a Uint8Array');
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw new JsonParseError(
      'bom',
      'the input starts with a UTF-8 byte order mark (EF BB BF), which strict JSON does not allow',
      '',
      0,
    );
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    const offset = Math.max(0, findInvalidUtf8(bytes));
    const found = bytes[offset];
    const detail = found === undefined ? '' : ` (byte 0x${found.toString(16).padStart(2, '0')})`;
    throw new JsonParseError(
      'invalid_utf8',
      `the input is not valid UTF-8 at byte offset ${offset}${detail}`,
      '',
      offset,
    );
  }
  return parseJsonTree(text);
}

/**
 * Parse JSON text strictly into plain values.
 *
 * Accepts and rejects exactly what {@link parseJsonTree} does; the result is what
 * `toPlain(parseJsonTree(text))` gives (a member named `__proto__` is an own property).
 *
 * @param text - The JSON text.
 * @returns Plain JavaScript values.
 * @throws TypeError if `text` is not a string.
 * @throws JsonParseError for malformed input.
 */
export function parseJson(text: string): JsonValue {
  return toPlain(parseJsonTree(text));
}

function fail(state: ParseState, code: JsonErrorCode, message: string, offset: number): never {
  throw new JsonParseError(code, message, pointerFromTokens(state.tokens.slice(0, state.tokenCount)), offset);
}

function isCommentStart(text: string, position: number): boolean {
  if (text.charCodeAt(position) !== 0x2f) return false;
  const next = text.charCodeAt(position + 1);
  return next === 0x2f || next === 0x2a;
}

/** Report an unexpected character (or end) where `expected` was due. */
function failUnexpected(state: ParseState, position: number, expected: string): never {
  const text = state.text;
  if (position >= state.length)
    fail(state, 'unexpected_end', `the input ended where ${expected} was expected`, position);
  if (isCommentStart(text, position)) fail(state, 'comment', 'comments are not allowed in JSON', position);
  fail(
    state,
    'unexpected_character',
    `expected ${expected}, found ${describeCharacter(text.charCodeAt(position))}`,
    position,
  );
}

/** Report what stands where a value should start, naming the common non-JSON spellings. */
function failValueStart(state: ParseState, position: number): never {
  const text = state.text;
  const code = text.charCodeAt(position);
  if (text.startsWith('NaN', position) || text.startsWith('Infinity', position)) {
    fail(state, 'non_finite_number', 'NaN and Infinity are not JSON numbers', position);
  }
  if (code === 0x2b) fail(state, 'invalid_number', 'a JSON number cannot start with "+"', position);
  if (code === 0x2e) fail(state, 'invalid_number', 'a JSON number needs a digit before the decimal point', position);
  if (code === 0x27) fail(state, 'invalid_string', 'JSON strings must use double quotes', position);
  failUnexpected(state, position, 'a value');
}

function skipWhitespace(state: ParseState): void {
  const text = state.text;
  let position = state.position;
  for (;;) {
    const code = text.charCodeAt(position);
    // RFC 8259 whitespace is exactly space, tab, LF and CR.
    if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) position++;
    else break;
  }
  if (position !== state.position) {
    state.irregular++;
    state.position = position;
  }
}

/** Read one value; `state.position` is at its first character (whitespace already skipped). */
function readValue(state: ParseState): JsonNode {
  const position = state.position;
  const code = state.text.charCodeAt(position);
  switch (code) {
    case 0x7b: // {
      return readObject(state);
    case 0x5b: // [
      return readArray(state);
    case 0x22: // "
      return { type: 'string', value: readString(state) };
    case 0x74: // t
      return readLiteral(state, 'true', TRUE_NODE);
    case 0x66: // f
      return readLiteral(state, 'false', FALSE_NODE);
    case 0x6e: // n
      return readLiteral(state, 'null', NULL_NODE);
    default:
      if (code === 0x2d || (code >= 0x30 && code <= 0x39)) return readNumber(state);
      return failValueStart(state, position);
  }
}

function readLiteral(state: ParseState, literal: string, node: JsonNode): JsonNode {
  const position = state.position;
  if (!state.text.startsWith(literal, position)) {
    let matched = 1;
    while (matched < literal.length && state.text.charCodeAt(position + matched) === literal.charCodeAt(matched))
      matched++;
    failUnexpected(state, position + matched, `"${literal}"`);
  }
  state.position = position + literal.length;
  return node;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function readNumber(state: ParseState): JsonNode {
  const text = state.text;
  const start = state.position;
  let position = start;
  let code = text.charCodeAt(position);
  const negative = code === 0x2d;
  // The integer part's value, exact while it has at most 15 digits (below 2^53).
  let integer = 0;
  let plainInteger = true;
  if (negative) {
    code = text.charCodeAt(++position);
    if (text.startsWith('Infinity', position) || text.startsWith('NaN', position)) {
      fail(state, 'non_finite_number', 'NaN and Infinity are not JSON numbers', start);
    }
  }
  if (code === 0x30) {
    code = text.charCodeAt(++position);
    if (isDigit(code)) fail(state, 'invalid_number', 'a JSON number cannot have a leading zero', position);
    if (code === 0x78 || code === 0x58) fail(state, 'invalid_number', 'hexadecimal numbers are not JSON', position);
  } else if (code >= 0x31 && code <= 0x39) {
    do {
      integer = integer * 10 + (code - 0x30);
      code = text.charCodeAt(++position);
    } while (isDigit(code));
  } else {
    fail(state, 'invalid_number', 'a minus sign must be followed by a digit', position);
  }
  if (code === 0x2e) {
    plainInteger = false;
    code = text.charCodeAt(++position);
    if (!isDigit(code)) fail(state, 'invalid_number', 'a decimal point must be followed by a digit', position);
    do code = text.charCodeAt(++position);
    while (isDigit(code));
  }
  if (code === 0x65 || code === 0x45) {
    plainInteger = false;
    code = text.charCodeAt(++position);
    if (code === 0x2b || code === 0x2d) code = text.charCodeAt(++position);
    if (!isDigit(code)) fail(state, 'invalid_number', 'an exponent must have digits', position);
    do code = text.charCodeAt(++position);
    while (isDigit(code));
  }
  // Catch run-on spellings such as `1.5.3`, `12abc` or `1-2` here, so they are reported as a
  // bad number rather than as a puzzling character after a good one.
  if (
    code === 0x2e ||
    code === 0x2b ||
    code === 0x2d ||
    isDigit(code) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x5f
  ) {
    fail(state, 'invalid_number', `unexpected ${describeCharacter(code)} in a number`, position);
  }
  const lexeme = text.slice(start, position);
  // Short integers (the common case: counts, sizes, epoch times) are exact as accumulated.
  // Otherwise the lexeme matched the JSON grammar, which Number() parses with
  // round-to-nearest exactly as JSON.parse does.
  const value = plainInteger && lexeme.length <= 15 ? (negative ? -integer : integer) : Number(lexeme);
  if (value === Infinity || value === -Infinity) {
    fail(
      state,
      'non_finite_number',
      `the number ${lexeme.length > 40 ? `${lexeme.slice(0, 40)}...` : lexeme} is too large for a double`,
      start,
    );
  }
  state.position = position;
  // JCS spells a number as String(value): certainly so for a short plain integer other than -0
  // (exact, no exponent); any other spelling is left to the serializer to judge.
  if (!plainInteger || lexeme.length > 15 || lexeme === '-0') state.nonJcsNumbers++;
  return { type: 'number', lexeme, value };
}

/** Read a string; `state.position` is at the opening quote. Returns its decoded value. */
function readString(state: ParseState): string {
  const text = state.text;
  const length = state.length;
  const start = state.position + 1;
  // Fast path: most strings (names, ids, hashes, signatures) hold no escape, control character
  // or surrogate. Finding the closing quote with indexOf and checking the slice with one native
  // regex test beats a character loop; anything unusual falls through to the loop, which is the
  // definition of what is accepted.
  const end = text.indexOf('"', start);
  if (end !== -1) {
    if (end - start <= SHORT_STRING) {
      // Short strings (member names, codes): a few comparisons cost less than a regex call.
      let plain = true;
      for (let position = start; position < end; position++) {
        const code = text.charCodeAt(position);
        if (code < 0x20 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) {
          plain = false;
          break;
        }
      }
      if (plain) {
        state.position = end + 1;
        return text.slice(start, end);
      }
    } else {
      const value = text.slice(start, end);
      if (!STRING_SPECIAL.test(value)) {
        state.position = end + 1;
        return value;
      }
    }
  }
  let position = start;
  for (;;) {
    if (position >= length) fail(state, 'unexpected_end', 'the input ended inside a string', position);
    const code = text.charCodeAt(position);
    if (code === 0x22) {
      state.position = position + 1;
      return text.slice(start, position);
    }
    if (code === 0x5c) return readEscapedString(state, start, position);
    if (code < 0x20) failControlCharacter(state, code, position);
    if (code >= 0xd800 && code <= 0xdfff) {
      if (code <= 0xdbff) {
        const next = text.charCodeAt(position + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          position += 2;
          continue;
        }
      }
      failLoneSurrogate(state, code, position);
    }
    position++;
  }
}

function failControlCharacter(state: ParseState, code: number, position: number): never {
  fail(
    state,
    'control_character',
    `the control character ${describeCharacter(code)} must be escaped in a string`,
    position,
  );
}

function failLoneSurrogate(state: ParseState, code: number, position: number): never {
  fail(state, 'lone_surrogate', `the string contains a lone surrogate ${describeCharacter(code)}`, position);
}

/**
 * A string with escapes, from its first backslash at `position` (the slow path of
 * {@link readString}).
 *
 * One sticky regex test validates the rest of the literal ({@link ESCAPED_STRING_BODY}), then
 * JSON.parse decodes it in one step. A literal the regex accepts has only JSON escapes, surrogate
 * escapes in pairs and no control character or raw surrogate, and JSON.parse decodes such a
 * literal exactly as RFC 8259 says: the value is the same as decoding here, but flat (a rope
 * built piece by piece made every later comparison flatten it). Anything else, errors included,
 * goes to {@link readEscapedStringSlowly}, which reports the first problem in text order.
 */
function readEscapedString(state: ParseState, start: number, position: number): string {
  // Some escapes are canonical (\" for one), but telling them apart is not worth it here.
  state.irregular++;
  ESCAPED_STRING_BODY.lastIndex = position;
  if (ESCAPED_STRING_BODY.test(state.text)) {
    const end = ESCAPED_STRING_BODY.lastIndex;
    state.position = end;
    return JSON.parse(state.text.slice(start - 1, end)) as string;
  }
  return readEscapedStringSlowly(state, start);
}

/**
 * The rest of a string literal, closing quote included, when it holds only characters that may
 * stand unescaped (no controls, no surrogates: those go to the slow path) and JSON escapes, with
 * surrogate escapes in high-low pairs. Sticky: it matches at `lastIndex` or not at all. At most
 * 4,096 characters or escapes: the regex engine keeps a backtrack entry per repetition, and an
 * unbounded repetition overflowed its stack on a 16 MB string; longer strings take the slow path.
 */
const ESCAPED_STRING_BODY =
  // eslint-disable-next-line no-control-regex -- control characters are what it excludes
  /(?:[^"\\\u0000-\u001f\ud800-\udfff]|\\["\\/bfnrt]|\\u(?:[0-9a-cA-CeEfF][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2}|[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})){0,4096}"/y;

/**
 * The character-by-character form of {@link readEscapedString}, over the literal whose first
 * character is at `start`: the definition of what is accepted, and where each problem is reported.
 */
function readEscapedStringSlowly(state: ParseState, start: number): string {
  let position = start;
  const text = state.text;
  const length = state.length;
  for (;;) {
    if (position >= length) fail(state, 'unexpected_end', 'the input ended inside a string', position);
    const code = text.charCodeAt(position);
    if (code === 0x22) {
      state.position = position + 1;
      return JSON.parse(text.slice(start - 1, position + 1)) as string;
    }
    if (code === 0x5c) {
      const escape = text.charCodeAt(position + 1);
      switch (escape) {
        case 0x22:
        case 0x5c:
        case 0x2f:
        case 0x62:
        case 0x66:
        case 0x6e:
        case 0x72:
        case 0x74:
          position += 2;
          continue;
        case 0x75: {
          const unit = readHex4(text, position + 2);
          if (unit < 0) fail(state, 'invalid_escape', 'a \\u escape needs four hexadecimal digits', position);
          if (unit >= 0xd800 && unit <= 0xdfff) {
            // A high-surrogate escape must be followed at once by a low-surrogate escape.
            if (unit >= 0xdc00 || text.charCodeAt(position + 6) !== 0x5c || text.charCodeAt(position + 7) !== 0x75) {
              failLoneSurrogate(state, unit, position);
            }
            const low = readHex4(text, position + 8);
            if (low < 0) fail(state, 'invalid_escape', 'a \\u escape needs four hexadecimal digits', position + 6);
            if (low < 0xdc00 || low > 0xdfff) failLoneSurrogate(state, unit, position);
            position += 12;
          } else {
            position += 6;
          }
          continue;
        }
        default:
          if (position + 1 >= length) fail(state, 'unexpected_end', 'the input ended inside a string', position + 1);
          fail(
            state,
            'invalid_escape',
            `a backslash followed by ${describeCharacter(escape)} is not a JSON escape`,
            position,
          );
      }
    }
    if (code < 0x20) failControlCharacter(state, code, position);
    if (code >= 0xd800 && code <= 0xdfff) {
      if (code <= 0xdbff) {
        const next = text.charCodeAt(position + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          position += 2;
          continue;
        }
      }
      failLoneSurrogate(state, code, position);
    }
    position++;
  }
}

function hexDigitValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  return -1;
}

/** The value of four hex digits at `position`, or -1 if they are not all there. */
function readHex4(text: string, position: number): number {
  const a = hexDigitValue(text.charCodeAt(position));
  const b = hexDigitValue(text.charCodeAt(position + 1));
  const c = hexDigitValue(text.charCodeAt(position + 2));
  const d = hexDigitValue(text.charCodeAt(position + 3));
  if (a < 0 || b < 0 || c < 0 || d < 0) return -1;
  return (a << 12) | (b << 8) | (c << 4) | d;
}

function enterContainer(state: ParseState): void {
  if (state.depth >= MAX_JSON_DEPTH) {
    fail(state, 'too_deep', `arrays and objects may nest at most ${MAX_JSON_DEPTH} deep`, state.position);
  }
  state.depth++;
  state.position++;
  skipWhitespace(state);
}

function readArray(state: ParseState): JsonNode {
  const start = state.position;
  const irregular = state.irregular;
  const nonJcsNumbers = state.nonJcsNumbers;
  enterContainer(state);
  const text = state.text;
  const items: JsonNode[] = [];
  const slot = state.tokenCount;
  if (text.charCodeAt(state.position) === 0x5d) {
    state.position++;
    state.depth--;
    return new ParsedArrayNode(items, text, start, state.position, sourceForm(state, irregular, nonJcsNumbers));
  }
  for (;;) {
    state.tokens[slot] = items.length;
    state.tokenCount = slot + 1;
    items.push(readValue(state));
    state.tokenCount = slot;
    skipWhitespace(state);
    const code = text.charCodeAt(state.position);
    if (code === 0x2c) {
      const comma = state.position++;
      skipWhitespace(state);
      if (text.charCodeAt(state.position) === 0x5d)
        fail(state, 'trailing_comma', 'a trailing comma is not allowed in an array', comma);
      continue;
    }
    if (code === 0x5d) break;
    failUnexpected(state, state.position, '"," or "]"');
  }
  state.position++;
  state.depth--;
  return new ParsedArrayNode(items, text, start, state.position, sourceForm(state, irregular, nonJcsNumbers));
}

/** The canonical form of the text read since the counters stood at `irregular`, `nonJcsNumbers`. */
function sourceForm(state: ParseState, irregular: number, nonJcsNumbers: number): SourceForm {
  if (state.irregular !== irregular) return NOT_CANONICAL;
  return state.nonJcsNumbers === nonJcsNumbers ? JCS_FORM : SKP_FORM;
}

function readObject(state: ParseState): JsonNode {
  const start = state.position;
  const irregular = state.irregular;
  const nonJcsNumbers = state.nonJcsNumbers;
  enterContainer(state);
  const text = state.text;
  const members: [string, JsonNode][] = [];
  const slot = state.tokenCount;
  if (text.charCodeAt(state.position) === 0x7d) {
    state.position++;
    state.depth--;
    return new ParsedObjectNode(members, text, start, state.position, sourceForm(state, irregular, nonJcsNumbers));
  }
  let seen: Set<string> | undefined;
  let previous: string | undefined;
  let sorted = true;
  for (;;) {
    const nameStart = state.position;
    if (text.charCodeAt(nameStart) !== 0x22) failMemberName(state, nameStart);
    const name = readString(state);
    state.tokens[slot] = name;
    // JCS order is by UTF-16 code units, which is how `<` compares strings. While the names come
    // in strictly increasing order, a new name is above every earlier one, so it cannot repeat
    // one: signed documents are mostly written sorted, and skip the duplicate search entirely.
    if (sorted && (previous === undefined || previous < name)) {
      previous = name;
    } else {
      if (sorted) {
        sorted = false;
        state.irregular++;
      }
      if (seen === undefined) {
        for (const member of members) {
          if (member[0] === name) failDuplicate(state, slot, name, nameStart);
        }
        if (members.length >= LINEAR_DUPLICATE_SCAN_LIMIT) {
          seen = new Set();
          for (const member of members) seen.add(member[0]);
          seen.add(name);
        }
      } else {
        if (seen.has(name)) failDuplicate(state, slot, name, nameStart);
        seen.add(name);
      }
    }
    state.tokenCount = slot + 1;
    skipWhitespace(state);
    if (text.charCodeAt(state.position) !== 0x3a) failUnexpected(state, state.position, '":" after the member name');
    state.position++;
    skipWhitespace(state);
    members.push([name, readValue(state)]);
    state.tokenCount = slot;
    skipWhitespace(state);
    const code = text.charCodeAt(state.position);
    if (code === 0x2c) {
      const comma = state.position++;
      skipWhitespace(state);
      if (text.charCodeAt(state.position) === 0x7d)
        fail(state, 'trailing_comma', 'a trailing comma is not allowed in an object', comma);
      continue;
    }
    if (code === 0x7d) break;
    failUnexpected(state, state.position, '"," or "}"');
  }
  state.position++;
  state.depth--;
  return new ParsedObjectNode(members, text, start, state.position, sourceForm(state, irregular, nonJcsNumbers));
}

function failDuplicate(state: ParseState, slot: number, name: string, position: number): never {
  state.tokenCount = slot + 1;
  const shown = name.length > 60 ? `${JSON.stringify(name.slice(0, 60))}...` : JSON.stringify(name);
  fail(state, 'duplicate_name', `duplicate member name ${shown}`, position);
}

function failMemberName(state: ParseState, position: number): never {
  const code = state.text.charCodeAt(position);
  if (code === 0x27) fail(state, 'invalid_string', 'member names must use double quotes', position);
  if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x24) {
    fail(state, 'invalid_string', 'member names must be double-quoted strings', position);
  }
  failUnexpected(state, position, 'a member name');
}
