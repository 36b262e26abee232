/**
 * General svc-receipt-v1 envelopes (PROTOCOL section 4): recognition, verification and signing.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectEnvelope, verifyEnvelope } from './verify';
import { envelopeFacts } from './facts';
import { envelopeIssuer } from './issue';
import { envelopeSamples } from './samples';
import { envelopeSignedContent } from './signed-content';

export {
  ENVELOPE_CHECKS,
  ENVELOPE_ROLES,
  ENVELOPE_VERSION,
  detectEnvelope,
  envelopeDigest,
  verifyEnvelope,
  withoutSignatures,
} from './verify';
export type { EnvelopeRole } from './verify';
export { signEnvelope } from './sign';
export type { EnvelopeSigner } from './sign';
export { envelopeIssuer, issueEnvelope } from './issue';
export { envelopeFacts } from './facts';
export { envelopeSamples } from './samples';
export { envelopeSignedContent } from './signed-content';

/** The envelope format's entry in the format registry. */
export const envelopeFormat: FormatModule = {
  name: 'envelope/svc-receipt-v1',
  owns: (format) => format === 'envelope/svc-receipt-v1',
  detect: detectEnvelope,
  verify: verifyEnvelope,
  signedContent: envelopeSignedContent,
  facts: envelopeFacts,
  issuers: [envelopeIssuer],
  samples: envelopeSamples,
};
