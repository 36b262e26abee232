/**
 * Request bodies, read strictly.
 *
 * Fastify hands every route the raw bytes (service.ts, with the JSON body parser both HTTP doors
 * share: operations/json-body.ts). A route that takes a structured request parses them with our
 * strict parser (a duplicate member name is a 400 with its pointer, never a
 * silent last-wins) and checks them against the route's JSON Schema, the same schema that
 * documents the route in /openapi.json.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyRequest } from 'fastify';
import { parseJsonBody } from '../operations/json-body';
import { HttpError } from './errors';

// strictRequired is off: `oneOf: [{required: [a]}, {required: [b]}]` names members defined beside it.
// verbose: a problem carries the schema it broke, whose description names what a pattern wants.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, unicodeRegExp: true, verbose: true });
const compiled = new WeakMap<object, ValidateFunction>();

/** What a value that breaks a pattern is told: the member's description, not the regular expression. */
function patternMessage(schema: unknown): string {
  const description = (schema as { description?: unknown } | undefined)?.description;
  return typeof description === 'string'
    ? `is not in the form the route takes (${description})`
    : 'is not in the form the route takes';
}

/** The raw body bytes; 400 when there is none. */
export function bodyBytes(request: FastifyRequest): Uint8Array {
  const body = request.body;
  if (!(body instanceof Uint8Array) || body.length === 0)
    throw new HttpError(400, 'invalid_request', 'The request needs a JSON body (Content-Type: application/json).');
  return body;
}

/**
 * The body parsed strictly and checked against a schema.
 *
 * @throws HttpError 400 invalid_request with each problem's JSON Pointer; OperationError
 *   invalid_request (also 400) when the body is not strict JSON
 */
export function readBody<T>(request: FastifyRequest, schema: object): T {
  const bytes = bodyBytes(request);
  // 400 invalid_request with the fault's JSON Pointer, as every HTTP door parses (operations/json-body.ts).
  const value = parseJsonBody(bytes);
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (!validate(value)) {
    const details = (validate.errors ?? []).map((problem) => ({
      path:
        problem.keyword === 'additionalProperties'
          ? `${problem.instancePath}/${String((problem.params as { additionalProperty?: string }).additionalProperty)}`
          : problem.instancePath,
      message:
        problem.keyword === 'additionalProperties'
          ? 'is not a member this route takes'
          : problem.keyword === 'pattern'
            ? patternMessage(problem.parentSchema)
            : (problem.message ?? 'is not valid'),
    }));
    throw new HttpError(
      400,
      'invalid_request',
      `The request does not fit the route: ${details.map((detail) => `${detail.path || '/'} ${detail.message}`).join('; ')}.`,
      { details },
    );
  }
  return value as T;
}
