/**
 * The lossless JSON tree.
 *
 * The strict parser produces this tree rather than plain values because two things that
 * `JSON.parse` throws away matter to us: the exact spelling of every number (SKP preserves it)
 * and the order and uniqueness of member names (duplicates are rejected while parsing).
 * `toPlain` turns a tree into ordinary JavaScript values for field access and schema checks.
 */
export type JsonNode =
  JsonNullNode | JsonBooleanNode | JsonStringNode | JsonNumberNode | JsonArrayNode | JsonObjectNode;

export interface JsonNullNode {
  readonly type: 'null';
}
export interface JsonBooleanNode {
  readonly type: 'boolean';
  readonly value: boolean;
}
export interface JsonStringNode {
  readonly type: 'string';
  readonly value: string;
}
export interface JsonNumberNode {
  readonly type: 'number';
  /** The number exactly as it was spelled in the input, e.g. `1.50` or `1E3`. */
  readonly lexeme: string;
  /** The IEEE 754 double nearest the lexeme (what `Number(lexeme)` gives). */
  readonly value: number;
}
export interface JsonArrayNode {
  readonly type: 'array';
  readonly items: readonly JsonNode[];
}
export interface JsonObjectNode {
  readonly type: 'object';
  /** Members in input order; names are unique (the parser rejects duplicates). */
  readonly members: readonly (readonly [name: string, value: JsonNode])[];
}

/** A plain JSON value as `JSON.parse` would return it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [name: string]: JsonValue };

/** Error codes the strict parser reports; each maps to a MALFORMED report error. */
export type JsonErrorCode =
  | 'empty_input'
  | 'bom'
  | 'unexpected_character'
  | 'unexpected_end'
  | 'trailing_content'
  | 'trailing_comma'
  | 'comment'
  | 'invalid_number'
  | 'non_finite_number'
  | 'invalid_string'
  | 'invalid_escape'
  | 'control_character'
  | 'lone_surrogate'
  | 'duplicate_name'
  | 'too_deep'
  | 'invalid_utf8';

/**
 * A strict-parse failure.
 *
 * `path` is a JSON Pointer (RFC 6901) to the value being read when parsing failed, so
 * `{"a":{"b":1,"b":2}}` fails with path `/a/b`; `offset` is the character offset in the input.
 */
export class JsonParseError extends Error {
  readonly code: JsonErrorCode;
  readonly path: string;
  readonly offset: number;
  constructor(code: JsonErrorCode, message: string, path: string, offset: number) {
    super(message);
    this.name = 'JsonParseError';
    this.code = code;
    this.path = path;
    this.offset = offset;
  }
}

/** The maximum nesting depth of arrays and objects (PROTOCOL section 0). */
export const MAX_JSON_DEPTH = 64;
