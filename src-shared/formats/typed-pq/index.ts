/**
 * Typed post-quantum attestations (PROTOCOL section 7, the typed signer's afir.attestation):
 * recognition, verification, signing and the documentation's worked example.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectTypedPq, verifyTypedPq } from './verify';
import { typedPqFacts } from './facts';
import { typedPqIssuer } from './issue';
import { typedPqSamples } from './samples';
import { typedPqSignedContent } from './signed-content';

export {
  MAX_TYPED_PQ_FRAGMENTS,
  TYPED_PQ_AGG_MODES,
  TYPED_PQ_HASH_SUITES,
  TYPED_PQ_OBJECT,
  TYPED_PQ_SCHEME,
  TYPED_PQ_VERSION,
  TYPED_PQ_VERSIONS,
  aggregateRoot,
  detectTypedPq,
  fragmentCanonDigest,
  payloadDigest,
  policyDigest,
  typedPqChecks,
  typedPqHash,
  typedPqSuiteName,
  verifyTypedPq,
} from './verify';
export type { TypedPqAggMode, TypedPqFragmentInput, TypedPqHash, TypedPqHashSuite } from './verify';
export { signTypedPq } from './sign';
export type { TypedPqFragmentSource, TypedPqSignOptions } from './sign';
export {
  TYPED_PQ_EXAMPLE_FRAGMENTS,
  TYPED_PQ_EXAMPLE_KEY_ID,
  TYPED_PQ_EXAMPLE_SIGN_TYPES,
  typedPqWorkedExample,
} from './examples';
export type { TypedPqWorkedExample } from './examples';
export { issueTypedPq, typedPqIssuer } from './issue';
export { typedPqFacts } from './facts';
export { typedPqSamples } from './samples';
export { typedPqSignedContent } from './signed-content';

/** The typed-pq format's entry in the format registry. */
export const typedPqFormat: FormatModule = {
  name: 'typed-pq',
  owns: (format) => format === 'typed-pq',
  detect: detectTypedPq,
  verify: verifyTypedPq,
  signedContent: typedPqSignedContent,
  facts: typedPqFacts,
  issuers: [typedPqIssuer],
  samples: typedPqSamples,
};
