/**
 * Countersigner records (PROTOCOL section 5): recognition, verification and signing.
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
  MAX_PATH_LENGTH,
  detectCountersigner,
  verifyCountersigner,
} from './verify';
export { signCountersigner } from './sign';
export type { CountersignOptions } from './sign';
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
