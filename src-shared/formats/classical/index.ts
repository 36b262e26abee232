/**
 * Classical receipts (PROTOCOL section 5): recognition, verification and signing.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectClassical, verifyClassical } from './verify';
import { classicalFacts } from './facts';
import { classicalIssuer } from './issue';
import { classicalSamples } from './samples';
import { classicalSignedContent } from './signed-content';

export { CLASSICAL_CHECKS, detectClassical, verifyClassical } from './verify';
export { signClassical } from './sign';
export type { ClassicalSignOptions } from './sign';
export { classicalIssuer, issueClassical } from './issue';
export { classicalFacts } from './facts';
export { classicalSamples } from './samples';
export { classicalSignedContent } from './signed-content';

/** The classical format's entry in the format registry. */
export const classicalFormat: FormatModule = {
  name: 'classical',
  owns: (format) => format === 'classical',
  detect: detectClassical,
  verify: verifyClassical,
  signedContent: classicalSignedContent,
  facts: classicalFacts,
  issuers: [classicalIssuer],
  samples: classicalSamples,
};
