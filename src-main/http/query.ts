/**
 * Query strings, read strictly.
 *
 * A query is `name=value` pairs joined by `&`, percent-encoded, `+` a space (as URLSearchParams
 * reads it). Each name is a parameter of its own: `profile[]` is not `profile`, and no name may
 * come twice. A route takes only the parameters its `querystring` schema declares (none when it
 * declares none); anything else is refused before the route runs, with a detail per parameter
 * named `?name` (docs/service.md, "Errors").
 */
import type { FastifyRequest } from 'fastify';
import type { ErrorDetail } from '../../src-shared/api/error-envelope';

/** Where the parser leaves what it found wrong (a symbol: schema validation sees string keys only). */
const PROBLEMS = Symbol('query problems');

type ParsedQuery = Record<string, string> & { [PROBLEMS]?: ErrorDetail[] };

function decode(text: string): string | undefined {
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
  const problems: ErrorDetail[] = [];
  const repeated = new Set<string>();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const name = decode(rawName);
    const value = decode(equals === -1 ? '' : pair.slice(equals + 1));
    if (name === undefined || value === undefined) {
      problems.push({ path: `?${name ?? rawName}`, message: 'is not valid percent-encoded UTF-8' });
      continue;
    }
    if (Object.hasOwn(query, name)) {
      if (!repeated.has(name)) problems.push({ path: `?${name}`, message: 'is given more than once' });
      repeated.add(name);
      continue;
    }
    query[name] = value;
  }
  if (problems.length > 0) query[PROBLEMS] = problems;
  return query;
}

/**
 * What is wrong with a request's query for its route: parameters it does not declare, names
 * given twice, bad encoding; each with its `?name`.
 *
 * @param request - A request of a route (not the not-found handler).
 * @returns The problems, in the order of the query; none when it is fine.
 */
export function queryProblems(request: FastifyRequest): ErrorDetail[] {
  const query = request.query as ParsedQuery;
  const names = Object.keys(query);
  const parsed = query[PROBLEMS];
  // Most requests have no query: nothing to look up (routeOptions is built on each read).
  if (names.length === 0 && parsed === undefined) return [];
  const problems = [...(parsed ?? [])];
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  const declared = schema?.properties ?? {};
  for (const name of names) {
    if (!Object.hasOwn(declared, name))
      problems.push({ path: `?${name}`, message: 'is not a parameter this route takes' });
  }
  return problems;
}
