/**
 * A contract method's validator derived from its TypeBox schema (contract-schemas.ts), so one
 * schema gives both the method's input type (`Static<typeof schema>`) and its runtime check.
 *
 * The check is TypeBox's `Check` (`Value.Check`), which interprets the schema: no code is
 * generated, so it runs under a CSP that forbids eval (never use `TypeCompiler` in src-shared),
 * and nothing here holds Node or DOM. A refusal is our
 * {@link ApiInputError} in our words, the same ones the hand-written validators of validate.ts
 * use, with the JSON Pointer of the member concerned as its path; TypeBox's own messages are not
 * shown.
 */
import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { Errors, ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Check, Clone, Default } from '@sinclair/typebox/value';
import { ApiInputError } from './validate';

/** A schema node as the error wording reads it (only the keywords contract-schemas.ts uses). */
interface SchemaNode {
  [Kind]?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  /** Our annotation: what a string must be, in words, when it has a `pattern` (e.g. "a report id (rpt_ and a ULID)"). */
  rule?: string;
}

/** The values of a literal or a union of literals (TypeBox makes a union of one its member), else undefined. */
function literalsOf(schema: SchemaNode): unknown[] | undefined {
  if ('const' in schema) return [schema.const];
  if (schema.anyOf === undefined || !schema.anyOf.every((member) => 'const' in member)) return undefined;
  return schema.anyOf.map((member) => member.const);
}

/** What a value of the schema is, in words: "a string", "one of json, html, pdf". */
function expected(schema: SchemaNode): string {
  const literals = literalsOf(schema);
  if (literals !== undefined) return `one of ${literals.join(', ')}`;
  switch (schema[Kind]) {
    case 'String':
      return 'a string';
    case 'Integer':
      return 'a whole number';
    case 'Boolean':
      return 'true or false';
    case 'Object':
      return 'an object';
    case 'Array': {
      const items = schema.items === undefined ? undefined : literalsOf(schema.items);
      return items === undefined ? 'a list' : `a list of ${items.join(', ')}`;
    }
    default:
      return 'a valid value';
  }
}

