/**
 * Buying an API key on chain (PROTOCOL section 13, docs/payments.md): one ERC-20 `transfer` of
 * the tier's price to the service's treasury, with the memo after the call data.
 *
 * The buyer's side, shared by the doors that pay: `evroom apikeys buy` (a wallet key file, any
 * chain) and the app's Service view (a development account of the embedded chain, test tokens).
 * The price is the tier's monthly price, or ten months' price for a year (`annual`); the memo is
 * JCS of `{tier, contact, issuer_did?}`, checked by the same rules the service reads it with, so
 * a payment sent from here is never recorded as `memo_invalid`. The key is not returned: the
 * service delivers it to the contact (mail, or sealed to a did:key for pickup).
 *
 * The private key stays in the chain client; it is never put in a message, an error or a log.
 */
import { ANNUAL_MONTHS_PRICE, MONTHLY_PRICE_UNITS, type PaidTier } from '../../src-shared/api/payments';
import { contactProblem, encodeMemo, transferCalldata } from '../../src-shared/payments/memo';
import { ChainError } from '../anchor/chain';
import { DEVELOPMENT_ACCOUNT_KEYS, sendCall } from '../anchor/stablecoin';
import { OperationError } from './errors';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/** What to buy, from whom, on which chain. */
export interface BuyKeyOptions {
  /** The chain's JSON-RPC. */
  rpcUrl: string;
  /** The paying account's key (`0x` and 64 hex); it signs the transfer and goes nowhere else. */
  privateKey: `0x${string}`;
  /** The stablecoin, as `GET /pricing` lists it for the chain. */
  token: string;
  /** The service's treasury, as `GET /pricing` lists it. */
  treasury: string;
  tier: PaidTier;
  /** Where the key goes: an e-mail address, a domain (its postmaster) or an Ed25519 did:key. */
  contact: string;
  /** The DID the key's receipts are issued for. */
  issuerDid?: string;
  /** A year (ten months' price) instead of a month. */
  annual: boolean;
}

/** A payment sent. */
export interface BoughtKey {
  /** The transaction's hash, `0x` and 64 lowercase hex: what the buyer follows the payment by. */
  tx_hash: string;
  /** What was paid, in the token's units. */
  amount: bigint;
  /** The memo's bytes as sent (JCS). */
  memo: Uint8Array;
}

/**
 * The price of a tier's term in token units: the monthly price, or ten months' for a year.
 *
 * @param tier - pro or scale.
 * @param annual - a year instead of a month.
 */
export function keyPrice(tier: PaidTier, annual: boolean): bigint {
  const monthly = MONTHLY_PRICE_UNITS[tier];
  if (monthly === undefined) throw new RangeError('keyPrice: tier must be pro or scale');
  return annual ? monthly * ANNUAL_MONTHS_PRICE : monthly;
}

/**
 * The key of one of the embedded chain's funded development accounts (anvil's well-known ones).
 *
 * @param account - 0 to 9.
 * @throws RangeError for another number
 */
export function developmentAccountKey(account: number): `0x${string}` {
  const key = Number.isInteger(account) ? DEVELOPMENT_ACCOUNT_KEYS[account] : undefined;
  if (key === undefined)
    throw new RangeError(`developmentAccountKey: account must be 0 to ${DEVELOPMENT_ACCOUNT_KEYS.length - 1}`);
  return key;
}

/**
 * Pays for a key: sends the transfer with its memo and answers the transaction's hash.
 *
 * @throws OperationError invalid_input `contact_invalid` / `memo_invalid` when the memo would be refused;
 *   refused `payment_not_sent` when the chain did not take the transaction (unreachable, reverted in
 *   estimation, not enough tokens or gas). Nothing was sent then.
 */
export async function buyKeyOnChain(options: BuyKeyOptions): Promise<BoughtKey> {
  const { rpcUrl, privateKey, token, treasury, tier, contact, issuerDid, annual } = options;
  if (typeof rpcUrl !== 'string' || rpcUrl === '') throw new TypeError('buyKeyOnChain: rpcUrl must be a string');
  if (typeof privateKey !== 'string' || !PRIVATE_KEY.test(privateKey))
    throw new TypeError('buyKeyOnChain: privateKey must be 0x and 64 hex digits');
  if (typeof token !== 'string' || !ADDRESS.test(token))
    throw new TypeError('buyKeyOnChain: token must be 0x and 40 hex digits');
  if (typeof treasury !== 'string' || !ADDRESS.test(treasury))
    throw new TypeError('buyKeyOnChain: treasury must be 0x and 40 hex digits');
  if (tier !== 'pro' && tier !== 'scale') throw new RangeError('buyKeyOnChain: tier must be pro or scale');
  if (typeof annual !== 'boolean') throw new TypeError('buyKeyOnChain: annual must be a boolean');

  const problem = contactProblem(contact);
  if (problem !== undefined)
    throw new OperationError('invalid_input', 'contact_invalid', `${problem} Nothing was paid.`, {
      facts: { path: '/contact' },
    });
  let memo: Uint8Array;
  try {
    memo = encodeMemo({ tier, contact, ...(issuerDid === undefined ? {} : { issuer_did: issuerDid }) });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new OperationError(
      'invalid_input',
      'memo_invalid',
      `${error.message.replace(/^encodeMemo: /, '')} Nothing was paid.`,
      { facts: { path: '/issuer_did' } },
    );
  }
  const amount = keyPrice(tier, annual);
  const data = transferCalldata(treasury, amount, memo);
  let txHash: string;
  try {
    txHash = await sendCall(rpcUrl, privateKey, token, data);
  } catch (error) {
    if (!(error instanceof ChainError)) throw error;
    throw new OperationError(
      'refused',
      'payment_not_sent',
      `The chain did not take the payment, so nothing was paid: ${firstLine(error.message)}`,
      { cause: error },
    );
  }
  return { tx_hash: txHash.toLowerCase(), amount, memo };
}

/** A chain error's first line (viem's messages go on with request details). */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
