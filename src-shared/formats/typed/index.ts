/**
 * Typed contracts (PROTOCOL section 6): recognition, verification, signing and the route table.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectTypedContract, verifyTypedFormat } from './verify';
import { typedFacts } from './facts';
import { typedIssuer } from './issue';
import { typedSamples } from './samples';
import { typedSignedContent } from './signed-content';

export {
  TYPED_ALGORITHM,
  TYPED_CONTRACT_TYPES,
  TYPED_ROUTE_KINDS,
  TYPED_SCHEMA_VERSION,
  contractTypeForRoute,
  isTypedContractType,
  isTypedRouteKind,
} from './contract-types';
export type { TypedContractType, TypedRouteKind } from './contract-types';
export { readTypedContract } from './schema';
export type {
  ClearanceBody,
  ClosureBody,
  DelegationBody,
  DemandBody,
  DivergenceBody,
  SigrBody,
  SigrLink,
  TransitionBody,
  TransitionState,
  TypedContract,
  TypedContractReading,
} from './schema';
export { ALLOWED_TRANSITIONS, TYPED_RULE_CHECKS, compareTimestamps, typedContractSha256 } from './rules';
export { MAX_SIGR_LINKS, SIGR_GENESIS_PREV, sigrLinkCheckIds, sigrLinkMessage, sigrLinkSha256 } from './sigr';
export {
  MAX_DELEGATION_PARENTS,
  TYPED_BASE_CHECKS,
  detectTypedContract,
  verifyTypedContract,
  verifyTypedFormat,
  verifyTypedRequest,
} from './verify';
export type { TypedVerifyOptions } from './verify';
export { buildDelegationChain, buildSigrChain, signSigrLink, signTypedContract } from './sign';
export type { DelegationLinkSpec, SigrLinkFields, TypedContractFields, TypedSigner } from './sign';
export { WORKED_EXAMPLE_SEED_HEX, typedWorkedExample } from './worked-example';
export type { TypedWorkedExample } from './worked-example';
export { TYPED_MEMBERS, issueTypedContract, typedIssuer } from './issue';
export { typedFacts } from './facts';
export { typedSamples } from './samples';
export { typedSignedContent } from './signed-content';

/** The typed contracts' entry in the format registry. */
export const typedFormat: FormatModule = {
  name: 'typed',
  owns: (format) => format.startsWith('typed/'),
  detect: detectTypedContract,
  verify: verifyTypedFormat,
  signedContent: typedSignedContent,
  facts: typedFacts,
  issuers: [typedIssuer],
  samples: typedSamples,
};
