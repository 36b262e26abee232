/**
 * Countersigner records (PROTOCOL section 5): recognition, verification and countersigning.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectCountersigner, verifyCountersigner } from './verify';
import { countersignerFacts } from './facts';
import { countersignerIssuer } from './issue';
import { countersignerSamples } from './samples';
import { countersignerSignedContent } from './signed-content';

export {
  COUNTERSIGNER_CHECKS,
  COUNTERSIGNER_NOTE,
  COUNTERSIGNER_OPTIONAL_INPUTS,
  MAX_PATH_LENGTH,
  countersignerShape,
  detectCountersigner,
  rebuildSignedOverCanonical,
  verifyCountersigner,
} from './verify';
export type { CountersignerShape } from './verify';
export { countersign, inclusionAnswer, verifyRequest } from './sign';
export type { CountersignOptions, CountersignRequest, CountersignedEntry } from './sign';
export { auditPath, foldAuditPath, genesisLeaf, leafHash, logRoot, nodeHash, taggedHash } from './log';
export type { AuditStep, CountersignerTag, LeafParts } from './log';
export { countersignerIssuer, issueCountersigner } from './issue';
export { countersignerFacts } from './facts';
export { countersignerSamples } from './samples';
export { countersignerSignedContent } from './signed-content';

/** The countersigner format's entry in the format registry. */
export const countersignerFormat: FormatModule = {
  name: 'countersigner',
  owns: (format) => format === 'countersigner',
  detect: detectCountersigner,
  verify: verifyCountersigner,
  signedContent: countersignerSignedContent,
  facts: countersignerFacts,
  issuers: [countersignerIssuer],
  samples: countersignerSamples,
};
