/**
 * A small validation kit for app API inputs.
 *
 * Every IPC or HTTP argument arrives as `unknown`; each method's validator (contract.ts) turns it
 * into its typed input or throws ApiInputError naming the field and what is wrong with it.
 */
import { DomainError } from './domain-error';

/** An input that does not fit its method's contract (HTTP 400, IPC rejection). */
export class ApiInputError extends DomainError {
  override readonly code = 'invalid_request';
  override readonly kind = 'invalid_input';
  readonly httpStatus = 400;
  /** The JSON Pointer of the field concerned, when known (it becomes the envelope's one detail, so a form can show it beside the field). */
  readonly path: string | undefined;
  constructor(message: string, path?: string) {
    super(message);
    this.name = 'ApiInputError';
    this.path = path;
  }
}

type Plain = Record<string, unknown>;

/**
 * The input as an object with only the named members (absent input counts as `{}`). An unknown
 * member is named by its JSON Pointer (`/extra`, or `/filters/extra` inside `where`), as
 * schema-validator.ts names it.
 */
export function objectInput(input: unknown, allowed: readonly string[], where = 'input'): Plain {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw new ApiInputError(`${where} must be an object`);
  for (const name of Object.keys(input)) {
    if (!allowed.includes(name)) {
      const member = `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      throw new ApiInputError(
        `${where} has an unknown member "${name}"${allowed.length ? `; allowed: ${allowed.join(', ')}` : ''}`,
        where === 'input' ? member : `/${where}${member}`,
      );
    }
  }
  return input as Plain;
}

/** A required string of bounded length. */
export function stringField(source: Plain, name: string, maxLength: number, minLength = 1): string {
  const value = source[name];
  if (typeof value !== 'string') throw new ApiInputError(`${name} must be a string`);
  if (value.length < minLength) throw new ApiInputError(`${name} must not be empty`);
  if (value.length > maxLength) throw new ApiInputError(`${name} must be at most ${maxLength} characters`);
  return value;
}

/** An optional string of bounded length (absent or undefined gives undefined). */
export function optionalString(source: Plain, name: string, maxLength: number): string | undefined {
  return source[name] === undefined ? undefined : stringField(source, name, maxLength);
}

/** A required whole number within bounds. */
export function integerField(source: Plain, name: string, min: number, max: number): number {
  const value = source[name];
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new ApiInputError(`${name} must be a whole number`);
  if (value < min || value > max) throw new ApiInputError(`${name} must be between ${min} and ${max}`);
  return value;
}

/** An optional whole number within bounds. */
export function optionalInteger(source: Plain, name: string, min: number, max: number): number | undefined {
  return source[name] === undefined ? undefined : integerField(source, name, min, max);
}

/** An optional boolean. */
export function optionalBoolean(source: Plain, name: string): boolean | undefined {
  const value = source[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new ApiInputError(`${name} must be true or false`);
  return value;
}

/** A required value from a fixed list. */
export function oneOf<T extends string>(source: Plain, name: string, allowed: readonly T[]): T {
  const value = source[name];
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new ApiInputError(`${name} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/** An optional value from a fixed list. */
export function optionalOneOf<T extends string>(source: Plain, name: string, allowed: readonly T[]): T | undefined {
  return source[name] === undefined ? undefined : oneOf(source, name, allowed);
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** An optional TS timestamp (PROTOCOL section 0). */
export function optionalTimestamp(source: Plain, name: string): string | undefined {
  const value = source[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))) {
    throw new ApiInputError(`${name} must be a timestamp like 2026-01-31T00:00:00Z`);
  }
  return value;
}
