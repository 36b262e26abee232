import { describe, expect, it } from 'vitest';
import {
  TYPED_CONTRACT_TYPES,
  TYPED_ROUTE_KINDS,
  contractTypeForRoute,
  isTypedContractType,
  isTypedRouteKind,
} from './contract-types';

describe('typed contract route kinds', () => {
  it('maps the seven routes of PROTOCOL section 6', () => {
    expect(TYPED_ROUTE_KINDS).toEqual({
      'delegation-link': 'authority.delegation',
      'proof-demand': 'proof.demand',
      'imprimatur-clearance': 'imprimatur.clearance',
      'sigr-chain': 'sigr.chain',
      'divergence-record': 'divergence.record',
      'effect-closure': 'effect.closure',
      'proof-transition': 'proof.transition',
    });
    expect(TYPED_CONTRACT_TYPES).toHaveLength(7);
    expect(Object.isFrozen(TYPED_ROUTE_KINDS)).toBe(true);
  });

  it('resolves a route to its contract type and refuses others', () => {
    expect(contractTypeForRoute('sigr-chain')).toBe('sigr.chain');
    expect(() => contractTypeForRoute('sigr.chain')).toThrow(RangeError);
    expect(() => contractTypeForRoute('toString')).toThrow(RangeError);
    expect(() => contractTypeForRoute(7 as unknown as string)).toThrow(TypeError);
  });

  it('recognizes types and kinds exactly', () => {
    expect(isTypedContractType('proof.demand')).toBe(true);
    expect(isTypedContractType('Proof.Demand')).toBe(false);
    expect(isTypedContractType(undefined)).toBe(false);
    expect(isTypedRouteKind('proof-demand')).toBe(true);
    expect(isTypedRouteKind('__proto__')).toBe(false);
  });
});
