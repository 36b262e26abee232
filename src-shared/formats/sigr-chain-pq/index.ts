/**
 * SiGR chain receipts (PROTOCOL section 14, `sigr.chain.receipt`, 1.0.0-typed-pq, ML-DSA-65):
 * the typed signer's sealed agent runs. Recognition, verification, signing, samples.
 */
import type { FormatModule } from '../../verify/format-module';
import { sigrChainFacts } from './facts';
import { sigrChainIssuer } from './issue';
import { sigrChainSamples } from './samples';
import { sigrChainSignedContent } from './signed-content';
import { detectSigrChain, verifySigrChain } from './verify';

export {
  MAX_SIGR_STEPS,
  SIGR_CHAIN_OBJECT,
  SIGR_CHAIN_SCHEME,
  SIGR_CHAIN_VERSION,
  SIGR_STEP_KINDS,
  SIGR_STEP_OBJECT,
  baseCanonical,
  committedRecord,
  ioDigest,
  payloadDigest,
  payloadPreimage,
  sigrMerkleRoot,
  sigrSuite,
  stepCommitDigest,
} from './chain';
export type { SigrBase, SigrStepRecord, SigrSuite } from './chain';
export {
  SIGR_EXAMPLE_AGENT_REF,
  SIGR_EXAMPLE_ISSUED_AT,
  SIGR_EXAMPLE_RUN_ID,
  SIGR_EXAMPLE_SEED_BYTE,
  SIGR_EXAMPLE_STEPS,
  sigrChainExampleRun,
  sigrChainWorkedExample,
} from './example';
export type { SigrChainWorkedExample } from './example';
export { detectSigrChain, sigrChainChecks, verifySigrChain } from './verify';
export { signSigrChain } from './sign';
export type { SigrRun, SigrRunStep, SigrSignOptions } from './sign';
export { issueSigrChain, sigrChainIssuer } from './issue';
export { sigrChainFacts } from './facts';
export { SIGR_SAMPLE_KEY_ID, sigrChainSamples } from './samples';
export { sigrChainSignedContent } from './signed-content';

/** The sigr-chain-pq format's entry in the format registry. */
export const sigrChainFormat: FormatModule = {
  name: 'sigr-chain-pq',
  owns: (format) => format === 'sigr-chain-pq',
  detect: detectSigrChain,
  verify: verifySigrChain,
  signedContent: sigrChainSignedContent,
  facts: sigrChainFacts,
  issuers: [sigrChainIssuer],
  samples: sigrChainSamples,
};
