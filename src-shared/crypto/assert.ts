/**
 * Argument checks shared by the crypto modules, in the noble manner.
 *
 * A value of the wrong type is a TypeError; a byte array of the wrong length or a number out of
 * range is a RangeError. Messages name the function and the argument so that the caller can
 * tell what to fix without a stack trace.
 */

/**
 * Whether a value is a Uint8Array (or a subclass such as Node's Buffer).
 *
 * The constructor-name fallback accepts arrays made in another realm (a worker or vm context),
 * where `instanceof` fails.
 *
 * @param value - any value
 * @returns true for a Uint8Array
 */
export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array || (ArrayBuffer.isView(value) && value.constructor.name === 'Uint8Array');
}

/**
 * A short description of a value's type for error messages.
 *
 * @param value - any value
 * @returns e.g. `string`, `null`, `an array`, `Uint16Array`
 */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  return typeof value;
}

/**
 * Checks that a value is a Uint8Array, optionally of an exact length.
 *
 * @param value - the argument to check
 * @param name - `function: argument`, used in the message
 * @param length - the required length, if any
 * @throws TypeError when `value` is not a Uint8Array
 * @throws RangeError when `length` is given and differs
 */
export function assertBytes(value: unknown, name: string, length?: number): asserts value is Uint8Array {
  if (!isBytes(value)) throw new TypeError(`${name} must be a Uint8Array, got ${describeType(value)}`);
  if (length !== undefined && value.length !== length) {
    throw new RangeError(`${name} must be ${length} bytes, got ${value.length}`);
  }
}

/**
 * Checks that a value is a string.
 *
 * @param value - the argument to check
 * @param name - `function: argument`, used in the message
 * @throws TypeError when `value` is not a string
 */
export function assertString(value: unknown, name: string): asserts value is string {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string, got ${describeType(value)}`);
}

/**
 * Checks that a value is a non-negative safe integer.
 *
 * @param value - the argument to check
 * @param name - `function: argument`, used in the message
 * @throws TypeError when `value` is not a number
 * @throws RangeError when it is not an integer in [0, 2^53 - 1]
 */
export function assertIndex(value: unknown, name: string): asserts value is number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describeType(value)}`);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}
