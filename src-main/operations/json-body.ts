/**
 * JSON request bodies over HTTP, read strictly: the one rule of both HTTP doors (the service in
 * src-main/http and local web mode in src-main/appapi), which never import each other.
 *
 * A body is `application/json` in any letter case (RFC 9110 section 8.3.1: type and subtype are
 * case-insensitive), read up to a limit (Fastify refuses it with 413 as soon as the limit is
 * crossed, holding no more than the limit) and parsed by the strict parser of src-shared/json:
 * a duplicate member name, invalid UTF-8, a byte order mark or a trailing comma is refused with
 * `invalid_request` and the JSON Pointer of the fault, never read last-wins or with U+FFFD as
 * `JSON.parse` would.
 */
import type { FastifyInstance } from 'fastify';
import { JsonParseError, parseJsonBytes, toPlain } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { OperationError } from './errors';

/** `application/json`, with or without parameters, in any letter case. */
export const JSON_MEDIA_TYPE = /^application\/json(?:\s*;.*)?$/i;

/**
 * Whether a Content-Type header names JSON.
 *
 * @param header - The header's value, if any.
 */
export function isJsonMediaType(header: string | undefined): boolean {
  return typeof header === 'string' && JSON_MEDIA_TYPE.test(header.trim());
}

/**
 * A request body parsed strictly into plain values.
 *
 * @param bytes - The body as it arrived.
 * @returns The value.
 * @throws OperationError `invalid_request` (400) with one detail: the JSON Pointer of the fault
 *   and the parser's code (`duplicate_name`, `invalid_utf8`, ...)
 */
export function parseJsonBody(bytes: Uint8Array): JsonValue {
  try {
    return toPlain(parseJsonBytes(bytes));
  } catch (error) {
    if (error instanceof JsonParseError) {
      throw new OperationError('invalid_input', 'invalid_request', `The body is not strict JSON: ${error.message}`, {
        details: [{ path: error.path, message: error.code }],
      });
    }
    throw error;
  }
}

/**
 * Registers the one `application/json` body parser on a Fastify scope.
 *
 * Bodies are read as bytes up to `bodyLimit`; `read` turns them into what the routes see (the
 * service's routes take the bytes and parse them with {@link parseJsonBody} against their
 * schema; web mode parses here). An error `read` throws answers the request through the
 * scope's error handler.
 *
 * @param scope - The Fastify instance or plugin scope.
 * @param options - The byte limit, and the reader (default: the bytes themselves).
 */
export function addJsonBodyParser(
  scope: FastifyInstance,
  options: { bodyLimit: number; read?: (bytes: Buffer) => unknown },
): void {
  const read = options.read;
  scope.addContentTypeParser(
    JSON_MEDIA_TYPE,
    { parseAs: 'buffer', bodyLimit: options.bodyLimit },
    (_request, body, done) => {
      if (read === undefined) {
        done(null, body);
        return;
      }
      let value: unknown;
      try {
        value = read(body as Buffer);
      } catch (error) {
        done(error instanceof Error ? error : new Error(String(error)), undefined);
        return;
      }
      done(null, value);
    },
  );
}
