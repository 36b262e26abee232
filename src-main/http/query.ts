/**
 * Query strings, read strictly.
 *
 * A query is `name=value` pairs joined by `&`, percent-encoded, `+` a space (as URLSearchParams
 * reads it). Each name is a parameter of its own: `profile[]` is not `profile`, and no name may
 * come twice. A route takes only the parameters its `querystring` schema declares (none when it
 * declares none); anything else is refused before the route runs, with a detail per parameter
 * named `?name` (docs/service.md, "Errors").
 */
import type { ErrorDetail } from '../../src-shared/api/error-envelope';

/** Where the parser leaves what it found wrong (a symbol: schema validation sees string keys only). */
const PROBLEMS = Symbol('query problems');

type ParsedQuery = Record<string, string> & { [PROBLEMS]?: ErrorDetail[] };

/** A name or value percent-decoded (`+` is a space); undefined when it is not valid UTF-8. */
function decode(text: string): string | undefined {
  // Most names and values need no decoding (`profile=standard`): no new string, no try.
  if (!/[%+]/.test(text)) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * Parses a query string (Fastify's `querystringParser`); never throws.
 *
 * @param text - The query, without its `?`.
 * @returns One string per name (the first of a repeated name), with what was wrong kept for
 *   {@link queryProblems}.
 */
export function parseQuery(text: string): Record<string, string> {
  const query: ParsedQuery = Object.create(null) as ParsedQuery;
  let problems: ErrorDetail[] | undefined;
  let repeated: Set<string> | undefined;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      const equals = text.indexOf('=', start);
      const split = equals !== -1 && equals < end;
      const rawName = text.slice(start, split ? equals : end);
      const name = decode(rawName);
      const value = split ? decode(text.slice(equals + 1, end)) : '';
      if (name === undefined || value === undefined) {
        (problems ??= []).push({ path: `?${name ?? rawName}`, message: 'is not valid percent-encoded UTF-8' });
      } else if (Object.hasOwn(query, name)) {
        repeated ??= new Set();
        if (!repeated.has(name)) (problems ??= []).push({ path: `?${name}`, message: 'is given more than once' });
        repeated.add(name);
      } else {
        query[name] = value;
      }
    }
    start = end + 1;
  }
  if (problems !== undefined) query[PROBLEMS] = problems;
  return query;
}

/**
 * What is wrong with a request's query for its route: parameters it does not declare, names
 * given twice, bad encoding; each with its `?name`.
 *
 * @param query - The request's query, as {@link parseQuery} made it.
 * @param declared - The parameters the route's querystring schema declares.
 * @returns The problems, in the order of the query; none when it is fine.
 */
export function queryProblems(query: unknown, declared: Readonly<Record<string, unknown>>): ErrorDetail[] {
  const parsed = query as ParsedQuery;
  const problems = parsed[PROBLEMS];
  let unknown: ErrorDetail[] | undefined;
  for (const name in parsed) {
    if (!Object.hasOwn(declared, name))
      (unknown ??= []).push({ path: `?${name}`, message: 'is not a parameter this route takes' });
  }
  if (unknown === undefined) return problems ?? [];
  return problems === undefined ? unknown : [...problems, ...unknown];
}
