/**
 * Shape validation of a wearable receipt: the published JSON Schema plus what a schema cannot say.
 *
 * resources/schemas/wearable-r2.0.0.schema.json is the single source of truth for the shape; its
 * generated validator runs here. On top of it:
 * - TS values must name a real calendar instant (`2026-02-30T00:00:00Z` matches the pattern but
 *   is MALFORMED, `invalid_timestamp`);
 * - the two spots where Ajv's own wording says little are restated: "exactly one of value and
 *   value_commitment_sha256" becomes one error at `/signed_body` saying which case it is, and a
 *   `value` of the wrong type one error saying which types are allowed.
 */
import type { JsonValue } from '../../json/types';
import { validate } from '../../schemas/wearable-r2.0.0.generated';
import { isJsonObject, problem } from '../../verify/fields';
import type { ReportError } from '../../verify/report';
import { schemaErrorsToReport, type SchemaValidationError } from '../../verify/schema-errors';
import { isTimestamp } from '../../verify/timestamp';

/** The `$id` of the published schema. */
export const WEARABLE_SCHEMA_ID = 'https://evidence-room.local/schemas/wearable-r2.0.0.schema.json';

/** The TS fields of signed_body. */
export const WEARABLE_TIMESTAMP_FIELDS = ['recorded_at', 'observed_at', 'gateway_received_at'] as const;

const TS_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;
const VALUE_CHOICE = /^#\/oneOf(?:\/\d+\/required)?$/;

/**
 * Every shape problem of a would-be wearable receipt.
 *
 * @param value - Any parsed JSON value.
 * @returns Report errors with JSON Pointer paths (empty when the receipt has the right shape).
 * @example wearableShapeProblems({})[0] // { code: 'missing_property', path: '/receipt_id', ... }
 */
export function wearableShapeProblems(value: JsonValue): ReportError[] {
  const problems: ReportError[] = [];
  if (!validate(value)) {
    const raw: readonly SchemaValidationError[] = validate.errors ?? [];
    const kept = raw.filter((error) => !isValueChoiceError(error) && !isValueTypeError(error));
    problems.push(...schemaErrorsToReport(kept));
    if (raw.some(isValueChoiceError)) problems.push(valueChoiceProblem(value));
    if (raw.some(isValueTypeError)) {
      problems.push(problem('wrong_type', '/signed_body/value', '"value" must be a number, a string or a boolean.'));
    }
  }
  problems.push(...calendarProblems(value));
  return problems;
}

function isValueChoiceError(error: SchemaValidationError): boolean {
  return error.instancePath === '/signed_body' && VALUE_CHOICE.test(error.schemaPath);
}

function isValueTypeError(error: SchemaValidationError): boolean {
  return error.instancePath === '/signed_body/value' && (error.keyword === 'type' || error.keyword === 'anyOf');
}

function valueChoiceProblem(value: JsonValue): ReportError {
  const body = isJsonObject(value) ? value['signed_body'] : undefined;
  const both = isJsonObject(body) && Object.hasOwn(body, 'value') && Object.hasOwn(body, 'value_commitment_sha256');
  return problem(
    'not_exactly_one',
    '/signed_body',
    both
      ? 'Exactly one of "value" and "value_commitment_sha256" must be present; both are.'
      : 'Exactly one of "value" and "value_commitment_sha256" must be present; neither is.',
  );
}

function calendarProblems(value: JsonValue): ReportError[] {
  const body = isJsonObject(value) ? value['signed_body'] : undefined;
  if (!isJsonObject(body)) return [];
  const problems: ReportError[] = [];
  for (const name of WEARABLE_TIMESTAMP_FIELDS) {
    const member = body[name];
    // A value off the TS pattern is already reported by the schema; here only real dates count.
    if (typeof member === 'string' && TS_SHAPE.test(member) && !isTimestamp(member)) {
      problems.push(
        problem(
          'invalid_timestamp',
          `/signed_body/${name}`,
          `"${name}" is not a real calendar instant (month, day, hour, minute or second out of range).`,
        ),
      );
    }
  }
  return problems;
}
