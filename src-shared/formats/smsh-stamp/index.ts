/**
 * SMSH-Stamp v1 (PROTOCOL section 14, producer srotzin/smsh-stamp-verifier): recognition and
 * verification.
 *
 * The program verifies SMSH stamps other producers make; it issues none itself, so the format has
 * no issuers (its samples are signed by sign.ts).
 */
import type { FormatModule } from '../../verify/format-module';
import { smshFacts } from './facts';
import { smshStampSamples } from './samples';
import { smshSignedContent } from './signed-content';
import { detectSmshStamp, verifySmshStamp } from './verify';

export { SMSH_CHECKS, SMSH_VERSION, detectSmshStamp, smshSignedText, verifySmshStamp } from './verify';
export { signSmshStamp } from './sign';
export { smshFacts } from './facts';
export { smshStampSamples } from './samples';
export { smshSignedContent } from './signed-content';

/** The SMSH-Stamp format's entry in the format registry. */
export const smshStampFormat: FormatModule = {
  name: 'smsh-stamp',
  owns: (format) => format === 'smsh-stamp',
  detect: detectSmshStamp,
  verify: verifySmshStamp,
  signedContent: smshSignedContent,
  facts: smshFacts,
  issuers: [],
  samples: smshStampSamples,
};
