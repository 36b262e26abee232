/**
 * The strict JSON layer: parser, plain-value conversion, RFC 8785 JCS and SKP.
 *
 * See PROTOCOL section 0 for why the project parses JSON itself.
 */
export { formatJsonError } from './errors';
export { jcs, jcsNumber, jcsString, jcsTree, skp } from './jcs';
export { parseJson, parseJsonBytes, parseJsonTree } from './parse';
export { fromPlain, toPlain } from './plain';
export { escapePointerToken, pointerAppend, pointerFromTokens } from './pointer';
export { JsonParseError, MAX_JSON_DEPTH } from './types';
export type {
  JsonArrayNode,
  JsonBooleanNode,
  JsonErrorCode,
  JsonNode,
  JsonNullNode,
  JsonNumberNode,
  JsonObjectNode,
  JsonStringNode,
  JsonValue,
} from './types';
