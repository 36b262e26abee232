/**
 * Human-readable forms of strict-parse failures.
 */
import { JsonParseError } from './types';

/**
 * Format a strict-parse failure as one line for people.
 *
 * The line names the code, where the problem is (JSON Pointer and character offset) and what it
 * is, e.g. `Malformed JSON (duplicate_name) at /a/b, offset 17: duplicate member name "b"`.
 * The root is shown as `the document root` because an empty pointer reads as nothing.
 *
 * @param error - The error thrown by the strict parser.
 * @returns A single line with no line breaks.
 * @throws TypeError if `error` is not a {@link JsonParseError}.
 */
export function formatJsonError(error: JsonParseError): string {
  if (!(error instanceof JsonParseError)) throw new TypeError('formatJsonError expects a JsonParseError');
  const where = error.path === '' ? 'the document root' : error.path;
  const unit = error.code === 'invalid_utf8' ? 'byte' : 'offset';
  // Messages and paths may quote input; keep the result on one line whatever they hold.
  const line = `Malformed JSON (${error.code}) at ${where}, ${unit} ${error.offset}: ${error.message}`;
  // eslint-disable-next-line no-control-regex -- control characters are what it replaces
  return line.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, oneLineEscape);
}

function oneLineEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Describe one character of input for an error message.
 *
 * Printable ASCII is quoted as itself; anything else is named by code point so that messages
 * never carry invisible or line-breaking characters.
 *
 * @param code - A UTF-16 code unit, or NaN past the end of input.
 * @returns E.g. `"x"`, `U+FEFF` or `end of input`.
 */
export function describeCharacter(code: number): string {
  if (Number.isNaN(code)) return 'end of input';
  if (code >= 0x20 && code < 0x7f) return JSON.stringify(String.fromCharCode(code));
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
