/**
 * Sealed documents (PROTOCOL section 5): recognition, verification and sealing.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectSealed, verifySealed } from './verify';
import { sealedFacts } from './facts';
import { sealedIssuer } from './issue';
import { sealedSamples } from './samples';
import { sealedSignedContent } from './signed-content';

export { SEALED_CHECKS, SEALED_ENC, detectSealed, verifySealed } from './verify';
export { sealDocument } from './sign';
export type { SealOptions } from './sign';
export { NotADocumentError, issueSealed, sealedIssuer } from './issue';
export { sealedFacts } from './facts';
export { sealedSamples } from './samples';
export { sealedSignedContent } from './signed-content';

/** The sealed format's entry in the format registry. */
export const sealedFormat: FormatModule = {
  name: 'sealed',
  owns: (format) => format === 'sealed',
  detect: detectSealed,
  verify: verifySealed,
  signedContent: sealedSignedContent,
  facts: sealedFacts,
  issuers: [sealedIssuer],
  samples: sealedSamples,
};
