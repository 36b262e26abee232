/**
 * What every issuer does with caller fields: take an object, check member names, copy safely,
 * and name the keys that will verify the result.
 */
import { pointerAppend } from '../json';
import type { JsonValue } from '../json/types';
import type { KeyEntry } from './context';
import { isJsonObject, quote, type JsonObject } from './fields';
import type { IssueInput, IssueKey } from './format-module';
import { IssueInputError } from './issue-error';

/**
 * The caller's fields as an object.
 *
 * @param input - The issuer's input.
 * @returns The plain object.
 * @throws IssueInputError (`not_an_object`) when the fields are not a JSON object.
 */
export function fieldsObject(input: IssueInput): JsonObject {
  const { value } = input.fields;
  if (!isJsonObject(value))
    throw new IssueInputError('not_an_object', '', `expected a JSON object of ${input.name} fields`);
  return value;
}

/**
 * Refuse unknown members and missing required ones: an unknown member is refused, never dropped.
 *
 * @param value - The caller's object.
 * @param required - Members that must be present.
 * @param optional - Members that may be present.
 * @param name - The issuer's name, for the message.
 * @throws IssueInputError (`unknown_member`, `missing_member`) at the member's path.
 */
export function checkMembers(
  value: JsonObject,
  required: readonly string[],
  optional: readonly string[],
  name: string,
): void {
  const allowed = [...required, ...optional];
  for (const member of Object.keys(value)) {
    if (!allowed.includes(member)) {
      throw new IssueInputError(
        'unknown_member',
        pointerAppend('', member),
        `unknown member ${quote(member)}; ${name} takes ${allowed.join(', ')}`,
      );
    }
  }
  for (const member of required) {
    if (!Object.hasOwn(value, member)) {
      throw new IssueInputError(
        'missing_member',
        pointerAppend('', member),
        `the required member "${member}" is missing`,
      );
    }
  }
}

/**
 * The issuer's key and the key id to write for it.
 *
 * @param input - The issuer's input.
 * @returns Both.
 * @throws IssueInputError (`key_missing`) when no key was given.
 */
export function issuerKey(input: IssueInput): { key: IssueKey; keyId: string } {
  if (input.key === undefined)
    throw new IssueInputError('key_missing', '', `${input.name} documents need the issuer's key`);
  return { key: input.key, keyId: input.keyId ?? input.key.key_id };
}

/**
 * Use an ML-DSA-65 issuing key's secret key: key files hold the key generation seed, so the
 * secret key is expanded for this one use and wiped afterwards, whatever `use` does.
 *
 * @param input - The issuer's input (for its crypto provider).
 * @param key - The ML-DSA-65 key.
 * @param use - What to do with the 4032-byte secret key; it must not keep it.
 * @returns What `use` returns.
 */
export function withMldsa65SecretKey<T>(input: IssueInput, key: IssueKey, use: (secretKey: Uint8Array) => T): T {
  const secretKey = input.crypto.mldsa65KeyGen(key.seed).secretKey;
  try {
    return use(secretKey);
  } finally {
    secretKey.fill(0);
  }
}

/**
 * The public half of a signing key, as the verifier's key entry.
 *
 * @param key - The key.
 * @param keyId - The key id written in the document (default the key's own).
 * @returns `{key_id, algorithm, public_key, label?}`.
 */
export function publicEntry(key: IssueKey, keyId: string = key.key_id): KeyEntry {
  const entry: KeyEntry = { key_id: keyId, algorithm: key.algorithm, public_key: Uint8Array.from(key.public_key) };
  if (key.label !== undefined) entry.label = key.label;
  return entry;
}

/**
 * A shallow copy of an object whose members stay own data members, even one named `__proto__`.
 *
 * @param value - The object.
 * @returns The copy.
 */
export function copyObject(value: JsonObject): JsonObject {
  const copy: JsonObject = {};
  for (const [name, member] of Object.entries(value)) defineMember(copy, name, member);
  return copy;
}

/**
 * Set a member as an own data member (a member named `__proto__` never becomes the prototype).
 *
 * @param object - The object.
 * @param name - The member name.
 * @param value - Its value.
 */
export function defineMember(object: JsonObject, name: string, value: JsonValue): void {
  Object.defineProperty(object, name, { value, writable: true, enumerable: true, configurable: true });
}
