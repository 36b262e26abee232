/**
 * HAHS receipts (PROTOCOL section 14, producer srotzin/hive-py): recognition and verification.
 *
 * The program verifies HAHS receipts other producers issue; it issues none itself, so the format
 * has no issuers (its samples are signed by sign.ts).
 */
import type { FormatModule } from '../../verify/format-module';
import { hahsFacts } from './facts';
import { hahsSamples } from './samples';
import { hahsSignedContent } from './signed-content';
import { detectHahs, verifyHahs } from './verify';

export {
  HAHS_ANCHOR_NOTE,
  HAHS_CHECKS,
  HAHS_ISSUER_VERIFIED_NOTE,
  HAHS_PROTOCOL,
  detectHahs,
  hahsBody,
  hahsCanonicalText,
  verifyHahs,
} from './verify';
export { signHahs } from './sign';
export { hahsFacts, schemedKeyId } from './facts';
export { HAHS_EXAMPLE_BODY, hahsSamples } from './samples';
export { hahsSignedContent } from './signed-content';

/** The HAHS format's entry in the format registry. */
export const hahsFormat: FormatModule = {
  name: 'hahs',
  owns: (format) => format === 'hahs',
  detect: detectHahs,
  verify: verifyHahs,
  signedContent: hahsSignedContent,
  facts: hahsFacts,
  issuers: [],
  samples: hahsSamples,
};
