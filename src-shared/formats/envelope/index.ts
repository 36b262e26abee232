/**
 * General svc-receipt-v1 envelopes (PROTOCOL section 4): recognition, verification and signing.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectEnvelope, verifyEnvelope } from './verify';

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

/** The envelope format's entry in the verification registry. */
export const envelopeFormat: FormatModule = {
  name: 'envelope/svc-receipt-v1',
  detect: detectEnvelope,
  verify: verifyEnvelope,
};
