/**
 * The profile rubric (PROTOCOL section 3): which receipt profile fits a use.
 *
 * Free verification or an amount under one cent: nano. A regulated intent, or retention past
 * 365 days: pq. Commerce: standard. Anything else: standard. A recommendation, not regulatory
 * approval, and the answer says so.
 */
import type { EmitProfile } from './service-issue';

/** Intents the rubric reads; anything else counts as `other`. */
export const RUBRIC_INTENTS = ['free_verify', 'commerce', 'regulated', 'other'] as const;
export type RubricIntent = (typeof RUBRIC_INTENTS)[number];

/** What the rubric is asked. */
export interface RubricRequest {
  intent: string;
  amount_usd?: number;
  counterparty?: string;
  retention_days?: number;
}

/** The rubric's answer. */
export interface RubricAnswer {
  recommended_profile: EmitProfile;
  reasons: string[];
  disclaimer: string;
}

export const RUBRIC_DISCLAIMER = 'A recommendation from the published rubric, not regulatory approval: check the retention and evidence rules that apply to you.';

/**
 * Recommends a profile.
 *
 * @param request - The intent, and optionally the amount in USD, the counterparty, the retention.
 * @returns The profile with the reasons that chose it.
 */
export function recommendProfile(request: RubricRequest): RubricAnswer {
  const reasons: string[] = [];
  const intent = request.intent.trim().toLowerCase();
  let profile: EmitProfile;
  if (intent === 'regulated' || (request.retention_days !== undefined && request.retention_days > 365)) {
    profile = 'pq';
    if (intent === 'regulated') reasons.push('a regulated use wants the long-retention profile');
    if (request.retention_days !== undefined && request.retention_days > 365) reasons.push(`retention of ${request.retention_days} days is past the standard profile's 365`);
  } else if (intent === 'free_verify' || (request.amount_usd !== undefined && request.amount_usd < 0.01)) {
    profile = 'nano';
    if (intent === 'free_verify') reasons.push('free verification needs only the compact profile');
    if (request.amount_usd !== undefined && request.amount_usd < 0.01) reasons.push(`an amount of ${request.amount_usd} USD is under one cent`);
  } else if (intent === 'commerce') {
    profile = 'standard';
    reasons.push('commerce carries a settlement reference and context: the standard profile');
  } else {
    profile = 'standard';
    reasons.push('no rule chose another profile: standard is the default');
  }
  if (request.counterparty !== undefined) reasons.push(`counterparty ${request.counterparty} noted; it does not change the profile`);
  return { recommended_profile: profile, reasons, disclaimer: RUBRIC_DISCLAIMER };
}
