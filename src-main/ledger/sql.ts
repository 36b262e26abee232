/**
 * A small `sql` tagged template in the Signal Desktop manner.
 *
 * Every value interpolated into a query becomes a `?` parameter, so no caller can splice text
 * into SQL. The only text that may be spliced is another fragment built the same way, or an
 * identifier that {@link sqlIdentifier} has checked against an allow-list. The result is a
 * `[text, params]` pair handed to better-sqlite3's `prepare(text).all(...params)`.
 */

/** A value SQLite can bind. */
export type SqlValue = string | number | bigint | Uint8Array | null;

const fragmentBrand: unique symbol = Symbol('SqlFragment');

/** A piece of SQL with its parameters, safe to interpolate into `sql` or `sqlFragment`. */
export interface SqlFragment {
  readonly [fragmentBrand]: true;
  readonly text: string;
  readonly params: readonly SqlValue[];
}

/** A complete query: the SQL text and its positional parameters. */
export type SqlQuery = readonly [text: string, params: readonly SqlValue[]];

function isFragment(value: unknown): value is SqlFragment {
  return typeof value === 'object' && value !== null && fragmentBrand in value;
}

function isSqlValue(value: unknown): value is SqlValue {
  return (
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    typeof value === 'bigint' ||
    value instanceof Uint8Array
  );
}

function build(strings: TemplateStringsArray, values: readonly (SqlValue | SqlFragment)[]): SqlFragment {
  let text = strings[0] ?? '';
  const params: SqlValue[] = [];
  values.forEach((value, index) => {
    if (isFragment(value)) {
      text += value.text;
      params.push(...value.params);
    } else if (isSqlValue(value)) {
      text += '?';
      params.push(value);
    } else {
      // undefined, booleans, objects and NaN have no single obvious SQLite value: refuse them.
      throw new TypeError(`sql: interpolated value ${index} is not bindable (${typeof value})`);
    }
    text += strings[index + 1] ?? '';
  });
  return { [fragmentBrand]: true, text, params };
}

/**
 * Build a complete query.
 *
 * @example
 * const [text, params] = sql`SELECT id FROM receipts WHERE status = ${status}`;
 * @returns `[text, params]`
 * @throws TypeError when an interpolated value is not bindable (undefined, boolean, object, NaN)
 */
export function sql(strings: TemplateStringsArray, ...values: (SqlValue | SqlFragment)[]): SqlQuery {
  const fragment = build(strings, values);
  return [fragment.text, fragment.params];
}

/**
 * Build a fragment to embed in another `sql` or `sqlFragment` template.
 *
 * @returns a fragment whose values are parameters
 * @throws TypeError when an interpolated value is not bindable
 */
export function sqlFragment(strings: TemplateStringsArray, ...values: (SqlValue | SqlFragment)[]): SqlFragment {
  return build(strings, values);
}

/**
 * Join fragments with a separator (itself plain SQL text such as `' AND '`).
 *
 * @param fragments - the pieces, in order
 * @param separator - SQL text put between them; it must come from the program, never from input
 * @returns one fragment
 */
export function sqlJoin(fragments: readonly SqlFragment[], separator: string): SqlFragment {
  return {
    [fragmentBrand]: true,
    text: fragments.map((fragment) => fragment.text).join(separator),
    params: fragments.flatMap((fragment) => fragment.params),
  };
}

/** An identifier (column or table) is spelled as SQLite's own unquoted names are. */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * An identifier checked against an allow-list, as a fragment.
 *
 * Column names for ORDER BY cannot be parameters, so they are the one place text is spliced;
 * the allow-list makes sure the text is one the program itself wrote.
 *
 * @param name - the identifier asked for
 * @param allowed - every identifier this call site accepts
 * @returns a fragment holding the quoted identifier
 * @throws RangeError when `name` is not in the allow-list
 */
export function sqlIdentifier(name: string, allowed: readonly string[]): SqlFragment {
  if (typeof name !== 'string') throw new TypeError('sqlIdentifier: name must be a string');
  if (!allowed.includes(name) || !IDENTIFIER.test(name)) {
    throw new RangeError(`sqlIdentifier: "${name}" is not one of ${allowed.join(', ')}`);
  }
  return { [fragmentBrand]: true, text: `"${name}"`, params: [] };
}
