/**
 * The profile rubric (PROTOCOL section 3): which receipt profile a use calls for.
 *
 * Pure: the same input always gives the same recommendation. `POST /v1/rubric/select` and the
 * prospector's readiness check both use it, so they can never disagree.
 */

/** The profiles the rubric recommends. */
export const RUBRIC_PROFILES = ['nano', 'standard', 'pq'] as const;
export type RubricProfile = (typeof RUBRIC_PROFILES)[number];

/** The intents the rubric knows; any other intent is judged by amount and retention only. */
export const RUBRIC_INTENTS = ['free_verify', 'commerce', 'regulated'] as const;
export type RubricIntent = (typeof RUBRIC_INTENTS)[number];

/** Below this amount (USD) a transaction is sub-cent: nano. */
export const SUB_CENT_USD = 0.01;
/** Retention over this many days calls for pq. */
export const LONG_RETENTION_DAYS = 365;

/** What the rubric looks at; every member is optional. */
export interface RubricInput {
  intent?: string;
  amount_usd?: number;
  counterparty?: string;
  retention_days?: number;
}

/** The recommendation and why. */
export interface RubricResult {
  recommended_profile: RubricProfile;
  reasons: string[];
}

/**
 * The profile the rubric recommends, with its reasons.
 *
 * PROTOCOL 3: free verify or an amount under 0.01 USD is nano; a regulated intent or retention
 * over 365 days is pq; commerce is standard; anything else is standard. When rules disagree,
 * pq wins over nano: a small amount does not waive a regulated or long-retention need.
 *
 * @param input - intent, amount_usd, counterparty, retention_days (all optional).
 * @returns The recommended profile and the reasons that led to it.
 * @throws TypeError if input is not an object or a member has the wrong type.
 * @throws RangeError if amount_usd or retention_days is negative or not finite.
 */
export function recommendProfile(input: RubricInput): RubricResult {
  if (typeof input !== 'object' || input === null) throw new TypeError('recommendProfile expects an object');
  const { intent, amount_usd: amount, counterparty, retention_days: retention } = input;
  if (intent !== undefined && typeof intent !== 'string') throw new TypeError('intent must be a string');
  if (counterparty !== undefined && typeof counterparty !== 'string')
    throw new TypeError('counterparty must be a string');
  if (amount !== undefined && typeof amount !== 'number') throw new TypeError('amount_usd must be a number');
  if (retention !== undefined && typeof retention !== 'number') throw new TypeError('retention_days must be a number');
  if (amount !== undefined && !(Number.isFinite(amount) && amount >= 0))
    throw new RangeError('amount_usd must be a finite number >= 0');
  if (retention !== undefined && !(Number.isFinite(retention) && retention >= 0))
    throw new RangeError('retention_days must be a finite number >= 0');

  const pq: string[] = [];
  if (intent === 'regulated') pq.push('a regulated intent calls for the pq profile');
  if (retention !== undefined && retention > LONG_RETENTION_DAYS)
    pq.push(`retention of ${retention} days is over ${LONG_RETENTION_DAYS} days`);
  if (pq.length > 0) return { recommended_profile: 'pq', reasons: pq };

  const nano: string[] = [];
  if (intent === 'free_verify') nano.push('free verification needs only the nano profile');
  if (amount !== undefined && amount < SUB_CENT_USD)
    nano.push(`an amount of ${amount} USD is under ${SUB_CENT_USD} USD`);
  if (nano.length > 0) return { recommended_profile: 'nano', reasons: nano };

  if (intent === 'commerce')
    return {
      recommended_profile: 'standard',
      reasons: ['commerce calls for the standard profile (it carries a settlement reference)'],
    };
  return { recommended_profile: 'standard', reasons: ['no rule for nano or pq applies: standard is the default'] };
}
