/**
 * Argument checks shared by the repositories.
 *
 * Every exported repository function checks its input before touching the database: a wrong
 * type is a TypeError, a wrong length, range or spelling a RangeError, and nothing is written.
 */

import { isTenantId } from '../../src-shared/api/vocabulary';

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Require a tenant id (vocabulary.ts's rule).
 *
 * @throws TypeError when not a string; RangeError when not a tenant id
 */
export function checkTenantId(tenantId: unknown): string {
  if (typeof tenantId !== 'string') throw new TypeError('tenantId must be a string');
  if (!isTenantId(tenantId)) throw new RangeError('tenantId is not a tenant id');
  return tenantId;
}

/**
 * Require a 32-byte hash.
 *
 * @throws TypeError when not a Uint8Array; RangeError when not 32 bytes long
 */
export function checkHash32(value: unknown, name: string): Uint8Array {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array`);
  if (value.length !== 32) throw new RangeError(`${name} must be 32 bytes`);
  return value;
}

/**
 * A blob as the database driver hands it back (a Buffer over a shared pool, from better-sqlite3
 * and node-postgres alike) copied into plain bytes of its own.
 */
export function plainBytes(value: Uint8Array): Uint8Array {
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice();
}

/**
 * Require a HEX64 string (64 lowercase hex characters).
 *
 * @throws TypeError when not a string; RangeError when not HEX64
 */
export function checkHex64(value: unknown, name: string): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  if (!HEX64.test(value)) throw new RangeError(`${name} must be 64 lowercase hex characters`);
  return value;
}

/**
 * Require a string of 1..max characters.
 *
 * @throws TypeError when not a string; RangeError when empty or too long
 */
export function checkText(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  if (value.length === 0 || value.length > max) {
    throw new RangeError(`${name} must be 1 to ${max} characters long`);
  }
  return value;
}

/**
 * Like {@link checkText} but `undefined` and `null` mean "absent" and give `null`.
 */
export function checkOptionalText(value: unknown, name: string, max: number): string | null {
  return value === undefined || value === null ? null : checkText(value, name, max);
}

/**
 * Require a safe integer within [min, max].
 *
 * @throws TypeError when not a number; RangeError when not an integer or out of range
 */
export function checkInteger(value: unknown, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number`);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/**
 * An instant in milliseconds since the epoch, or `undefined` for "now".
 */
export function checkInstant(value: unknown, name: string): number {
  return value === undefined ? Date.now() : checkInteger(value, name);
}

/**
 * Require one of a fixed set of strings.
 *
 * @throws TypeError when not a string; RangeError when not in the set
 */
export function checkOneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  if (!(allowed as readonly string[]).includes(value)) {
    throw new RangeError(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

/**
 * Require a plain object (not null, not an array).
 *
 * @throws TypeError otherwise
 */
export function checkObject(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${name} must be an object`);
  }
  return value as Record<string, unknown>;
}

/**
 * Serialise a value for a JSON column, refusing what JSON cannot hold faithfully.
 *
 * @throws TypeError when the value is undefined, a function, or contains a cycle or a BigInt
 */
export function toJsonText(value: unknown, name: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`${name} cannot be stored as JSON: ${(error as Error).message}`);
  }
  if (text === undefined) throw new TypeError(`${name} cannot be stored as JSON`);
  return text;
}
