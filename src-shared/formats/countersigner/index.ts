/**
 * Countersigner records (PROTOCOL section 5): recognition, verification and signing.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectCountersigner, verifyCountersigner } from './verify';

export {
  COUNTERSIGNER_CHECKS,
  COUNTERSIGNER_NOTE,
  MAX_PATH_LENGTH,
  detectCountersigner,
  verifyCountersigner,
} from './verify';
export { signCountersigner } from './sign';
export type { CountersignOptions } from './sign';

/** The countersigner format's entry in the verification registry. */
export const countersignerFormat: FormatModule = {
  name: 'countersigner',
  detect: detectCountersigner,
  verify: verifyCountersigner,
};
