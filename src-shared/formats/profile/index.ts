/**
 * Profile receipts (PROTOCOL section 3): nano, standard and pq, and legacy proof_tier receipts.
 * Recognition, verification, issuing and the documentation's worked examples.
 */
import type { FormatModule } from '../../verify/format-module';
import { detectProfile, verifyProfile } from './verify';
import { profileFacts } from './facts';
import { profileIssuers } from './issue';
import { profileSamples } from './samples';
import { profileSignedContent } from './signed-content';

export {
  LEGACY_NOTE,
  NANO_BYTE_BUDGET,
  NANO_NOT_OK_NOTE,
  PQ_POSTURE_NOTE,
  PROFILE_BYTE_BUDGETS,
  PROFILE_CHECKS,
  PROFILE_NAMES,
  PROFILE_SCHEMA_VERSION,
  SETTLEMENT_NOTE,
  STANDARD_BYTE_BUDGET,
  detectProfile,
  profileByteLength,
  profileDigest,
  profileOf,
  profileSigningText,
  profileSigningTextOfTree,
  verifyProfile,
} from './verify';
export type { ProfileFormat, ProfileName } from './verify';
export {
  DEFAULT_VERIFY_URI,
  issueLegacyReceipt,
  issueProfileReceipt,
  ProfileBudgetError,
  ProfileFieldsError,
} from './sign';
export type {
  LegacyIssueOptions,
  LegacyTier,
  NanoFields,
  PqFields,
  ProfileContent,
  ProfileFieldsByName,
  ProfileIssueOptions,
  StandardFields,
} from './sign';
export {
  CROCKFORD_ALPHABET,
  MAX_ULID_TIME,
  RECEIPT_ID_PATTERN,
  RECEIPT_ID_PREFIX,
  ULID_RANDOM_LENGTH,
  createReceiptId,
  encodeUlid,
  isReceiptId,
  receiptIdTime,
} from './receipt-id';
export {
  PROFILE_EXAMPLE_AGENT,
  PROFILE_EXAMPLE_CONTENT,
  PROFILE_EXAMPLE_KEY_ID,
  PROFILE_EXAMPLE_NOW,
  profileWorkedExamples,
} from './examples';
export type { ProfileWorkedExample } from './examples';
export { PROFILE_MEMBERS, profileIssuers } from './issue';
export { profileFacts } from './facts';
export { profileSamples } from './samples';
export { profileSignedContent } from './signed-content';

/** The profile receipts' entry in the format registry (all four report formats). */
export const profileFormat: FormatModule = {
  name: 'profile',
  owns: (format) => format.startsWith('profile/') || format === 'legacy/proof_tier',
  detect: detectProfile,
  verify: verifyProfile,
  signedContent: profileSignedContent,
  facts: profileFacts,
  issuers: profileIssuers,
  samples: profileSamples,
};
