/**
 * Sealed documents (PROTOCOL section 5): recognition, verification and sealing.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectSealed, verifySealed } from './verify';

export { SEALED_CHECKS, SEALED_ENC, detectSealed, verifySealed } from './verify';
export { sealDocument } from './sign';
export type { SealOptions } from './sign';

/** The sealed format's entry in the verification registry. */
export const sealedFormat: FormatModule = {
  name: 'sealed',
  detect: detectSealed,
  verify: verifySealed,
};