/** The segments of a JSON Pointer (`/a/b~1c` gives `a`, `b/c`). */
function segmentsOf(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A JSON Pointer from segments. */
function pointerOf(segments: readonly string[]): string {
  return segments.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** How messages name a member: its path with dots (`filters.from`), `input` for the whole input. */
function nameOf(segments: readonly string[]): string {
  return segments.length === 0 ? 'input' : segments.join('.');
}

/** The schema of the member at `segments`, with the schema of each member on the way (the root first). */
function schemasAlong(root: SchemaNode, segments: readonly string[]): (SchemaNode | undefined)[] {
  const along: (SchemaNode | undefined)[] = [root];
  let node: SchemaNode | undefined = root;
  for (const segment of segments) {
    node =
      node === undefined
        ? undefined
        : node[Kind] === 'Array'
          ? node.items
          : Object.prototype.hasOwnProperty.call(node.properties ?? {}, segment)
            ? node.properties?.[segment]
            : undefined;
    along.push(node);
  }
  return along;
}

/** An unknown member of an object schema that allows none, in our words. */
function unknownMember(object: SchemaNode | undefined, segments: readonly string[]): ApiInputError {
  const allowed = Object.keys(object?.properties ?? {});
  const name = segments[segments.length - 1] ?? '';
  return new ApiInputError(
    `${nameOf(segments.slice(0, -1))} has an unknown member "${name}"${allowed.length ? `; allowed: ${allowed.join(', ')}` : ''}`,
    pointerOf(segments),
  );
}

/**
 * A list of distinct literals (`uniqueItems`, `maxItems`) refused: the first item that is not
 * one of them, or the first named twice, looking at no more than `maxItems + 1` items.
 */
function listRefusal(schema: SchemaNode, list: unknown[], segments: readonly string[]): ApiInputError | undefined {
  const items = schema.items;
  const allowed = items === undefined ? undefined : literalsOf(items);
  if (items === undefined || allowed === undefined) return undefined;
  const name = nameOf(segments);
  const seen: unknown[] = [];
  for (const item of list.slice(0, (schema.maxItems ?? list.length) + 1)) {
    if (!allowed.includes(item))
      return new ApiInputError(`${name} must each be ${expected(items)}`, pointerOf(segments));
    if (schema.uniqueItems === true && seen.includes(item))
      return new ApiInputError(`${name} names ${String(item)} twice`, pointerOf(segments));
    seen.push(item);
  }
  return undefined;
}

/** TypeBox's first error about the input, as our error. */
function inOurWords(root: SchemaNode, error: ValueError): ApiInputError {
  let segments = segmentsOf(error.path);
  const along = schemasAlong(root, segments);
  // An item of a list is reported at the list, which is what a form shows as one field.
  const inList = along.findIndex((node, index) => index < segments.length && node?.[Kind] === 'Array');
  if (inList >= 0 && error.type !== ValueErrorType.ObjectAdditionalProperties) {
    segments = segments.slice(0, inList);
    return new ApiInputError(
      `${nameOf(segments)} must each be ${expected(along[inList]?.items ?? {})}`,
      pointerOf(segments),
    );
  }
  const schema: SchemaNode = along[along.length - 1] ?? (error.schema as SchemaNode);
  const name = nameOf(segments);
  const path = segments.length === 0 ? undefined : pointerOf(segments);
  switch (error.type) {
    case ValueErrorType.ObjectAdditionalProperties:
      return unknownMember(along[along.length - 2], segments);
    case ValueErrorType.StringMinLength:
      return new ApiInputError(
        schema.minLength === 1
          ? `${name} must not be empty`
          : `${name} must be at least ${schema.minLength} characters`,
        path,
      );
    case ValueErrorType.StringMaxLength:
      return new ApiInputError(`${name} must be at most ${schema.maxLength} characters`, path);
    case ValueErrorType.StringPattern:
      return new ApiInputError(`${name} must be ${schema.rule ?? 'in the expected form'}`, path);
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
      return new ApiInputError(`${name} must be between ${schema.minimum} and ${schema.maximum}`, path);
    case ValueErrorType.ArrayMaxItems:
    case ValueErrorType.ArrayUniqueItems:
      return (
        listRefusal(schema, error.value as unknown[], segments) ??
        new ApiInputError(
          error.type === ValueErrorType.ArrayMaxItems
            ? `${name} must have at most ${schema.maxItems} items`
            : `${name} must not name anything twice`,
          path,
        )
      );
    default:
      // A member missing or of the wrong type: say what it must be (as validate.ts does).
      return new ApiInputError(`${name} must be ${expected(schema)}`, path);
  }
}

/**
 * The validator of one contract method from its schema, an object schema that allows no other
 * members.
 *
 * The validator takes the untrusted input (absent or null counts as `{}`, as the hand-written
 * validators take it), refuses anything the schema does not allow with an {@link ApiInputError}
 * in our words, and answers a fresh copy: the input's own members without undefined ones, the
 * schema's defaults filled in. Only the input's own enumerable members are read: an own
 * `__proto__` member is an unknown member like any other, and an inherited one is not there.
 *
 * @param schema - The method's input schema (Type.Object with `additionalProperties: false`).
 * @returns The validator, typed by the schema.
 */
export function validatorOf<S extends TSchema>(schema: S): (input: unknown) => Static<S> {
  const root = schema as SchemaNode;
  return (input) => {
    if (input !== undefined && input !== null && (typeof input !== 'object' || Array.isArray(input)))
      throw new ApiInputError('input must be an object');
    // Own members only; Object.fromEntries defines a `__proto__` member as data, so it stays visible.
    const copy = Object.fromEntries(Object.entries(input ?? {}).filter(([, value]) => value !== undefined));
    // Unknown members first, as validate.ts's objectInput does.
    if (root.additionalProperties === false) {
      for (const member of Object.keys(copy)) {
        if (!Object.prototype.hasOwnProperty.call(root.properties ?? {}, member)) throw unknownMember(root, [member]);
      }
    }
    if (!Check(schema, copy)) {
      const error = Errors(schema, copy).First();
      throw error === undefined ? new ApiInputError('input does not fit its method') : inOurWords(root, error);
    }
    return Default(schema, Clone(copy)) as Static<S>;
  };
}
