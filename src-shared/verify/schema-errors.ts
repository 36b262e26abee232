/**
 * Turning JSON Schema validation errors into report errors with JSON Pointer paths.
 *
 * The validators are generated from resources/schemas by scripts/build-schemas.ts (Ajv
 * standalone code, no run-time compilation, so they run under a strict CSP). Their errors are
 * Ajv's; this module gives each a stable code and a path to the offending value itself (for an
 * unknown or missing property, the property's own path, not its parent's).
 */
import { pointerAppend } from '../json/pointer';
import type { ReportError } from './report';

/** The shape of one error a generated validator reports (a subset of Ajv's ErrorObject). */
export interface SchemaValidationError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A generated validator: returns whether data is valid and leaves errors on itself. */
export interface SchemaValidator {
  (data: unknown): boolean;
  errors?: SchemaValidationError[] | null;
}

const CODES: Record<string, string> = {
  additionalProperties: 'unknown_property',
  unevaluatedProperties: 'unknown_property',
  required: 'missing_property',
  type: 'wrong_type',
  pattern: 'pattern_mismatch',
  maxLength: 'too_long',
  minLength: 'too_short',
  maxItems: 'too_many_items',
  minItems: 'too_few_items',
  uniqueItems: 'duplicate_items',
  minimum: 'out_of_range',
  maximum: 'out_of_range',
  exclusiveMinimum: 'out_of_range',
  exclusiveMaximum: 'out_of_range',
  multipleOf: 'out_of_range',
  enum: 'not_allowed_value',
  const: 'not_allowed_value',
  oneOf: 'not_exactly_one',
  anyOf: 'no_alternative_matches',
  not: 'forbidden_combination',
  dependentRequired: 'missing_property',
  maxProperties: 'too_many_properties',
  minProperties: 'too_few_properties',
};

/**
 * Converts a validator's errors into report errors (one per distinct path and code).
 *
 * @param errors the validator's `errors` after a failed call
 * @param basePath where the validated value sits in the whole document ("" for the root)
 */
export function schemaErrorsToReport(
  errors: readonly SchemaValidationError[] | null | undefined,
  basePath = '',
): ReportError[] {
  const out: ReportError[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    // Combinator failures repeat what their branches already said; keep them only alone.
    if ((error.keyword === 'if' || error.keyword === 'then' || error.keyword === 'else') && (errors?.length ?? 0) > 1)
      continue;
    const code = CODES[error.keyword] ?? 'schema_violation';
    let path = basePath + error.instancePath;
    let message = error.message ?? 'does not match the schema';
    const property =
      error.params.additionalProperty ?? error.params.unevaluatedProperty ?? error.params.missingProperty;
    if (typeof property === 'string') {
      path = pointerAppend(path, property);
      message =
        code === 'unknown_property'
          ? `unknown property "${property}" is not allowed here`
          : `required property "${property}" is missing`;
    } else if (error.keyword === 'enum' && Array.isArray(error.params.allowedValues)) {
      message = `must be one of ${error.params.allowedValues.map((value) => JSON.stringify(value)).join(', ')}`;
    } else if (error.keyword === 'const') {
      message = `must be ${JSON.stringify(error.params.allowedValue)}`;
    } else if (error.keyword === 'pattern') {
      message = `does not match the required pattern ${String(error.params.pattern)}`;
    }
    const key = `${code}\u0000${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ code, path, message });
  }
  return out;
}
