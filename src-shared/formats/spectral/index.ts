/**
 * Spectral receipts (PROTOCOL section 14, producer srotzin/hive-receipt): recognition and
 * verification of both algorithms.
 *
 * The program verifies Spectral receipts other producers make; it issues none itself, so the
 * format has no issuers (its samples are signed by sign.ts).
 */
import type { FormatModule } from '../../verify/format-module';
import { spectralFacts } from './facts';
import { spectralSamples } from './samples';
import { spectralSignedContent } from './signed-content';
import { detectSpectral, verifySpectral } from './verify';

export { SPECTRAL_ALGORITHMS, SPECTRAL_CHECKS, detectSpectral, spectralPublicKey, verifySpectral } from './verify';
export {
  SPECTRAL_SIGNATURE_MEMBERS,
  javascriptMemberOrder,
  spectralPayload,
  spectralSignedBytes,
  type SpectralAlgorithm,
  type SpectralBytes,
} from './serialize';
export { signSpectral } from './sign';
export { spectralFacts } from './facts';
export { spectralSamples } from './samples';
export { spectralSignedContent } from './signed-content';

/** The Spectral format's entry in the format registry. */
export const spectralFormat: FormatModule = {
  name: 'spectral',
  owns: (format) => format === 'spectral',
  detect: detectSpectral,
  verify: verifySpectral,
  signedContent: spectralSignedContent,
  facts: spectralFacts,
  issuers: [],
  samples: spectralSamples,
};
