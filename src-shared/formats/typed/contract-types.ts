/**
 * The seven typed contracts (PROTOCOL section 6) and the service route kind of each.
 *
 * One table maps `POST {typed_url}/v1/verify/<kind>` to the contract type it verifies, so the
 * service, the verifier and the docs cannot disagree about the pairs.
 */

/** The schema version every typed contract of this protocol carries. */
export const TYPED_SCHEMA_VERSION = 'r1.0.0';

/** The only signature algorithm of r1.0.0; any other value is UNSUPPORTED. */
export const TYPED_ALGORITHM = 'Ed25519';

/** Route kind to contract type, in the order of PROTOCOL section 6. */
export const TYPED_ROUTE_KINDS = Object.freeze({
  'delegation-link': 'authority.delegation',
  'proof-demand': 'proof.demand',
  'imprimatur-clearance': 'imprimatur.clearance',
  'sigr-chain': 'sigr.chain',
  'divergence-record': 'divergence.record',
  'effect-closure': 'effect.closure',
  'proof-transition': 'proof.transition',
} as const);

/** A route kind of `POST {typed_url}/v1/verify/<kind>`. */
export type TypedRouteKind = keyof typeof TYPED_ROUTE_KINDS;

/** A typed contract type. */
export type TypedContractType = (typeof TYPED_ROUTE_KINDS)[TypedRouteKind];

/** The seven contract types, in the order of PROTOCOL section 6. */
export const TYPED_CONTRACT_TYPES: readonly TypedContractType[] = Object.freeze(Object.values(TYPED_ROUTE_KINDS));

/**
 * Whether a value names one of the seven contract types.
 *
 * @param value - Anything.
 * @returns True for e.g. `authority.delegation`.
 */
export function isTypedContractType(value: unknown): value is TypedContractType {
  return typeof value === 'string' && (TYPED_CONTRACT_TYPES as readonly string[]).includes(value);
}

/**
 * Whether a value names one of the seven route kinds.
 *
 * @param value - Anything.
 * @returns True for e.g. `delegation-link`.
 */
export function isTypedRouteKind(value: unknown): value is TypedRouteKind {
  return typeof value === 'string' && Object.hasOwn(TYPED_ROUTE_KINDS, value);
}

/**
 * The contract type a route kind verifies.
 *
 * @param kind - A route kind, e.g. `sigr-chain`.
 * @returns The contract type, e.g. `sigr.chain`.
 * @throws TypeError if `kind` is not a string.
 * @throws RangeError if `kind` is not one of the seven route kinds.
 */
export function contractTypeForRoute(kind: string): TypedContractType {
  if (typeof kind !== 'string') throw new TypeError('A route kind must be a string');
  if (!isTypedRouteKind(kind)) {
    throw new RangeError(
      `Unknown typed-contract route kind ${JSON.stringify(kind.slice(0, 64))}; known: ${Object.keys(TYPED_ROUTE_KINDS).join(', ')}`,
    );
  }
  return TYPED_ROUTE_KINDS[kind];
}
