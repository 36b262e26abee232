/**
 * JSON Pointer (RFC 6901) construction.
 *
 * Parse errors, schema checks and verification reports all name the offending value with a
 * pointer, so the escaping lives in one place: `~` becomes `~0` and `/` becomes `~1`, in that
 * order (escaping `/` first would turn the `~` it introduced into `~01`).
 */

/**
 * Escape one reference token for use in a JSON Pointer.
 *
 * @param token - A member name or an array index.
 * @returns The token with `~` written as `~0` and `/` as `~1`.
 * @throws TypeError if `token` is neither a string nor a number.
 * @throws RangeError if `token` is a number that is not a non-negative safe integer.
 * @example escapePointerToken('a/b~c') // 'a~1b~0c'
 */
export function escapePointerToken(token: string | number): string {
  if (typeof token === 'number') {
    if (!Number.isSafeInteger(token) || token < 0) {
      throw new RangeError(`An array index in a JSON Pointer must be a non-negative integer, got ${String(token)}`);
    }
    return String(token);
  }
  if (typeof token !== 'string') {
    throw new TypeError('A JSON Pointer token must be a string or a number');
  }
  // The common case has neither character; skip the two replace passes then.
  if (token.indexOf('~') === -1 && token.indexOf('/') === -1) return token;
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Append one reference token to a JSON Pointer.
 *
 * @param path - An RFC 6901 pointer: `''` for the whole document, otherwise starting with `/`.
 * @param token - The member name or array index to append (escaped here).
 * @returns The longer pointer, e.g. `pointerAppend('/a', 'b/c')` is `/a/b~1c`.
 * @throws TypeError if `path` is not a string or `token` is neither a string nor a number.
 * @throws RangeError if `path` is not a pointer or `token` is a bad array index.
 */
export function pointerAppend(path: string, token: string | number): string {
  if (typeof path !== 'string') throw new TypeError('A JSON Pointer must be a string');
  if (path !== '' && path.charCodeAt(0) !== 0x2f) {
    throw new RangeError(`A JSON Pointer must be empty or start with "/", got ${JSON.stringify(path)}`);
  }
  return `${path}/${escapePointerToken(token)}`;
}

/**
 * Build a JSON Pointer from unescaped reference tokens.
 *
 * @param tokens - Member names and array indexes from the root down.
 * @returns The pointer; `''` for no tokens.
 * @throws TypeError or RangeError as {@link escapePointerToken} does.
 * @example pointerFromTokens(['a', 0, 'b']) // '/a/0/b'
 */
export function pointerFromTokens(tokens: readonly (string | number)[]): string {
  if (!Array.isArray(tokens)) throw new TypeError('JSON Pointer tokens must be an array');
  let path = '';
  for (const token of tokens) path += `/${escapePointerToken(token)}`;
  return path;
}
