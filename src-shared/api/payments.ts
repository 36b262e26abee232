/**
 * API keys bought on chain (PROTOCOL section 13; docs/payments.md): the words every door uses
 * for a payment and its delivery, and the shape a payment is listed in.
 *
 * A payment is an ERC-20 `transfer` of the stablecoin to the service's treasury whose call data
 * carries a JSON memo after the 68 bytes of the call. Each transaction is recorded once, with one
 * of {@link PAYMENT_STATES}; only `issued` made a key, and the key itself is never listed: it goes
 * to the buyer's contact ({@link DELIVERY_CHANNELS}).
 */
import type { Tier } from './vocabulary';

/** The stablecoin's decimals: amounts are whole units of 10^-6 of the currency. */
export const STABLECOIN_DECIMALS = 6;

/** Tiers a memo may name: pro and scale buy a key; enterprise is recorded for sales (no key). */
export const MEMO_TIERS = ['pro', 'scale', 'enterprise'] as const;
export type MemoTier = (typeof MEMO_TIERS)[number];

/** Tiers bought on chain, and their monthly price in stablecoin units (spec section 8: 99 and 499 USDC). */
export const MONTHLY_PRICE_UNITS: Readonly<Record<'pro' | 'scale', bigint>> = {
  pro: 99_000_000n,
  scale: 499_000_000n,
};
/** Annual prepay is ten months' price (spec section 8). */
export const ANNUAL_MONTHS_PRICE = 10n;
/** Enterprise: 5,000 or more a year, by contact only (spec section 8). */
export const ENTERPRISE_ANNUAL_FROM_UNITS = 5_000_000_000n;

/** The term a payment buys. */
export const PAYMENT_TERMS = ['month', 'year'] as const;
export type PaymentTerm = (typeof PAYMENT_TERMS)[number];
/** A month of a bought term is 30 days; a year 365 days (docs/payments.md). */
export const TERM_MS: Readonly<Record<PaymentTerm, number>> = {
  month: 30 * 24 * 60 * 60 * 1000,
  year: 365 * 24 * 60 * 60 * 1000,
};

/**
 * What became of a payment transaction.
 *
 * - `pending_confirmations`: seen, valid so far, waiting for the confirmations; nothing issued.
 * - `issued`: a key was issued (exactly one for this transaction) and goes to the contact.
 * - `underpaid`: less than the tier's monthly price; no key.
 * - `memo_invalid`: no memo, or one that is not PROTOCOL 13's JSON; no key.
 * - `wrong_token`: a transfer to the treasury in another token; ignored, no key.
 * - `contact_sales`: an enterprise memo: recorded for sales, no key.
 * - `reverted`: the transaction failed on chain; no key.
 * - `dropped`: seen while unconfirmed, then gone from the chain (a reorganisation); no key.
 */
export const PAYMENT_STATES = [
  'pending_confirmations',
  'issued',
  'underpaid',
  'memo_invalid',
  'wrong_token',
  'contact_sales',
  'reverted',
  'dropped',
] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

/** How an issued key reaches its buyer: mail (outbox folder or SMTP), or sealed to a did:key for pickup. */
export const DELIVERY_CHANNELS = ['outbox', 'smtp', 'sealed'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

/** Where a delivery stands: `none` when nothing is to be delivered (no key was issued). */
export const DELIVERY_STATES = ['none', 'pending', 'delivered'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A payment as listed to operators and in the app (never the key, nor its hash). */
export interface PaymentView {
  /** `0x` and 64 lowercase hex. */
  tx_hash: string;
  /** The chain's network name (e.g. `anvil-local`). */
  network: string;
  block_number: number | null;
  /** The payer's address, lowercase. */
  from: string | null;
  /** The token transferred, lowercase. */
  token: string | null;
  /** Amount in the token's units, as a decimal string. */
  amount: string | null;
  tier: MemoTier | null;
  term: PaymentTerm | null;
  contact: string | null;
  issuer_did: string | null;
  state: PaymentState;
  /** Why the state is what it is, in words (e.g. "paid 50.000000, the pro month is 99.000000"). */
  reason: string | null;
  /** The tenant the key belongs to (issued payments). */
  tenant_id: string | null;
  /** The issued key's prefix (`svc_pro_Ab12Cd34`), never the key. */
  key_prefix: string | null;
  /** When the tenant's paid term ends (ms since the epoch), for issued payments. */
  expires_at: number | null;
  delivery: {
    channel: DeliveryChannel | null;
    state: DeliveryState;
    /** Where it goes: the e-mail address or the did:key (the contact, or postmaster@ a domain). */
    to: string | null;
    attempts: number;
    last_error: string | null;
    delivered_at: number | null;
  };
  /** When the service first saw the transaction, and last changed the record (ms since the epoch). */
  seen_at: number;
  updated_at: number;
}

/** The confirmed tier and term a payment of `amount` units buys, or undefined when it is under the monthly price. */
export function termPaid(tier: 'pro' | 'scale', amount: bigint): PaymentTerm | undefined {
  const monthly = MONTHLY_PRICE_UNITS[tier];
  if (amount >= monthly * ANNUAL_MONTHS_PRICE) return 'year';
  if (amount >= monthly) return 'month';
  return undefined;
}

/** Units as a decimal amount with the token's six places: 99000000n → "99.000000". */
export function formatUnits(units: bigint): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(STABLECOIN_DECIMALS + 1, '0');
  const whole = digits.slice(0, -STABLECOIN_DECIMALS);
  return `${negative ? '-' : ''}${whole}.${digits.slice(-STABLECOIN_DECIMALS)}`;
}

/** Which tiers the price ladder sells on chain, with their prefixes' tier. */
export type PaidTier = Extract<Tier, 'pro' | 'scale'>;

/** Where and how a service takes payments on one chain, as `GET /pricing` lists it under `chains`. */
export interface PricingChain {
  /** The network name (as anchors carry it). */
  network: string;
  chain_id: number;
  /** The stablecoin's contract, lowercase `0x` hex. */
  token: string;
  decimals: typeof STABLECOIN_DECIMALS;
  /** Where payments go, lowercase. */
  treasury: string;
  /** True on a local development chain whose development accounts hold test tokens. */
  development: boolean;
  /** Each tier's price in the token's units, as decimal strings (JSON has no 64-bit integers). */
  tiers: (
    | { tier: 'pro' | 'scale'; monthly_units: string; annual_units: string }
    | { tier: 'enterprise'; annual_from_units: string; by_contact: true }
  )[];
}

/** The `chains` entry of `GET /pricing` for a token and treasury. */
export function pricingChain(config: {
  network: string;
  chainId: number;
  token: string;
  treasury: string;
  embedded: boolean;
}): PricingChain {
  const paid = (tier: 'pro' | 'scale') => ({
    tier,
    monthly_units: MONTHLY_PRICE_UNITS[tier].toString(),
    annual_units: (MONTHLY_PRICE_UNITS[tier] * ANNUAL_MONTHS_PRICE).toString(),
  });
  return {
    network: config.network,
    chain_id: config.chainId,
    token: config.token.toLowerCase(),
    decimals: STABLECOIN_DECIMALS,
    treasury: config.treasury.toLowerCase(),
    development: config.embedded,
    tiers: [
      paid('pro'),
      paid('scale'),
      { tier: 'enterprise', annual_from_units: ENTERPRISE_ANNUAL_FROM_UNITS.toString(), by_contact: true },
    ],
  };
}
