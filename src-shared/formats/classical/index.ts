/**
 * Classical receipts (PROTOCOL section 5): recognition, verification and signing.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectClassical, verifyClassical } from './verify';

export { CLASSICAL_CHECKS, detectClassical, verifyClassical } from './verify';
export { signClassical } from './sign';
export type { ClassicalSignOptions } from './sign';

/** The classical format's entry in the verification registry. */
export const classicalFormat: FormatModule = {
  name: 'classical',
  detect: detectClassical,
  verify: verifyClassical,
};
